package ops

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"github.com/consentforms/consentforms/tenants/intake"
)

// Way is how a record came in. Every way runs the same rules in the same order (Submit); the
// public ways, those a browser uses without a secret, hold no privileges (docs/API.md §14).
type Way int

// The ways in.
const (
	// WaySecretKey: a server integration with a secret API key (accept-submission and the
	// endpoints of section 6).
	WaySecretKey Way = iota + 1
	// WayPublishableKey: a browser with a publishable key: the tenant's own page with the
	// plain-HTML snippet, or its own script.
	WayPublishableKey
	// WayHostedPage: the form's hosted page (/f/…) and its <iframe>.
	WayHostedPage
)

// Public reports whether the way is one a browser uses: its proof comes from the server, its
// deadlines are capped at the form's durations and its submission ids are its own.
func (w Way) Public() bool { return w == WayPublishableKey || w == WayHostedPage }

// Submission is one record body arriving by one way in, decoded by its face.
type Submission struct {
	TenantID string
	// Country is the tenant's default country ("" none).
	Country string
	Kind    tenants.Kind
	// Body is the decoded body; Submit may change it (the public ways' proof keys are taken out).
	Body map[string]any
	Way  Way
	// ClientIP is the client's address (trusted proxies applied): a public way's proof.
	ClientIP string
	// Challenge, when set, checks and spends the way's spam challenge. It runs once every rule
	// has passed, just before the record is stored, so that a refused body does not use up
	// the person's solution; its error is Submit's (a face renders its own refusal).
	Challenge func(ctx context.Context) error
	// Unchallenged marks a public submission taken without a challenge (the hosted page's
	// no-script fallback, where its form allows one): the record read says so.
	Unchallenged     bool
	Actor, RequestID string
}

// Accepted is what Submit did.
type Accepted struct {
	// ID is the record's public id (a repeat's: the first attempt's).
	ID      string
	Outcome Outcome
	// Pending reports whether a consent of the record awaits the person's confirmation.
	Pending bool
}

// The proof keys a public way's browser may not write: the server writes them.
var proofKeys = []string{"consent_source", "consent_ip_address", "consent_timestamp"}

// Submit is the one intake case: every way in calls it, and nothing else stores a new record
// from a body. Its steps, in order: parse the body by its kind's rules; read the form once
// (unknown, another tenant's and closed forms answer alike); stamp the consent texts the
// person was shown; make consents pending where the form asks double opt-in; on a public way,
// put the server's proof in and cap the deadlines at the form's durations; check the
// challenge; store. A refused body is a tenants.Violations error (or, when its submission id
// is stored already, a repeat of it).
func (s *Intake) Submit(ctx context.Context, sub Submission) (Accepted, error) {
	now := s.Now().UTC()
	var form *tenants.Form
	if id, ok := sub.Body["form_id"].(string); ok && tenants.ValidFormID(id) {
		f, open, err := s.openForm(ctx, sub.TenantID, id)
		if err != nil {
			return Accepted{}, err
		}
		if open {
			form = &f
		}
	}
	if sub.Way.Public() {
		publicBody(sub.Body, form)
	}
	cur, prev := repeatIDs(sub.Kind, sub.Body, now)
	d, vs := intake.ParseRecord(sub.Kind, sub.Body, now, sub.Country)
	derived := d.SubmissionID == "" && cur != ""
	if derived {
		d.SubmissionID = cur
	}
	if d.FormID != "" && form == nil {
		vs = intake.FormUnknown(vs)
	}
	if form != nil || d.FormID == "" {
		known, err := s.StampTexts(ctx, sub.TenantID, form, &d)
		if err != nil {
			return Accepted{}, err
		}
		if !known {
			vs = intake.TextVersionUnknown(vs)
		}
	}
	if form != nil {
		DoubleOptIn(&d, *form)
	}
	if sub.Way.Public() {
		publicRules(&d, form, sub, now)
		prev = PublicSubmissionID(d.FormID, prev)
	}
	if derived && len(vs) == 0 {
		// The same body a moment ago, in the previous window: its repeat.
		if _, err := s.Records.Get(ctx, sub.TenantID, d.Kind, prev); err == nil {
			return Accepted{ID: prev, Outcome: Repeated}, nil
		} else if !errors.Is(err, tenants.ErrNotFound) {
			return Accepted{}, wrap("find a repeat", err)
		}
	}
	if len(vs) == 0 && sub.Challenge != nil {
		if err := sub.Challenge(ctx); err != nil {
			return Accepted{}, err
		}
	}
	id, out, err := s.ingestDraft(ctx, sub.TenantID, d, vs, sub.Actor, sub.RequestID)
	return Accepted{ID: id, Outcome: out, Pending: out == Stored && d.Consents.AnyPending()}, err
}

