package anonymise

import "testing"

func TestPersonalValue(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"jane.doe@example.org", true},
		{"  Jane.Doe@Example.ORG ", true},
		{"+4915112345678", true},
		{"+44 20 7946 0958", true},
		{"+1 (555) 010-9999", true},
		{"192.0.2.17", true},
		{"2001:db8::1", true},
		{"[2001:db8::1]:443", true},
		{"10.0.0.1:8080", true},
		{"write to Jane.Doe@Example.org, thanks", true},
		{"<mailto:jane@example.org>", true},
		{"https://example.org/form?email=jane@example.org&x=1", true},
		{"call me on +49 151 2345 6789 after six", true},
		{"(+49) 30 1234567", true},
		{"seen from ip:203.0.113.9.", true},
		{"http://198.51.100.4/landing", true},

		{"", false},
		{"climate", false},
		{"weekly", false},
		{"general_contact", false},
		{"30d", false},
		{"2024-05-01T10:00:00Z", false},
		{"12:30", false},
		{"::", false},
		{"0.0.0.0", false},
		{"DE", false},
		{"10115", false},
		{"030 1234567", false},
		{"+123", false},
		{"+0123456789", false},
		{"1+2345678", false},
		{"@handle", false},
		{"meet @ 5pm", false},
		{"a@localhost", false},
		{"std::vector", false},
		{"v1.2.3", false},
		{"M-2024-0042", false},
		{"interested", false},
	}
	for _, c := range cases {
		if got := PersonalValue(c.in); got != c.want {
			t.Errorf("PersonalValue(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
