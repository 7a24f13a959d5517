package anonymise

import (
	"reflect"
	"testing"

	"github.com/consentforms/consentforms/tenants"
)

func ptr(s string) *string { return &s }

func TestIdentifiers(t *testing.T) {
	cases := []struct {
		name    string
		rec     tenants.Record
		country string
		want    IDs
	}{
		{name: "empty record"},
		{
			name: "contact only, mixed case and formatted",
			rec: tenants.Record{Contact: tenants.Contact{
				Email: ptr(" Jane.Doe@Example.ORG "), PhoneNumber: ptr("+44 20 7946 0958"),
			}},
			want: IDs{Emails: []string{"jane.doe@example.org"}, Phones: []string{"+442079460958"}},
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
					"deep":    map[string]any{"a": map[string]any{"b": []any{"+1 (415) 555-9999"}}},
					"comment": "write to carol@example.org", // free text: not a whole value
					"amount":  25.0,
				},
				Fields: map[string]any{"backup": "JANE.DOE@EXAMPLE.ORG", "caller_id": "c-17"},
			},
			// The record's own identifiers found again in custom fields are not mentions.
			want: IDs{Emails: []string{"jane.doe@example.org"}, Phones: []string{"+4915112345678"},
				MentionedEmails: []string{"alice@example.com", "bob@example.com"}, MentionedPhones: []string{"+14155559999"}},
		},
		{
			name: "Bob named by Alice is a mention",
			rec: tenants.Record{Contact: tenants.Contact{Email: ptr("alice@example.org")},
				Payload: map[string]any{"referred_friend": "Bob@Example.org"}},
			want: IDs{Emails: []string{"alice@example.org"}, MentionedEmails: []string{"bob@example.org"}},
		},
		{
			name:    "national numbers in the default country",
			country: "DE",
			rec: tenants.Record{Contact: tenants.Contact{PhoneNumber: ptr("+4915112345678")},
				Payload: map[string]any{"neighbour": "0151 2345 6789", "code": "0815", "short": "030 123"}},
			want: IDs{Phones: []string{"+4915112345678"}, MentionedPhones: []string{"+4915123456789"}},
		},
		{
			name: "national numbers without a default country are not identifiers",
			rec:  tenants.Record{Payload: map[string]any{"neighbour": "0151 2345 6789"}},
		},
		{
			name: "an old record's phone is read again",
			rec:  tenants.Record{Contact: tenants.Contact{PhoneNumber: ptr("+4402079460958"), Email: ptr("jose\u0301@example.org")}},
			want: IDs{Emails: []string{"jos\u00e9@example.org"}, Phones: []string{"+442079460958"}},
		},
		{
			name: "store document types",
			rec: tenants.Record{Payload: map[string]any{
				"doc":     testDoc{"mail": "dora@example.net"},
				"ordered": []testElem{{Key: "phone", Value: "+33 1 23 45 67 89"}},
				"list":    testArr{"eve@example.net"},
			}},
			want: IDs{MentionedEmails: []string{"dora@example.net", "eve@example.net"}, MentionedPhones: []string{"+33123456789"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Identifiers(c.rec, c.country); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Identifiers = %+v\nwant %+v", got, c.want)
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
