package main

import (
	mathrand "math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/mongo/ferrettest"
)

// TestMongoUnreachable: while MongoDB cannot be reached the API answers 503 with Retry-After
// within 10 s and stores nothing; when the database is back, the same server answers again,
// without a restart.
func TestMongoUnreachable(t *testing.T) {
	t.Parallel()
	addr := fixedLoopbackAddr(t)
	files := t.TempDir()
	db, err := ferrettest.Start(files, addr)
	if err != nil {
		t.Fatal(err)
	}
	s := startOn(t, t.TempDir(), "MONGODB_URI="+db.URI(), "MONGODB_DATABASE=outage")
	tn := openTenant(s)
	k := s.key(tn, "all")
	submit := func(id string) response {
		return call(t, s, "POST", acceptPath, k, map[string]any{"form_id": "petition", "submission_id": id,
			"email": "outage@example.org", "consent_to_general_contact_email": true})
	}
	if r := submit("before"); r.Status != 200 {
		t.Fatalf("before the outage: %d %s", r.Status, r.Body)
	}
	db.Stop()
	start := time.Now()
	r := submit("during")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the answer took %v, want at most 10 s", d)
	}
	m := r.JSON(t)
	if r.Status != 503 || m["error"] != "ServiceUnavailable" || r.Header.Get("Retry-After") == "" {
		t.Errorf("during the outage: %d %s (Retry-After %q), want 503 ServiceUnavailable", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if ready := call(t, s, "GET", "/readyz", "", nil); ready.Status != 503 {
		t.Errorf("/readyz during the outage: %d", ready.Status)
	}
	if m := call(t, s, "GET", "/metrics", "", nil); !strings.Contains(string(m.Body), `consentforms_store_errors_total{op="insert records"}`) {
		t.Errorf("the failed write is not counted by operation:\n%s", grepLines(string(m.Body), "store_errors"))
	}
	db, err = ferrettest.Start(files, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := submit("after")
		if r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the database came back: %d %s", r.Status, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if g := call(t, s, "GET", "/api/v1/forms/submissions/during", k, nil); g.Status != 404 {
		t.Errorf("the submission answered 503 was stored: %d", g.Status)
	}
	if g := call(t, s, "GET", "/api/v1/forms/submissions/before", k, nil); g.Status != 200 {
		t.Errorf("the submission from before the outage: %d", g.Status)
	}
}

// fixedLoopbackAddr is a free loopback address for a server that stops and starts again on
// it. The port is below the kernel's range of ephemeral ports, so that no other process's
// connection or port-0 listener takes it while the server is down (in a busy test run one
// did, and the restart failed with "address already in use").
func fixedLoopbackAddr(t *testing.T) string {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	for range 100 {
		port := 10000 + mathrand.IntN(max(low-10000, 1))
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			addr := ln.Addr().String()
			ln.Close()
			return addr
		}
	}
	t.Fatal("no free loopback port below the ephemeral range")
	return ""
}
