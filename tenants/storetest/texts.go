package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

var textTests = map[string]func(t *testing.T, open Open){
	"published versions are kept in order, per form":  testTextsInOrder,
	"a version id is unique and only its form's":      testTextsUnique,
	"erasure leaves consent texts and their versions": testTextsSurviveErasure,
}

// text is a version of tenant's form published at t0 plus offset seconds.
func text(tenant, form, id string, consent tenants.ConsentName, lang, body string, offset int) tenants.ConsentText {
	return tenants.ConsentText{ID: id, TenantID: tenant, FormID: form, Consent: consent, Language: lang, Text: body,
		Hash: tenants.HashText(body), PublishedAt: t0.Add(sec(offset))}
}

func testTextsInOrder(t *testing.T, open Open) {
	s := open(t)
	v1 := text("a", "petition", "ct_1", tenants.ConsentPrimaryPurpose, "de", "Ich stimme zu.", 1)
	v2 := text("a", "petition", "ct_2", tenants.ConsentGeneralContactEmail, "de", "E-Mail: ja — «bitte» ✓", 2)
	v3 := text("a", "petition", "ct_3", tenants.ConsentPrimaryPurpose, "en", "I agree.\n", 3)
	other := text("a", "survey", "ct_4", tenants.ConsentPrimaryPurpose, "de", "Andere.", 0)
	otherTenant := text("b", "petition", "ct_5", tenants.ConsentPrimaryPurpose, "de", "Fremd.", 0)
	for _, v := range []tenants.ConsentText{v3, v1, other, v2, otherTenant} {
		must(t, s.Texts.Insert(ctx, v))
	}
	got, err := s.Texts.List(ctx, "a", "petition")
	if want := []tenants.ConsentText{v1, v2, v3}; err != nil || !slices.Equal(got, want) {
		t.Errorf("List(a, petition) = %+v, %v\nwant %+v", got, err, want)
	}
	if got, err := s.Texts.List(ctx, "a", "none"); err != nil || len(got) != 0 || got == nil {
		t.Errorf("List of a form without texts = %#v, %v; want an empty list", got, err)
	}
	if got, err := s.Texts.Get(ctx, "a", "petition", "ct_2"); err != nil || got != v2 {
		t.Errorf("Get(ct_2) = %+v, %v; want %+v", got, err, v2)
	}
}

func testTextsUnique(t *testing.T, open Open) {
	s := open(t)
	v1 := text("a", "petition", "ct_1", tenants.ConsentPrimaryPurpose, "de", "Ich stimme zu.", 1)
	must(t, s.Texts.Insert(ctx, v1))
	again := text("a", "petition", "ct_1", tenants.ConsentPrimaryPurpose, "de", "Changed.", 2)
	if err := s.Texts.Insert(ctx, again); !errors.Is(err, tenants.ErrConflict) {
		t.Errorf("a second version ct_1: %v, want ErrConflict", err)
	}
	for _, at := range [][2]string{{"b", "petition"}, {"a", "survey"}} {
		if _, err := s.Texts.Get(ctx, at[0], at[1], "ct_1"); !errors.Is(err, tenants.ErrNotFound) {
			t.Errorf("ct_1 read as %s's form %s: %v, want ErrNotFound", at[0], at[1], err)
		}
	}
	if got, _ := s.Texts.Get(ctx, "a", "petition", "ct_1"); got != v1 {
		t.Errorf("the version changed: %+v", got)
	}
}

func testTextsSurviveErasure(t *testing.T, open Open) {
	s := open(t)
	v1 := text("a", "petition", "ct_1", tenants.ConsentPrimaryPurpose, "de", "Ich stimme zu.", 1)
	must(t, s.Texts.Insert(ctx, v1))
	rec := record("a", tenants.KindFormSubmission, "r1", 2, "k1")
	rec.Consents.PrimaryPurpose = tenants.Consent{Status: tenants.StatusGranted, GrantedAt: ptr(t0), Text: v1.Ref()}
	ingest(t, s, rec)
	got, err := s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	if err != nil || got.Consents.PrimaryPurpose.Text == nil || *got.Consents.PrimaryPurpose.Text != *v1.Ref() {
		t.Fatalf("the record's text reference = %+v, %v; want %+v", got.Consents.PrimaryPurpose.Text, err, v1.Ref())
	}
	_, err = s.Writer.Erase(ctx, tenants.Change{TenantID: "a", MatchKeys: []string{"k1"}, Apply: func(r *tenants.Record) (bool, error) {
		r.MatchKeys, r.AnonymisedAt = nil, ptr(t0.Add(sec(3)))
		return true, nil
	}, Audit: func([]tenants.Record) []tenants.AuditEntry { return nil }})
	must(t, err)
	if list, err := s.Texts.List(ctx, "a", "petition"); err != nil || !slices.Equal(list, []tenants.ConsentText{v1}) {
		t.Errorf("after erasure the texts are %+v, %v", list, err)
	}
	got, _ = s.Records.Get(ctx, "a", tenants.KindFormSubmission, "r1")
	if got.Consents.PrimaryPurpose.Text == nil || got.Consents.PrimaryPurpose.Text.Hash != v1.Hash {
		t.Errorf("after erasure the record's text reference = %+v", got.Consents.PrimaryPurpose.Text)
	}
}
