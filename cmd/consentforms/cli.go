package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
)

// storeRun is what a store command does on the open store; it returns the JSON to print.
type storeRun func(context.Context, tenants.Stores) (any, error)

// runCommand runs c with the arguments after its name: a command with its own run runs it;
// a store command declares its flags, parses them, opens the store and prints one JSON
// object on stdout (or returns an error: exit non-zero). SQLite lets a running server and
// the command share the files.
func runCommand(ctx context.Context, cfg Config, c command, args []string, stdout, stderr io.Writer) error {
	if c.run != nil {
		return c.run(ctx, cfg, args, stdout, stderr)
	}
	fs := quietFlags(c.name)
	do := c.flags(fs, cfg, stdout)
	if done, err := parseFlags(c.name, fs, args, stdout); done {
		return err
	}
	if err := missingFlags(c, fs); err != nil {
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
	out, err := do(ctx, store)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, flagErrors(err))
	}
	return json.NewEncoder(stdout).Encode(out)
}

// lookup finds the command args names (one word or two) and the arguments after its name.
func lookup(args []string) (command, []string, bool) {
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) && (c.run != nil || c.flags != nil) {
			return c, args[len(words):], true
		}
	}
	return command{}, nil, false
}

func tenantCreate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	name := fs.String("name", "", "tenant name")
	rate := fs.Int("rate-limit", tenants.DefaultRateLimit, "requests per second per API key")
	ret := retentionFlags(fs)
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return createTenant(ctx, s, *name, *rate, ret)
	}
}

func tenantUpdate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	ret := retentionFlags(fs)
	country := fs.String("default-country", "", `ISO 3166 alpha-2 country national phone numbers are read in ("" clears it)`)
	words := fs.String("sms-stop-words", "", `the tenant's own SMS opt-out words, comma-separated ("" clears them)`)
	identity := map[string]*string{
		"legal-name":    fs.String("legal-name", "", `the organisation's legal name, shown to people and in receipts ("" clears it)`),
		"contact-email": fs.String("contact-email", "", `the organisation's data-protection contact address ("" clears it)`),
		"privacy-url":   fs.String("privacy-url", "", `its privacy notice, https://… ("" clears it)`),
		"address":       fs.String("address", "", `its postal address ("" clears it)`),
		"jurisdiction":  fs.String("jurisdiction", "", `ISO 3166 alpha-2 country whose law it answers to ("" is the default country)`),
	}
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		u := tenantUpdates{retention: ret, setRetention: flagSet(fs, "retention"), country: country, setCountry: flagSet(fs, "default-country"),
			stopWords: words, setStopWords: flagSet(fs, "sms-stop-words")}
		for name, v := range identity {
			if flagSet(fs, name) {
				u.identity = append(u.identity, [2]*string{&name, v})
			}
		}
		return updateTenant(ctx, s, *tenant, u)
	}
}

// tenantStatus is "tenant suspend" or "tenant activate", setting status.
func tenantStatus(status string) func(*flag.FlagSet, Config, io.Writer) storeRun {
	return func(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
		tenant := fs.String("tenant", "", "tenant id")
		return func(ctx context.Context, s tenants.Stores) (any, error) {
			return map[string]any{"id": *tenant, "status": status}, provisioner(s).SetTenantStatus(ctx, cliActor, *tenant, status)
		}
	}
}

func tenantSendGridKey(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	publicKey := fs.String("public-key", "", "SendGrid's verification key: base64 DER or PEM, ECDSA P-256")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return map[string]any{"id": *tenant, "sendgridPublicKey": true}, provisioner(s).SetSendGridKey(ctx, cliActor, *tenant, *publicKey)
	}
}

func keyCreate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	scopes := fs.String("scopes", "", "comma-separated scopes, or all: "+strings.Join(tenants.AllScopes(), ", "))
	name := fs.String("name", defaultKeyName, "key name, shown in lists")
	expires := fs.String("expires", "", "expiry, RFC 3339 (optional)")
	pub := publishableFlags(fs)
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		if *pub.publishable {
			return createPublishableKey(ctx, s, *tenant, *scopes, *name, *expires, pub)
		}
		return createKey(ctx, s, *tenant, *scopes, *name, *expires)
	}
}

func keyRevoke(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	id := fs.String("id", "", "key id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return map[string]any{"id": *id, "revoked": true}, provisioner(s).RevokeKey(ctx, cliActor, *tenant, *id)
	}
}

func formCreate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	formID := fs.String("form-id", "", "form id")
	name := fs.String("name", "", "form name")
	closed := fs.Bool("closed", false, "create the form closed for submissions")
	ret := retentionFlags(fs)
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return createForm(ctx, s, *tenant, *formID, *name, !*closed, ret)
	}
}

