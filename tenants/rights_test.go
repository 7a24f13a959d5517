package tenants

import (
	"testing"
	"time"
)

func TestLapsedAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(h int) *time.Time { v := t0.Add(time.Duration(h) * time.Hour); return &v }
	granted := func(dl *time.Time) Consent { return Consent{Status: StatusGranted, Deadline: dl} }
	for _, c := range []struct {
		name string
		c    Consents
		want *time.Time
	}{
		{"nothing granted: lapsed when created", Consents{}, at(0)},
		{"granted without deadline: never", Consents{PrimaryPurpose: granted(nil), GeneralContactEmail: granted(at(5))}, nil},
		{"the last deadline", Consents{PrimaryPurpose: granted(at(9)), GeneralContactEmail: granted(at(5))}, at(9)},
		{"expired at its deadline", Consents{GeneralContactPhone: Consent{Status: StatusExpired, Deadline: at(3)}}, at(3)},
		{"revoked when revoked", Consents{GeneralContactEmail: Consent{Status: StatusRevoked, RevokedAt: at(4), Deadline: at(8)}}, at(4)},
		{"revoked after its deadline: at the deadline", Consents{GeneralContactEmail: Consent{Status: StatusRevoked, RevokedAt: at(8), Deadline: at(2)}}, at(2)},
		{"revoked and a later deadline", Consents{GeneralContactEmail: Consent{Status: StatusRevoked, RevokedAt: at(4)}, PrimaryPurpose: granted(at(6))}, at(6)},
	} {
		got := c.c.LapsedAt(t0)
		if (got == nil) != (c.want == nil) || (got != nil && !got.Equal(*c.want)) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
