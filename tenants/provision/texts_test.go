package provision

import (
	"strings"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     TextInput
		fields []string
		want   tenants.ConsentName
		lang   string
	}{
		{"snake name", TextInput{Consent: "general_contact_phone", Language: "DE ", Text: "Ja."}, nil, tenants.ConsentGeneralContactPhone, "de"},
		{"API name", TextInput{Consent: "primaryPurpose", Language: "en", Text: " kept as is \n"}, nil, tenants.ConsentPrimaryPurpose, "en"},
		{"unknown consent", TextInput{Consent: "marketing", Language: "en", Text: "x"}, []string{"consent"}, "", "en"},
		{"no language", TextInput{Consent: "primary_purpose", Text: "x"}, []string{"lang"}, tenants.ConsentPrimaryPurpose, ""},
		{"not ISO 639-1", TextInput{Consent: "primary_purpose", Language: "deu", Text: "x"}, []string{"lang"}, tenants.ConsentPrimaryPurpose, "deu"},
		{"blank text", TextInput{Consent: "primary_purpose", Language: "de", Text: " \n\t"}, []string{"text"}, tenants.ConsentPrimaryPurpose, "de"},
		{"not UTF-8", TextInput{Consent: "primary_purpose", Language: "de", Text: "\xff"}, []string{"text"}, tenants.ConsentPrimaryPurpose, "de"},
		{"too long", TextInput{Consent: "primary_purpose", Language: "de", Text: strings.Repeat("ä", MaxConsentText+1)}, []string{"text"}, tenants.ConsentPrimaryPurpose, "de"},
	} {
		name, lang, vs := CheckText(c.in)
		var fields []string
		for _, v := range vs {
			fields = append(fields, v.Field)
		}
		if strings.Join(fields, ",") != strings.Join(c.fields, ",") || name != c.want || lang != c.lang {
			t.Errorf("%s: CheckText = %q, %q, %v; want %q, %q, refusals of %v", c.name, name, lang, vs, c.want, c.lang, c.fields)
		}
	}
}
