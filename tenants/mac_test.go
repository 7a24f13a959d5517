package tenants

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
)

// TestMAC: a MAC reusing its hash states gives HMAC-SHA-256 of the parts joined, also from many
// goroutines at once, and the zero MAC is the MAC under an empty key.
func TestMAC(t *testing.T) {
	want := func(key []byte, msg string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	key := []byte("server key")
	m := NewMAC(key)
	key[0] = 'X' // the MAC keeps its own copy
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprint("person ", i)
			for range 20 {
				if got := m.Sum([]byte("person "), []byte(fmt.Sprint(i))); !bytes.Equal(got, want([]byte("server key"), msg)) {
					t.Errorf("MAC of %q differs from HMAC-SHA-256", msg)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := (MAC{}).Sum([]byte("x")); !bytes.Equal(got, want(nil, "x")) {
		t.Error("the zero MAC is not the MAC under an empty key")
	}
}
