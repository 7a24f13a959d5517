package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// runArgs runs the command line as main would and returns its exit status and output.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, &errOut)
	if err != nil {
		code = exitCode(err, &errOut)
	}
	return code, out.String(), errOut.String()
}

// TestHelp: `help`, `--help` and `-h` list every command on stdout with exit 0; each
// command's --help (and `help COMMAND`) prints its usage and flags on stdout with exit 0,
// touching no store.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"tenant", "--help"}} {
		code, out, errOut := runArgs(args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: consentforms") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		for _, c := range commands() {
			if !strings.Contains(out, "  "+c.name+" ") {
				t.Errorf("%v does not list %q", args, c.name)
			}
		}
	}
	for _, c := range commands() {
		if c.name == "help" {
			continue
		}
		for _, args := range [][]string{append(strings.Fields(c.name), "--help"), append([]string{"help"}, strings.Fields(c.name)...)} {
			code, out, errOut := runArgs(args...)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: consentforms "+c.name) {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
			}
			if strings.Contains(c.args, "--") && !strings.Contains(out, "Flags:") {
				t.Errorf("%v lists no flags: %q", args, out)
			}
		}
	}
	if _, out, _ := runArgs("tenant", "create", "--help"); !strings.Contains(out, "-rate-limit") {
		t.Errorf("tenant create --help: %q", out)
	}
}

// TestUsageErrors: an unknown command, an unknown flag or a stray argument prints the error
// and the usage on stderr, nothing on stdout, and exits 2.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"tenant", "destroy"}, `unknown command "tenant destroy"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"tenant", "create", "--bogus", "x"}, "flag provided but not defined: -bogus"},
		{[]string{"export", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--port", "1"}, "flag provided but not defined: -port"},
		{[]string{"backup"}, "--out is required"},
		{[]string{"receipt", "verify"}, "--file is required"},
		{[]string{"key", "create", "--tenant", "t_x"}, "missing --scopes or --publishable"},
		{[]string{"form", "text", "--tenant", "t_x", "--form-id", "f", "--consent", "primary_purpose", "--lang", "en"}, "missing --file or --text"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "Usage: consentforms") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, %q and the usage on stderr", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestEveryCommandRequiresItsFlags: each store command run without the flags its usage line
// requires (outside brackets, or one of a parenthesised choice) names them and exits 2 with
// the usage on stderr, before it opens any store.
func TestEveryCommandRequiresItsFlags(t *testing.T) {
	for _, c := range commands() {
		if c.flags == nil || len(requiredFlags(c.args))+len(requiredChoices(c.args)) == 0 {
			continue
		}
		code, out, errOut := runArgs(strings.Fields(c.name)...)
		if code != 2 || out != "" || !strings.Contains(errOut, "missing --") || !strings.Contains(errOut, "Usage: consentforms "+c.name) {
			t.Errorf("%s without flags: exit %d, stdout %q, stderr %q", c.name, code, out, errOut)
		}
	}
}

// TestVersion: `version` prints one JSON object with the version, the commit and the Go
// version the binary was built with.
func TestVersion(t *testing.T) {
	code, out, _ := runArgs("version")
	var v map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || len(v) != 3 {
		t.Fatalf("version: exit %d, %q", code, out)
	}
	if v["go"] != runtime.Version() || v["version"] == "" || v["commit"] == "" {
		t.Errorf("version %v", v)
	}
}

// TestUsageTableComplete: every command the dispatch knows (each `case "group verb"` of
// cli.go and each `case "name"` of run) has its row in the usage table, so help lists it.
func TestUsageTableComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range commands() {
		listed[c.name] = true
	}
	for _, file := range []string{"cli.go", "config.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`case ((?:"[a-z-]+(?: [a-z-]+)?",? ?)+):`).FindAllStringSubmatch(string(src), -1) {
			for _, name := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[1], -1) {
				if n := name[1]; !listed[n] && !strings.HasPrefix(n, "-") {
					t.Errorf("%s dispatches %q, which the usage table (usage.go) does not list", file, n)
				}
			}
		}
	}
}
