package anonymise

import (
	"slices"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

func ptr(s string) *string { return &s }

func TestIdentifiers(t *testing.T) {
	cases := []struct {
		name           string
		rec            tenants.Record
		emails, phones []string
	}{
		{name: "empty record"},
		{
			name: "contact only, mixed case and formatted",
			rec: tenants.Record{Contact: tenants.Contact{
				Email: ptr(" Jane.Doe@Example.ORG "), PhoneNumber: ptr("+44 20 7946 0958"),
			}},
			emails: []string{"jane.doe@example.org"},
			phones: []string{"+442079460958"},
		},
		{
			name: "invalid contact values are not identifiers",
			rec: tenants.Record{Contact: tenants.Contact{
				Email: ptr("Jane <jane@example.org>"), PhoneNumber: ptr("030 1234567"),
			}},
		},
		{
			name: "nested maps and arrays, duplicates",
			rec: tenants.Record{
				Contact: tenants.Contact{Email: ptr("jane.doe@example.org"), PhoneNumber: ptr("+4915112345678")},
				Payload: map[string]any{
					"ref_contact": "+49 151 1234-5678",
					"team": []any{
						map[string]any{"lead": "BOB@example.com", "size": 3.0},
						[]any{"x", "Alice@Example.com", nil, true},
					},
					"deep":    map[string]any{"a": map[string]any{"b": []any{"+1 (555) 010-9999"}}},
					"comment": "write to carol@example.org", // free text: not a whole value
					"amount":  25.0,
				},
				Fields: map[string]any{"backup": "JANE.DOE@EXAMPLE.ORG", "caller_id": "c-17"},
			},
			emails: []string{"alice@example.com", "bob@example.com", "jane.doe@example.org"},
			phones: []string{"+15550109999", "+4915112345678"},
		},
		{
			name: "store document types",
			rec: tenants.Record{Payload: map[string]any{
				"doc":     testDoc{"mail": "dora@example.net"},
				"ordered": []testElem{{Key: "phone", Value: "+33 1 23 45 67 89"}},
				"list":    testArr{"eve@example.net"},
			}},
			emails: []string{"dora@example.net", "eve@example.net"},
			phones: []string{"+33123456789"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			emails, phones := Identifiers(c.rec)
			if !slices.Equal(emails, c.emails) || !slices.Equal(phones, c.phones) {
				t.Errorf("Identifiers = %q, %q; want %q, %q", emails, phones, c.emails, c.phones)
			}
		})
	}
}

// testDoc, testArr and testElem stand in for a store driver's named document, array and
// ordered-document element types, which Payload may hold after a round trip.
type (
	testDoc  map[string]any
	testArr  []any
	testElem struct {
		Key   string
		Value any
	}
)
