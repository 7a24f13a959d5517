// Package ops holds the cases a request or a person needs, shared by the API, the admin UI and
// the person's pages, in families (New builds them from a Config): Intake (the one intake of
// every way in), Persons (consent reads, finding, erasure, unsubscribe, inbound SMS), Rights
// (the access export, the re-permission list, receipts, the retention preview, re-keying),
// LinkPages (the confirmation and withdrawal pages) and Bulk (four-eyes bulk erasure), over a
// Core they share — with the request rules the handlers would otherwise each repeat
// (ParseExpiring, EventIdentity).
// The background passes (expiry, retention, running bulk erasures, the diagnostics flush)
// live in package jobs and go through the cases here. It returns plain structs (package api
// names them on the wire) and works over the store contract of package tenants.
package ops

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/intake"
	"github.com/consentforms/consentforms/tenants/links"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// Config is what the cases are built from (New): the stores and the service's parts. It is
// wiring only: each case family keeps the few of them it uses.
type Config struct {
	// Tenants gives each tenant's default country (nil: none has one).
	Tenants tenants.TenantStore
	Records tenants.RecordStore
	Forms   tenants.FormStore
	// IntakeForms, when set, is what intake reads forms through (a cache: intake reads a
	// form on every submission); nil reads Forms.
	IntakeForms tenants.FormStore
	Writer      tenants.Writer
	Hasher      tenants.Hasher
	Now         func() time.Time
	// Observer counts erasures, unsubscribes and expiries (nil: nothing is counted).
	Observer tenants.Observer
	// Rights and Audit serve the access export, the re-permission list and the retention
	// preview (rights.go, retention.go).
	Rights tenants.RightsRepo
	Audit  tenants.AuditLog
	// WebhookDiag records inbound webhook deliveries (webhookdiag.go; nil: none recorded).
	WebhookDiag *WebhookDiagnostics
	// Bulk keeps four-eyes bulk erasure requests (bulk.go).
	Bulk tenants.BulkRepo
	// Texts reads the forms' consent texts (texts.go; nil: no form has any).
	Texts TextLookup
	// SMS remembers the inbound SMS messages applied and keeps the tenants' sending numbers
	// (sms.go; nil: none remembered, no tenant has a number). FormList gives the forms'
	// languages to the SMS keyword rule (nil: only the default country's).
	SMS      tenants.SMSRepo
	FormList FormLister
	// Staff finds who created an account, for four-eyes approval (bulk.go; nil: only the
	// requester is refused).
	Staff StaffLookup
	// PersonLinks makes and reads the confirmation and withdrawal links, SpentTokens
	// remembers the used ones (events.go, linkpages.go; nil PersonLinks: no links).
	PersonLinks *links.Links
	SpentTokens tenants.SpentTokenRepo
	// Outbox holds the mail endpoint's deliveries, which a resend makes due again (resend.go).
	Outbox tenants.OutboxRepo
	// SubjectRequests keeps the data-subject requests of the preference page
	// (subjectrequests.go).
	SubjectRequests tenants.SubjectRequestRepo
}

// Cases are the case families, each a type of its own with what it needs; a face takes the
// families it calls.
type Cases struct {
	// Core is what every family shares: keys, the audit subject, storing and revoking, the
	// person's links in events, the consent texts, the observer.
	Core *Core
	// Intake stores records: the one intake case (submit.go) and imports (Ingest).
	Intake *Intake
	// Persons are a person's cases: consent reads, finding, erasure, unsubscribe, inbound SMS.
	Persons *Persons
	// Rights are the access export, the re-permission list, receipts, retention's preview and
	// the re-key of match keys.
	Rights *Rights
	// Pages are the person's confirmation and withdrawal pages behind the links.
	Pages *LinkPages
	// Bulk is the four-eyes bulk erasure.
	Bulk *Bulk
	// Requests are the staff's cases of data-subject requests.
	Requests *Requests
	// WebhookDiag records inbound webhook deliveries (nil: none recorded).
	WebhookDiag *WebhookDiagnostics
}

// New builds the case families from c.
func New(c Config) Cases {
	core := &Core{Tenants: c.Tenants, Records: c.Records, Forms: c.Forms, Writer: c.Writer, Hasher: c.Hasher, Now: c.Now,
		Observer: c.Observer, Audit: c.Audit, Texts: c.Texts, PersonLinks: c.PersonLinks, FormCache: c.IntakeForms}
	persons := &Persons{Core: core, SMS: c.SMS, FormList: c.FormList}
	rights := &Rights{Core: core, Rights: c.Rights, Outbox: c.Outbox}
	return Cases{Core: core,
		Intake:      &Intake{Core: core, IntakeForms: c.IntakeForms},
		Persons:     persons,
		Rights:      rights,
		Pages:       &LinkPages{Core: core, SpentTokens: c.SpentTokens, Outbox: c.Outbox, Requests: c.SubjectRequests},
		Requests:    &Requests{Core: core, Requests: c.SubjectRequests, Rights: rights, Persons: persons},
		Bulk:        &Bulk{Core: core, Bulk: c.Bulk, Staff: c.Staff, Persons: persons},
		WebhookDiag: c.WebhookDiag}
}

