package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/intake"
)

// TextLookup reads a form's consent texts in publication order: List may answer from a cache,
// Reload reads past it (package cache implements it).
type TextLookup interface {
	List(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error)
	Reload(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error)
}

// CurrentTexts returns the notice each consent of the tenant's form shows now, in lang where
// the form has texts in it, else in the language of its latest publication (docs/API.md
// §12.2); a consent without a text is absent, and a form without texts gives an empty set.
func (s *Core) CurrentTexts(ctx context.Context, tenantID, formID, lang string) (tenants.TextSet, error) {
	texts, err := s.texts(ctx, tenantID, formID)
	if err != nil {
		return nil, wrap("current texts", err)
	}
	return tenants.CurrentSet(texts, lang), nil
}

// StampTexts records in each granted consent of d the notice version it was given under:
// those of the set d.TextVersion names, else the form's current ones in its language. form is
// the draft's open form, nil when it has none (then a named version is unknown). ok is false
// when d names a version that is not one of form's.
func (s *Intake) StampTexts(ctx context.Context, tenantID string, form *tenants.Form, d *intake.Draft) (ok bool, err error) {
	if form == nil {
		return d.TextVersion == "", nil
	}
	texts, err := s.texts(ctx, tenantID, form.FormID)
	if err != nil {
		return false, wrap("consent texts", err)
	}
	if d.TextVersion == "" {
		tenants.CurrentSet(texts, form.Language).Stamp(&d.Consents)
		return true, nil
	}
	set, found := tenants.SetOf(texts, d.TextVersion)
	if !found && s.Texts != nil {
		// Published elsewhere (the command line, another instance) since the list was cached.
		if texts, err = s.Texts.Reload(ctx, tenantID, form.FormID); err != nil {
			return false, wrap("consent texts", err)
		}
		set, found = tenants.SetOf(texts, d.TextVersion)
	}
	if found {
		set.Stamp(&d.Consents)
	}
	return found, nil
}

// texts are the form's texts, none where the service has no text lookup.
func (s *Core) texts(ctx context.Context, tenantID, formID string) ([]tenants.ConsentText, error) {
	if s.Texts == nil {
		return []tenants.ConsentText{}, nil
	}
	return s.Texts.List(ctx, tenantID, formID)
}
