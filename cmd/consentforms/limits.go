package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Limits are the server's bounds on what clients may hold (docs/OPERATIONS.md#limits), read
// from CONSENTFORMS_* variables; zero fields take their defaults at start.
type Limits struct {
	// MaxConns caps open client connections (CONSENTFORMS_MAX_CONNS); by default three
	// quarters of the file limit, the rest kept for the store, logs and outgoing webhooks.
	MaxConns int
	// MaxConnsPerIP caps one peer address's connections (CONSENTFORMS_MAX_CONNS_PER_IP,
	// default 256; trusted proxies are not capped).
	MaxConnsPerIP int
	// ReadTimeout bounds reading one request, headers and body (CONSENTFORMS_READ_TIMEOUT,
	// default 30s).
	ReadTimeout time.Duration
	// BodyBytesInFlight bounds the request body bytes all requests together hold at once
	// (CONSENTFORMS_MAX_BODY_BYTES_IN_FLIGHT, default 256 MiB).
	BodyBytesInFlight int64
	// PublicBodyBytesInFlight bounds the body bytes held at once by all requests without a
	// secret credential: the admin and person pages, the hosted form, signed provider
	// webhooks, publishable keys (CONSENTFORMS_MAX_PUBLIC_BODY_BYTES_IN_FLIGHT, default 32 MiB).
	PublicBodyBytesInFlight int64
	// PasswordChecks bounds concurrent admin password checks (CONSENTFORMS_MAX_PASSWORD_CHECKS,
	// default the number of CPUs).
	PasswordChecks int
	// TenantRateFactor is a tenant's rate limit over all its keys as a multiple of its per-key
	// limit (CONSENTFORMS_TENANT_RATE_FACTOR, default 5).
	TenantRateFactor int
}

func limitsFrom(getenv func(string) string) (Limits, error) {
	var l Limits
	var errs []error
	ints := []struct {
		env string
		dst *int
	}{
		{"CONSENTFORMS_MAX_CONNS", &l.MaxConns},
		{"CONSENTFORMS_MAX_CONNS_PER_IP", &l.MaxConnsPerIP},
		{"CONSENTFORMS_MAX_PASSWORD_CHECKS", &l.PasswordChecks},
		{"CONSENTFORMS_TENANT_RATE_FACTOR", &l.TenantRateFactor},
	}
	for _, d := range ints {
		if v := getenv(d.env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s: want a positive integer", d.env))
			}
			*d.dst = n
		}
	}
	for _, d := range []struct {
		env string
		dst *int64
	}{{"CONSENTFORMS_MAX_BODY_BYTES_IN_FLIGHT", &l.BodyBytesInFlight}, {"CONSENTFORMS_MAX_PUBLIC_BODY_BYTES_IN_FLIGHT", &l.PublicBodyBytesInFlight}} {
		if v := getenv(d.env); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				errs = append(errs, errors.New(d.env+": want a positive number of bytes"))
			}
			*d.dst = n
		}
	}
	if v := getenv("CONSENTFORMS_READ_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, errors.New("CONSENTFORMS_READ_TIMEOUT: want a positive Go duration such as 30s"))
		}
		l.ReadTimeout = d
	}
	return l, errors.Join(errs...)
}

// withDefaults fills the zero fields; files is the process's open-file limit.
func (l Limits) withDefaults(files uint64) Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = int(min(files*3/4, 1<<20))
		if files > 512 {
			l.MaxConns = int(min(files-128, 1<<20))
		}
		l.MaxConns = max(l.MaxConns, 16)
	}
	if l.MaxConnsPerIP <= 0 {
		l.MaxConnsPerIP = 256
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = 30 * time.Second
	}
	if l.BodyBytesInFlight <= 0 {
		l.BodyBytesInFlight = 256 << 20
	}
	if l.PublicBodyBytesInFlight <= 0 {
		l.PublicBodyBytesInFlight = 32 << 20
	}
	if l.PasswordChecks <= 0 {
		l.PasswordChecks = max(2, runtime.NumCPU())
	}
	return l
}

// raiseFileLimit raises the soft open-file limit to the hard one and returns it (Go does this
// at start on most systems; this makes it so on all, and tells the limit to size MaxConns).
func raiseFileLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 1024
	}
	if r.Cur < r.Max {
		n := r
		n.Cur = n.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &n) == nil {
			r = n
		}
	}
	return r.Cur
}

// limitListener caps the open connections, in all and per peer address, and keeps accepting
// when the process runs out of file descriptors: a connection over a cap is closed at once,
// and an accept that fails for want of descriptors is retried after a growing pause (up to a
// second) instead of stopping the server.
type limitListener struct {
	net.Listener
	max, perIP int
	trusted    []netip.Prefix
	log        *slog.Logger

	mu     sync.Mutex
	open   int
	byAddr map[netip.Addr]int
	warned time.Time
}

func newLimitListener(ln net.Listener, l Limits, trusted []netip.Prefix, log *slog.Logger) *limitListener {
	return &limitListener{Listener: ln, max: l.MaxConns, perIP: l.MaxConnsPerIP, trusted: trusted, log: log, byAddr: map[netip.Addr]int{}}
}

func (l *limitListener) Accept() (net.Conn, error) {
	pause := 5 * time.Millisecond
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM) {
				l.warn("out of file descriptors; accepting again shortly", err)
				time.Sleep(pause)
				pause = min(2*pause, time.Second)
				continue
			}
			return nil, err
		}
		pause = 5 * time.Millisecond
		addr := peerAddr(c)
		if capped, ok := l.admit(addr); ok {
			return &limitedConn{Conn: c, release: func() { l.release(addr, capped) }}, nil
		}
		_ = c.Close()
	}
}

// admit takes a slot for a connection from addr, if one is free; capped tells whether it
// counts against the address's own cap.
func (l *limitListener) admit(addr netip.Addr) (capped, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		l.warnLocked("connection limit reached; closing new connections", nil)
		return false, false
	}
	capped = addr.IsValid() && !l.isTrusted(addr)
	if capped && l.byAddr[addr] >= l.perIP {
		l.warnLocked("connections of one address over its limit; closing new ones", nil)
		return false, false
	}
	l.open++
	if capped {
		l.byAddr[addr]++
	}
	return capped, true
}

func (l *limitListener) isTrusted(a netip.Addr) bool {
	for _, p := range l.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func (l *limitListener) release(addr netip.Addr, capped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if capped {
		if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
			delete(l.byAddr, addr)
		}
	}
}

func (l *limitListener) warn(msg string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.warnLocked(msg, err)
}

// warnLocked logs at most once a second.
func (l *limitListener) warnLocked(msg string, err error) {
	if time.Since(l.warned) < time.Second || l.log == nil {
		return
	}
	l.warned = time.Now()
	if err != nil {
		l.log.Warn(msg, "err", err.Error(), "open", l.open)
	} else {
		l.log.Warn(msg, "open", l.open, "max", l.max)
	}
}

func peerAddr(c net.Conn) netip.Addr {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		if a, ok := netip.AddrFromSlice(ta.IP); ok {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}

// limitedConn gives its slot back once when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
