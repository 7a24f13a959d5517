package ops

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/tenants/links"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// LinkState is what a link can do, or why it cannot.
type LinkState int

// The states of a link.
const (
	// LinkInvalid: malformed, not signed by this server, or naming nothing there is (404).
	LinkInvalid LinkState = iota + 1
	// LinkOpen: a confirmation that a POST would make.
	LinkOpen
	// LinkDone: the POST confirmed (or withdrew) just now.
	LinkDone
	// LinkUsed: the confirmation link was used already (410).
	LinkUsed
	// LinkLapsed: the confirmation period is over, or the record was erased (410).
	LinkLapsed
	// LinkNothing: a withdrawal link whose person has nothing left to withdraw.
	LinkNothing
)

// LinkPage is what a page shows for a link.
type LinkPage struct {
	State LinkState
	// Language is the form's language ("" English), Organisation the organisation's legal
	// name (else the tenant's name), PrivacyURL and Contact its privacy notice and
	// data-protection contact ("" none set).
	Language     string
	Organisation string
	PrivacyURL   string
	Contact      string
	// Channel is the general-contact channel a confirmation is for; Channels those a
	// withdrawal shows (granted now) or withdrew.
	Channel  string
	Channels []string
	// Forms are the forms whose primary purpose a preference page shows (the person holds it
	// now); Withdrawn the choices it withdrew just now.
	Forms     []PreferenceForm
	Withdrawn []string
	// Live: the person's record is held, so the preference page may file a data-subject
	// request; Requests are the person's requests, newest first, Filed the kind filed just now.
	Live     bool
	Requests []tenants.SubjectRequest
	Filed    string
}

// ConfirmLink says what the confirmation link token would do, changing nothing (GET).
func (s *LinkPages) ConfirmLink(ctx context.Context, token string) (LinkPage, error) {
	_, _, page, err := s.confirmable(ctx, token)
	return page, err
}

// Confirm confirms the pending consent the link token names (POST): pending becomes granted,
// with the time, address and user agent as proof, the deadline kept; audited with actor
// subject, consent.granted emitted, the token spent.
func (s *LinkPages) Confirm(ctx context.Context, token, ip, userAgent, requestID string) (LinkPage, error) {
	claims, rec, page, err := s.confirmable(ctx, token)
	if err != nil || page.State != LinkOpen {
		return page, err
	}
	now := s.Now()
	changed, err := s.Writer.Revoke(ctx, tenants.Change{TenantID: claims.TenantID, RecordIDs: []string{rec.ID}, Kinds: []tenants.Kind{rec.Kind},
		Apply: func(r *tenants.Record) (bool, error) {
			return r.AnonymisedAt == nil && r.Consents.Confirm(claims.Consent, now, nonEmpty(ip), nonEmpty(userAgent)), nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: claims.TenantID, Actor: ActorSubject, Action: tenants.ActionConsentGranted,
				RecordIDs: publicIDs(changed), Subject: s.recordSubject(ctx, changed[0]), Detail: string(claims.Consent) + " confirmed", RequestID: requestID}}
		},
		Events: func(changed []tenants.Record) []tenants.OutboxEvent {
			ev := webhook.Confirmed(now, changed[0], claims.Consent)
			return s.LinkEvents(ctx, []tenants.OutboxEvent{ev}, changed)
		}})
	if err != nil {
		return page, wrap("confirm", err)
	}
	if len(changed) == 0 {
		// Another request confirmed it between the read and the write.
		page.State = LinkUsed
		return page, nil
	}
	if _, err := s.SpentTokens.Spend(ctx, claims.TenantID, links.ID(token), now, claims.Expires); err != nil {
		// The consent is confirmed and no longer pending: the link cannot confirm again
		// whether or not its use was remembered.
		s.ObserveError(err)
	}
	page.State = LinkDone
	return page, nil
}

// confirmable reads what the confirmation link token names and judges it at now.
func (s *LinkPages) confirmable(ctx context.Context, token string) (links.Claims, tenants.Record, LinkPage, error) {
	page := LinkPage{State: LinkInvalid}
	claims, rec, err := s.linkRecord(ctx, token, links.KindConfirm)
	if err != nil || rec.ID == "" {
		return claims, rec, page, err
	}
	con := rec.Consents.ByName(claims.Consent)
	if con == nil || tenants.ChannelOf(claims.Consent) == "" || con.ConfirmBy == nil || con.ConfirmBy.Unix() != claims.Expires.Unix() {
		return claims, rec, page, nil
	}
	if err := s.describe(ctx, rec, &page); err != nil {
		return claims, rec, page, err
	}
	page.Channel = tenants.ChannelOf(claims.Consent)
	spent, err := s.SpentTokens.Spent(ctx, claims.TenantID, links.ID(token))
	switch {
	case err != nil:
		return claims, rec, page, wrap("confirm", err)
	case spent || con.Confirmation != nil:
		page.State = LinkUsed
	case rec.AnonymisedAt != nil || !con.PendingAt(s.Now()):
		page.State = LinkLapsed
	default:
		page.State = LinkOpen
	}
	return claims, rec, page, nil
}

