package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// cli runs a provisioning command: one JSON object on stdout, or an error (exit non-zero).
// It opens the store itself: SQLite lets a running server and the CLI share the files.
func cli(ctx context.Context, cfg Config, args []string, stdout io.Writer) error {
	cmd := args[0] + " " + args[1]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var run func(context.Context, tenants.Stores) (any, error)
	switch cmd {
	case "tenant create":
		name := fs.String("name", "", "tenant name")
		rate := fs.Int("rate-limit", tenants.DefaultRateLimit, "requests per second per API key")
		ret := retentionFlags(fs)
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if err := ret.check(); err != nil {
				return nil, err
			}
			return createTenant(ctx, s, *name, *rate, ret)
		}
	case "tenant update":
		tenant := fs.String("tenant", "", "tenant id")
		ret := retentionFlags(fs)
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if !flagSet(fs, "retention") {
				return nil, errors.New("--retention is required (\"\" clears the default retention)")
			}
			return updateTenantRetention(ctx, s, *tenant, ret)
		}
	case "retention run":
		run = runRetention
	case "audit verify":
		run = auditVerify(stdout, fs.String("tenant", "", "verify this tenant's chain only"))
	case "key create":
		tenant := fs.String("tenant", "", "tenant id")
		scopes := fs.String("scopes", "", "comma-separated scopes, or all")
		name := fs.String("name", "", "key name")
		expires := fs.String("expires", "", "expiry, RFC 3339 (optional)")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return createKey(ctx, s, *tenant, *scopes, *name, *expires)
		}
	case "key revoke":
		tenant := fs.String("tenant", "", "tenant id")
		id := fs.String("id", "", "key id")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if err := s.APIKeys.Revoke(ctx, *tenant, *id, time.Now().UTC()); err != nil {
				return nil, err
			}
			return map[string]any{"id": *id, "revoked": true}, audit(ctx, s, *tenant, tenants.ActionAPIKeyRevoked, *id)
		}
	case "form create":
		tenant := fs.String("tenant", "", "tenant id")
		formID := fs.String("form-id", "", "form id")
		name := fs.String("name", "", "form name")
		closed := fs.Bool("closed", false, "create the form closed for submissions")
		ret := retentionFlags(fs)
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if err := ret.check(); err != nil {
				return nil, err
			}
			return createForm(ctx, s, *tenant, *formID, *name, !*closed, ret)
		}
	case "staff create":
		email := fs.String("email", "", "e-mail to sign in with")
		password := fs.String("password", "", "password")
		role := fs.String("role", "", strings.Join(tenants.Roles, "|"))
		tenant := fs.String("tenant", "", "tenant id (not for platform_admin)")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return createStaff(ctx, s, *email, *password, *role, *tenant)
		}
	case "tenant set-sendgrid-key":
		tenant := fs.String("tenant", "", "tenant id")
		publicKey := fs.String("public-key", "", "SendGrid's verification key: base64 DER or PEM, ECDSA P-256")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return setSendGridKey(ctx, s, *tenant, *publicKey)
		}
	case "tenant suspend", "tenant activate":
		tenant := fs.String("tenant", "", "tenant id")
		status := map[string]string{"tenant suspend": tenants.TenantSuspended, "tenant activate": tenants.TenantActive}[cmd]
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if err := requireTenant(ctx, s, *tenant); err != nil {
				return nil, err
			}
			if err := s.Tenants.SetStatus(ctx, *tenant, status); err != nil {
				return nil, err
			}
			return map[string]any{"id": *tenant, "status": status}, audit(ctx, s, *tenant, tenants.ActionTenantChanged, *tenant)
		}
	case "token create":
		tenant := fs.String("tenant", "", "tenant id")
		provider := fs.String("provider", "", "provider whose webhook presents the token: mailchimp")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return createToken(ctx, s, *tenant, *provider)
		}
	case "token revoke":
		tenant := fs.String("tenant", "", "tenant id")
		id := fs.String("id", "", "token id")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			if err := s.Tokens.Revoke(ctx, *tenant, *id, time.Now().UTC()); err != nil {
				return nil, err
			}
			return map[string]any{"id": *id, "revoked": true}, audit(ctx, s, *tenant, tenants.ActionWebhookChanged, *id)
		}
	case "staff disable", "staff enable":
		email := fs.String("email", "", "e-mail the user signs in with")
		disabled := cmd == "staff disable"
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return setStaffDisabled(ctx, s, *email, disabled)
		}
	case "staff set-password":
		email := fs.String("email", "", "e-mail the user signs in with")
		password := fs.String("password", "", "the new password, to be changed at the next sign-in")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return setStaffPassword(ctx, s, *email, *password)
		}
	case "secrets rotate-session-key":
		// Needs no store: the keys live outside the database.
		if done, err := parseFlags(cmd, fs, args[2:], stdout); done {
			return err
		}
		out, err := rotateSessionKey(cfg, time.Now())
		if err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
		return json.NewEncoder(stdout).Encode(out)
	default:
		if run = webhookCommand(cmd, fs, cfg); run == nil {
			return unknownCommand(args)
		}
	}
	if done, err := parseFlags(cmd, fs, args[2:], stdout); done {
		return err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close(context.Background())
	if err := ensureSecrets(ctx, cfg, store); err != nil {
		return err
	}
	out, err := run(ctx, store)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return json.NewEncoder(stdout).Encode(out)
}

func randomID(prefix string) string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	out := []byte(prefix)
	for _, x := range b {
		out = append(out, alphabet[x&31])
	}
	return string(out)
}

func audit(ctx context.Context, s tenants.Stores, tenantID, action, id string) error {
	return s.Audit.Append(ctx, tenants.AuditEntry{Time: time.Now().UTC(), TenantID: tenantID, Actor: "cli", Action: action, RecordIDs: []string{id}})
}

