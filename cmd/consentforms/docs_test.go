package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsLinksResolve: every relative link of the README and of docs/*.md names a file of
// the repository (anchors aside), so the documentation can be followed from a clone.
func TestDocsLinksResolve(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[1])
			}
		}
	}
}

// TestNothingPointsOutside: no tracked file refers to documents outside the repository; the
// repository explains itself (docs/).
func TestNothingPointsOutside(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
	// Built from parts, so that this file does not match itself.
	patterns := []string{"../sha" + "red/", "/work/sha" + "red", "SPEC" + ".md", "CONTRACT" + ".md", "STYLE" + ".md", "STORES" + ".md"}
	args := []string{"-C", "../..", "grep", "-n", "-F"} // the whole repository, not this directory
	for _, p := range patterns {
		args = append(args, "-e", p)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err == nil {
		t.Errorf("files point outside the repository:\n%s", out)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Skipf("git grep: %v %s", err, out)
	}
}
