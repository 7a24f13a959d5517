package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
)

// TestServeChild is not a test: it runs the server when a test starts this binary as a
// child process (CONSENTFORMS_TEST_CHILD=serve), so that a test can kill it.
func TestServeChild(t *testing.T) {
	if os.Getenv("CONSENTFORMS_TEST_CHILD") != "serve" {
		t.Skip("runs only as a child process")
	}
	// As main: SIGTERM stops the server cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, []string{"serve"}, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childServer is the server in a process of its own on dir.
type childServer struct {
	URL    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{} // closed once the process has exited
}

// alive reports whether the child still runs.
func (c *childServer) alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

func startChild(t *testing.T, dir string, env ...string) *childServer {
	t.Helper()
	return startChildUnder(t, dir, nil, env...)
}

// startChildUnder starts the child under a wrapper command (e.g. prlimit and its options),
// none when nil.
func startChildUnder(t *testing.T, dir string, wrapper []string, env ...string) *childServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := &childServer{URL: "http://" + addr, stderr: &syncBuffer{}, exited: make(chan struct{})}
	argv := append(append([]string{}, wrapper...), os.Args[0], "-test.run=^TestServeChild$")
	c.cmd = exec.Command(argv[0], argv[1:]...)
	c.cmd.Env = append(os.Environ(), "CONSENTFORMS_TEST_CHILD=serve", "CONSENTFORMS_DATA_DIR="+dir, "CONSENTFORMS_ADDR="+addr,
		"CONSENTFORMS_ADMIN_EMAIL=root@example.com", "CONSENTFORMS_ADMIN_PASSWORD=root-password-1")
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stdout, c.cmd.Stderr = io.Discard, c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() { _ = c.cmd.Process.Kill(); <-c.exited })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(c.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return c
			}
		}
		if !c.alive() || time.Now().After(deadline) {
			t.Fatalf("child server not ready: %v\n%s", err, c.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dirEnv is the environment of the CLI on the data dir dir.
func dirEnv(dir string) func(string) string {
	return func(k string) string {
		if k == "CONSENTFORMS_DATA_DIR" {
			return dir
		}
		return ""
	}
}

// dirCLI runs a CLI command on the data dir dir and returns what it printed.
func dirCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, dirEnv(dir), &out, io.Discard); err != nil {
		t.Fatalf("cli %v: %v", args, err)
	}
	return out.String()
}

// dirTenant provisions, on the data dir dir, a tenant with a generous rate limit, its form
// "petition" and a key of every scope, and returns the tenant id and the key.
func dirTenant(t *testing.T, dir string) (string, string) {
	t.Helper()
	var created struct{ ID, Key string }
	decode(t, dirCLI(t, dir, "tenant", "create", "--name", "Org "+t.Name(), "--rate-limit", "100000"), &created)
	tn := created.ID
	dirCLI(t, dir, "form", "create", "--tenant", tn, "--form-id", "petition")
	decode(t, dirCLI(t, dir, "key", "create", "--tenant", tn, "--scopes", "all"), &created)
	return tn, created.Key
}

