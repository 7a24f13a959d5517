package ops_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/sqlite/sqlitetest"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/links"
	"github.com/consentforms/consentforms/tenants/ops"
)

// intakeCase is the intake case on a fresh, pre-migrated embedded store: a tenant with an
// open double-opt-in form ("petition", e-mail confirmed) whose consents have published texts,
// and a webhook endpoint that takes every event the case emits.
type intakeCase struct {
	svc      *ops.Intake
	st       tenants.Stores
	tenant   tenants.Tenant
	endpoint tenants.Endpoint
	texts    tenants.TextSet
}

const linkBase = "https://forms.example.org"

func newIntakeCase(t *testing.T) *intakeCase {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := sqlitetest.Seed(dir); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	st := store.Stores()
	key := []byte("0123456789abcdef0123456789abcdef")
	c := &intakeCase{st: st, svc: ops.New(ops.Config{Tenants: st.Tenants, Records: st.Records, Forms: st.Forms, Writer: st.Writer,
		Hasher: tenants.NewHasher(key), Now: time.Now, Audit: st.Audit, Texts: textLookup{st.Texts}, SpentTokens: st.SpentTokens,
		PersonLinks: &links.Links{Signer: links.NewSigner(key), PublicURL: linkBase}}).Intake}
	now := time.Now().UTC()
	c.tenant = tenants.Tenant{ID: tenants.NewID("t_"), Name: "Friends of the Forest", Status: tenants.TenantActive, CreatedAt: now}
	must(t, st.Tenants.Insert(ctx, c.tenant))
	must(t, st.Forms.Insert(ctx, tenants.Form{TenantID: c.tenant.ID, FormID: "petition", Name: "Save the forest", Open: true,
		DoubleOptIn: []string{tenants.ChannelEmail}, CreatedAt: now, UpdatedAt: now}))
	c.texts = tenants.TextSet{}
	for i, pub := range []struct {
		name tenants.ConsentName
		text string
	}{{tenants.ConsentPrimaryPurpose, "We use your name and address for this petition."},
		{tenants.ConsentGeneralContactEmail, "We may e-mail you about the forest."}} {
		txt := tenants.ConsentText{ID: tenants.NewID("ct_"), TenantID: c.tenant.ID, FormID: "petition", Consent: pub.name, Language: "en",
			Text: pub.text, Hash: tenants.HashText(pub.text), PublishedAt: now.Add(time.Duration(i) * time.Millisecond).Truncate(time.Millisecond)}
		must(t, st.Texts.Insert(ctx, txt))
		c.texts[pub.name] = txt
	}
	c.endpoint, _ = tenants.NewEndpoint(c.tenant.ID, "https://hooks.example.org/in", []string{"consent.granted", "consent.confirmation_requested"}, "whsec_x", now)
	must(t, st.Outbox.InsertEndpoint(ctx, c.endpoint))
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// textLookup reads the texts straight from the store (the server puts a cache in between).
type textLookup struct{ r tenants.TextRepo }

func (l textLookup) List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	return l.r.List(ctx, tenantID, formID)
}
func (l textLookup) Reload(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	return l.r.List(ctx, tenantID, formID)
}

// body is one person's submission as a face decodes it (a fresh map each call: Submit may change it).
func body(extra ...any) map[string]any {
	b := map[string]any{"form_id": "petition", "email": "Ada@Example.org", "first_name": "Ada",
		"consent_to_primary_purpose": true, "consent_to_primary_purpose_deadline_interval": "1y",
		"consent_to_general_contact_email": true, "consent_to_general_contact_deadline_interval": "2y"}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i].(string)] = extra[i+1]
	}
	return b
}

// submit runs the case and reads back the record and the events it emitted.
func (c *intakeCase) submit(t *testing.T, sub ops.Submission) (tenants.Record, []string) {
	t.Helper()
	ctx := context.Background()
	sub.TenantID, sub.Actor, sub.RequestID = c.tenant.ID, "test", "req"
	if sub.Kind == "" {
		sub.Kind = tenants.KindFormSubmission
	}
	got, err := c.svc.Submit(ctx, sub)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if got.Outcome != ops.Stored {
		t.Fatalf("outcome %v", got.Outcome)
	}
	rec, err := c.st.Records.Get(ctx, c.tenant.ID, sub.Kind, got.ID)
	must(t, err)
	ds, err := c.st.Outbox.Deliveries(ctx, c.tenant.ID, c.endpoint.ID, 100)
	must(t, err)
	var events []string
	for _, d := range ds {
		if strings.Contains(d.Payload, rec.PublicID) {
			events = append(events, d.Type)
			if d.Type == "consent.confirmation_requested" && !strings.Contains(d.Payload, `"`+linkBase+`/c/`) {
				t.Errorf("confirmation event without an absolute link of the public URL: %s", d.Payload)
			}
		}
	}
	return rec, events
}

