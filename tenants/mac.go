package tenants

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
)

// MAC computes HMAC-SHA-256 under one key and reuses its hash states: hmac.New hashes the key
// and allocates two SHA-256 states at every call, and the request path makes several MACs
// under the same server key (match keys, signed links). Safe for concurrent use; the zero MAC
// uses an empty key.
type MAC struct{ pool *sync.Pool }

// NewMAC returns a MAC under a copy of key.
func NewMAC(key []byte) MAC {
	k := bytes.Clone(key)
	return MAC{pool: &sync.Pool{New: func() any { return hmac.New(sha256.New, k) }}}
}

// Sum returns the MAC of the concatenation of parts.
func (m MAC) Sum(parts ...[]byte) []byte {
	if m.pool == nil {
		m = NewMAC(nil)
	}
	h := m.pool.Get().(hash.Hash)
	h.Reset()
	for _, p := range parts {
		h.Write(p)
	}
	sum := h.Sum(nil)
	m.pool.Put(h)
	return sum
}
