package consent

import (
	"slices"
	"strings"
	"testing"
)

func TestCodes(t *testing.T) {
	spec := []string{
		"form_id_missing", "submission_id_invalid", "consent_missing",
		"consent_to_primary_purpose_missing", "consent_to_primary_purpose_invalid",
		"consent_to_primary_purpose_declined", "consent_to_primary_purpose_deadline_missing",
		"consent_to_primary_purpose_deadline_invalid", "consent_to_general_contact_phone_missing",
		"consent_to_general_contact_phone_invalid", "consent_to_general_contact_email_missing",
		"consent_to_general_contact_email_invalid", "consent_to_general_contact_deadline_invalid",
	}
	// The core codes of docs/API.md §3.7 keep their order; form_id_unknown sits after
	// form_id_missing.
	var got []string
	for _, c := range Codes {
		if slices.Contains(spec, c) {
			got = append(got, c)
		}
	}
	if !slices.Equal(got, spec) {
		t.Errorf("SPEC codes out of order: %v", got)
	}
	if Codes[1] != "form_id_unknown" {
		t.Errorf("Codes[1] = %q", Codes[1])
	}
	seen := map[string]bool{}
	for _, c := range Codes {
		if seen[c] {
			t.Errorf("duplicate code %q", c)
		}
		seen[c] = true
	}
	if len(Codes) != 27 {
		t.Errorf("len(Codes) = %d", len(Codes))
	}
	for _, c := range Codes[14:24] {
		if !strings.HasSuffix(c, "_invalid") {
			t.Errorf("field code %q", c)
		}
	}
	if last := Codes[len(Codes)-2:]; last[0] != CodeTooManyIdentifiers || last[1] != CodeChallengeFailed {
		t.Errorf("the record-wide codes come last: %q", last)
	}
}

func TestSortCodes(t *testing.T) {
	cases := []struct{ in, want []string }{
		{nil, nil},
		{[]string{"consent_missing"}, []string{"consent_missing"}},
		{
			[]string{"consent_missing", "form_id_unknown"},
			[]string{"form_id_unknown", "consent_missing"},
		},
		{
			[]string{"consent_timestamp_invalid", "first_name_invalid", "consent_to_general_contact_deadline_invalid", "form_id_missing"},
			[]string{"form_id_missing", "consent_to_general_contact_deadline_invalid", "first_name_invalid", "consent_timestamp_invalid"},
		},
		{
			[]string{"zzz", "consent_missing", "aaa"},
			[]string{"consent_missing", "aaa", "zzz"},
		},
	}
	for _, c := range cases {
		got := slices.Clone(c.in)
		SortCodes(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("SortCodes(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	rev := slices.Clone(Codes)
	slices.Reverse(rev)
	SortCodes(rev)
	if !slices.Equal(rev, Codes) {
		t.Errorf("SortCodes(reversed Codes) = %v", rev)
	}
}

func TestCodesCopyIsolated(t *testing.T) {
	saved := Codes[0]
	Codes[0] = "zzz"
	defer func() { Codes[0] = saved }()
	in := []string{"form_id_unknown", "form_id_missing"}
	SortCodes(in)
	if in[0] != "form_id_missing" {
		t.Errorf("SortCodes depends on the exported slice: %v", in)
	}
}