// TestSubmitEveryWayInSameRules: the same person and form through every way in — a secret key
// (accept-submission), a publishable key (the snippet's post), the hosted page, a paper form
// typed in (section 6) — store the same consents: primary purpose granted and e-mail contact
// pending (double opt-in) under the published text versions, and the same events (a
// confirmation request with an absolute link). This is the rule the hosted page once skipped.
func TestSubmitEveryWayInSameRules(t *testing.T) {
	c := newIntakeCase(t)
	for _, w := range []struct {
		name string
		sub  ops.Submission
	}{
		{"secret key", ops.Submission{Way: ops.WaySecretKey, Body: body("submission_id", "crm-1")}},
		{"publishable key", ops.Submission{Way: ops.WayPublishableKey, Body: body("submission_id", "web-1"), ClientIP: "192.0.2.1"}},
		{"hosted page", ops.Submission{Way: ops.WayHostedPage, Body: body("submission_id", "web-2"), ClientIP: "2001:db8::1"}},
		{"hosted page without deadlines", ops.Submission{Way: ops.WayHostedPage, ClientIP: "192.0.2.9", Body: func() map[string]any {
			b := body()
			delete(b, "consent_to_primary_purpose_deadline_interval")
			delete(b, "consent_to_general_contact_deadline_interval")
			return b
		}()}},
		{"paper form", ops.Submission{Way: ops.WaySecretKey, Kind: tenants.KindDigitisation, Body: body("document_ref", "box-7")}},
	} {
		t.Run(w.name, func(t *testing.T) {
			rec, events := c.submit(t, w.sub)
			pp, em := rec.Consents.PrimaryPurpose, rec.Consents.GeneralContactEmail
			if pp.Status != tenants.StatusGranted || em.Status != tenants.StatusPending || em.ConfirmBy == nil {
				t.Errorf("consents: primary %s, e-mail %s (confirm by %v); want granted and pending", pp.Status, em.Status, em.ConfirmBy)
			}
			for name, con := range map[tenants.ConsentName]tenants.Consent{tenants.ConsentPrimaryPurpose: pp, tenants.ConsentGeneralContactEmail: em} {
				if want := c.texts[name]; con.Text == nil || con.Text.Version != want.ID || con.Text.Hash != want.Hash {
					t.Errorf("%s names text %+v; want version %s", name, con.Text, want.ID)
				}
				if con.Deadline == nil {
					t.Errorf("%s has no deadline", name)
				}
			}
			if strings.Join(events, ",") != "consent.granted,consent.confirmation_requested" &&
				strings.Join(events, ",") != "consent.confirmation_requested,consent.granted" {
				t.Errorf("events %v; want consent.granted and consent.confirmation_requested", events)
			}
		})
	}
}

// TestSubmitPublicWaysHoldNoPrivileges: on a public way the proof is the server's, a consent
// lasts as long as the form says at most, and a submission id names the submission within the
// form's public ways only; a secret key keeps what it sends.
func TestSubmitPublicWaysHoldNoPrivileges(t *testing.T) {
	c := newIntakeCase(t)
	forged := body("submission_id", "crm-000001", "consent_ip_address", "203.0.113.66", "consent_timestamp", "2020-01-01T00:00:00Z",
		"consent_source", "signed on paper in person", "consent_to_primary_purpose_deadline_interval", "99y",
		"consent_to_general_contact_deadline_interval", "99y")
	before := time.Now().UTC()
	rec, _ := c.submit(t, ops.Submission{Way: ops.WayPublishableKey, Body: forged, ClientIP: "192.0.2.44"})
	if rec.PublicID == "crm-000001" || rec.PublicID != ops.PublicSubmissionID("petition", "crm-000001") {
		t.Errorf("a public way's id %q; want the derived one", rec.PublicID)
	}
	for name, con := range map[string]tenants.Consent{"primary": rec.Consents.PrimaryPurpose, "e-mail": rec.Consents.GeneralContactEmail} {
		if con.IPAddress == nil || *con.IPAddress != "192.0.2.44" || con.Source == nil || *con.Source != "web:petition" || con.Timestamp == nil {
			t.Fatalf("%s proof: %+v", name, con)
		}
		if ts, err := time.Parse(time.RFC3339, *con.Timestamp); err != nil || ts.Before(before.Add(-time.Second)) {
			t.Errorf("%s timestamp %q is not the server's", name, *con.Timestamp)
		}
	}
	if d := rec.Consents.PrimaryPurpose.Deadline; d == nil || d.After(time.Now().AddDate(1, 0, 1)) {
		t.Errorf("primary deadline %v; want at most the form's default year", d)
	}
	if d := rec.Consents.GeneralContactEmail.Deadline; d == nil || d.After(time.Now().AddDate(2, 0, 1)) {
		t.Errorf("e-mail deadline %v; want at most the form's default two years", d)
	}

	// The tenant's own server then stores its record under the id the browser chose: it is
	// stored, not taken for a repeat.
	real, _ := c.submit(t, ops.Submission{Way: ops.WaySecretKey, Body: body("submission_id", "crm-000001", "consent_ip_address", "198.51.100.7",
		"consent_source", "crm import")})
	if real.PublicID != "crm-000001" || *real.Consents.PrimaryPurpose.IPAddress != "198.51.100.7" || *real.Consents.PrimaryPurpose.Source != "crm import" {
		t.Errorf("the secret key's record: %s %+v", real.PublicID, real.Consents.PrimaryPurpose)
	}
	// A repeat on the public way is a repeat there.
	got, err := c.svc.Submit(context.Background(), ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WayHostedPage,
		Body: body("submission_id", "crm-000001"), Actor: "test"})
	if err != nil || got.Outcome != ops.Repeated || got.ID != rec.PublicID {
		t.Errorf("public repeat: %+v %v", got, err)
	}
	// Unchallenged is said on the record.
	un, _ := c.submit(t, ops.Submission{Way: ops.WayHostedPage, Body: body(), Unchallenged: true})
	if !un.Unchallenged() || rec.Unchallenged() {
		t.Errorf("unchallenged marks: %v / %v", un.Unchallenged(), rec.Unchallenged())
	}
}