// post sends a JSON body with key to the child and returns the status, headers and body.
func (c *childServer) post(t *testing.T, path, key, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", c.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// sqliteShell returns the sqlite3 shell's path (requiredTool).
func sqliteShell(t *testing.T) string {
	t.Helper()
	return requiredTool(t, "sqlite3", "apt-get install sqlite3")
}

// requiredTool returns the path of a command a test needs: without it the test is skipped,
// except in CI (CI=true), where it is installed and its absence is a failure.
func requiredTool(t *testing.T, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (%s)", name, install)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

func shell(t *testing.T, bin, db, sql string) string {
	t.Helper()
	out, err := exec.Command(bin, db, sql).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestOperatorReadKeepsServerLocks: an operator reading the live database with the sqlite3
// shell must not take the server's locks away. Afterwards 60 acknowledged writes survive a
// SIGKILL, a backup holds them, the server writes into no deleted write-ahead log, and the
// database passes its integrity check.
func TestOperatorReadKeepsServerLocks(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("the embedded store's file locks")
	}
	bin := sqliteShell(t)
	dir := t.TempDir()
	_, key := dirTenant(t, dir)
	cli := func(args ...string) string { return dirCLI(t, dir, args...) }
	c := startChild(t, dir)
	db := filepath.Join(dir, sqlite.FileName)
	// Some writes, and time for the server's background work on the files (its checkpointer
	// looks at the log every 200 ms) to have run, before the operator comes.
	for i := range 5 {
		body := fmt.Sprintf(`{"form_id":"petition","submission_id":"early-%d","consent_to_general_contact_email":true,"email":"e%d@example.org"}`, i, i)
		if st, _, b := c.post(t, acceptPath, key, body); st != 200 {
			t.Fatalf("submission %d: %d %s", i, st, b)
		}
	}
	time.Sleep(time.Second)
	assertIndexLocked(t, db, c.cmd.Process.Pid)
	// The operator's ordinary read, a whole shell session that opens and closes the file.
	if got := shell(t, bin, db, "SELECT count(*) FROM tenants;"); got != "1" {
		t.Fatalf("tenants = %q", got)
	}
	const n = 60
	for i := range n {
		body := fmt.Sprintf(`{"form_id":"petition","submission_id":"lock-%d","consent_to_general_contact_email":true,"email":"p%d@example.org"}`, i, i)
		if st, _, b := c.post(t, acceptPath, key, body); st != 200 {
			t.Fatalf("submission %d: %d %s", i, st, b)
		}
	}
	// The server writes into the log on disk, not into one the shell unlinked.
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", c.cmd.Process.Pid))
	for _, fd := range fds {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", c.cmd.Process.Pid, fd.Name()))
		if strings.Contains(target, sqlite.FileName) && strings.HasSuffix(target, "(deleted)") {
			t.Errorf("the server holds a deleted file of the database: %s", target)
		}
	}
	out := filepath.Join(t.TempDir(), "backup.db")
	cli("backup", "--out", out)
	if got := shell(t, bin, out, "SELECT count(*) FROM records WHERE public_id LIKE 'lock-%';"); got != fmt.Sprint(n) {
		t.Errorf("the backup holds %s of %d acknowledged submissions", got, n)
	}

	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
	if got := shell(t, bin, db, "PRAGMA integrity_check;"); got != "ok" {
		t.Errorf("integrity_check after SIGKILL: %s", got)
	}
	if got := shell(t, bin, db, "SELECT count(*) FROM records WHERE public_id LIKE 'lock-%';"); got != fmt.Sprint(n) {
		t.Errorf("after SIGKILL the database holds %s of %d acknowledged submissions", got, n)
	}
}

// assertIndexLocked fails unless process pid holds SQLite's read lock on the log index's
// "dead man switch" byte (128 of db-shm in SQLite's unix VFS): a process that finds no such
// lock takes the index for unused and resets it. Any descriptor of the file that the server
// closes drops that lock.
func assertIndexLocked(t *testing.T, db string, pid int) {
	t.Helper()
	f, err := os.Open(db + "-shm") // this process holds no lock there: closing drops nothing
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 128, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if lk.Type != syscall.F_RDLCK || int(lk.Pid) != pid {
		t.Errorf("the server (pid %d) no longer holds its lock on the log index (lock type %d, pid %d)", pid, lk.Type, lk.Pid)
	}
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
}

// TestStartRefusesDamagedOrLostDatabase: the server refuses, with a clear message, to start on
// a database with damaged pages, and on an empty (or missing) database beside a secrets file
// that was used with data; it starts again once the database is back.
func TestStartRefusesDamagedOrLostDatabase(t *testing.T) {
	t.Parallel()
	if mongoURI != "" {
		t.Skip("the embedded store's file")
	}
	dir := t.TempDir()
	_, key := dirTenant(t, dir)
	c := startChild(t, dir)
	for i := range 30 {
		body := fmt.Sprintf(`{"form_id":"petition","submission_id":"d-%d","consent_to_general_contact_email":true,"email":"d%d@example.org"}`, i, i)
		if st, _, b := c.post(t, acceptPath, key, body); st != 200 {
			t.Fatalf("submission %d: %d %s", i, st, b)
		}
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	<-c.exited
	if c.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the server did not stop cleanly: %s", c.stderr.String())
	}
	db := filepath.Join(dir, sqlite.FileName)
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	start := func() error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return serveOn(ctx, configFrom(dirEnv(dir)), ln, io.Discard, io.Discard)
	}

	// The clean stop left its marker: the next start checks the file beside the running server.
	mark, err := os.ReadFile(db + ".clean")
	if err != nil {
		t.Fatalf("no clean-shutdown marker after SIGTERM: %v", err)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}

	// Damage the pages of an index of the records: the table's rows would go missing.
	page, root := pageOf(t, db, "records_created")
	bad := append([]byte(nil), good...)
	for i := (root - 1) * page; i < root*page; i++ {
		bad[i] = 0x5a
	}
	if err := os.WriteFile(db, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	// Damaged while stopped without a trace in the file's size or time, after a clean stop:
	// the check beside the start finds it and the server stops with the refusal.
	if err := os.Chtimes(db, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db+".clean", mark, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := start(); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "backup") {
		t.Errorf("start after a clean stop on a database damaged since: %v, want the server stopped with a refusal that says it is damaged", err)
	}
	// That start consumed the marker: this one checks before listening and refuses.
	if err := start(); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "backup") {
		t.Errorf("start on a damaged database: %v, want a refusal that says it is damaged", err)
	}
	if _, err := os.Stat(db + ".clean"); err == nil {
		t.Error("a stop after a start on a damaged database left a clean-shutdown marker")
	}
	// An empty database file, and none at all, beside the secrets file of that data.
	for _, name := range []string{"empty file", "missing file"} {
		_ = os.Remove(db + "-wal")
		_ = os.Remove(db + "-shm")
		if name == "empty file" {
			err = os.WriteFile(db, nil, 0o600)
		} else {
			err = os.Remove(db)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := start(); err == nil || !strings.Contains(err.Error(), "secrets file") {
			t.Errorf("start on an %s beside the secrets file: %v, want a refusal", name, err)
		}
	}
	// Restored, it starts (and stops when its context ends).
	_ = os.Remove(db + "-wal")
	_ = os.Remove(db + "-shm")
	if err := os.WriteFile(db, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := start(); err != nil {
		t.Errorf("start on the restored database: %v", err)
	}
}

// pageOf returns the page size of the database at path and the root page of the b-tree name.
func pageOf(t *testing.T, path, name string) (size, root int) {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if err := d.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", name).Scan(&root); err != nil {
		t.Fatal(err)
	}
	return size, root
}