func createTenant(ctx context.Context, s tenants.Stores, name string, rate int, ret retentionOptions) (any, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return nil, errors.New("--name is required (at most 200 characters)")
	}
	if rate < 1 || rate > 1000000 {
		return nil, errors.New("--rate-limit must be between 1 and 1000000")
	}
	t := tenants.Tenant{ID: randomID("t_"), Name: name, Status: tenants.TenantActive, RateLimit: rate, CreatedAt: time.Now().UTC(),
		Retention: *ret.retention, RetentionFrom: *ret.from}
	if err := s.Tenants.Insert(ctx, t); err != nil {
		return nil, err
	}
	return withRetention(map[string]any{"id": t.ID, "name": t.Name, "rateLimit": t.RateLimit}, ret), audit(ctx, s, t.ID, tenants.ActionTenantCreated, t.ID)
}

func requireTenant(ctx context.Context, s tenants.Stores, id string) error {
	if id == "" {
		return errors.New("--tenant is required")
	}
	if _, err := s.Tenants.Get(ctx, id); err != nil {
		if errors.Is(err, tenants.ErrNotFound) {
			return fmt.Errorf("no tenant %q", id)
		}
		return err
	}
	return nil
}

func createKey(ctx context.Context, s tenants.Stores, tenantID, scopes, name, expires string) (any, error) {
	if err := requireTenant(ctx, s, tenantID); err != nil {
		return nil, err
	}
	var list []string
	for _, sc := range strings.Split(scopes, ",") {
		if sc = strings.TrimSpace(sc); sc != "" {
			list = append(list, sc)
		}
	}
	var exp *time.Time
	if expires != "" {
		t, err := time.Parse(time.RFC3339, expires)
		if err != nil {
			return nil, errors.New("--expires must be an RFC 3339 date-time")
		}
		exp = &t
	}
	k, plain, err := tenants.NewAPIKey(tenantID, name, list, exp, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	if err := s.APIKeys.Insert(ctx, k); err != nil {
		return nil, err
	}
	return map[string]any{"id": k.ID, "key": plain, "scopes": k.Scopes}, audit(ctx, s, tenantID, tenants.ActionAPIKeyIssued, k.ID)
}

func createForm(ctx context.Context, s tenants.Stores, tenantID, formID, name string, open bool, ret retentionOptions) (any, error) {
	if err := requireTenant(ctx, s, tenantID); err != nil {
		return nil, err
	}
	if !tenants.ValidFormID(formID) {
		return nil, errors.New("--form-id is required: 1 to 128 characters of A-Z a-z 0-9 . _ : -")
	}
	now := time.Now().UTC()
	f := tenants.Form{TenantID: tenantID, FormID: formID, Name: name, Open: open, CreatedAt: now, UpdatedAt: now,
		Retention: *ret.retention, RetentionFrom: *ret.from}
	if err := s.Forms.Insert(ctx, f); err != nil {
		if errors.Is(err, tenants.ErrConflict) {
			return nil, fmt.Errorf("tenant %s already has a form %q", tenantID, formID)
		}
		return nil, err
	}
	return withRetention(map[string]any{"formId": formID}, ret), audit(ctx, s, tenantID, tenants.ActionFormChanged, formID)
}

func createStaff(ctx context.Context, s tenants.Stores, email, password, role, tenantID string) (any, error) {
	if tenantID != "" {
		if err := requireTenant(ctx, s, tenantID); err != nil {
			return nil, err
		}
	}
	if !tenants.ValidStaffEmail(email) {
		return nil, errors.New("--email must be an e-mail address")
	}
	st, err := tenants.NewStaff(randomID("u_"), email, password, role, tenantID, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	if err := s.Staff.Insert(ctx, st); err != nil {
		if errors.Is(err, tenants.ErrConflict) {
			return nil, errors.New("a staff user with this e-mail exists")
		}
		return nil, err
	}
	return map[string]any{"id": st.ID}, audit(ctx, s, tenantID, tenants.ActionStaffCreated, st.ID)
}

// setSendGridKey stores the tenant's SendGrid signed-webhook verification key, normalised
// to base64 DER.
func setSendGridKey(ctx context.Context, s tenants.Stores, tenantID, publicKey string) (any, error) {
	if err := requireTenant(ctx, s, tenantID); err != nil {
		return nil, err
	}
	key, err := unsubscribe.ParsePublicKey(publicKey)
	if err != nil {
		return nil, fmt.Errorf("--public-key: %w", err)
	}
	if err := s.Tenants.SetSendGridKey(ctx, tenantID, key); err != nil {
		return nil, err
	}
	return map[string]any{"id": tenantID, "sendgridPublicKey": true}, audit(ctx, s, tenantID, tenants.ActionWebhookChanged, tenantID)
}

// createToken issues a webhook token for a provider that can present no credentials but the
// URL (Mailchimp); the plaintext is printed once, only its hash is stored.
func createToken(ctx context.Context, s tenants.Stores, tenantID, provider string) (any, error) {
	if err := requireTenant(ctx, s, tenantID); err != nil {
		return nil, err
	}
	if provider != "mailchimp" {
		return nil, errors.New("--provider must be mailchimp (the only provider that authenticates with a URL token)")
	}
	t, plain, err := tenants.NewWebhookToken(tenantID, provider, time.Now().UTC())
	if err != nil {
		return nil, err
	}
	if err := s.Tokens.Insert(ctx, t); err != nil {
		return nil, err
	}
	return map[string]any{"id": t.ID, "token": plain}, audit(ctx, s, tenantID, tenants.ActionWebhookChanged, t.ID)
}
