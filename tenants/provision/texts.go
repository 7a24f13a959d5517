package provision

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/consentforms/consentforms/tenants"
)

// MaxConsentText bounds a notice, in characters: long enough for any consent notice, short
// enough that a form's texts stay cheap to cache.
const MaxConsentText = 20000

// TextInput is a notice version to publish for one consent of a form.
type TextInput struct {
	TenantID string
	FormID   string
	// Consent names the consent as the API does (primaryPurpose) or as submission keys do
	// (primary_purpose).
	Consent  string
	Language string // ISO 639-1
	// Text is stored and hashed exactly as given: not trimmed, not normalised.
	Text string
}

// CheckText validates a notice version and returns its consent name and language normalised.
func CheckText(in TextInput) (tenants.ConsentName, string, tenants.Violations) {
	var c checks
	name, ok := tenants.ConsentByKey(in.Consent)
	if !ok {
		c.add("consent", CodeUnknown, "Choose primary_purpose, general_contact_email or general_contact_phone.")
	}
	lang := strings.ToLower(strings.TrimSpace(in.Language))
	switch {
	case lang == "":
		c.add("lang", CodeRequired, "Give the text's language, a two-letter ISO 639-1 code such as de.")
	case !validLanguage(lang):
		c.add("lang", CodeInvalid, "Give a two-letter ISO 639-1 language code, such as de.")
	}
	switch {
	case strings.TrimSpace(in.Text) == "":
		c.add("text", CodeRequired, "Give the text the person sees.")
	case !utf8.ValidString(in.Text):
		c.add("text", CodeInvalid, "The text must be UTF-8.")
	case tooLong(in.Text, MaxConsentText):
		c.add("text", CodeTooLong, "Use at most 20000 characters.")
	}
	return name, lang, c.vs
}

// PublishText publishes a new version of a consent's notice on the tenant's form: a fresh
// version id, the SHA-256 of the exact text, the publication time. Versions are never changed;
// publishing again makes a newer one. tenants.ErrNotFound when the tenant has no such form.
func (s *Service) PublishText(ctx context.Context, a Actor, in TextInput) (tenants.ConsentText, error) {
	name, lang, vs := CheckText(in)
	if len(vs) > 0 {
		return tenants.ConsentText{}, vs
	}
	if _, err := s.Forms.Get(ctx, in.TenantID, in.FormID); err != nil {
		return tenants.ConsentText{}, err
	}
	t := tenants.ConsentText{ID: tenants.NewID("ct_"), TenantID: in.TenantID, FormID: in.FormID, Consent: name, Language: lang,
		Text: in.Text, Hash: tenants.HashText(in.Text), PublishedAt: s.now().Truncate(time.Millisecond)}
	if err := s.Texts.Insert(ctx, t); err != nil {
		return tenants.ConsentText{}, err
	}
	return t, s.audit(ctx, a, in.TenantID, tenants.ActionFormChanged, "text "+string(name)+" "+lang+" "+t.ID, in.FormID)
}