// TestSubmitOrder: the challenge runs only when every rule has passed (a refused body does
// not spend the person's solution), its refusal stores nothing, and a closed form answers as
// an unknown one on every way.
func TestSubmitOrder(t *testing.T) {
	c := newIntakeCase(t)
	ctx := context.Background()
	calls := 0
	challenge := func(context.Context) error { calls++; return errors.New("spent") }
	bad := body("email", "not-an-address")
	_, err := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WayPublishableKey, Body: bad, Challenge: challenge})
	var vs tenants.Violations
	if !errors.As(err, &vs) || calls != 0 {
		t.Errorf("a refused body: %v, challenge called %d times", err, calls)
	}
	_, err = c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WayPublishableKey, Body: body("submission_id", "x1"), Challenge: challenge})
	if err == nil || err.Error() != "spent" || calls != 1 {
		t.Errorf("a failed challenge: %v (%d calls)", err, calls)
	}
	if _, err := c.st.Records.Get(ctx, c.tenant.ID, tenants.KindFormSubmission, ops.PublicSubmissionID("petition", "x1")); !errors.Is(err, tenants.ErrNotFound) {
		t.Errorf("a failed challenge stored the record: %v", err)
	}
	f, err := c.st.Forms.Get(ctx, c.tenant.ID, "petition")
	must(t, err)
	f.Open = false
	must(t, c.st.Forms.Save(ctx, f))
	for _, way := range []ops.Way{ops.WaySecretKey, ops.WayPublishableKey, ops.WayHostedPage} {
		_, err := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: way, Body: body()})
		if !errors.As(err, &vs) || !hasCode(vs, "form_id_unknown") {
			t.Errorf("way %d on a closed form: %v", way, err)
		}
	}
}

func hasCode(vs tenants.Violations, code string) bool {
	for _, v := range vs {
		if v.Code == code {
			return true
		}
	}
	return false
}

// TestSubmitRepeatWithoutSubmissionID: a client that retries a body without a submission_id
// after an error (it cannot know whether the first attempt was stored) gets the first
// attempt's answer and no second record, on every way in; the same body after the repeat
// window is a new record.
func TestSubmitRepeatWithoutSubmissionID(t *testing.T) {
	c := newIntakeCase(t)
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 12, 0, 59, 0, time.UTC)
	c.svc.Now = func() time.Time { return at }
	for _, way := range []ops.Way{ops.WaySecretKey, ops.WayPublishableKey} {
		sub := func() ops.Submission {
			return ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: way, Body: body("email", "repeat@example.org"), Actor: "test"}
		}
		at = time.Date(2026, 12, 1, 12, 0, 59, 0, time.UTC)
		first, err := c.svc.Submit(ctx, sub())
		if err != nil || first.Outcome != ops.Stored {
			t.Fatalf("way %d first: %+v %v", way, first, err)
		}
		for _, later := range []time.Duration{time.Second, 90 * time.Second} { // the same window, the next one
			at = at.Add(later)
			again, err := c.svc.Submit(ctx, sub())
			if err != nil || again.Outcome != ops.Repeated || again.ID != first.ID {
				t.Errorf("way %d, %v later: %+v %v; want the repeat of %s", way, later, again, err, first.ID)
			}
		}
		at = at.Add(2 * ops.RepeatWindow)
		if late, err := c.svc.Submit(ctx, sub()); err != nil || late.Outcome != ops.Stored || late.ID == first.ID {
			t.Errorf("way %d after the window: %+v %v; want a new record", way, late, err)
		}
	}
	// Another body (another deadline) is another record at once.
	a, _ := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WaySecretKey, Body: body("email", "x@example.org")})
	b, _ := c.svc.Submit(ctx, ops.Submission{TenantID: c.tenant.ID, Kind: tenants.KindFormSubmission, Way: ops.WaySecretKey,
		Body: body("email", "x@example.org", "consent_to_primary_purpose_deadline_interval", "6M")})
	if a.ID == b.ID || b.Outcome != ops.Stored {
		t.Errorf("two different bodies: %+v %+v", a, b)
	}
}
