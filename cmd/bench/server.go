package main

import (
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
	"time"
)

// server is the real consentforms binary running on a data dir.
type server struct {
	bin, dir, url string
	cmd           *exec.Cmd
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func startServer(ctx context.Context, bin, dir string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dir: dir, url: "http://" + addr}
	s.cmd = exec.CommandContext(ctx, bin, "serve")
	s.cmd.Env = append(os.Environ(), "CONSENTFORMS_DATA_DIR="+dir, "CONSENTFORMS_ADDR="+addr,
		"CONSENTFORMS_ADMIN_EMAIL=bench@example.com", "CONSENTFORMS_ADMIN_PASSWORD=bench-password")
	s.cmd.Stdout = io.Discard
	if f, err := os.Create(filepath.Join(dir, "server.log")); err == nil {
		s.cmd.Stderr = f
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(s.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
	}
	s.stop()
	return nil, fmt.Errorf("server did not become ready")
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// cli runs a provisioning command of the binary on the same data dir.
func cli(bin, dir string, args ...string) (map[string]any, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CONSENTFORMS_DATA_DIR="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	var m map[string]any
	return m, json.Unmarshal(out.Bytes(), &m)
}

// post sends a JSON body with the key and returns status and body.
func post(url, key string, body any) (int, []byte, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, rb, nil
}
