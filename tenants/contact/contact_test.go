package contact

import "testing"

func TestNormaliseEmail(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Jane.Doe@Example.org", "jane.doe@example.org", true},
		{"  a@b.co ", "a@b.co", true},
		{"a+tag@sub.example.com", "a+tag@sub.example.com", true},
		{"", "", false},
		{"no-at.example.org", "", false},
		{"a@@b.org", "", false},
		{"a@b@c.org", "", false},
		{"@example.org", "", false},
		{"a@localhost", "", false},
		{"Jane <jane@example.org>", "", false},
		{"jane doe@example.org", "", false},
		{"a@.example.org", "", false},
		{"a@example..org", "", false},
		{".a@example.org", "", false},
		{"a@example.org.", "", false},
	}
	for _, c := range cases {
		got, ok := NormaliseEmail(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormaliseEmail(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestNormalisePhone(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"+4915112345678", "+4915112345678", true},
		{"+44 20 7946 0958", "+442079460958", true},
		{"+1 (555) 123-4567", "+15551234567", true},
		{"+1.555.123.4567", "+15551234567", true},
		{"+1234567", "+1234567", true},
		{"+123456", "", false},
		{"+1234567890123456", "", false},
		{"+0123456789", "", false},
		{"004915112345678", "", false},
		{"015112345678", "", false},
		{"+49 151 abc", "", false},
		{"", "", false},
		{"+", "", false},
	}
	for _, c := range cases {
		got, ok := NormalisePhone(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("NormalisePhone(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
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
