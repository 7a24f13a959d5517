package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/tenants/sealed"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// cliActor is how the audit log names the CLI.
var cliActor = provision.Actor{Name: "cli", Operator: true}

// provisioner runs the provisioning operations on an open store, for the CLI.
func provisioner(s tenants.Stores) *provision.Service { return provisionOn(s, webhook.Policy{}, nil) }

// provisionOn is the one wiring of the provisioning operations: the CLI's (provisioner) and,
// with the webhook URL policy and the keys that seal SMS secrets, the admin UI's (build).
func provisionOn(s tenants.Stores, p webhook.Policy, secretsKeys func() *sealed.Keys) *provision.Service {
	return &provision.Service{Tenants: s.Tenants, APIKeys: s.APIKeys, Forms: s.Forms, Texts: s.Texts, Staff: s.Staff, Sessions: s.Sessions,
		Tokens: s.Tokens, Endpoints: s.Outbox, Audit: s.Audit, SMS: s.SMS, Now: time.Now, WebhookPolicy: p, SecretsKeys: secretsKeys,
		CheckMailServer: checkMailServer}
}

// flagErrors words provisioning's refusals with the command's flags:
// "--name: Give a name of at most 200 characters. (too_long)".
func flagErrors(err error) error {
	var vs tenants.Violations
	if !errors.As(err, &vs) {
		return err
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = "--" + flagOf(v.Field) + ": " + v.Message + " (" + v.Code + ")"
		if v.Field == "scope" && v.Code == provision.CodeUnknown {
			parts[i] += "; the scopes are " + strings.Join(tenants.AllScopes(), ", ")
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// flagOf is the flag that sets a provisioning input.
func flagOf(field string) string {
	switch field {
	case "scope", "event":
		return field + "s"
	}
	return strings.ReplaceAll(field, "_", "-")
}

// retentionOut adds a retention that is set to a command's output.
func retentionOut(m map[string]any, retention, from string) map[string]any {
	if retention != "" {
		m["retention"], m["retentionFrom"] = retention, from
	}
	return m
}

func createTenant(ctx context.Context, s tenants.Stores, name string, rate int, ret retentionOptions) (any, error) {
	t, err := provisioner(s).CreateTenant(ctx, cliActor, provision.TenantInput{Name: name, RateLimit: rate,
		Retention: *ret.retention, RetentionFrom: *ret.from})
	if err != nil {
		return nil, err
	}
	return retentionOut(map[string]any{"id": t.ID, "name": t.Name, "rateLimit": t.RateLimit}, t.Retention, t.RetentionFrom), nil
}

func createKey(ctx context.Context, s tenants.Stores, tenantID, scopes, name, expires string) (any, error) {
	var exp *time.Time
	if err := keyExpiry(expires, &exp); err != nil {
		return nil, err
	}
	k, plain, err := provisioner(s).IssueKey(ctx, cliActor, provision.KeyInput{TenantID: tenantID, Name: name, Scopes: commaList(scopes), ExpiresAt: exp})
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": k.ID, "key": plain, "scopes": k.Scopes}, nil
}

func createForm(ctx context.Context, s tenants.Stores, tenantID, formID, name string, open bool, ret retentionOptions) (any, error) {
	f, err := provisioner(s).CreateForm(ctx, cliActor, provision.FormInput{TenantID: tenantID, FormID: formID, Name: name, Open: open,
		Retention: *ret.retention, RetentionFrom: *ret.from})
	if err != nil {
		return nil, err
	}
	return retentionOut(map[string]any{"formId": f.FormID}, f.Retention, f.RetentionFrom), nil
}

// updateForm applies the form settings the command line set and prints the form's settings.
// formSettingFlags are form update's setting flags by name; only those given change.
type formSettingFlags map[string]*string

func updateForm(ctx context.Context, s tenants.Stores, tenantID, formID string, fs *flag.FlagSet, flags formSettingFlags, short bool) (any, error) {
	in := provision.FormSettings{TenantID: tenantID, FormID: formID, ShortIntervals: short}
	given := func(name string) *string {
		if flagSet(fs, name) {
			return flags[name]
		}
		return nil
	}
	if v := given("double-opt-in"); v != nil {
		channels := strings.Split(*v, ",")
		in.DoubleOptIn = &channels
	}
	in.Language, in.ConfirmWithin = given("language"), given("confirm-within")
	in.PrimaryFor, in.ContactFor = given("primary-for"), given("contact-for")
	in.HostedPage, in.AllowNoJS, in.ConsentSource = given("hosted-page"), given("allow-no-js"), given("consent-source")
	in.ThankYouMail, in.RemindAfter = given("thank-you-mail"), given("remind-after")
	if in.DoubleOptIn == nil && in.Language == nil && in.ConfirmWithin == nil && in.PrimaryFor == nil && in.ContactFor == nil &&
		in.HostedPage == nil && in.AllowNoJS == nil && in.ConsentSource == nil && in.ThankYouMail == nil && in.RemindAfter == nil {
		return nil, errors.New("give at least one of --double-opt-in, --language, --confirm-within, --primary-for, --contact-for, --hosted-page, --allow-no-js, --consent-source, --thank-you-mail, --remind-after")
	}
	f, err := provisioner(s).UpdateFormSettings(ctx, cliActor, in)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, fmt.Errorf("tenant %q has no form %q", tenantID, formID)
	}
	if err != nil {
		return nil, err
	}
	return formSettingsOut(f), nil
}

// formSettingsOut is the settings of f as form update prints them: each with the value in
// force, a default as its value.
func formSettingsOut(f tenants.Form) map[string]any {
	primary, contact := f.ConsentDeadlines()
	return map[string]any{"formId": f.FormID, "language": f.Language, "doubleOptIn": nonNil(f.DoubleOptIn),
		"confirmWithin": f.ConfirmPeriod(), "primaryFor": primary, "contactFor": contact,
		"hostedPage": onOff(f.HostedPage), "allowNoJs": onOff(f.AllowNoJS), "consentSource": f.PublicSource(), "thankYouMail": onOff(f.ThankYouMail),
		"remindAfter": f.Reminder()}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// publishText publishes the text given by --text or read from --file (one of them).
func publishText(ctx context.Context, s tenants.Stores, in provision.TextInput, fs *flag.FlagSet, file, text string) (any, error) {
	switch {
	case flagSet(fs, "file") == flagSet(fs, "text"):
		return nil, errors.New("give the text with either --file or --text")
	case flagSet(fs, "file"):
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read --file: %w", err)
		}
		in.Text = string(b)
	default:
		in.Text = text
	}
	t, err := provisioner(s).PublishText(ctx, cliActor, in)
	if errors.Is(err, tenants.ErrNotFound) {
		return nil, fmt.Errorf("tenant %q has no form %q", in.TenantID, in.FormID)
	}
	if err != nil {
		return nil, flagErrors(err)
	}
	return map[string]any{"version": t.ID, "hash": t.Hash, "consent": tenants.ConsentKey(t.Consent), "language": t.Language,
		"publishedAt": t.PublishedAt.UTC()}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func createStaff(ctx context.Context, s tenants.Stores, email, password, role, tenantID string) (any, error) {
	st, err := provisioner(s).CreateStaff(ctx, cliActor, provision.StaffInput{Email: email, Password: password, Role: role, TenantID: tenantID, Operator: true})
	if errors.Is(err, tenants.ErrConflict) {
		return nil, errors.New("a staff user with this e-mail exists")
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": st.ID}, nil
}

// createToken issues a webhook token for a provider that can present no credentials but the
// URL (Mailchimp); the plaintext is printed once, only its hash is stored.
func createToken(ctx context.Context, s tenants.Stores, tenantID, provider, name string) (any, error) {
	t, plain, err := provisioner(s).IssueToken(ctx, cliActor, provision.TokenInput{TenantID: tenantID, Provider: provider, Name: name})
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": t.ID, "token": plain, "name": t.Name}, nil
}

// listTokens lists the tenant's webhook tokens, newest first, with their names and last use;
// never a secret.
func listTokens(ctx context.Context, s tenants.Stores, tenantID string) (any, error) {
	if err := requireTenant(ctx, s, tenantID); err != nil {
		return nil, err
	}
	list, err := s.Tokens.List(ctx, tenantID)
	out := make([]map[string]any, len(list))
	for i, t := range list {
		out[i] = map[string]any{"id": t.ID, "provider": t.Provider, "name": t.Name, "createdAt": t.CreatedAt,
			"lastUsedAt": t.LastUsedAt, "revokedAt": t.RevokedAt}
	}
	return map[string]any{"tokens": out}, err
}

// setStaffDisabled disables or re-enables the staff user signing in with email; disabling
// ends their sessions on every instance. The way back for an operator whose only platform
// admin was disabled.
func setStaffDisabled(ctx context.Context, s tenants.Stores, email string, disabled bool) (any, error) {
	st, err := staffByEmail(ctx, s, email)
	if err != nil {
		return nil, err
	}
	if err := provisioner(s).SetStaffDisabled(ctx, cliActor, st, disabled); err != nil {
		return nil, err
	}
	return map[string]any{"id": st.ID, "disabled": disabled}, nil
}

// defaultKeyName names a key issued without --name: every key has a name to be told apart by.
const defaultKeyName = "CLI key"