// Core is what the case families share: the tenants (their default country), the records and
// their writer, the forms and their texts, the keyed hasher, the clock, the observer, the
// audit log and the person's links. Its cases are the steps several families take: match keys and the audit
// subject, storing a prepared record, revoking general contact, links in events.
type Core struct {
	Tenants     tenants.TenantStore
	Records     tenants.RecordStore
	Forms       tenants.FormStore
	Writer      tenants.Writer
	Hasher      tenants.Hasher
	Now         func() time.Time
	Observer    tenants.Observer
	Audit       tenants.AuditLog
	Texts       TextLookup
	PersonLinks *links.Links
	// FormCache, when set, serves the form reads on the intake path that may be a few seconds
	// stale (the reminder's setting of a new record's form): Config.IntakeForms.
	FormCache tenants.FormStore
}

// Intake stores records: Submit, the one intake case of every way in, and Ingest for
// records already built (imports, seeding).
type Intake struct {
	*Core
	// IntakeForms is what intake reads forms through (nil: Core's Forms).
	IntakeForms tenants.FormStore
}

// Persons are the cases of one person: consent reads, finding their records, erasure,
// unsubscribe and inbound SMS.
type Persons struct {
	*Core
	SMS      tenants.SMSRepo
	FormList FormLister
}

// Rights are the access export, the re-permission list, receipts, the retention preview and
// the re-key of match keys.
type Rights struct {
	*Core
	Rights tenants.RightsRepo
	// Outbox names the receipts' recipients (the tenant's endpoints); nil: none named.
	Outbox tenants.OutboxRepo
}

// LinkPages are the cases behind the person's confirmation and withdrawal pages.
type LinkPages struct {
	*Core
	SpentTokens tenants.SpentTokenRepo
	Outbox      tenants.OutboxRepo
	// Requests keeps the data-subject requests the preference page files (nil: none filed).
	Requests tenants.SubjectRequestRepo
}

// Bulk is the four-eyes bulk erasure: preview, request, decision, and what its job runs.
type Bulk struct {
	*Core
	Bulk    tenants.BulkRepo
	Staff   StaffLookup
	Persons *Persons
}

// Identity names a person: a normalised e-mail and/or E.164 phone ("" when not given).
type Identity struct {
	Email string
	Phone string
}

// The hash domains of match keys (docs/STORAGE.md, "Match keys"): a record carries the keyed
// hash of each identifier of its own contact fields under the belonging domains, and of each
// identifier only mentioned in its custom fields under the mention domains. One index holds
// both; a key of one domain never equals a key of the other.
const (
	domainEmail        = "e"
	domainPhone        = "p"
	domainMentionEmail = "me"
	domainMentionPhone = "mp"
)

// hashes returns the belonging keys of the identity in a tenant: what finds the records that
// are the person's own (consent reads, unsubscribe, export).
func (s *Core) hashes(tenantID string, id Identity) []string {
	var out []string
	if id.Email != "" {
		out = append(out, s.Hasher.Hash(tenantID, domainEmail, id.Email))
	}
	if id.Phone != "" {
		out = append(out, s.Hasher.Hash(tenantID, domainPhone, id.Phone))
	}
	return out
}

// mentionHashes returns the mention keys of the identity in a tenant: what finds the records
// of others that name the person in a custom field (erasure only).
func (s *Core) mentionHashes(tenantID string, id Identity) []string {
	var out []string
	if id.Email != "" {
		out = append(out, s.Hasher.Hash(tenantID, domainMentionEmail, id.Email))
	}
	if id.Phone != "" {
		out = append(out, s.Hasher.Hash(tenantID, domainMentionPhone, id.Phone))
	}
	return out
}

// MatchKeys returns the match keys of rec in a tenant whose default country is country: the
// belonging keys of its own identifiers, then the mention keys of the others it names, without
// repeats; and its identifiers.
func (s *Core) MatchKeys(rec tenants.Record, country string) ([]string, anonymise.IDs) {
	ids := anonymise.Identifiers(rec, country)
	return s.matchKeysOf(rec.TenantID, ids), ids
}

