package intake

import (
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

// TestFormUnknown: a closed or unknown form joins the submission rules' codes in their order,
// and displaces a failed own field, which is checked only once the rules pass.
func TestFormUnknown(t *testing.T) {
	_, vs := ParseRecord(tenants.KindDigitisation, map[string]any{"form_id": "f", "consent_to_general_contact_email": true,
		"email": "a@example.org", "document_ref": 1.0}, now, "")
	if got := codes(vs); !slices.Equal(got, []string{"document_ref_invalid"}) || RuleCodes(tenants.KindDigitisation, vs) != nil {
		t.Fatalf("own field: %v", vs)
	}
	vs = FormUnknown(vs)
	if got := RuleCodes(tenants.KindDigitisation, vs); !slices.Equal(got, []string{"form_id_unknown"}) || vs[0].Field != "form_id" {
		t.Errorf("closed form: %v", vs)
	}
	_, vs = ParseRecord(tenants.KindFormSubmission, map[string]any{"form_id": "f", "submission_id": "a b"}, now, "")
	vs = FormUnknown(vs)
	want := []string{"form_id_unknown", "submission_id_invalid", "consent_missing"}
	if got := RuleCodes(tenants.KindFormSubmission, vs); !slices.Equal(got, want) {
		t.Errorf("codes %v, want %v", got, want)
	}
}

// TestRuleViolationFields: a code's field is the code without its ending; too_many_identifiers
// names no field.
func TestRuleViolationFields(t *testing.T) {
	for code, field := range map[string]string{
		"form_id_missing": "form_id", "consent_missing": "consent", "consent_to_primary_purpose_declined": "consent_to_primary_purpose",
		"consent_to_general_contact_deadline_invalid": "consent_to_general_contact_deadline", "form_id_unknown": "form_id",
		"too_many_identifiers": "",
	} {
		if v := ruleViolation(code); v.Field != field || v.Code != code || v.Message == "" {
			t.Errorf("%s: %+v, want field %q", code, v, field)
		}
	}
}

// TestDraftRecord: a submission id is the public id; without one each record gets a fresh id.
func TestDraftRecord(t *testing.T) {
	d, vs := ParseRecord(tenants.KindFormSubmission, map[string]any{"form_id": "f", "submission_id": "web-1",
		"consent_to_general_contact_email": true, "email": "a@example.org"}, now, "")
	if vs != nil {
		t.Fatal(vs)
	}
	if rec := d.Record("t1"); rec.ID != "t1:formSubmission:web-1" || rec.PublicID != "web-1" || rec.FormID != "f" ||
		rec.Consents.GeneralContactEmail.Status != tenants.StatusGranted {
		t.Errorf("record %+v", rec)
	}
	d.SubmissionID = ""
	if rec := d.Record("t1"); len(rec.PublicID) != 26 || rec.ID != "t1:formSubmission:"+rec.PublicID {
		t.Errorf("minted %q %q", rec.PublicID, rec.ID)
	}
}
