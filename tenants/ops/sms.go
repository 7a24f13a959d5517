package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
	"github.com/consentforms/consentforms/tenants/sealed"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
)

// FormLister lists a tenant's forms: their languages are the tenant's, for the SMS keyword
// rule.
type FormLister interface {
	List(ctx context.Context, tenantID string) ([]tenants.Form, error)
}

// SMSOutcome is what the inbound messages of one delivery came to.
type SMSOutcome struct {
	// Revoked counts the records whose general contact by phone was withdrawn.
	Revoked int
	// OptOuts and OptIns count the messages applied as opt-outs and audited as opt-ins.
	OptOuts, OptIns int
	// Other counts the messages that changed nothing: another text, not sent to one of the
	// tenant's numbers, an unreadable sender, or a message id applied before.
	Other int
}

// ApplySMS applies the inbound messages a provider posted for the tenant (docs/API.md §11):
//   - once the tenant has registered sending numbers, a message not sent to one of them changes
//     nothing there (a correctly signed message re-addressed to another tenant's URL);
//   - what a message asks is the tenant's keyword rule (unsubscribe.Keywords: the industry
//     keywords, those of its default country's and its forms' languages, its own words);
//   - an opt-out revokes general contact by phone on the records that belong to the sender's
//     number; START or UNSTOP grants nothing and writes an sms.opt_in_keyword entry, the
//     sender named by keyed hash only;
//   - a provider message id is applied once, whichever tenant it was posted for: one applied
//     before changes nothing and writes nothing, even where a new grant was given since. An id
//     is remembered after its change is stored, so a crash in between makes the retry apply
//     it again, which changes nothing twice.
//
// A message with no id (the admin UI's "Send test") is applied and not remembered.
func (s *Persons) ApplySMS(ctx context.Context, tenantID, actor, provider, requestID string, msgs []unsubscribe.Message) (SMSOutcome, error) {
	var out SMSOutcome
	if len(msgs) == 0 {
		return out, nil
	}
	rule, err := s.smsRule(ctx, tenantID)
	if err != nil {
		return out, err
	}
	for _, m := range msgs {
		from, ok := contact.NormalisePhone(m.From, rule.country)
		if !ok || !rule.sentToTenant(m.To) {
			out.Other++
			continue
		}
		kind := rule.keywords.Classify(m.Text, m.ProviderKeyword)
		if kind == unsubscribe.KeywordNone {
			out.Other++
			continue
		}
		if m.ID != "" && s.SMS != nil {
			seen, err := s.SMS.MessageSeen(ctx, tenantID, provider, m.ID)
			if err != nil {
				return out, wrap("sms opt-out", err)
			}
			if seen {
				out.Other++
				continue
			}
		}
		if kind == unsubscribe.KeywordOptOut {
			n, err := s.RevokeContact(ctx, tenantID, actor, provider, requestID, []Identity{{Phone: from}}, PhoneChannel)
			if err != nil {
				return out, err
			}
			out.Revoked += n
			out.OptOuts++
		} else {
			err := s.Audit.Append(ctx, tenants.AuditEntry{Time: s.Now().UTC(), TenantID: tenantID, Actor: actor,
				Action: tenants.ActionSMSOptInKeyword, Subject: s.Subject(tenantID, Identity{Phone: from}),
				Detail: "opt-in keyword via " + provider + ", nothing granted", RequestID: requestID})
			if err != nil {
				return out, wrap("sms opt-in keyword", err)
			}
			out.OptIns++
		}
		if m.ID != "" && s.SMS != nil {
			if err := s.SMS.RememberMessage(ctx, tenantID, provider, m.ID, s.Now()); err != nil {
				return out, wrap("sms opt-out", err)
			}
		}
	}
	return out, nil
}

// smsRule is what a tenant's inbound messages are read with.
type smsRule struct {
	country  string
	numbers  map[string]bool // the registered sending numbers; none: every number is the tenant's
	keywords unsubscribe.Keywords
}

// sentToTenant reports whether a message sent to the number to applies to the tenant.
func (r smsRule) sentToTenant(to string) bool {
	if len(r.numbers) == 0 {
		return true
	}
	n, ok := contact.NormalisePhone(to, r.country)
	return ok && r.numbers[n]
}

// smsRule reads the tenant's default country, own words, forms' languages and sending numbers.
func (s *Persons) smsRule(ctx context.Context, tenantID string) (smsRule, error) {
	var r smsRule
	var words, formLangs []string
	if s.Tenants != nil {
		t, err := s.Tenants.Get(ctx, tenantID)
		if err != nil {
			return r, wrap("sms opt-out", err)
		}
		r.country, words = t.DefaultCountry, t.SMSStopWords
	}
	if s.FormList != nil {
		forms, err := s.FormList.List(ctx, tenantID)
		if err != nil {
			return r, wrap("sms opt-out", err)
		}
		for _, f := range forms {
			formLangs = append(formLangs, f.Language)
		}
	}
	if s.SMS != nil {
		numbers, err := s.SMS.Numbers(ctx, tenantID)
		if err != nil {
			return r, wrap("sms opt-out", err)
		}
		r.numbers = make(map[string]bool, len(numbers))
		for _, n := range numbers {
			r.numbers[n.Number] = true
		}
	}
	r.keywords = unsubscribe.NewKeywords(unsubscribe.Languages(r.country, formLangs), words)
	return r, nil
}

// SMSSecrets opens the tenants' SMS provider secrets, sealed in Repo, with the server's keys.
type SMSSecrets struct {
	Repo tenants.SMSRepo
	Keys func() *sealed.Keys
}

// Secret returns the tenant's secret of provider in plaintext; tenants.ErrNotFound when none
// is set, sealed.ErrUnreadable when the server's keys cannot open it.
func (s SMSSecrets) Secret(ctx context.Context, tenantID, provider string) (string, error) {
	sec, err := s.Repo.Secret(ctx, tenantID, provider)
	if err != nil {
		return "", err
	}
	return s.Keys().Open(sec.Sealed, tenants.SMSSecretOwner(tenantID, provider))
}
