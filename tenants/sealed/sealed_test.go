package sealed

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	old := Key{ID: "1", Key: bytes.Repeat([]byte{1}, 32)}
	cur := Key{ID: "2", Key: bytes.Repeat([]byte{2}, 32)}
	before, _ := New(old)
	after, err := New(cur, old)
	if err != nil {
		t.Fatal(err)
	}
	v, err := before.Seal("auth-token", "t1/twilio")
	if err != nil || strings.Contains(v, "auth-token") {
		t.Fatalf("Seal = %q, %v", v, err)
	}
	if got, err := after.Open(v, "t1/twilio"); err != nil || got != "auth-token" {
		t.Fatalf("Open under a retired key = %q, %v", got, err)
	}
	if after.Current(v) {
		t.Error("a value of the retired key reads as current")
	}
	for name, open := range map[string]func() (string, error){
		"other owner":     func() (string, error) { return after.Open(v, "t2/twilio") },
		"key dropped":     func() (string, error) { onlyCur, _ := New(cur); return onlyCur.Open(v, "t1/twilio") },
		"tampered":        func() (string, error) { return after.Open(v[:len(v)-2]+"AA", "t1/twilio") },
		"not sealed":      func() (string, error) { return after.Open("auth-token", "t1/twilio") },
		"unknown version": func() (string, error) { return after.Open("v9"+v[2:], "t1/twilio") },
	} {
		if _, err := open(); !errors.Is(err, ErrUnreadable) {
			t.Errorf("%s: Open = %v, want ErrUnreadable", name, err)
		}
	}
	if _, err := New(Key{ID: "1", Key: []byte("short")}); err == nil {
		t.Error("New accepted a short key")
	}
}
