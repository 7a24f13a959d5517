package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
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
			return createTenant(ctx, s, *name, *rate, ret)
		}
	case "tenant update":
		tenant := fs.String("tenant", "", "tenant id")
		ret := retentionFlags(fs)
		country := fs.String("default-country", "", `ISO 3166 alpha-2 country national phone numbers are read in ("" clears it)`)
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return updateTenant(ctx, s, *tenant, ret, flagSet(fs, "retention"), country, flagSet(fs, "default-country"))
		}
	case "retention run":
		run = runRetention
	case "audit verify":
		run = auditVerify(stdout, fs.String("tenant", "", "verify this tenant's chain only"))
	case "audit acknowledge":
		run = auditAcknowledge(fs.String("tenant", "", "tenant id"), fs.String("entry", "", "the entry the break is reported at"),
			fs.String("reason", "", "why the break is accepted (kept in the audit log)"))
	case "key create":
		tenant := fs.String("tenant", "", "tenant id")
		scopes := fs.String("scopes", "", "comma-separated scopes, or all")
		name := fs.String("name", defaultKeyName, "key name, shown in lists")
		expires := fs.String("expires", "", "expiry, RFC 3339 (optional)")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return createKey(ctx, s, *tenant, *scopes, *name, *expires)
		}
	case "key revoke":
		tenant := fs.String("tenant", "", "tenant id")
		id := fs.String("id", "", "key id")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return map[string]any{"id": *id, "revoked": true}, provisioner(s).RevokeKey(ctx, cliActor, *tenant, *id)
		}
	case "form create":
		tenant := fs.String("tenant", "", "tenant id")
		formID := fs.String("form-id", "", "form id")
		name := fs.String("name", "", "form name")
		closed := fs.Bool("closed", false, "create the form closed for submissions")
		ret := retentionFlags(fs)
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
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
			return map[string]any{"id": *tenant, "sendgridPublicKey": true}, provisioner(s).SetSendGridKey(ctx, cliActor, *tenant, *publicKey)
		}
	case "tenant suspend", "tenant activate":
		tenant := fs.String("tenant", "", "tenant id")
		status := map[string]string{"tenant suspend": tenants.TenantSuspended, "tenant activate": tenants.TenantActive}[cmd]
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return map[string]any{"id": *tenant, "status": status}, provisioner(s).SetTenantStatus(ctx, cliActor, *tenant, status)
		}
	case "token create":
		tenant := fs.String("tenant", "", "tenant id")
		provider := fs.String("provider", "", "provider whose webhook presents the token: mailchimp")
		name := fs.String("name", "", "what the token is for, shown in lists (optional)")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return createToken(ctx, s, *tenant, *provider, *name)
		}
	case "token list":
		tenant := fs.String("tenant", "", "tenant id")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return listTokens(ctx, s, *tenant)
		}
	case "token revoke":
		tenant := fs.String("tenant", "", "tenant id")
		id := fs.String("id", "", "token id")
		run = func(ctx context.Context, s tenants.Stores) (any, error) {
			return map[string]any{"id": *id, "revoked": true}, provisioner(s).RevokeToken(ctx, cliActor, *tenant, *id)
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
		return fmt.Errorf("%s: %w", cmd, flagErrors(err))
	}
	return json.NewEncoder(stdout).Encode(out)
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
