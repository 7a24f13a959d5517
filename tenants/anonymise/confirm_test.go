package anonymise

import (
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestStripConfirmation: erasure keeps when a double opt-in was confirmed and when its link
// lapsed, and drops the address and user agent it was confirmed from.
func TestStripConfirmation(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ip, ua := "198.51.100.4", "Mozilla/5.0 (X11)"
	c := tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &at, ConfirmBy: &at,
		Confirmation: &tenants.Confirmation{At: at, IPAddress: &ip, UserAgent: &ua}}
	got := stripConsent(c, "")
	if got.Confirmation == nil || !got.Confirmation.At.Equal(at) || got.Confirmation.IPAddress != nil || got.Confirmation.UserAgent != nil {
		t.Errorf("stripped confirmation = %+v; want its time only", got.Confirmation)
	}
	if got.ConfirmBy == nil || !got.ConfirmBy.Equal(at) || got.Status != tenants.StatusGranted {
		t.Errorf("stripped consent = %+v", got)
	}
}