func formUpdate(fs *flag.FlagSet, cfg Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	formID := fs.String("form-id", "", "form id")
	doubleOptIn := fs.String("double-opt-in", "", "channels whose consent the person confirms: email,phone, or none")
	lang := fs.String("language", "", `the form's language, ISO 639-1 (de); "" is English`)
	settings := formSettingFlags{
		"double-opt-in":  doubleOptIn,
		"language":       lang,
		"confirm-within": fs.String("confirm-within", "", `how long a confirmation link stays valid (7d, P14D); "" is seven days`),
		"primary-for":    fs.String("primary-for", "", `how long the primary-purpose consent given on the hosted page lasts (1y, P18M); "" is 1y`),
		"contact-for":    fs.String("contact-for", "", `how long the general-contact consents given on the hosted page last (2y); "" is 2y`),
		"hosted-page":    fs.String("hosted-page", "", "on: serve the form's hosted page (/f/…); off: 404 there unless a publishable key names the form"),
		"thank-you-mail": fs.String("thank-you-mail", "", "on: send a thank-you mail after each submission with an address (needs tenant set-smtp); off: none"),
		"remind-after":   fs.String("remind-after", "", `when a confirmation still waiting is mailed once more (3d); none: no reminder; "" is half the confirmation period`),
		"allow-no-js":    fs.String("allow-no-js", "", "on: the hosted page takes submissions without the spam challenge from browsers without script, limited per address and marked unchallenged"),
		"consent-source": fs.String("consent-source", "", `the consent_source the public ways in record; "" is web:<form id>`),
	}
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return updateForm(ctx, s, *tenant, *formID, fs, settings, cfg.ShortIntervals)
	}
}

func formText(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	formID := fs.String("form-id", "", "form id")
	consentName := fs.String("consent", "", "primary_purpose, general_contact_email or general_contact_phone")
	lang := fs.String("lang", "", "the text's language, ISO 639-1 (de)")
	file := fs.String("file", "", "read the text from this file, exactly as it is (UTF-8)")
	text := fs.String("text", "", "the text itself")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return publishText(ctx, s, provision.TextInput{TenantID: *tenant, FormID: *formID, Consent: *consentName, Language: *lang}, fs, *file, *text)
	}
}

func retentionRun(*flag.FlagSet, Config, io.Writer) storeRun { return runRetention }

func auditVerifyCommand(fs *flag.FlagSet, _ Config, stdout io.Writer) storeRun {
	return auditVerify(stdout, fs.String("tenant", "", "verify this tenant's chain only"))
}

func auditAcknowledgeCommand(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	return auditAcknowledge(fs.String("tenant", "", "tenant id"), fs.String("entry", "", "the entry the break is reported at"),
		fs.String("reason", "", "why the break is accepted (kept in the audit log)"))
}

func staffCreate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	email := fs.String("email", "", "e-mail to sign in with")
	password := fs.String("password", "", "password")
	role := fs.String("role", "", strings.Join(tenants.Roles(), "|"))
	tenant := fs.String("tenant", "", "tenant id (not for platform_admin)")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return createStaff(ctx, s, *email, *password, *role, *tenant)
	}
}

// staffDisabled is "staff disable" or "staff enable".
func staffDisabled(disabled bool) func(*flag.FlagSet, Config, io.Writer) storeRun {
	return func(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
		email := fs.String("email", "", "e-mail the user signs in with")
		return func(ctx context.Context, s tenants.Stores) (any, error) {
			return setStaffDisabled(ctx, s, *email, disabled)
		}
	}
}

func staffPassword(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	email := fs.String("email", "", "e-mail the user signs in with")
	password := fs.String("password", "", "the new password, to be changed at the next sign-in")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return setStaffPassword(ctx, s, *email, *password)
	}
}

func tokenCreate(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	provider := fs.String("provider", "", "mailchimp (a URL token) or sendgrid (an OAuth client: the id is the client id, the token the client secret)")
	name := fs.String("name", "", "what the token is for, shown in lists (optional)")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return createToken(ctx, s, *tenant, *provider, *name)
	}
}

func tokenList(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return listTokens(ctx, s, *tenant)
	}
}

func tokenRevoke(fs *flag.FlagSet, _ Config, _ io.Writer) storeRun {
	tenant := fs.String("tenant", "", "tenant id")
	id := fs.String("id", "", "token id")
	return func(ctx context.Context, s tenants.Stores) (any, error) {
		return map[string]any{"id": *id, "revoked": true}, provisioner(s).RevokeToken(ctx, cliActor, *tenant, *id)
	}
}

// rotateSessionKeyCommand needs no store: the keys live outside the database.
func rotateSessionKeyCommand(_ context.Context, cfg Config, args []string, stdout, _ io.Writer) error {
	const name = "secrets rotate-session-key"
	if done, err := parseFlags(name, quietFlags(name), args, stdout); done {
		return err
	}
	out, err := rotateSessionKey(cfg, time.Now())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
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
