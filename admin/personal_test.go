package admin

import "testing"

// TestPersonalFieldAnyCase: a field the form declares personal is masked whatever its case in
// the payload, as erasure removes it (the admin's copy of the rule once compared case-sensitively).
func TestPersonalFieldAnyCase(t *testing.T) {
	if !personalField(map[string]bool{"shoe_size": true}, "Shoe_Size", "42") {
		t.Error(`a declared field "shoe_size" sent as "Shoe_Size" is shown unmasked`)
	}
}
