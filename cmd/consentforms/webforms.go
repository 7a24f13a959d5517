package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"

	"github.com/consentforms/consentforms/api"
	"github.com/consentforms/consentforms/pages"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/altcha"
	"github.com/consentforms/consentforms/tenants/ops"
)

// challengeKey is the key that signs the web forms' spam challenges, derived from the secrets
// file's HMAC key under its own label: never in the database, and distinct from every other
// use of that key.
func challengeKey(keys secrets) []byte {
	m := hmac.New(sha256.New, keys.HMAC)
	m.Write([]byte("consentforms web form challenges v1"))
	return m.Sum(nil)
}

// formPagesDeps wires the hosted form page: the cached tenants and forms, the keys (for the
// sites that may frame it), intake, the spent challenges and the signer.
func formPagesDeps(store tenants.Stores, keys secrets, tens tenants.TenantStore, forms tenants.FormStore, svc *ops.Service) pages.FormPages {
	return pages.FormPages{Tenants: tens, Forms: forms, Keys: store.APIKeys, Ingest: svc, Challenges: store.Challenges,
		Signer: altcha.Signer{Key: challengeKey(keys), MaxNumber: altcha.DefaultMaxNumber, TTL: altcha.DefaultTTL},
		Texts:  currentTexts{svc}}
}

// currentTexts gives the hosted page the text of each consent as the form publishes it now
// (the set a submission without consent_text_version records).
type currentTexts struct{ svc *ops.Service }

func (t currentTexts) ConsentText(ctx context.Context, tenantID, formID, lang, consent string) (string, bool, error) {
	name, ok := tenants.ConsentByKey(consent)
	if !ok {
		return "", false, nil
	}
	set, err := t.svc.CurrentTexts(ctx, tenantID, formID, lang)
	if err != nil {
		return "", false, err
	}
	text, ok := set[name]
	return text.Text, ok, nil
}

// webFormsDeps wires the publishable keys' origins, the spent challenges and the signer.
func webFormsDeps(store tenants.Stores, keys secrets) api.WebForms {
	return api.WebForms{Origins: store.APIKeys, Challenges: store.Challenges,
		Signer: altcha.Signer{Key: challengeKey(keys), MaxNumber: altcha.DefaultMaxNumber, TTL: altcha.DefaultTTL}}
}
