package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is the real consentforms binary running on a data dir.
type server struct {
	bin, dir, url string
	env           []string
	cmd           *exec.Cmd
	ready         time.Duration // from start to the first 200 of /readyz
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startServer starts the binary on dir with env added and waits until it is ready.
func startServer(ctx context.Context, bin, dir string, env ...string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dir: dir, url: "http://" + addr, env: env}
	s.cmd = exec.CommandContext(ctx, bin, "serve")
	s.cmd.Env = append(append(os.Environ(), "CONSENTFORMS_DATA_DIR="+dir, "CONSENTFORMS_ADDR="+addr,
		"CONSENTFORMS_ADMIN_EMAIL=bench@example.com", "CONSENTFORMS_ADMIN_PASSWORD=bench-password"), env...)
	s.cmd.Stdout = io.Discard
	if f, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		s.cmd.Stderr = f
	}
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	client := http.Client{Timeout: time.Second}
	for deadline := start.Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if resp, err := client.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				s.ready = time.Since(start)
				return s, nil
			}
		}
	}
	s.stop()
	return nil, fmt.Errorf("server did not become ready")
}

// stop shuts the server down as an operator would (SIGTERM).
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
}

// kill ends the server at once (SIGKILL): no shutdown code runs.
func (s *server) kill() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// usage returns the server's CPU time so far (user and system) and the bytes it has had
// written to storage (/proc/PID/io write_bytes; 0 where the kernel does not count them).
// Per request, both are steadier than throughput on a shared machine: other work slows a
// run down but does not change what one request costs.
func (s *server) usage() (cpu time.Duration, written int64) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid)); err == nil {
		// Fields after the parenthesised command name; utime and stime are fields 14 and 15.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			f := strings.Fields(string(b[i+1:]))
			if len(f) > 13 {
				var ut, st int64
				fmt.Sscan(f[11], &ut)
				fmt.Sscan(f[12], &st)
				cpu = time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", s.cmd.Process.Pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
				fmt.Sscan(v, &written)
			}
		}
	}
	return cpu, written
}

// memory returns the server's resident set now and at its peak, in MiB.
func (s *server) memory() (rss, peak float64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb float64
		switch {
		case strings.HasPrefix(sc.Text(), "VmRSS:"):
			fmt.Sscanf(strings.TrimPrefix(sc.Text(), "VmRSS:"), "%f", &kb)
			rss = kb / 1024
		case strings.HasPrefix(sc.Text(), "VmHWM:"):
			fmt.Sscanf(strings.TrimPrefix(sc.Text(), "VmHWM:"), "%f", &kb)
			peak = kb / 1024
		}
	}
	return rss, peak
}

// cli runs a provisioning command of the binary on the same data dir and store.
func cli(bin, dir string, env []string, args ...string) (map[string]any, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "CONSENTFORMS_DATA_DIR="+dir), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	return m, json.Unmarshal(out.Bytes(), &m)
}

// provision creates a tenant with a form "petition", an API key with every scope and a
// tenant admin, and returns the tenant id and the key. tenantFlags go to `tenant create`.
func provision(bin, dir string, env []string, tenantFlags ...string) (tenantID, key string, err error) {
	t, err := cli(bin, dir, env, append([]string{"tenant", "create", "--name", "Bench", "--rate-limit", "1000000"}, tenantFlags...)...)
	if err != nil {
		return "", "", err
	}
	tenantID = t["id"].(string)
	k, err := cli(bin, dir, env, "key", "create", "--tenant", tenantID, "--scopes", "all")
	if err != nil {
		return "", "", err
	}
	if _, err := cli(bin, dir, env, "form", "create", "--tenant", tenantID, "--form-id", "petition"); err != nil {
		return "", "", err
	}
	_, err = cli(bin, dir, env, "staff", "create", "--email", staffEmail, "--password", staffPassword, "--role", "tenant_admin", "--tenant", tenantID)
	return tenantID, k["key"].(string), err
}

const (
	staffEmail    = "staff@bench.example"
	staffPassword = "bench-password-1"
)

// call sends a request with the key and returns status, body and duration.
func call(method, url, key string, body any) (int, []byte, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, rb, time.Since(start), nil
}
