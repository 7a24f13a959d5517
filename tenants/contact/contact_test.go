package contact

import "testing"

func TestNormaliseEmail(t *testing.T) {
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"case folded", "Jane.Doe@Example.org", "jane.doe@example.org", true},
		{"trimmed", "  a@b.co ", "a@b.co", true},
		{"tag", "a+tag@sub.example.com", "a+tag@sub.example.com", true},
		{"NFC stays", "jos\u00e9@example.org", "jos\u00e9@example.org", true},
		{"NFD composed", "jose\u0301@example.org", "jos\u00e9@example.org", true},
		{"NFD upper", "JOSE\u0301@EXAMPLE.ORG", "jos\u00e9@example.org", true},
		{"IDN unicode", "Jane@B\u00dcCHER.de", "jane@b\u00fccher.de", true},
		{"IDN punycode", "jane@xn--bcher-kva.de", "jane@b\u00fccher.de", true},
		{"underscore domain kept", "a@my_host.example.org", "a@my_host.example.org", true},
		{"zero-width space trailing", "bob@example.org\u200b", "", false},
		{"zero-width space inside", "bo\u200bb@example.org", "", false},
		{"zero-width joiner", "bob\u200d@example.org", "", false},
		{"bidi mark LRM", "\u200ebob@example.org", "", false},
		{"bidi override RLO", "bob@\u202eexample.org", "", false},
		{"BOM", "\ufeffbob@example.org", "", false},
		{"soft hyphen", "bo\u00adb@example.org", "", false},
		{"control", "bob\x01@example.org", "", false},
		{"empty", "", "", false},
		{"no at", "no-at.example.org", "", false},
		{"two ats", "a@@b.org", "", false},
		{"at in local", "a@b@c.org", "", false},
		{"empty local", "@example.org", "", false},
		{"no dot", "a@localhost", "", false},
		{"display name", "Jane <jane@example.org>", "", false},
		{"space", "jane doe@example.org", "", false},
		{"empty label", "a@.example.org", "", false},
		{"double dot domain", "a@example..org", "", false},
		{"leading dot", ".a@example.org", "", false},
		{"trailing dot", "a@example.org.", "", false},
	}
	for _, c := range cases {
		got, ok := NormaliseEmail(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: NormaliseEmail(%q) = %q, %v; want %q, %v", c.name, c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestNormalisePhone(t *testing.T) {
	cases := []struct {
		name, in, country, want string
		ok                      bool
	}{
		{"E.164", "+4915112345678", "", "+4915112345678", true},
		{"UK grouped", "+44 20 7946 0958", "", "+442079460958", true},
		{"UK trunk (0)", "+44 (0)20 7946 0958", "", "+442079460958", true},
		{"UK trunk (0) with a default country", "+44 (0)20 7946 0958", "DE", "+442079460958", true},
		{"NANP parentheses", "+1 (415) 555-2671", "", "+14155552671", true},
		{"NANP dots", "+1.415.555.2671", "", "+14155552671", true},
		{"00 prefix", "0049 151 12345678", "", "+4915112345678", true},
		{"00 prefix UK", "0044 20 7946 0958", "", "+442079460958", true},
		{"slashes", "+49 151/1234 5678", "", "+4915112345678", true},
		{"German national without a country", "0151 1234 5678", "", "", false},
		{"German national in DE", "0151 1234 5678", "DE", "+4915112345678", true},
		{"German national in de", "0151 1234 5678", "de", "+4915112345678", true},
		{"UK national in GB", "020 7946 0958", "GB", "+442079460958", true},
		{"national too short", "012", "DE", "", false},
		{"UK national too short", "020 79", "GB", "", false},
		{"local-only length", "+1 555 2671", "", "", false},
		{"too short", "+49 12", "", "", false},
		{"too long", "+49 1511 2345 6789 0123", "", "", false},
		{"no such country code", "+999 1234 5678", "", "", false},
		{"extension x", "+44 20 7946 0958 x123", "", "", false},
		{"extension ext.", "+44 20 7946 0958 ext. 123", "", "", false},
		{"extension ;ext=", "+442079460958;ext=12", "", "", false},
		{"extension #", "+442079460958#12", "", "", false},
		{"letters", "+49 151 abc", "", "", false},
		{"vanity letters", "+1 800 FLOWERS", "", "", false},
		{"plus inside", "49+15112345678", "", "", false},
		{"empty", "", "", "", false},
		{"plus only", "+", "", "", false},
		{"zero-width space", "+4915112345678\u200b", "", "", false},
	}
	for _, c := range cases {
		got, ok := NormalisePhone(c.in, c.country)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: NormalisePhone(%q, %q) = %q, %v; want %q, %v", c.name, c.in, c.country, got, ok, c.want, c.ok)
		}
		// E.164 is its own normal form, whatever the country (anonymise.IdentifiersOfValidated).
		for _, country := range []string{"", c.country, "US", "DE"} {
			if again, ok2 := NormalisePhone(got, country); ok && (again != got || !ok2) {
				t.Errorf("%s: NormalisePhone(%q, %q) = %q, %v: not its own normal form", c.name, got, country, again, ok2)
			}
		}
	}
}

func TestValidCountry(t *testing.T) {
	for in, want := range map[string]bool{"DE": true, "de": true, "GB": true, "ZZ": false, "XX": false, "DEU": false, "": false} {
		if ValidCountry(in) != want {
			t.Errorf("ValidCountry(%q) != %v", in, want)
		}
	}
}

func TestIsIP(t *testing.T) {
	for in, want := range map[string]bool{"192.0.2.1": true, "2001:db8::1": true, "999.1.1.1": false, "host": false} {
		if IsIP(in) != want {
			t.Errorf("IsIP(%q) != %v", in, want)
		}
	}
}