// The deadline keys of a body, by consent.
const (
	keyPrimaryInterval = "consent_to_primary_purpose_deadline_interval"
	keyPrimaryDate     = "consent_to_primary_purpose_deadline_date"
	keyContactInterval = "consent_to_general_contact_deadline_interval"
	keyContactDate     = "consent_to_general_contact_deadline_date"
)

// publicBody takes out of a public way's body what its browser may not write (the proof
// keys) and gives each consent it grants without a deadline the form's duration, so that a
// page or snippet never has to say how long a consent lasts: the form does (publicRules caps
// the ones a browser names).
func publicBody(body map[string]any, form *tenants.Form) {
	for _, k := range proofKeys {
		delete(body, k)
	}
	if form == nil {
		return
	}
	primary, contact := form.ConsentDeadlines()
	given := func(k string) bool { v, ok := body[k].(bool); return ok && v }
	absent := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := body[k]; ok {
				return false
			}
		}
		return true
	}
	if given("consent_to_primary_purpose") && absent(keyPrimaryInterval, keyPrimaryDate) {
		body[keyPrimaryInterval] = primary
	}
	if (given("consent_to_general_contact_email") || given("consent_to_general_contact_phone")) && absent(keyContactInterval, keyContactDate) {
		body[keyContactInterval] = contact
	}
}

// RepeatWindow bounds how long a body sent without a submission_id is a repeat of the same
// body sent before: a client that retries after an error (a 503, a cut connection, a timeout)
// sends the same bytes, and the service cannot tell whether the first attempt was stored. The
// same body again within RepeatWindow to 2×RepeatWindow answers as the first did and stores
// nothing; later it is a new record (docs/API.md §3.3).
const RepeatWindow = 2 * time.Minute

// repeatIDs are the public ids a body without a submission_id gets: derived from its kind and
// its canonical JSON (keys sorted) in the current window of RepeatWindow, and in the previous
// one. A body that cannot be encoded gets none (a fresh id, as before).
func repeatIDs(kind tenants.Kind, body map[string]any, now time.Time) (cur, prev string) {
	if _, given := body["submission_id"]; given {
		return "", ""
	}
	b, err := json.Marshal(body)
	if err != nil {
		return "", ""
	}
	slot := now.Unix() / int64(RepeatWindow/time.Second)
	id := func(slot int64) string {
		sum := sha256.Sum256([]byte("repeat\x00" + string(kind) + "\x00" + strconv.FormatInt(slot, 10) + "\x00" + string(b)))
		return "h-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:20]))
	}
	return id(slot), id(slot - 1)
}

// openForm reads the tenant's form formID; open is false when it has none of that id or it is
// closed for submissions.
func (s *Intake) openForm(ctx context.Context, tenantID, formID string) (tenants.Form, bool, error) {
	forms := s.Forms
	if s.IntakeForms != nil {
		forms = s.IntakeForms
	}
	f, err := forms.Get(ctx, tenantID, formID)
	switch {
	case errors.Is(err, tenants.ErrNotFound):
		return f, false, nil
	case err != nil:
		return f, false, wrap("read form", err)
	}
	return f, f.Open, nil
}

// publicRules are what a public way in may not choose (docs/API.md §14): the proof is the
// server's (the client's address, the server's time, the form's source), no consent lasts
// longer than the form says, a submission id names the submission within the form's public
// ways only, and a record taken without a challenge says so.
func publicRules(d *intake.Draft, form *tenants.Form, sub Submission, now time.Time) {
	if d.SubmissionID != "" {
		d.SubmissionID = PublicSubmissionID(d.FormID, d.SubmissionID)
	}
	if form == nil {
		return
	}
	primary, contact := form.ConsentDeadlines()
	source, stamp := form.PublicSource(), now.Format(time.RFC3339)
	var ip *string
	if sub.ClientIP != "" {
		ip = &sub.ClientIP
	}
	for name, c := range d.Consents.All() {
		if c.Status != tenants.StatusGranted && c.Status != tenants.StatusPending {
			continue
		}
		c.Source, c.IPAddress, c.Timestamp = ptr(source), clone(ip), ptr(stamp)
		limit := contact
		if name == tenants.ConsentPrimaryPurpose {
			limit = primary
		}
		if iv, err := consent.ParseInterval(limit); err == nil {
			if end, ok := iv.From(now); ok && (c.Deadline == nil || c.Deadline.After(end)) {
				c.Deadline = &end
			}
		}
	}
	if sub.Unchallenged {
		if d.Fields == nil {
			d.Fields = map[string]any{}
		}
		d.Fields[tenants.FieldUnchallenged] = true
	}
}

// PublicSubmissionID is the public id of a submission whose browser named it id on form
// formID: derived, so that an id a public way chooses never matches, replaces or blocks a
// record a secret key stored under the same id, and repeats only within that form's public
// ways.
func PublicSubmissionID(formID, id string) string {
	sum := sha256.Sum256([]byte("public submission\x00" + formID + "\x00" + id))
	return "pub-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:20]))
}

func ptr(s string) *string { return &s }

func clone(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