// matchKeysOf returns the match keys of identifiers ids in a tenant (MatchKeys).
func (s *Core) matchKeysOf(tenantID string, ids anonymise.IDs) []string {
	var keys []string
	add := func(domain string, vs []string) {
		for _, v := range vs {
			if h := s.Hasher.Hash(tenantID, domain, v); !slices.Contains(keys, h) {
				keys = append(keys, h)
			}
		}
	}
	add(domainEmail, ids.Emails)
	add(domainPhone, ids.Phones)
	add(domainMentionEmail, ids.MentionedEmails)
	add(domainMentionPhone, ids.MentionedPhones)
	return keys
}

// Subject is the audit log's stand-in for an identity: its keyed hashes, never the values.
func (s *Core) Subject(tenantID string, id Identity) string {
	hs := s.hashes(tenantID, id)
	out := ""
	for i, h := range hs {
		if i > 0 {
			out += ","
		}
		out += h[:16]
	}
	return out
}

// Ingest stores a new record with its match keys and audit entries, for a tenant without a
// default country. Its outcome is Repeated for an idempotent repeat: the tenant has a record of
// that kind and public id, and nothing changed. A record over intake.MaxIdentifiers is refused
// (tenants.Violations).
func (s *Intake) Ingest(ctx context.Context, rec tenants.Record, actor, requestID string) (Outcome, error) {
	return s.ingest(ctx, rec, "", nil, actor, requestID)
}

// ingest is Ingest in a tenant whose default country is country; known, when not nil, are the
// record's identifiers as intake found them.
func (s *Core) ingest(ctx context.Context, rec tenants.Record, country string, known *anonymise.IDs, actor, requestID string) (Outcome, error) {
	in, ids := s.prepare(rec, country, known, actor, requestID)
	if v := intake.TooMany(ids); v != nil {
		return 0, tenants.Violations{*v}
	}
	in.Events = s.personEvents(ctx, in.Record, in.Events)
	stored, err := s.Writer.Ingest(ctx, in)
	switch {
	case err != nil:
		return 0, err
	case !stored:
		return Repeated, nil
	}
	return Stored, nil
}

// Prepare computes what storing rec writes in a tenant without a default country: its match
// keys (MatchKeys) and its audit entries.
func (s *Intake) Prepare(rec tenants.Record, actor, requestID string) tenants.Ingestion {
	in, _ := s.prepare(rec, "", nil, actor, requestID)
	return in
}

// prepare is Prepare in a tenant whose default country is country; it also returns the
// record's identifiers, for the limit on them.
func (s *Core) prepare(rec tenants.Record, country string, known *anonymise.IDs, actor, requestID string) (in tenants.Ingestion, ids anonymise.IDs) {
	if known != nil {
		ids = *known
		rec.MatchKeys = s.matchKeysOf(rec.TenantID, ids)
	} else {
		rec.MatchKeys, ids = s.MatchKeys(rec, country)
	}
	in = tenants.Ingestion{Audit: []tenants.AuditEntry{RecordEntry(rec, actor, requestID)}}
	in.Record = rec
	in.Events = webhook.Granted(rec)
	return in, ids
}

// RecordEntry is the one audit entry a stored record writes (docs/API.md §9): consent.granted
// naming every consent the record grants, in the order of tenants.ConsentNames(), or
// record.created (its kind and form in the detail) for a record that grants none. The grants of
// one submission are one event, and the record's acceptance is that event.
func RecordEntry(rec tenants.Record, actor, requestID string) tenants.AuditEntry {
	e := tenants.AuditEntry{Time: rec.CreatedAt, TenantID: rec.TenantID, Actor: actor, Action: tenants.ActionRecordCreated,
		RecordIDs: []string{rec.PublicID}, Detail: string(rec.Kind) + " form=" + rec.FormID, RequestID: requestID}
	var granted []string
	for name, c := range rec.Consents.All() {
		if c.Status == tenants.StatusGranted {
			granted = append(granted, string(name))
		}
	}
	if len(granted) > 0 {
		e.Action, e.Detail = tenants.ActionConsentGranted, joinNames(granted)
	}
	return e
}

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ","
		}
		out += n
	}
	return out
}

// find returns the tenant's records of kinds that belong to the identity (never those that
// only mention it), newest first.
func (s *Core) find(ctx context.Context, tenantID string, id Identity, kinds ...tenants.Kind) ([]tenants.Record, error) {
	recs, err := s.Records.Find(ctx, tenantID, s.hashes(tenantID, id), kinds...)
	if err != nil {
		return nil, err
	}
	sortNewestFirst(recs)
	return recs, nil
}

func sortNewestFirst(recs []tenants.Record) {
	sort.SliceStable(recs, func(i, j int) bool {
		if !recs[i].CreatedAt.Equal(recs[j].CreatedAt) {
			return recs[i].CreatedAt.After(recs[j].CreatedAt)
		}
		return recs[i].ID > recs[j].ID
	})
}

func publicIDs(recs []tenants.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.PublicID
	}
	return out
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
