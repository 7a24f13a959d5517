package main

import (
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
// forms publishable keys name and the sites that may frame them), the intake case, the spent
// challenges and the signer.
func formPagesDeps(store tenants.Stores, keys secrets, tens tenants.TenantStore, forms tenants.FormStore, cases ops.Cases) pages.FormPages {
	return pages.FormPages{Tenants: tens, Forms: forms, Keys: store.APIKeys, Intake: cases.Intake, Challenges: store.Challenges,
		Signer: altcha.Signer{Key: challengeKey(keys), MaxNumber: altcha.DefaultMaxNumber, TTL: altcha.DefaultTTL},
		Texts:  cases.Core}
}

// webFormsDeps wires the publishable keys' origins, the spent challenges and the signer.
func webFormsDeps(store tenants.Stores, keys secrets) api.WebForms {
	return api.WebForms{Origins: store.APIKeys, Challenges: store.Challenges,
		Signer: altcha.Signer{Key: challengeKey(keys), MaxNumber: altcha.DefaultMaxNumber, TTL: altcha.DefaultTTL}}
}
