package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/jobs"
)

// shutdownGrace bounds how long in-flight requests may finish after SIGTERM.
const shutdownGrace = 10 * time.Second

// serve runs the HTTP server until ctx ends, then stops accepting, finishes in-flight
// requests, flushes the writer and closes the store.
func serve(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return serveOn(ctx, cfg, ln, stdout, stderr)
}

// serveOn is serve on a listener the caller opened (tests use a random loopback port).
func serveOn(ctx context.Context, cfg Config, ln net.Listener, stdout, stderr io.Writer) (err error) {
	defer ln.Close()
	log := newLogger(stderr)
	if cfg.ConfigErr != nil {
		return cfg.ConfigErr
	}
	retentionEvery, err := parseRetentionEvery(cfg.RetentionEvery)
	if err != nil {
		return err
	}
	m := newMetrics()
	// Damage that the embedded store's check beside the start finds stops the server like
	// SIGTERM does, and serveOn returns it (the next start checks before listening and refuses).
	ctx, damaged := context.WithCancelCause(ctx)
	defer damaged(nil)
	defer func() {
		if cause := context.Cause(ctx); errors.Is(cause, sqlite.ErrDamaged) {
			err = cause
		}
	}()
	store, err := openObserved(ctx, cfg, m, damaged)
	if err != nil {
		return err
	}
	// Closing the store writes what its writer has queued.
	defer store.Close(context.Background())
	keys, err := readyStore(ctx, cfg, store, stdout, log)
	if err != nil {
		return err
	}
	lim := cfg.Limits.withDefaults(raiseFileLimit())
	urls := publicURLs{configured: cfg.PublicURL, links: linkBase(cfg.PublicURL, ln.Addr())}
	if cfg.PublicURL == "" {
		log.Warn("CONSENTFORMS_PUBLIC_URL is not set: the links the service mails and shows to people point at "+urls.links+
			", which only this machine can open; set it to the address people reach the service at", "linkBase", urls.links)
	}
	ring := newKeyring(cfg, keys)
	app, cases, err := build(store, keys, ring, cfg.TrustedProxies, urls, cfg.Webhooks.Policy, lim, log, m)
	if err != nil {
		return err
	}
	if cfg.MetricsAddr == "" {
		mountMetrics(app, m)
	} else {
		stopMetrics, err := startMetrics(cfg.MetricsAddr, m, log)
		if err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
		defer stopMetrics()
	}

	if cfg.PprofAddr != "" {
		stopPprof, err := startPprof(cfg.PprofAddr, log)
		if err != nil {
			return fmt.Errorf("profiler: %w", err)
		}
		defer stopPprof()
	}
	if cfg.Webhooks.Policy.AllowInsecure {
		log.Warn("CONSENTFORMS_WEBHOOK_ALLOW_INSECURE is set: outgoing webhooks may go to plain http and to private and loopback addresses; use it for development only")
	}
	log.Info("listening", "addr", ln.Addr().String(), "store", storeName(cfg), "maxConns", lim.MaxConns, "maxConnsPerIP", lim.MaxConnsPerIP)
	served := make(chan error, 1)
	go func() { served <- app.Listener(newLimitListener(ln, lim, cfg.TrustedProxies, log)) }()
	// Stopped before the store closes (deferred earlier): no job writes to a closed store.
	background := jobs.Start(ctx, serverJobs(ctx, cfg, store, cases, mailOutbox(store, ring.SecretsKeys, m), retentionEvery, log)...)
	defer background.Stop()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	background.Stop()
	if err := app.ShutdownWithTimeout(shutdownGrace); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// readyStore checks the store against the secrets file (refusing a store or a secrets file
// that lost the other), re-keys its records when the keying changed, creates the first
// platform admin when it has none, and returns the secrets.
func readyStore(ctx context.Context, cfg Config, store tenants.Stores, stdout io.Writer, log *slog.Logger) (secrets, error) {
	if err := refuseLostSecrets(ctx, cfg, store); err != nil {
		return secrets{}, err
	}
	keys, err := loadSecrets(cfg)
	if err != nil {
		return secrets{}, err
	}
	if err := refuseLostData(ctx, cfg, keys, store); err != nil {
		return secrets{}, err
	}
	if err := rekeyAtStart(ctx, store, keys, log); err != nil {
		return secrets{}, fmt.Errorf("re-keying records: %w", err)
	}
	if err := firstAdmin(ctx, store, cfg, stdout); err != nil {
		return secrets{}, err
	}
	// The store holds data now (the first admin at least): the secrets file says so.
	return keys, refuseLostData(ctx, cfg, keys, store)
}

// storeName names the configured store for the log.
func storeName(cfg Config) string {
	if cfg.MongoURI != "" {
		return "mongodb"
	}
	return "sqlite"
}

// firstAdmin creates the platform admin on first start with an empty staff collection and
// prints its login once.
func firstAdmin(ctx context.Context, store tenants.Stores, cfg Config, stdout io.Writer) error {
	n, err := store.Staff.Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	email, password := cfg.AdminEmail, cfg.AdminPassword
	if email == "" {
		email = "admin@consentforms.local"
	}
	if password == "" {
		b := make([]byte, 15)
		_, _ = rand.Read(b)
		password = base64.RawURLEncoding.EncodeToString(b)
	}
	// A printed password has been on a terminal and in logs: it must be changed at first sign-in.
	if _, err := provisioner(store).CreateFirstAdmin(ctx, email, password, cfg.AdminPassword == ""); err != nil {
		return fmt.Errorf("first admin: %w", err)
	}
	if cfg.AdminPassword == "" {
		fmt.Fprintf(stdout, "Platform admin created. Sign in at %s with\n  email:    %s\n  password: %s\nThis password is shown once; you will be asked to change it when you first sign in.\n",
			adminLoginURL(cfg.Addr), email, password)
	} else {
		fmt.Fprintf(stdout, "Platform admin created: %s (password from CONSENTFORMS_ADMIN_PASSWORD). Sign in at %s\n", email, adminLoginURL(cfg.Addr))
	}
	return nil
}
