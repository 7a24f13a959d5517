// Package dispatchtest gives tests a webhook receiver that holds every request open and
// counts the requests it holds at once, to see how many attempts a dispatcher has in flight to
// one endpoint. It is imported by tests only.
package dispatchtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
)

// Holding is a receiver that answers no request until Release (or until the request's client
// gives up).
type Holding struct {
	*httptest.Server
	open, most atomic.Int64
	release    chan struct{}
	once       sync.Once
}

// NewHolding starts a Holding receiver; Close stops it.
func NewHolding() *Holding {
	h := &Holding{release: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := h.open.Add(1)
		for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
		}
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
		h.open.Add(-1)
	}))
	return h
}

// Open is how many requests it holds now.
func (h *Holding) Open() int64 { return h.open.Load() }

// Most is the most requests it held at once.
func (h *Holding) Most() int64 { return h.most.Load() }

// Release answers the requests held, and every later one at once.
func (h *Holding) Release() { h.once.Do(func() { close(h.release) }) }

// Close releases the requests held and stops the receiver.
func (h *Holding) Close() {
	h.Release()
	h.Server.Close()
}
