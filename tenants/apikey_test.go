package tenants

import (
	"strings"
	"testing"
	"time"
)

func TestAPIKeyRoundTrip(t *testing.T) {
	now := time.Now()
	k, plain, err := NewAPIKey("t1", "web form", []string{ScopeSubmissionsWrite, ScopeSubmissionsWrite}, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "cf_"+k.ID+"_") || strings.Contains(k.Hash, plain[len(k.Prefix()):]) {
		t.Fatalf("plaintext %q, prefix %q, hash %q", plain, k.Prefix(), k.Hash)
	}
	if len(k.Scopes) != 1 {
		t.Errorf("scopes not de-duplicated: %v", k.Scopes)
	}
	id, secret, ok := ParseAPIKey(plain)
	if !ok || id != k.ID || !k.Verify(secret) {
		t.Fatalf("parse/verify failed: %q %q %v", id, secret, ok)
	}
	if k.Verify(secret[:len(secret)-1]+"a") && !strings.HasSuffix(secret, "a") {
		t.Error("a different secret verifies")
	}
	_, plain2, _ := NewAPIKey("t1", "", []string{ScopeAll}, nil, now)
	if plain2 == plain {
		t.Error("two keys are equal")
	}
	// 160 random bits: 32 base32 characters.
	if _, s, _ := ParseAPIKey(plain2); len(s) != 32 {
		t.Errorf("secret length %d", len(s))
	}
}

func TestAPIKeyParseRejects(t *testing.T) {
	for _, s := range []string{"", "cf_", "cf_abc_def", "xx_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567",
		"cf_0123456789abcdef_short", "cf_0123456789abcdef"} {
		if _, _, ok := ParseAPIKey(s); ok {
			t.Errorf("ParseAPIKey(%q) accepted", s)
		}
	}
}

func TestAPIKeyUsable(t *testing.T) {
	now := time.Now()
	past, future := now.Add(-time.Minute), now.Add(time.Minute)
	cases := []struct {
		k    APIKey
		want bool
	}{
		{APIKey{}, true},
		{APIKey{ExpiresAt: &future}, true},
		{APIKey{ExpiresAt: &past}, false},
		{APIKey{RevokedAt: &past}, false},
	}
	for i, c := range cases {
		if c.k.Usable(now) != c.want {
			t.Errorf("case %d: Usable = %v", i, !c.want)
		}
	}
	if _, _, err := NewAPIKey("t", "", nil, nil, now); err == nil {
		t.Error("a key without scopes was issued")
	}
	if _, _, err := NewAPIKey("t", "", []string{"admin"}, nil, now); err == nil {
		t.Error("an unknown scope was accepted")
	}
}

func TestConsentStatusAt(t *testing.T) {
	now := time.Now()
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	cases := []struct {
		c    Consent
		want ConsentStatus
	}{
		{Consent{Status: StatusGranted}, StatusGranted},
		{Consent{Status: StatusGranted, Deadline: &future}, StatusGranted},
		{Consent{Status: StatusGranted, Deadline: &past}, StatusExpired},
		{Consent{Status: StatusGranted, Deadline: &now}, StatusExpired},
		{Consent{Status: StatusRevoked, Deadline: &future}, StatusRevoked},
		{Consent{Status: StatusExpired}, StatusExpired},
		{Consent{}, StatusNotGranted},
	}
	for i, c := range cases {
		if got := c.c.StatusAt(now); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}
