package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestBodiesNeverFillMemory: a gzip bomb (900 KiB inflating to 900 MiB, as a multipart
// sign-in form, as a SendGrid webhook, as a submission) and a 9 MiB body are refused (415,
// 413) while the server's peak memory grows by less than 50 MB. Not parallel: it measures
// the test process, which runs the server.
func TestBodiesNeverFillMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self")
	}
	s := startServer(t)
	k := s.key(openTenant(s), "all")
	// Concatenated gzip members inflate to the sum of their contents.
	var one bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte("a"), 1<<20))
	_ = zw.Close()
	bomb := bytes.Repeat(one.Bytes(), 900)
	multipart := append([]byte("--b\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n"), bomb...)

	runtime.GC()
	debug.FreeOSMemory()
	base := procStatus(t, "VmRSS")
	resetPeak := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	for _, c := range []struct {
		name, path, contentType, encoding string
		body                              []byte
		status                            int
	}{
		{"multipart gzip sign-in", "/admin/login", "multipart/form-data; boundary=b", "gzip", multipart, 415},
		{"multipart sign-in, not compressed", "/admin/login", "multipart/form-data; boundary=b", "", multipart, 415},
		{"gzip SendGrid webhook", "/api/v1/sendgrid/unsubscribe?tenant=x", "application/json", "gzip", bomb[:256<<10], 415},
		{"gzip submission", acceptPath, "application/json", "gzip", bomb, 415},
		{"9 MiB submission", acceptPath, "application/json", "", bytes.Repeat([]byte(" "), 9<<20), 413},
	} {
		req, _ := http.NewRequest("POST", s.URL+c.path, bytes.NewReader(c.body))
		req.Header.Set("Content-Type", c.contentType)
		req.Header.Set("Authorization", "Bearer "+k)
		if c.encoding != "" {
			req.Header.Set("Content-Encoding", c.encoding)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			// The server may close the connection on an oversized body before the client
			// has written it all; refused either way.
			t.Logf("%s: %v", c.name, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.status)
		}
	}
	peak := procStatus(t, "VmRSS")
	if resetPeak {
		peak = procStatus(t, "VmHWM")
	}
	if grew := peak - base; grew > 50<<20 {
		t.Errorf("peak memory grew by %d MB, want under 50", grew>>20)
	} else {
		t.Logf("peak memory grew by %.1f MB", float64(grew)/(1<<20))
	}
}

// procStatus reads a memory figure of this process in bytes.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n << 10
		}
	}
	t.Fatalf("%s not in /proc/self/status", field)
	return 0
}
