package anonymise

import "testing"

// TestPersonalFieldIsWhatStripRemoves: the views' "is this field personal" is the
// anonymiser's: a declared field in any case, a personal key, a key that is an identifier, a
// personal value, and nested values whole.
func TestPersonalFieldIsWhatStripRemoves(t *testing.T) {
	declared := map[string]bool{"shoe_size": true}
	for _, c := range []struct {
		key  string
		v    any
		want bool
	}{
		{"Shoe_Size", "42", true},
		{"shoe_size", "42", true},
		{"hat_size", "42", false},
		{"email", "x", true},
		{"ann@example.org", true, true},
		{"note", "+4915112345678", true},
		{"count", 3.0, false},
		{"nested", map[string]any{"a": 1.0}, true},
	} {
		if got := PersonalField(declared, c.key, c.v, ""); got != c.want {
			t.Errorf("PersonalField(%q, %v) = %v, want %v", c.key, c.v, got, c.want)
		}
	}
}
