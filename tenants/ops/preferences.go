package ops

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/webhook"
)

// The person's preference page (docs/API.md §17): the consents the person holds at the
// tenant now — general contact by e-mail, by phone, and the primary purpose of each form they
// signed — each withdrawn on its own, or all at once. It is opened by the record's withdrawal
// token, at /p/{token} and at the /w/{token} the mails sent before it carry.

// Choices a preference page posts besides ChoiceForm+form id.
const (
	ChoiceEmail = "email"
	ChoicePhone = "phone"
	ChoiceAll   = "all"
	// ChoiceForm prefixes a form's id: the primary purpose of that form.
	ChoiceForm = "form:"
)

// viaPreferences names the preference page in audit entries and revocations, viaOneClick a
// mail client's one-click unsubscribe (RFC 8058) posted to it.
const (
	viaPreferences = "preference page"
	viaOneClick    = "one-click unsubscribe"
)

// PreferenceForm is a form whose primary purpose the person holds: its id and its name.
type PreferenceForm struct{ ID, Name string }

// Preferences shows the consents the person of the withdrawal link token holds now (GET;
// changes nothing). An erased or unknown person has nothing (LinkNothing).
func (s *LinkPages) Preferences(ctx context.Context, token string) (LinkPage, error) {
	_, rec, page, err := s.withdrawable(ctx, token)
	if err != nil {
		return page, err
	}
	if page.State != LinkOpen {
		return s.withRequests(ctx, rec, page)
	}
	return s.preferencePage(ctx, rec, page)
}

// WithdrawChoice withdraws what the person chose on their preference page — a channel, a
// form's primary purpose, or everything — on every record that belongs to them (never one that
// only mentions them), audited with actor subject; nothing else changes. The page then shows
// what was withdrawn (Withdrawn: choices) and what remains. A choice the page did not offer is
// tenants.Violations.
func (s *LinkPages) WithdrawChoice(ctx context.Context, token, choice, requestID string) (LinkPage, error) {
	claims, rec, page, err := s.withdrawable(ctx, token)
	if err != nil || page.State != LinkOpen {
		return page, err
	}
	if page, err = s.preferenceItems(ctx, rec, page); err != nil {
		return page, err
	}
	offered := slices.Contains(page.Channels, choice) || choice == ChoiceAll
	for _, f := range page.Forms {
		offered = offered || choice == ChoiceForm+f.ID
	}
	if !offered {
		return page, tenants.Violations{{Field: "withdraw", Code: "unknown", Message: "Choose one of the consents the page lists."}}
	}
	id := s.ownIdentity(ctx, rec)
	var ch Channels
	forms := map[string]bool{}
	switch {
	case choice == ChoiceAll:
		ch = BothChannels
		for _, f := range page.Forms {
			forms[f.ID] = true
		}
	case choice == ChoiceEmail:
		ch.Email = true
	case choice == ChoicePhone:
		ch.Phone = true
	default:
		forms[strings.TrimPrefix(choice, ChoiceForm)] = true
	}
	if ch.Email || ch.Phone {
		if _, err := s.RevokeContact(ctx, claims.TenantID, ActorSubject, viaPreferences, requestID, []Identity{id}, ch); err != nil {
			return page, err
		}
	}
	if len(forms) > 0 {
		if err := s.revokePrimary(ctx, claims.TenantID, requestID, id, forms); err != nil {
			return page, err
		}
	}
	done, err := s.preferencePage(ctx, rec, page)
	done.State, done.Withdrawn = LinkDone, []string{choice}
	return done, err
}

