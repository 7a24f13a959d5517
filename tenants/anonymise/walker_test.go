package anonymise

import (
	"reflect"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestStripNestedMultilingual walks nested custom fields: personal keys in every language at
// any depth, declared dotted paths, and personal values (e-mail, phone international and
// national in the tenant's country, IP, IBAN) go; topic-like fields stay.
func TestStripNestedMultilingual(t *testing.T) {
	cases := []struct {
		name     string
		in       map[string]any
		declared map[string]bool
		country  string
		want     map[string]any
	}{
		{
			name: "nested name parts and birth date",
			in: map[string]any{"name": map[string]any{"given": "Carl", "family": "Meyer"},
				"person": map[string]any{"given": "Carl", "family": "Meyer", "born": "1980-04-01", "role": "member"},
				"topic":  "climate"},
			want: map[string]any{"person": map[string]any{"role": "member"}, "topic": "climate"},
		},
		{
			name: "German keys at depth",
			in: map[string]any{"kontakt": map[string]any{"vorname": "Jana", "nachname": "Schulz", "strasse": "Lindenallee 4",
				"plz": "10115", "wohnort": "Berlin", "geburtsdatum": "1990-01-02", "thema": "Verkehr"}},
			want: map[string]any{"kontakt": map[string]any{"thema": "Verkehr"}},
		},
		{
			name: "French, Spanish, Italian, Dutch, Polish",
			in: map[string]any{"prénom": "Élise", "nombre": "Ana", "apellidos": "García López", "cognome": "Rossi",
				"voornaam": "Daan", "achternaam": "de Vries", "imię": "Zofia", "nazwisko": "Nowak", "ulica": "Długa 5",
				"sujet": "énergie", "tema": "clima", "onderwerp": "fiets", "temat": "transport"},
			want: map[string]any{"sujet": "énergie", "tema": "clima", "onderwerp": "fiets", "temat": "transport"},
		},
		{
			name:     "declared dotted paths, any case, through arrays",
			declared: map[string]bool{"contact.given": true, "Household.Members.Nick": true, "badge": true},
			in: map[string]any{"contact": map[string]any{"given": "Carl", "topic": "bees"}, "badge": "CM-7",
				"household": []any{map[string]any{"members": []any{map[string]any{"nick": "Zed", "age": 9.0}}}}},
			want: map[string]any{"contact": map[string]any{"topic": "bees"},
				"household": []any{map[string]any{"members": []any{map[string]any{"age": 9.0}}}}},
		},
		{
			name: "personal values under neutral keys",
			in: map[string]any{"a": "bob@example.org", "b": "+44 (0)20 7946 0958", "c": "192.0.2.7",
				"d": "DE89 3704 0044 0532 0130 00", "e": "pay to DE89370400440532013000 please", "f": "DE89 3704 0044 0532 0130 01",
				"g": "0151 2345 6789", "h": "order 4711"},
			want: map[string]any{"f": "DE89 3704 0044 0532 0130 01", "g": "0151 2345 6789", "h": "order 4711"},
		},
		{
			name:    "national numbers in the tenant's default country",
			country: "DE",
			in:      map[string]any{"g": "0151 2345 6789", "i": "ruf an: 030 1234 5678", "h": "order 4711", "j": "0815"},
			want:    map[string]any{"h": "order 4711", "j": "0815"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := StripIn(tenants.Record{Payload: c.in}, c.declared, c.country, time.Unix(0, 0)).Payload
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("StripIn payload = %#v\nwant %#v", got, c.want)
			}
		})
	}
}

// TestRemoveMentions removes only the values naming the erased person, at any depth, and keeps
// the record's own data.
func TestRemoveMentions(t *testing.T) {
	rec := tenants.Record{
		Contact: tenants.Contact{Email: ptr("alice@example.org")},
		Payload: map[string]any{
			"referred_friend": "Bob@Example.org",
			"friends":         []any{"bob@example.org", "dora@example.org"},
			"deep":            map[string]any{"x": map[string]any{"phone": "+49 151 23456789"}},
			"note":            "ask bob@example.org about it",
			"callback":        "Carl: +49 (0)151 2345-6789 after six",
			"other_number":    "call +49 151 99999999",
			"bob@example.org": true,
			"topic":           "climate",
		},
	}
	bob := func(kind, n string) bool {
		return (kind == "e" && n == "bob@example.org") || (kind == "p" && n == "+4915123456789")
	}
	out, n := RemoveMentions(rec, "", bob)
	want := map[string]any{"friends": []any{nil, "dora@example.org"}, "deep": map[string]any{"x": map[string]any{}}, "topic": "climate",
		"other_number": "call +49 151 99999999"}
	if !reflect.DeepEqual(out.Payload, want) || n != 6 {
		t.Errorf("RemoveMentions = %#v, %d\nwant %#v, 6", out.Payload, n, want)
	}
	if *out.Contact.Email != "alice@example.org" || out.AnonymisedAt != nil {
		t.Errorf("the record's own data changed: %+v", out)
	}
	if rec.Payload["referred_friend"] != "Bob@Example.org" {
		t.Error("the input was modified")
	}
}
