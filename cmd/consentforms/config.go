package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/dispatch"
	"github.com/consentforms/consentforms/mongo"
	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
)

// Config is the process configuration, read from the environment (docs/API.md §10).
type Config struct {
	Addr          string
	MongoURI      string
	Database      string
	DataDir       string
	SecretsFile   string
	HMACKey       string // base64; with SessionKey, replaces the secrets file
	SessionKey    string
	AdminEmail    string
	AdminPassword string
	PprofAddr     string // Go profiler listener; empty = off
	// TrustedProxies are the reverse proxies whose X-Forwarded-For/-Proto/-Host are believed
	// (CONSENTFORMS_TRUSTED_PROXIES, comma-separated CIDRs or addresses; none by default).
	TrustedProxies []netip.Prefix
	// PublicURL is the service's public base URL (CONSENTFORMS_PUBLIC_URL, e.g.
	// https://forms.example.org; "" = each request's own): the URL Twilio signs is this plus the
	// request's path and query, and the base of the links sent to people.
	PublicURL string
	// ConfigErr is a setting that could not be read; the server refuses to start with it.
	ConfigErr   error
	MetricsAddr string // separate /metrics listener; empty = the main listener, loopback only
	// ShortIntervals lets form update take a confirmation period and a reminder under one
	// minute (CONSENTFORMS_TEST_SHORT_INTERVALS=1): for the tests, never for people.
	ShortIntervals bool
	// RetentionEvery is how often the retention job runs, a Go duration ("10m"); "0" = never.
	RetentionEvery string
	// Webhooks tunes outgoing webhooks (CONSENTFORMS_WEBHOOK_*, docs/WEBHOOKS.md).
	Webhooks dispatch.Config
	// Limits bound what clients may hold (docs/OPERATIONS.md#limits).
	Limits Limits
	// FullStartCheck (CONSENTFORMS_START_CHECK=full) checks the whole embedded database before
	// listening even after a clean shutdown (docs/OPERATIONS.md#start-up-checks).
	FullStartCheck bool
}

func configFrom(getenv func(string) string) Config {
	or := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	dir := or("CONSENTFORMS_DATA_DIR", "./data")
	proxies, err := parseProxies(getenv("CONSENTFORMS_TRUSTED_PROXIES"))
	hooks, herr := webhookConfig(getenv)
	lim, lerr := limitsFrom(getenv)
	public, perr := publicURL(getenv("CONSENTFORMS_PUBLIC_URL"))
	var cerr error
	check := getenv("CONSENTFORMS_START_CHECK")
	if check != "" && check != "auto" && check != "full" {
		cerr = fmt.Errorf("CONSENTFORMS_START_CHECK: %q is neither auto nor full", check)
	}
	err = errors.Join(err, herr, lerr, perr, cerr)
	return Config{
		FullStartCheck: check == "full",
		TrustedProxies: proxies,
		PublicURL:      public,
		ConfigErr:      err,
		Addr:           or("CONSENTFORMS_ADDR", ":8080"),
		MongoURI:       getenv("MONGODB_URI"),
		Database:       or("MONGODB_DATABASE", "consentforms"),
		DataDir:        dir,
		SecretsFile:    or("CONSENTFORMS_SECRETS_FILE", filepath.Join(dir, "secrets.json")),
		HMACKey:        getenv("CONSENTFORMS_HMAC_KEY"),
		SessionKey:     getenv("CONSENTFORMS_SESSION_KEY"),
		AdminEmail:     getenv("CONSENTFORMS_ADMIN_EMAIL"),
		AdminPassword:  getenv("CONSENTFORMS_ADMIN_PASSWORD"),
		PprofAddr:      getenv("CONSENTFORMS_PPROF_ADDR"),
		MetricsAddr:    getenv("CONSENTFORMS_METRICS_ADDR"),
		RetentionEvery: getenv("CONSENTFORMS_RETENTION_EVERY"),
		ShortIntervals: getenv("CONSENTFORMS_TEST_SHORT_INTERVALS") == "1",
		Webhooks:       hooks,
		Limits:         lim,
	}
}

