package mail

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// testBackend is an in-process SMTP server's backend (go-smtp) that
// records what it receives and misbehaves on request.
type testBackend struct {
	user, pass string // set: AUTH PLAIN offered and required

	rcptErr  *smtp.SMTPError // answered to every RCPT
	dataErr  *smtp.SMTPError // answered after the data
	dropData bool            // close the connection while the data comes in
	hangData bool            // never answer the data

	release chan struct{} // closed at cleanup, unblocks a hanging session

	mu       sync.Mutex
	received []received
}

type received struct {
	From string
	To   []string
	Data []byte
	TLS  bool // the session was encrypted (STARTTLS or implicit)
}

func newBackend() *testBackend { return &testBackend{release: make(chan struct{})} }

func (b *testBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &testSession{be: b, conn: c}, nil
}

func (b *testBackend) messages() []received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]received(nil), b.received...)
}

type testSession struct {
	be     *testBackend
	conn   *smtp.Conn
	authed bool
	from   string
	to     []string
}

func (s *testSession) AuthMechanisms() []string {
	if s.be.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.be.user || pass != s.be.pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.be.user != "" && !s.authed {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}
	}
	s.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.be.rcptErr != nil {
		return s.be.rcptErr
	}
	s.to = append(s.to, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	if s.be.dropData {
		_, _ = io.ReadFull(r, make([]byte, 16))
		_ = s.conn.Conn().Close()
		return io.ErrUnexpectedEOF
	}
	if s.be.hangData {
		<-s.be.release
		return io.ErrUnexpectedEOF
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if s.be.dataErr != nil {
		return s.be.dataErr
	}
	_, isTLS := s.conn.TLSConnectionState()
	s.be.mu.Lock()
	s.be.received = append(s.be.received, received{From: s.from, To: s.to, Data: data, TLS: isTLS})
	s.be.mu.Unlock()
	return nil
}

func (s *testSession) Reset()        { s.from, s.to = "", nil }
func (s *testSession) Logout() error { return nil }

type quietLog struct{}

func (quietLog) Printf(string, ...any) {}
func (quietLog) Println(...any)        {}

// serverTLS says how the test server speaks TLS.
type serverTLS int

const (
	plainOnly   serverTLS = iota // no TLS at all
	startTLS                     // offers STARTTLS
	implicitTLS                  // TLS from the first byte
)

// startServer runs be on 127.0.0.1 and returns a Server for it, with the
// test certificate trusted when the server has TLS.
func startServer(t *testing.T, be *testBackend, mode serverTLS) Server {
	t.Helper()
	s := smtp.NewServer(be)
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	s.ErrorLog = quietLog{}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: TLSNone, From: "Beispiel GmbH <noreply@beispiel.de>"}
	if mode != plainOnly {
		cert, pool := testCert(t)
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		srv.rootCAs = pool
		if mode == startTLS {
			s.TLSConfig = cfg
			srv.TLS = TLSStartTLS
		} else {
			ln = tls.NewListener(ln, cfg)
			srv.TLS = TLSImplicit
		}
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() {
		close(be.release)
		_ = s.Close()
	})
	if be.user != "" {
		srv.User, srv.Password = be.user, be.pass
	}
	return srv
}

// testCert makes a self-signed certificate for 127.0.0.1 and localhost and
// a pool that trusts it.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mail test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// silentListener accepts connections and never says a word: a server
// that hangs before its greeting.
func silentListener(t *testing.T) Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, TLS: TLSNone, From: "noreply@beispiel.de"}
}

// refusedServer returns a Server on a port nothing listens on.
func refusedServer(t *testing.T) Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return Server{Host: "127.0.0.1", Port: port, TLS: TLSNone, From: "noreply@beispiel.de"}
}
