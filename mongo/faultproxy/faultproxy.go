// Package faultproxy is a TCP proxy for the tests of the MongoDB store: it stands between the
// store and the database and cuts connections, refuses new ones or delays traffic, on demand
// or at random points of the byte stream (seeded, so that a failing run can be repeated). It
// is imported by tests only.
package faultproxy

import (
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards connections from its address to a target.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	conns   map[*link]struct{}
	refuse  bool
	latency time.Duration
	cutP    float64
	rng     *rand.Rand

	cuts    atomic.Int64
	wg      sync.WaitGroup
	closing atomic.Bool
}

// link is one proxied connection: the client's side and the target's.
type link struct {
	client, server net.Conn
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		_ = l.client.Close()
		_ = l.server.Close()
	})
}

// Start listens on a free loopback port and forwards to target (host:port).
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[*link]struct{}{}, rng: rand.New(rand.NewPCG(1, 1))}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address, 127.0.0.1:PORT.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URI is a MongoDB connection string to the target through the proxy.
func (p *Proxy) URI() string { return "mongodb://" + p.Addr() + "/" }

// Cut closes every open connection, as a network failure or a database restart would.
func (p *Proxy) Cut() {
	p.mu.Lock()
	ls := make([]*link, 0, len(p.conns))
	for l := range p.conns {
		ls = append(ls, l)
	}
	p.mu.Unlock()
	for _, l := range ls {
		l.close()
		p.cuts.Add(1)
	}
}

// Refuse makes new connections close at once (on) or be forwarded again (off).
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	p.refuse = on
	p.mu.Unlock()
}

// Latency delays every chunk forwarded, either way, by d.
func (p *Proxy) Latency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// Chaos cuts a connection, after forwarding a chunk of it either way, with probability prob,
// drawn from a generator seeded with seed; prob 0 stops it.
func (p *Proxy) Chaos(seed uint64, prob float64) {
	p.mu.Lock()
	p.cutP, p.rng = prob, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	p.mu.Unlock()
}

// Cuts counts the connections cut so far.
func (p *Proxy) Cuts() int64 { return p.cuts.Load() }

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.closing.Store(true)
	_ = p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if p.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.mu.Lock()
		refuse := p.refuse
		p.mu.Unlock()
		if refuse {
			_ = c.Close()
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			_ = c.Close()
			continue
		}
		l := &link{client: c, server: s}
		p.mu.Lock()
		p.conns[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(l, c, s)
		go p.pipe(l, s, c)
	}
}

// pipe copies from src to dst chunk by chunk, applying the latency and the chaos.
func (p *Proxy) pipe(l *link, src, dst net.Conn) {
	defer p.wg.Done()
	defer func() {
		l.close()
		p.mu.Lock()
		delete(p.conns, l)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			delay, cut := p.latency, p.cutP > 0 && p.rng.Float64() < p.cutP
			forward := cut && p.rng.IntN(2) == 0
			p.mu.Unlock()
			if delay > 0 {
				time.Sleep(delay)
			}
			if cut {
				// Half the cuts forward the chunk first: the command reached the database (or
				// its answer the client) and the other side never hears of it.
				if forward {
					_, _ = dst.Write(buf[:n])
				}
				p.cuts.Add(1)
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a cut: the deferred close ends the other direction too
		}
	}
}
