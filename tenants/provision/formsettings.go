package provision

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/consent"
	"golang.org/x/text/language"
)

// FormSettings changes what a form says to the person and how it asks them to confirm; a nil
// field keeps the form's current setting.
type FormSettings struct {
	TenantID string
	FormID   string
	// Language: an ISO 639-1 code ("de"), any case; "" is English.
	Language *string
	// DoubleOptIn: the general-contact channels that ask confirmation; empty for none.
	DoubleOptIn *[]string
	// ConfirmWithin: how long a confirmation link stays valid ("7d", "P7D"); "" is seven days.
	ConfirmWithin *string
	// PrimaryFor and ContactFor: how long the consents given on the hosted page last
	// (intervals; "" is the default).
	PrimaryFor, ContactFor *string
	// HostedPage and AllowNoJS: "on" or "off" (the hosted page; its no-script fallback).
	HostedPage, AllowNoJS *string
	// ThankYouMail: "on" or "off" (a thank-you mail after each submission).
	ThankYouMail *string
	// ConsentSource: the consent_source the public ways in record; "" is web:<form id>.
	ConsentSource *string
	// RemindAfter: when a confirmation still waiting is mailed again ("3d"); "" is half the
	// confirmation period, "none" no reminder.
	RemindAfter *string
	// ShortIntervals takes a ConfirmWithin and a RemindAfter under MinInterval (the tests' short
	// settings); people's forms are refused them.
	ShortIntervals bool
}

// MinInterval is the shortest confirmation period and reminder a form may set: a person needs
// the time to open the mail.
const MinInterval = time.Minute

// CheckFormSettings validates the settings given and returns them normalised (language lower
// case, channels in their usual order without repeats).
func CheckFormSettings(in FormSettings) (FormSettings, tenants.Violations) {
	var c checks
	out := in
	if in.Language != nil {
		lang := strings.ToLower(strings.TrimSpace(*in.Language))
		if lang != "" && !validLanguage(lang) {
			c.add("language", CodeInvalid, "Give a two-letter ISO 639-1 language code, such as de, or nothing.")
		}
		out.Language = &lang
	}
	if in.DoubleOptIn != nil {
		var channels []string
		for _, ch := range *in.DoubleOptIn {
			ch = strings.ToLower(strings.TrimSpace(ch))
			if ch == "" || ch == "none" {
				continue
			}
			if !slices.Contains(tenants.Channels(), ch) {
				c.add("double_opt_in", CodeUnknown, "Choose email, phone, both, or none.")
			}
		}
		for _, ch := range tenants.Channels() {
			if slices.ContainsFunc(*in.DoubleOptIn, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), ch) }) {
				channels = append(channels, ch)
			}
		}
		out.DoubleOptIn = &channels
	}
	out.ConfirmWithin, out.RemindAfter = c.confirmSettings(in)
	for _, v := range []struct {
		field string
		in    *string
		out   **string
	}{{"primary_for", in.PrimaryFor, &out.PrimaryFor}, {"contact_for", in.ContactFor, &out.ContactFor}} {
		if v.in != nil {
			d := strings.TrimSpace(*v.in)
			c.consentFor(v.field, d)
			*v.out = &d
		}
	}
	for _, v := range []struct {
		field string
		in    *string
		out   **string
	}{{"hosted_page", in.HostedPage, &out.HostedPage}, {"allow_no_js", in.AllowNoJS, &out.AllowNoJS}, {"thank_you_mail", in.ThankYouMail, &out.ThankYouMail}} {
		if v.in != nil {
			o := strings.ToLower(strings.TrimSpace(*v.in))
			if o != "on" && o != "off" {
				c.add(v.field, CodeInvalid, "Give on or off.")
			}
			*v.out = &o
		}
	}
	if in.ConsentSource != nil {
		src := strings.TrimSpace(*in.ConsentSource)
		if len(src) > 200 {
			c.add("consent_source", CodeInvalid, "Give at most 200 characters.")
		}
		out.ConsentSource = &src
	}
	return out, c.vs
}

// confirmSettings checks the confirmation period and the reminder given (nil: not given),
// each an interval of at least MinInterval unless in.ShortIntervals, and returns them
// normalised.
func (c *checks) confirmSettings(in FormSettings) (within, after *string) {
	interval := func(field, v, invalid, short string) {
		if iv, err := consent.ParseInterval(v); err != nil || iv.IsZero() {
			c.add(field, CodeInvalid, invalid)
		} else if !in.ShortIntervals && consent.ConfirmWithin(v) < MinInterval {
			c.add(field, CodeInvalid, short)
		}
	}
	if in.ConfirmWithin != nil {
		w := strings.TrimSpace(*in.ConfirmWithin)
		if w != "" {
			interval("confirm_within", w, "Give an interval such as 7d or P14D, or nothing for seven days.", "Give at least one minute, such as 7d or PT30M.")
		}
		within = &w
	}
	if in.RemindAfter != nil {
		a := strings.ToLower(strings.TrimSpace(*in.RemindAfter))
		if a != "" && a != tenants.RemindNone {
			interval("remind_after", a, "Give an interval such as 3d, none for no reminder, or nothing for half the confirmation period.",
				"Give at least one minute, such as 3d or PT30M.")
		}
		after = &a
	}
	return within, after
}

// validLanguage reports whether lang (lower case) is a two-letter ISO 639-1 code.
func validLanguage(lang string) bool {
	b, err := language.ParseBase(lang)
	return err == nil && len(lang) == 2 && b.String() == lang
}

// UpdateFormSettings applies the settings given to the tenant's form and returns the form as
// changed; tenants.ErrNotFound when the tenant has no such form.
func (s *Service) UpdateFormSettings(ctx context.Context, a Actor, in FormSettings) (tenants.Form, error) {
	in, vs := CheckFormSettings(in)
	if len(vs) > 0 {
		return tenants.Form{}, vs
	}
	f, err := s.Forms.Get(ctx, in.TenantID, in.FormID)
	if err != nil {
		return tenants.Form{}, err
	}
	if in.Language != nil {
		f.Language = *in.Language
	}
	if in.DoubleOptIn != nil {
		f.DoubleOptIn = *in.DoubleOptIn
	}
	if in.ConfirmWithin != nil {
		f.ConfirmWithin = *in.ConfirmWithin
	}
	if in.PrimaryFor != nil {
		f.PrimaryFor = *in.PrimaryFor
	}
	if in.ContactFor != nil {
		f.ContactFor = *in.ContactFor
	}
	if in.HostedPage != nil {
		f.HostedPage = *in.HostedPage == "on"
	}
	if in.AllowNoJS != nil {
		f.AllowNoJS = *in.AllowNoJS == "on"
	}
	if in.ThankYouMail != nil {
		f.ThankYouMail = *in.ThankYouMail == "on"
	}
	if in.ConsentSource != nil {
		f.ConsentSource = *in.ConsentSource
	}
	if in.RemindAfter != nil {
		f.RemindAfter = *in.RemindAfter
	}
	f.UpdatedAt = s.now()
	if err := s.Forms.Save(ctx, f); err != nil {
		return tenants.Form{}, err
	}
	return f, s.audit(ctx, a, in.TenantID, tenants.ActionFormChanged, "settings", f.FormID)
}
