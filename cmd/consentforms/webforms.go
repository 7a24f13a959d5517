package main

import (
	"crypto/hmac"
	"crypto/sha256"

	"github.com/consentforms/consentforms/api"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/altcha"
)

// challengeKey is the key that signs the web forms' spam challenges, derived from the secrets
// file's HMAC key under its own label: never in the database, and distinct from every other
// use of that key.
func challengeKey(keys secrets) []byte {
	m := hmac.New(sha256.New, keys.HMAC)
	m.Write([]byte("consentforms web form challenges v1"))
	return m.Sum(nil)
}

// webFormsDeps wires the publishable keys' origins, the spent challenges and the signer.
func webFormsDeps(store tenants.Stores, keys secrets) api.WebForms {
	return api.WebForms{Origins: store.APIKeys, Challenges: store.Challenges,
		Signer: altcha.Signer{Key: challengeKey(keys), MaxNumber: altcha.DefaultMaxNumber, TTL: altcha.DefaultTTL}}
}
