package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite/sqlitetest"
)

// testServer is the real server on a fresh embedded store in a temp dir, on a random
// loopback port, provisioned through the real CLI code path.
type testServer struct {
	t   *testing.T
	URL string
	// LinkBase is the base of the links the server makes: CONSENTFORMS_PUBLIC_URL, else
	// http://localhost:<port>.
	LinkBase string
	Dir      string
	env      map[string]string
	stdout   *syncBuffer
	stderr   *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer starts a server on a fresh store and stops it when the test ends, checking a
// clean exit. The store is the embedded one, or a fresh database of the MongoDB stand-in when
// the suite runs against MongoDB (CONSENTFORMS_TEST_STORE=mongo).
func startServer(t *testing.T, env ...string) *testServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "cf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if mongoURI == "" {
		// The files of a freshly migrated store, migrated once per test process
		// (TestFreshDataDir and the other startOn tests still start on empty dirs).
		if err := sqlitetest.Seed(dir); err != nil {
			t.Fatal(err)
		}
	}
	return startOn(t, dir, append(storeEnv(t), env...)...)
}

// startOn starts a server on dir with env ("KEY=value") and stops it when the test ends.
func startOn(t *testing.T, dir string, env ...string) *testServer {
	t.Helper()
	s := &testServer{t: t, Dir: dir, stdout: &syncBuffer{}, stderr: &syncBuffer{},
		env: map[string]string{"CONSENTFORMS_DATA_DIR": dir, "CONSENTFORMS_ADMIN_EMAIL": "root@example.com", "CONSENTFORMS_ADMIN_PASSWORD": "root-password-1",
			// The tests' confirmation periods and reminders last seconds.
			"CONSENTFORMS_TEST_SHORT_INTERVALS": "1"}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		s.env[k] = v
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.URL = "http://" + ln.Addr().String()
	s.LinkBase = strings.TrimRight(s.env["CONSENTFORMS_PUBLIC_URL"], "/")
	if s.LinkBase == "" {
		s.LinkBase = "http://localhost:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, configFrom(s.getenv), ln, s.stdout, s.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server exit: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("server did not stop within 20s")
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		select {
		case err := <-done:
			t.Fatalf("server exited early: %v\n%s", err, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready: %v\n%s", err, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *testServer) getenv(k string) string { return s.env[k] }

// cli runs a provisioning command against the running server's store and decodes its JSON.
func (s *testServer) cli(args ...string) map[string]any {
	s.t.Helper()
	out, err := s.cliErr(args...)
	if err != nil {
		s.t.Fatalf("cli %v: %v", args, err)
	}
	return out
}

func (s *testServer) cliErr(args ...string) (map[string]any, error) {
	var buf bytes.Buffer
	if err := run(context.Background(), args, s.getenv, &buf, io.Discard); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		s.t.Fatalf("cli %v printed %q: %v", args, buf.String(), err)
	}
	return m, nil
}

// tenant provisions a tenant with an open form "petition" and returns its id.
func (s *testServer) tenant(extra ...string) string {
	s.t.Helper()
	id := s.cli(append([]string{"tenant", "create", "--name", "Org " + s.t.Name()}, extra...)...)["id"].(string)
	s.cli("form", "create", "--tenant", id, "--form-id", "petition", "--name", "Petition")
	return id
}

// key issues an API key with scopes for tenant.
func (s *testServer) key(tenant, scopes string) string {
	s.t.Helper()
	return s.cli("key", "create", "--tenant", tenant, "--scopes", scopes)["key"].(string)
}

// response is a decoded HTTP answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body as an object.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", r.Body, err)
	}
	return m
}

// do sends a request; body is marshalled unless it is a string or []byte. headers are
// "Name: value" strings.
func (s *testServer) do(method, path, key string, body any, headers ...string) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// dataFiles returns the bytes of every file of the embedded store.
func (s *testServer) dataFiles() map[string][]byte {
	s.t.Helper()
	out := map[string][]byte{}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(s.Dir, e.Name()))
			if err != nil {
				s.t.Fatal(err)
			}
			out[e.Name()] = b
		}
	}
	return out
}
