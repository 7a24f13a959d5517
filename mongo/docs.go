package mongo

import (
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// The documents of the domain types, as stored. The domain declares no storage: each type
// here names the stored fields of its domain twin, and, where the two have the same fields,
// a plain conversion (tenantDoc(t), tenants.Tenant(d)) goes between them, so that a field
// added to the domain and not here fails to compile. The stored names, types and omissions
// are those earlier versions wrote (testdata/docs): never rename one without carrying the
// stored data. Records (recorddoc.go) and consent texts (texts.go) declare theirs beside their
// repositories.

// tenantDoc is a tenant as stored.
type tenantDoc struct {
	ID                string       `bson:"_id"`
	Name              string       `bson:"name"`
	Status            string       `bson:"status"`
	RateLimit         int          `bson:"rateLimit"`
	CreatedAt         time.Time    `bson:"createdAt"`
	SendGridPublicKey string       `bson:"sendgridPublicKey,omitempty"`
	Retention         string       `bson:"retention,omitempty"`
	RetentionFrom     string       `bson:"retentionFrom,omitempty"`
	DefaultCountry    string       `bson:"defaultCountry,omitempty"`
	SMSStopWords      []string     `bson:"smsStopWords,omitempty"`
	Identity          *identityDoc `bson:"identity,omitempty"`
}

// identityDoc is the organisation's identity as stored.
type identityDoc struct {
	LegalName    string `bson:"legalName,omitempty"`
	ContactEmail string `bson:"contactEmail,omitempty"`
	Address      string `bson:"address,omitempty"`
	PrivacyURL   string `bson:"privacyUrl,omitempty"`
	Jurisdiction string `bson:"jurisdiction,omitempty"`
}

// toTenantDoc is t as stored; its identity is a document of its own (identityDoc), so the two
// are converted field by field.
func toTenantDoc(t tenants.Tenant) tenantDoc {
	return tenantDoc{ID: t.ID, Name: t.Name, Status: t.Status, RateLimit: t.RateLimit, CreatedAt: t.CreatedAt,
		SendGridPublicKey: t.SendGridPublicKey, Retention: t.Retention, RetentionFrom: t.RetentionFrom,
		DefaultCountry: t.DefaultCountry, SMSStopWords: t.SMSStopWords, Identity: toIdentityDoc(t.Identity)}
}

// tenant is the tenant d stores.
func (d tenantDoc) tenant() tenants.Tenant {
	return tenants.Tenant{ID: d.ID, Name: d.Name, Status: d.Status, RateLimit: d.RateLimit, CreatedAt: d.CreatedAt,
		SendGridPublicKey: d.SendGridPublicKey, Retention: d.Retention, RetentionFrom: d.RetentionFrom,
		DefaultCountry: d.DefaultCountry, SMSStopWords: d.SMSStopWords, Identity: d.Identity.identity()}
}

// toIdentityDoc is id as stored; nil for none.
func toIdentityDoc(id tenants.Identity) *identityDoc {
	if id == (tenants.Identity{}) {
		return nil
	}
	d := identityDoc(id)
	return &d
}

// identity is the identity d stores.
func (d *identityDoc) identity() tenants.Identity {
	if d == nil {
		return tenants.Identity{}
	}
	return tenants.Identity(*d)
}

// staffDoc is a staff user as stored; Email is the key tenants.StaffEmailKey makes of it.
type staffDoc struct {
	ID                 string    `bson:"_id"`
	Email              string    `bson:"email"`
	PasswordHash       string    `bson:"passwordHash"`
	Role               string    `bson:"role"`
	TenantID           string    `bson:"tenantId"`
	CreatedAt          time.Time `bson:"createdAt"`
	Disabled           bool      `bson:"disabled,omitempty"`
	MustChangePassword bool      `bson:"mustChangePassword,omitempty"`
	CreatedBy          string    `bson:"createdBy,omitempty"`
}

// apiKeyDoc is an API key as stored. Publishable, Forms and Origins are left out of the
// document of a secret key.
type apiKeyDoc struct {
	ID          string     `bson:"_id"`
	TenantID    string     `bson:"tenantId"`
	Name        string     `bson:"name"`
	Hash        string     `bson:"hash"`
	Scopes      []string   `bson:"scopes"`
	CreatedAt   time.Time  `bson:"createdAt"`
	ExpiresAt   *time.Time `bson:"expiresAt"`
	RevokedAt   *time.Time `bson:"revokedAt"`
	LastUsedAt  *time.Time `bson:"lastUsedAt"`
	Publishable bool       `bson:"publishable,omitempty"`
	Forms       []string   `bson:"forms,omitempty"`
	Origins     []string   `bson:"origins,omitempty"`
}

// tokenDoc is a webhook token as stored.
type tokenDoc struct {
	ID         string     `bson:"_id"`
	TenantID   string     `bson:"tenantId"`
	Provider   string     `bson:"provider"`
	Name       string     `bson:"name,omitempty"`
	Hash       string     `bson:"hash"`
	CreatedAt  time.Time  `bson:"createdAt"`
	RevokedAt  *time.Time `bson:"revokedAt"`
	LastUsedAt *time.Time `bson:"lastUsedAt,omitempty"`
}

// fieldDoc is a form field as stored.
type fieldDoc struct {
	Name     string   `bson:"name"`
	Type     string   `bson:"type"`
	Personal bool     `bson:"personal"`
	Label    string   `bson:"label,omitempty"`
	Required bool     `bson:"required,omitempty"`
	Help     string   `bson:"help,omitempty"`
	Options  []string `bson:"options,omitempty"`
}

// formDoc is a form as stored; ID is tenants.FormKey of its tenant and form id.
type formDoc struct {
	ID            string     `bson:"_id"`
	TenantID      string     `bson:"tenantId"`
	FormID        string     `bson:"formId"`
	Name          string     `bson:"name"`
	Open          bool       `bson:"open"`
	Fields        []fieldDoc `bson:"fields"`
	CreatedAt     time.Time  `bson:"createdAt"`
	UpdatedAt     time.Time  `bson:"updatedAt"`
	Retention     string     `bson:"retention,omitempty"`
	RetentionFrom string     `bson:"retentionFrom,omitempty"`
	Language      string     `bson:"language,omitempty"`
	DoubleOptIn   []string   `bson:"doubleOptIn,omitempty"`
	ConfirmWithin string     `bson:"confirmWithin,omitempty"`
	PrimaryFor    string     `bson:"primaryFor,omitempty"`
	ContactFor    string     `bson:"contactFor,omitempty"`
	HostedPage    bool       `bson:"hostedPage,omitempty"`
	AllowNoJS     bool       `bson:"allowNoJs,omitempty"`
	ConsentSource string     `bson:"consentSource,omitempty"`
	ThankYouMail  bool       `bson:"thankYouMail,omitempty"`
	RemindAfter   string     `bson:"remindAfter,omitempty"`
}

func toFormDoc(f tenants.Form) formDoc {
	return formDoc{ID: tenants.FormKey(f.TenantID, f.FormID), TenantID: f.TenantID, FormID: f.FormID, Name: f.Name, Open: f.Open,
		Fields: convertAll(f.Fields, func(fd tenants.FieldDef) fieldDoc { return fieldDoc(fd) }), CreatedAt: f.CreatedAt,
		UpdatedAt: f.UpdatedAt, Retention: f.Retention, RetentionFrom: f.RetentionFrom, Language: f.Language,
		DoubleOptIn: f.DoubleOptIn, ConfirmWithin: f.ConfirmWithin, PrimaryFor: f.PrimaryFor, ContactFor: f.ContactFor,
		HostedPage: f.HostedPage, AllowNoJS: f.AllowNoJS, ConsentSource: f.ConsentSource, ThankYouMail: f.ThankYouMail,
		RemindAfter: f.RemindAfter}
}

func (d formDoc) form() tenants.Form {
	return tenants.Form{ID: d.ID, TenantID: d.TenantID, FormID: d.FormID, Name: d.Name, Open: d.Open,
		Fields: convertAll(d.Fields, func(fd fieldDoc) tenants.FieldDef { return tenants.FieldDef(fd) }), CreatedAt: d.CreatedAt,
		UpdatedAt: d.UpdatedAt, Retention: d.Retention, RetentionFrom: d.RetentionFrom, Language: d.Language,
		DoubleOptIn: d.DoubleOptIn, ConfirmWithin: d.ConfirmWithin, PrimaryFor: d.PrimaryFor, ContactFor: d.ContactFor,
		HostedPage: d.HostedPage, AllowNoJS: d.AllowNoJS, ConsentSource: d.ConsentSource, ThankYouMail: d.ThankYouMail,
		RemindAfter: d.RemindAfter}
}

// bulkDoc is a bulk erasure request as stored.
type bulkDoc struct {
	ID          string         `bson:"_id"`
	TenantID    string         `bson:"tenantId"`
	RequestedBy string         `bson:"requestedBy"`
	RequestedAt time.Time      `bson:"requestedAt"`
	ExpiresAt   time.Time      `bson:"expiresAt"`
	Status      string         `bson:"status"`
	DecidedBy   string         `bson:"decidedBy,omitempty"`
	DecidedAt   *time.Time     `bson:"decidedAt,omitempty"`
	FinishedAt  *time.Time     `bson:"finishedAt,omitempty"`
	Emails      int            `bson:"emails"`
	Phones      int            `bson:"phones"`
	Expected    map[string]int `bson:"expected"`
	Erased      map[string]int `bson:"erased"`
	Keys        []string       `bson:"keys"`
	Total       int            `bson:"total"`
	Done        int            `bson:"done"`
}

// auditDoc is an entry as stored. The chain fields are left out until the entry has its
// place. Seq orders the entries of one time in order of append: entry ids need not sort (a
// job's ids are derived from what it records).
type auditDoc struct {
	ID        string         `bson:"_id"`
	Time      time.Time      `bson:"time"`
	TenantID  string         `bson:"tenantId"`
	Actor     string         `bson:"actor"`
	Action    string         `bson:"action"`
	RecordIDs []string       `bson:"recordIds,omitempty"`
	Counts    map[string]int `bson:"counts,omitempty"`
	Subject   string         `bson:"subject,omitempty"`
	Detail    string         `bson:"detail,omitempty"`
	RequestID string         `bson:"requestId,omitempty"`
	Chain     int64          `bson:"chain,omitempty"`
	Prev      string         `bson:"prev,omitempty"`
	Hash      string         `bson:"hash,omitempty"`
	Seq       int64          `bson:"seq"`
}

func toAuditDoc(e tenants.AuditEntry, seq int64) auditDoc {
	return auditDoc{ID: e.ID, Time: e.Time, TenantID: e.TenantID, Actor: e.Actor, Action: e.Action, RecordIDs: e.RecordIDs,
		Counts: e.Counts, Subject: e.Subject, Detail: e.Detail, RequestID: e.RequestID, Chain: e.Chain, Prev: e.Prev, Hash: e.Hash, Seq: seq}
}

// entry is the stored entry as the domain's.
func (d auditDoc) entry() tenants.AuditEntry {
	return tenants.AuditEntry{ID: d.ID, Time: d.Time, TenantID: d.TenantID, Actor: d.Actor, Action: d.Action, RecordIDs: d.RecordIDs,
		Counts: d.Counts, Subject: d.Subject, Detail: d.Detail, RequestID: d.RequestID, Chain: d.Chain, Prev: d.Prev, Hash: d.Hash}
}

// linkTo places the entry after head in its tenant's chain (tenants.ChainHead.Link) and
// returns the new head.
func (d *auditDoc) linkTo(head tenants.ChainHead) tenants.ChainHead {
	e := d.entry()
	next := head.Link(&e)
	*d = toAuditDoc(e, d.Seq)
	return next
}

// eventDoc is an outbox event as stored.
type eventDoc struct {
	ID       string    `bson:"_id"`
	TenantID string    `bson:"tenantId"`
	Type     string    `bson:"type"`
	Time     time.Time `bson:"time"`
	Payload  string    `bson:"payload"`
}

// endpointDoc is a webhook endpoint as stored; failingSince is there only while it fails.
type endpointDoc struct {
	ID           string     `bson:"_id"`
	TenantID     string     `bson:"tenantId"`
	URL          string     `bson:"url"`
	Events       []string   `bson:"events"`
	Secret       string     `bson:"secret"`
	CreatedAt    time.Time  `bson:"createdAt"`
	FailingSince *time.Time `bson:"failingSince,omitempty"`
}

// deliveryDoc is a delivery as stored, under the id endpoint/event, which makes a repeated
// fan-out write nothing.
type deliveryDoc struct {
	ID         string     `bson:"_id"`
	EndpointID string     `bson:"endpointId"`
	EventID    string     `bson:"eventId"`
	TenantID   string     `bson:"tenantId"`
	Type       string     `bson:"type"`
	Payload    string     `bson:"payload"`
	CreatedAt  time.Time  `bson:"createdAt"`
	Status     string     `bson:"status"`
	Attempts   int        `bson:"attempts"`
	NextAt     time.Time  `bson:"nextAt"`
	LastAt     *time.Time `bson:"lastAt,omitempty"`
	LastResult string     `bson:"lastResult,omitempty"`
}

func toDeliveryDoc(d tenants.Delivery) deliveryDoc {
	return deliveryDoc{ID: d.EndpointID + "/" + d.EventID, EndpointID: d.EndpointID, EventID: d.EventID, TenantID: d.TenantID,
		Type: d.Type, Payload: d.Payload, CreatedAt: d.CreatedAt, Status: d.Status, Attempts: d.Attempts, NextAt: d.NextAt,
		LastAt: d.LastAt, LastResult: d.LastResult}
}

func (d deliveryDoc) delivery() tenants.Delivery {
	return tenants.Delivery{EndpointID: d.EndpointID, EventID: d.EventID, TenantID: d.TenantID, Type: d.Type, Payload: d.Payload,
		CreatedAt: d.CreatedAt, Status: d.Status, Attempts: d.Attempts, NextAt: d.NextAt, LastAt: d.LastAt, LastResult: d.LastResult}
}

// contactDoc is a record's contact data as stored: a removed value is null.
type contactDoc struct {
	Email       *string `bson:"email"`
	PhoneNumber *string `bson:"phoneNumber"`
	FirstName   *string `bson:"firstName"`
	LastName    *string `bson:"lastName"`
	NamePrefix  *string `bson:"namePrefix"`
}

// addressDoc is a record's postal address as stored.
type addressDoc struct {
	Street      *string `bson:"street"`
	HouseNumber *string `bson:"houseNumber"`
	City        *string `bson:"city"`
	Postcode    *string `bson:"postcode"`
}

// consentsDoc is a record's three consents as stored; the queries name their fields
// (consents.primaryPurpose.status, ...).
type consentsDoc struct {
	PrimaryPurpose      consentDoc `bson:"primaryPurpose"`
	GeneralContactEmail consentDoc `bson:"generalContactEmail"`
	GeneralContactPhone consentDoc `bson:"generalContactPhone"`
}

// consentDoc is one consent as stored.
type consentDoc struct {
	Status       tenants.ConsentStatus `bson:"status"`
	GrantedAt    *time.Time            `bson:"grantedAt"`
	Deadline     *time.Time            `bson:"deadline"`
	RevokedAt    *time.Time            `bson:"revokedAt"`
	RevokedBy    string                `bson:"revokedBy,omitempty"`
	Source       *string               `bson:"source"`
	IPAddress    *string               `bson:"ipAddress"`
	Timestamp    *string               `bson:"timestamp"`
	Text         *textRefDoc           `bson:"text,omitempty"`
	ConfirmBy    *time.Time            `bson:"confirmBy,omitempty"`
	Confirmation *confirmationDoc      `bson:"confirmation,omitempty"`
}

// textRefDoc names the consent text a consent was given under, as stored.
type textRefDoc struct {
	Version  string `bson:"version"`
	Hash     string `bson:"hash"`
	Language string `bson:"language"`
}

// confirmationDoc is the proof of a double opt-in as stored.
type confirmationDoc struct {
	At        time.Time `bson:"at"`
	IPAddress *string   `bson:"ipAddress"`
	UserAgent *string   `bson:"userAgent"`
}

func toConsentsDoc(c tenants.Consents) consentsDoc {
	return consentsDoc{PrimaryPurpose: toConsentDoc(c.PrimaryPurpose), GeneralContactEmail: toConsentDoc(c.GeneralContactEmail),
		GeneralContactPhone: toConsentDoc(c.GeneralContactPhone)}
}

// consents is the stored consents as the domain's.
func (d consentsDoc) consents() tenants.Consents {
	return tenants.Consents{PrimaryPurpose: d.PrimaryPurpose.consent(), GeneralContactEmail: d.GeneralContactEmail.consent(),
		GeneralContactPhone: d.GeneralContactPhone.consent()}
}

func toConsentDoc(c tenants.Consent) consentDoc {
	return consentDoc{Status: c.Status, GrantedAt: c.GrantedAt, Deadline: c.Deadline, RevokedAt: c.RevokedAt, RevokedBy: c.RevokedBy,
		Source: c.Source, IPAddress: c.IPAddress, Timestamp: c.Timestamp, ConfirmBy: c.ConfirmBy,
		Text:         convertPtr(c.Text, func(t tenants.TextRef) textRefDoc { return textRefDoc(t) }),
		Confirmation: convertPtr(c.Confirmation, func(cf tenants.Confirmation) confirmationDoc { return confirmationDoc(cf) })}
}

func (d consentDoc) consent() tenants.Consent {
	return tenants.Consent{Status: d.Status, GrantedAt: d.GrantedAt, Deadline: d.Deadline, RevokedAt: d.RevokedAt, RevokedBy: d.RevokedBy,
		Source: d.Source, IPAddress: d.IPAddress, Timestamp: d.Timestamp, ConfirmBy: d.ConfirmBy,
		Text:         convertPtr(d.Text, func(t textRefDoc) tenants.TextRef { return tenants.TextRef(t) }),
		Confirmation: convertPtr(d.Confirmation, func(cf confirmationDoc) tenants.Confirmation { return tenants.Confirmation(cf) })}
}

// convertAll converts every element of in with to; nil stays nil.
func convertAll[F, T any](in []F, to func(F) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, v := range in {
		out[i] = to(v)
	}
	return out
}

// convertPtr converts what p points to with to; nil stays nil.
func convertPtr[F, T any](p *F, to func(F) T) *T {
	if p == nil {
		return nil
	}
	v := to(*p)
	return &v
}

// convertDocs converts the documents a read returned with to; an error passes.
func convertDocs[D, T any](docs []D, err error, to func(D) T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return convertAll(docs, to), nil
}
