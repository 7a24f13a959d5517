package unsubscribe

import "testing"

// TestSamples: every provider's sample parses as one unsubscribe event for SampleAddress.
func TestSamples(t *testing.T) {
	for _, p := range Providers() {
		ct, body, ok := Sample(p)
		if !ok {
			t.Fatalf("%s: no sample", p)
		}
		res, err := Parse(p, ct, body)
		if err != nil || len(res.Events) != 1 || res.Events[0].Email != SampleAddress {
			t.Errorf("%s: %+v, %v; want one event for %s", p, res, err, SampleAddress)
		}
	}
	if _, _, ok := Sample("nobody"); ok {
		t.Error("a sample for an unknown provider")
	}
}