// linkRecord verifies token as a link of kind and reads the record it names; a bad token or
// a record that is not there gives a zero record and no error.
func (s *LinkPages) linkRecord(ctx context.Context, token, kind string) (links.Claims, tenants.Record, error) {
	if s.PersonLinks == nil {
		return links.Claims{}, tenants.Record{}, nil
	}
	claims, err := s.PersonLinks.Signer.Parse(token)
	if err != nil || claims.Kind != kind {
		return claims, tenants.Record{}, nil
	}
	rec, err := s.Records.Get(ctx, claims.TenantID, claims.Record, claims.PublicID)
	if errors.Is(err, tenants.ErrNotFound) {
		return claims, tenants.Record{}, nil
	}
	return claims, rec, wrap("read link record", err)
}

// describe fills the page's language and organisation from rec's form and tenant; one that
// is gone leaves English and no name.
func (s *LinkPages) describe(ctx context.Context, rec tenants.Record, page *LinkPage) error {
	if rec.FormID != "" {
		f, err := s.Forms.Get(ctx, rec.TenantID, rec.FormID)
		if err != nil && !errors.Is(err, tenants.ErrNotFound) {
			return wrap("read link form", err)
		}
		page.Language = f.Language
	}
	if s.Tenants != nil {
		t, err := s.Tenants.Get(ctx, rec.TenantID)
		if err != nil && !errors.Is(err, tenants.ErrNotFound) {
			return wrap("read link tenant", err)
		}
		page.Organisation, page.PrivacyURL, page.Contact = t.DisplayName(), t.Identity.PrivacyURL, t.Identity.ContactEmail
	}
	return nil
}

// recordSubject is the audit subject of rec's own identifiers.
func (s *Core) recordSubject(ctx context.Context, rec tenants.Record) string {
	return s.Subject(rec.TenantID, s.ownIdentity(ctx, rec))
}

// ownIdentity is the person rec belongs to: its own e-mail and phone, normalised as the
// match keys were made (a record has at most one of each).
func (s *Core) ownIdentity(ctx context.Context, rec tenants.Record) Identity {
	ids := anonymise.Identifiers(rec, s.countryOf(ctx, rec))
	var id Identity
	if len(ids.Emails) > 0 {
		id.Email = ids.Emails[0]
	}
	if len(ids.Phones) > 0 {
		id.Phone = ids.Phones[0]
	}
	return id
}

// countryOf is the default country of rec's tenant ("" when unknown).
func (s *Core) countryOf(ctx context.Context, rec tenants.Record) string {
	c, _ := s.TenantCountry(ctx, rec.TenantID)
	return c
}

// Withdraw withdraws the general contact of the person the withdrawal link token names, as
// an unsubscribe of their own identifiers does (their belonging records only), audited with
// actor subject (POST). An erased record has nothing left to withdraw.
func (s *LinkPages) Withdraw(ctx context.Context, token, requestID string) (LinkPage, error) {
	claims, rec, page, err := s.withdrawable(ctx, token)
	if err != nil || page.State != LinkOpen {
		return page, err
	}
	if page.Channels, err = s.grantedChannels(ctx, rec); err != nil {
		return page, err
	}
	n, err := s.RevokeContact(ctx, claims.TenantID, ActorSubject, viaWithdrawal, requestID, []Identity{s.ownIdentity(ctx, rec)}, BothChannels)
	switch {
	case err != nil:
		return page, err
	case n == 0 || len(page.Channels) == 0: // at most a pending confirmation was cancelled
		page.State = LinkNothing
	default:
		page.State = LinkDone
	}
	return page, nil
}

// withdrawable reads what the withdrawal link token names: LinkOpen for a live record,
// LinkNothing for an erased or removed one, LinkInvalid for a bad token.
func (s *LinkPages) withdrawable(ctx context.Context, token string) (links.Claims, tenants.Record, LinkPage, error) {
	page := LinkPage{State: LinkInvalid}
	claims, rec, err := s.linkRecord(ctx, token, links.KindWithdraw)
	if err != nil || claims.Kind != links.KindWithdraw {
		return claims, rec, page, err
	}
	page.State = LinkNothing
	if rec.ID == "" {
		rec = tenants.Record{TenantID: claims.TenantID}
	}
	if err := s.describe(ctx, rec, &page); err != nil {
		return claims, rec, page, err
	}
	if rec.PublicID != "" && rec.AnonymisedAt == nil && (s.ownIdentity(ctx, rec) != Identity{}) {
		page.State, page.Live = LinkOpen, true
	}
	return claims, rec, page, nil
}

// grantedChannels are the general-contact channels granted now on any record of the tenant
// that belongs to rec's person, in the order of tenants.Channels().
func (s *LinkPages) grantedChannels(ctx context.Context, rec tenants.Record) ([]string, error) {
	recs, err := s.find(ctx, rec.TenantID, s.ownIdentity(ctx, rec), unsubscribeKinds...)
	if err != nil {
		return nil, wrap("withdrawal", err)
	}
	now := s.Now()
	seen := map[string]bool{}
	for _, r := range recs {
		for _, ch := range r.Consents.GrantedChannels(now) {
			seen[ch] = true
		}
	}
	var out []string
	for _, ch := range tenants.Channels() {
		if seen[ch] {
			out = append(out, ch)
		}
	}
	return out, nil
}