// OneClick is a mail client's one-click unsubscribe (RFC 8058) posted to the preference page
// of a mail's List-Unsubscribe header: it withdraws general contact by e-mail on every record
// that belongs to the person — a pending one too — and nothing else, audited with actor
// subject. A repeat changes nothing and answers the same.
func (s *LinkPages) OneClick(ctx context.Context, token, requestID string) (LinkPage, error) {
	claims, rec, page, err := s.withdrawable(ctx, token)
	if err != nil || page.State != LinkOpen {
		return page, err
	}
	if _, err := s.RevokeContact(ctx, claims.TenantID, ActorSubject, viaOneClick, requestID, []Identity{s.ownIdentity(ctx, rec)}, Channels{Email: true}); err != nil {
		return page, err
	}
	done, err := s.preferencePage(ctx, rec, page)
	done.State, done.Withdrawn = LinkDone, []string{ChoiceEmail}
	return done, err
}

// preferenceItems fills page with the channels and forms the person of rec holds now;
// LinkNothing when none is left.
func (s *LinkPages) preferenceItems(ctx context.Context, rec tenants.Record, page LinkPage) (LinkPage, error) {
	recs, err := s.find(ctx, rec.TenantID, s.ownIdentity(ctx, rec), unsubscribeKinds...)
	if err != nil {
		return page, wrap("preferences", err)
	}
	now := s.Now()
	channels := map[string]bool{}
	forms := map[string]bool{}
	for _, r := range recs {
		for _, ch := range r.Consents.GrantedChannels(now) {
			channels[ch] = true
		}
		if r.FormID != "" && r.Consents.PrimaryPurpose.StatusAt(now) == tenants.StatusGranted {
			forms[r.FormID] = true
		}
	}
	page.Channels, page.Forms = nil, nil
	for _, ch := range tenants.Channels() {
		if channels[ch] {
			page.Channels = append(page.Channels, ch)
		}
	}
	for id := range forms {
		f, err := s.Forms.Get(ctx, rec.TenantID, id)
		if err != nil && !errors.Is(err, tenants.ErrNotFound) {
			return page, wrap("preferences", err)
		}
		name := f.Name
		if name == "" {
			name = id
		}
		page.Forms = append(page.Forms, PreferenceForm{ID: id, Name: name})
	}
	slices.SortFunc(page.Forms, func(a, b PreferenceForm) int { return strings.Compare(a.Name+"\x00"+a.ID, b.Name+"\x00"+b.ID) })
	if len(page.Channels) == 0 && len(page.Forms) == 0 {
		page.State = LinkNothing
	}
	return page, nil
}

// revokePrimary withdraws the primary purpose of the person's records of the forms given, in
// one change with one audit entry (consent.revoked, actor subject) and an event per record.
func (s *LinkPages) revokePrimary(ctx context.Context, tenantID, requestID string, id Identity, forms map[string]bool) error {
	keys := s.hashes(tenantID, id)
	if len(keys) == 0 {
		return nil
	}
	now := s.Now()
	names := make([]string, 0, len(forms))
	for f := range forms {
		names = append(names, f)
	}
	slices.Sort(names)
	_, err := s.Writer.Revoke(ctx, tenants.Change{
		TenantID:  tenantID,
		MatchKeys: keys,
		Kinds:     unsubscribeKinds,
		Apply: func(rec *tenants.Record) (bool, error) {
			return forms[rec.FormID] && rec.Consents.RevokePrimary(now, viaPreferences), nil
		},
		Audit: func(changed []tenants.Record) []tenants.AuditEntry {
			return []tenants.AuditEntry{{Time: now, TenantID: tenantID, Actor: ActorSubject, Action: tenants.ActionConsentRevoked,
				RecordIDs: publicIDs(changed), Counts: map[string]int{"revoked": len(changed)}, Subject: s.Subject(tenantID, id),
				Detail: string(tenants.ConsentPrimaryPurpose) + " of " + strings.Join(names, ",") + " via " + viaPreferences, RequestID: requestID}}
		},
		Events: func(changed []tenants.Record) []tenants.OutboxEvent {
			return s.LinkEvents(ctx, webhook.Revoked(tenants.NewAuditID(now), now, changed), changed)
		},
	})
	return wrap("withdraw primary purpose", err)
}
