package ops

import "testing"

func TestNewIdentity(t *testing.T) {
	for _, c := range []struct {
		email, phone, country string
		want                  Identity
		refused               string // "field:code" of the first violation
	}{
		{" Ann@Example.org ", "", "", Identity{Email: "ann@example.org"}, ""},
		{"jose\u0301@example.org", "", "", Identity{Email: "jos\u00e9@example.org"}, ""},
		{"", "+49 151 12345678", "", Identity{Phone: "+4915112345678"}, ""},
		{"", "+44 (0)20 7946 0958", "", Identity{Phone: "+442079460958"}, ""},
		{"", "0151 1234 5678", "DE", Identity{Phone: "+4915112345678"}, ""},
		{"", "0151 1234 5678", "", Identity{}, "phone:invalid"},
		{"", "", "", Identity{}, "email:required"},
		{"ann", "", "", Identity{}, "email:invalid"},
		{"bob@example.org\u200b", "", "", Identity{}, "email:invalid"},
		{"", "0151", "", Identity{}, "phone:invalid"},
	} {
		id, vs := NewIdentity(c.email, c.phone, c.country)
		got := ""
		if len(vs) > 0 {
			got = vs[0].Field + ":" + vs[0].Code
		}
		if got != c.refused || (c.refused == "" && id != c.want) {
			t.Errorf("NewIdentity(%q, %q) = %+v, %v; want %+v, %s", c.email, c.phone, id, vs, c.want, c.refused)
		}
	}
}
