package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite/sqlitetest"
)

// floodConns and floodBody are the unauthenticated flood of TestUnauthenticatedBodiesBounded:
// connections, each sending the head of a request and 1,000 KiB of a body it never finishes.
const (
	floodConns = 2000
	floodBody  = 1000 << 10
)

// TestUnauthenticatedBodiesBounded: 2,000 connections without any credential, each sending
// 1,000 KiB of a body it never finishes — to the hosted page, the admin sign-in, the person's
// page and the API — grow the server's memory by less than the bound docs/OPERATIONS.md
// "Limits and overload" gives: the budget of bodies read before a credential plus a
// connection's cost for each connection, and a secret key's submission is still stored
// meanwhile. The server runs in a process of its own, whose
// resident set is read from /proc; the bound is asserted on its peak (VmHWM).
func TestUnauthenticatedBodiesBounded(t *testing.T) {
	if mongoURI != "" {
		t.Skip("the transport's memory, the same on both stores: runs on the embedded store")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max < 3*floodConns {
		t.Skipf("the file limit (%d) is under %d", lim.Max, 3*floodConns)
	}
	lim.Cur = lim.Max
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	dir := t.TempDir()
	if err := sqlitetest.Seed(dir); err != nil {
		t.Fatal(err)
	}
	tn, key := dirTenant(t, dir)
	dirCLI(t, dir, "form", "update", "--tenant", tn, "--form-id", "petition", "--hosted-page", "on")
	c := startChild(t, dir, "CONSENTFORMS_MAX_CONNS_PER_IP=4096", "CONSENTFORMS_MAX_CONNS=4096", "CONSENTFORMS_READ_TIMEOUT=60s")
	u, _ := url.Parse(c.URL)
	pid := c.cmd.Process.Pid
	// Warm: the pages once each, so what grows is the flood's.
	for _, p := range []string{"/f/" + tn + "/petition", "/admin/login", "/readyz"} {
		if code, _, _ := c.get(t, p); code != 200 {
			t.Fatalf("GET %s: %d", p, code)
		}
	}
	time.Sleep(200 * time.Millisecond)
	base := childStatus(t, pid, "VmRSS")
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) // reset VmHWM to now

	paths := []string{"/f/" + tn + "/petition", "/admin/login", "/p/nonsense", "/api/v1/forms/accept-submission"}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	var wg sync.WaitGroup
	var opened, written atomic.Int64
	conns := make([]net.Conn, floodConns)
	for i := range floodConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
			if err != nil {
				return
			}
			conns[i] = nc
			opened.Add(1)
			head := "POST " + paths[i%len(paths)] + " HTTP/1.1\r\nHost: " + u.Host +
				"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + strconv.Itoa(floodBody+1) + "\r\n\r\n"
			_ = nc.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := nc.Write([]byte(head)); err != nil {
				return
			}
			for sent := 0; sent < floodBody; sent += len(chunk) {
				n, err := nc.Write(chunk[:min(len(chunk), floodBody-sent)])
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	held := childStatus(t, pid, "VmRSS")
	peak := childStatus(t, pid, "VmHWM")
	// The flood holds the public budget; a secret key's submission has its own.
	if code, _, body := c.post(t, "/api/v1/forms/accept-submission", key, `{"form_id":"petition","submission_id":"during-flood",`+
		`"email":"flood@example.org","consent_to_primary_purpose":true,"consent_to_primary_purpose_deadline_interval":"2y"}`); code != 200 {
		t.Errorf("a secret-key submission during the flood: %d %s", code, body)
	}
	for _, nc := range conns {
		if nc != nil {
			_ = nc.Close()
		}
	}
	bound := int64(publicBodyBudget + floodConns*connCost)
	t.Logf("%d connections opened, %d MiB of bodies sent; the server's resident set grew by %d MiB (peak %d MiB); bound %d MiB",
		opened.Load(), written.Load()>>20, (held-base)>>20, (peak-base)>>20, bound>>20)
	if opened.Load() < floodConns*9/10 {
		t.Errorf("only %d of %d connections opened", opened.Load(), floodConns)
	}
	if grew := peak - base; grew > bound {
		t.Errorf("the server's peak memory grew by %d MiB under the flood, over the bound of %d MiB", grew>>20, bound>>20)
	}
	if code, _, _ := c.get(t, "/readyz"); code != 200 {
		t.Errorf("after the flood: readyz %d", code)
	}
}

// The bound's terms, as docs/OPERATIONS.md gives them: the budget of bodies read before a
// credential (api.DefaultPublicBodyBytesInFlight) and what one connection holds at most
// without a body read (fasthttp's read and write buffers, its request and response, the
// goroutine's stack).
const (
	publicBodyBudget = 32 << 20
	connCost         = 64 << 10
)

// childStatus reads a memory figure of process pid in bytes.
func childStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	t.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}

// get fetches path from the child and returns the status.
func (c *childServer) get(t *testing.T, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(c.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
