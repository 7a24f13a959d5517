package main

import (
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/consentforms/consentforms/admin"
	"github.com/consentforms/consentforms/api"
	"github.com/consentforms/consentforms/pages"
	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/cache"
	"github.com/consentforms/consentforms/tenants/links"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/webhook"
	"github.com/gofiber/fiber/v2"
)

// build wires the store, the domain operations, the API and the admin UI.
func build(store tenants.Stores, keys secrets, ring *keyring, proxies []netip.Prefix, urls publicURLs, hooks webhook.Policy, lim Limits, log *slog.Logger, m *metrics) (*fiber.App, ops.Cases, error) {
	enf, err := policies.New()
	if err != nil {
		return nil, ops.Cases{}, err
	}
	apiKeys, tens, forms := cache.NewKeys(store.APIKeys), cache.NewTenants(store.Tenants), cache.NewForms(store.Forms)
	texts := cache.NewTexts(store.Texts)
	cases := ops.New(ops.Config{Tenants: store.Tenants, Records: store.Records, Forms: store.Forms, IntakeForms: forms, Writer: store.Writer,
		Hasher: tenants.NewHasher(keys.HMAC), Now: time.Now, Rights: store.Records, Audit: store.Audit, Texts: texts,
		Observer: m, Bulk: store.Bulk, SMS: store.SMS, FormList: store.Forms, Staff: store.Staff,
		PersonLinks: &links.Links{Signer: links.NewSigner(keys.HMAC), PublicURL: urls.links}, SpentTokens: store.SpentTokens, Outbox: store.Outbox,
		SubjectRequests: store.SubjectRequests, WebhookDiag: &ops.WebhookDiagnostics{Repo: store.WebhookDiag, Now: time.Now}})
	purgeForm := func(tenantID, formID string) { forms.Purge(tenantID, formID); texts.Purge(tenantID, formID) }
	a := api.NewServer(api.Deps{Keys: apiKeys, Tenants: tens, Forms: forms, Records: store.Records, Tokens: store.Tokens,
		Intake: cases.Intake, Persons: cases.Persons, Rights: cases.Rights, Links: cases.Core, Confirmations: cases.Pages, Observer: m,
		ReceiptKeys: receiptKeysOf(store.SMS, ring.SecretsKeys, keys.HMAC),
		Enforcer:    enf, Ready: store.Ping, Logger: log, Now: time.Now, TrustedProxies: prefixStrings(proxies),
		ObserveRequest: m.Request, Diagnostics: cases.WebhookDiag,
		SMSSecrets: ops.SMSSecrets{Repo: store.SMS, Keys: ring.SecretsKeys}, PublicURL: urls.configured,
		OAuthKey:    derive(keys.HMAC, "consentforms sendgrid oauth access tokens"),
		ReadTimeout: lim.ReadTimeout, BodyBytesInFlight: lim.BodyBytesInFlight,
		PublicBodyBytesInFlight: lim.PublicBodyBytesInFlight, Concurrency: lim.MaxConns,
		TenantRateFactor: lim.TenantRateFactor, WebForms: webFormsDeps(store, keys)})
	app := newApp(a, pages.Deps{TrustedProxies: proxies, Logger: log, Now: time.Now, Links: cases.Pages,
		Forms: formPagesDeps(store, keys, tens, forms, cases)}, admin.Deps{Store: admin.Store{Tenants: store.Tenants, APIKeys: store.APIKeys, Forms: store.Forms,
		Staff: store.Staff, Audit: store.Audit, Records: store.Records, Tokens: store.Tokens, Sessions: store.Sessions, Texts: store.Texts,
		Chains: store.AuditChains, Outbox: store.Outbox, Bulk: store.Bulk, SMS: store.SMS}, Persons: cases.Persons, Bulk: cases.Bulk, Rights: cases.Rights, Requests: cases.Requests, Observer: m,
		Provision: provisionOn(store, hooks, ring.SecretsKeys), Diagnostics: cases.WebhookDiag,
		Enforcer: enf, Logger: log, SessionKeys: ring.SessionKeys, TrustedProxies: proxies, PurgeKey: apiKeys.Purge, PurgeForm: purgeForm, PurgeTenant: tens.Purge, Now: time.Now,
		PasswordChecks: lim.PasswordChecks, ExportJSON: api.ExportView, PublicURL: urls.links,
		Mail: mailServers{repo: store.SMS, keys: ring.SecretsKeys}})
	return app, cases, nil
}

// publicURLs are the service's public base URLs: configured is CONSENTFORMS_PUBLIC_URL as
// set ("" unset: Twilio's signature is then checked over the request's own URL), links the
// base of every link people are sent or shown (the configured one, else the listen address's
// default).
type publicURLs struct{ configured, links string }

// linkBase is the base of the links: CONSENTFORMS_PUBLIC_URL, else http://localhost:<port>
// of the address the server listens on.
func linkBase(configured string, addr net.Addr) string {
	if configured != "" {
		return configured
	}
	port := "8080"
	if t, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(t.Port)
	}
	return "http://localhost:" + port
}

// newApp builds the one Fiber app: the API's configuration and error handler, the middleware
// every route shares (recovery, request id and log line, encoded-body refusal, HSTS, body
// limit), the health checks and the API under /api/v1, the person's pages (/c/, /w/, /f/), then the
// admin UI under /admin.
func newApp(a *api.Server, pd pages.Deps, ad admin.Deps) *fiber.App {
	app := fiber.New(a.Config())
	for _, mw := range a.Middleware() {
		app.Use(mw)
	}
	a.Mount(app)
	pages.Mount(app, pd)
	admin.Mount(app, ad)
	return app
}

func prefixStrings(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}