// publicURL reads CONSENTFORMS_PUBLIC_URL: "" or an absolute http(s) URL without query or
// fragment, returned without its trailing slash.
func publicURL(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("CONSENTFORMS_PUBLIC_URL: %q is not an http(s) base URL such as https://forms.example.org", v)
	}
	return strings.TrimRight(v, "/"), nil
}

// parseProxies reads a comma-separated list of CIDRs or single addresses.
func parseProxies(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return nil, fmt.Errorf("CONSENTFORMS_TRUSTED_PROXIES: %q is neither a CIDR nor an address", f)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// openStore opens the configured database: MongoDB when MONGODB_URI is set, else the
// embedded SQLite store in the data dir.
func openStore(ctx context.Context, cfg Config) (tenants.Stores, error) {
	return openObserved(ctx, cfg, nil, nil)
}

// openObserved is openStore with the writer's batches reported to obs (the server's metrics)
// and damage found by the embedded store's check beside the start reported to onDamage.
func openObserved(ctx context.Context, cfg Config, obs tenants.Observer, onDamage func(error)) (tenants.Stores, error) {
	if cfg.MongoURI != "" {
		return openMongo(ctx, cfg, obs, onDamage == nil)
	}
	s, err := sqlite.Open(ctx, sqlite.Config{Dir: cfg.DataDir, Observer: obs, FullCheck: cfg.FullStartCheck, OnDamage: onDamage,
		Brief: onDamage == nil}) // the server passes onDamage; a CLI command is brief
	if err != nil {
		return tenants.Stores{}, err
	}
	return s.Stores(), nil
}

// openMongo opens the MongoDB store; a CLI command's start (brief) trusts the schema the
// database records as complete, the server's start checks every index (mongo.Config.TrustSchema).
func openMongo(ctx context.Context, cfg Config, obs tenants.Observer, brief bool) (tenants.Stores, error) {
	s, err := mongo.Open(ctx, mongo.Config{URI: cfg.MongoURI, Database: cfg.Database, Observer: obs, TrustSchema: brief})
	if err != nil {
		return tenants.Stores{}, err
	}
	return s.Stores(), nil
}

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// run dispatches the command line: no arguments or "serve" runs the server. The commands
// and their help are listed in usage.go.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg := configFrom(getenv)
	if len(args) == 0 {
		return serve(ctx, cfg, stdout, stderr)
	}
	if isHelp(args[0]) {
		if len(args) == 1 {
			_, err := io.WriteString(stdout, usage())
			return err
		}
		return run(ctx, append(slices.Clone(args[1:]), "--help"), getenv, stdout, stderr)
	}
	if c, rest, ok := lookup(args); ok {
		return runCommand(ctx, cfg, c, rest, stdout, stderr)
	}
	if len(args) > 1 && isHelp(args[1]) && isGroup(args[0]) {
		_, err := io.WriteString(stdout, usage())
		return err
	}
	return unknownCommand(args)
}

// serveCommand is `consentforms serve`, which takes no flags.
func serveCommand(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if done, err := parseFlags("serve", quietFlags("serve"), args, stdout); done {
		return err
	}
	return serve(ctx, cfg, stdout, stderr)
}

// rehashCommand is `consentforms rehash`, which takes no flags.
func rehashCommand(ctx context.Context, cfg Config, args []string, stdout, _ io.Writer) error {
	if done, err := parseFlags("rehash", quietFlags("rehash"), args, stdout); done {
		return err
	}
	return rehash(ctx, cfg, stdout)
}

// versionCommand is `consentforms version`.
func versionCommand(_ context.Context, _ Config, args []string, stdout, _ io.Writer) error {
	return printVersion(args, stdout)
}

// withoutStderr adapts a command that prints nothing on stderr to the table's run.
func withoutStderr(f func(context.Context, Config, []string, io.Writer) error) func(context.Context, Config, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, cfg Config, args []string, stdout, _ io.Writer) error {
		return f(ctx, cfg, args, stdout)
	}
}
