package tenants

import (
	"testing"
	"time"
)

// TestDoubleOptInTransitions: pending → granted by a confirmation within the period (proof
// stored, deadline kept); pending → not granted once lapsed, and a lapsed one cannot be
// confirmed; a confirmed consent is never downgraded nor confirmed twice; pending reads not
// granted everywhere but DetailAt.
func TestDoubleOptInTransitions(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	by, deadline := t0.Add(7*24*time.Hour), t0.Add(365*24*time.Hour)
	form := Form{DoubleOptIn: []string{ChannelEmail}}
	fresh := func() Consents {
		c := Consents{
			PrimaryPurpose:      Consent{Status: StatusGranted, GrantedAt: &t0},
			GeneralContactEmail: Consent{Status: StatusGranted, GrantedAt: &t0, Deadline: &deadline},
			GeneralContactPhone: Consent{Status: StatusGranted, GrantedAt: &t0},
		}
		if got := c.RequireConfirmation(form, by.Add(300*time.Millisecond)); len(got) != 1 || got[0] != ConsentGeneralContactEmail {
			t.Fatalf("RequireConfirmation = %v; want the e-mail consent only", got)
		}
		return c
	}
	ip, ua := "192.0.2.1", "UA"
	cases := []struct {
		name                 string
		confirmAt            time.Time
		readAt               time.Time
		wantChanged          bool
		wantStatus, wantView ConsentStatus
	}{
		{"pending, unread", time.Time{}, t0.Add(time.Hour), false, StatusNotGranted, StatusPending},
		{"pending lapses", time.Time{}, by, false, StatusNotGranted, StatusNotGranted},
		{"confirmed in time", t0.Add(time.Hour), t0.Add(2 * time.Hour), true, StatusGranted, StatusGranted},
		{"confirmed at the last second", by.Add(-time.Second), by.Add(time.Hour), true, StatusGranted, StatusGranted},
		{"confirmation after the lapse", by, by.Add(time.Hour), false, StatusNotGranted, StatusNotGranted},
		{"confirmed, then its deadline passes", t0.Add(time.Hour), deadline, true, StatusExpired, StatusExpired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := fresh()
			if !c.confirmAt.IsZero() {
				if got := cs.Confirm(ConsentGeneralContactEmail, c.confirmAt, &ip, &ua); got != c.wantChanged {
					t.Fatalf("Confirm = %v; want %v", got, c.wantChanged)
				}
			}
			e := cs.GeneralContactEmail
			if got := e.StatusAt(c.readAt); got != c.wantStatus {
				t.Errorf("StatusAt = %s; want %s", got, c.wantStatus)
			}
			if got := e.DetailAt(c.readAt); got != c.wantView {
				t.Errorf("DetailAt = %s; want %s", got, c.wantView)
			}
			if c.wantChanged && (e.Deadline == nil || !e.Deadline.Equal(deadline) || e.Confirmation == nil || *e.Confirmation.IPAddress != ip || !e.GrantedAt.Equal(c.confirmAt)) {
				t.Errorf("confirmed consent = %+v; want the deadline kept and the proof stored", e)
			}
			if cs.GeneralContactPhone.Status != StatusGranted {
				t.Errorf("the phone consent (no double opt-in) = %s", cs.GeneralContactPhone.Status)
			}
		})
	}

	t.Run("confirmed is never downgraded", func(t *testing.T) {
		cs := fresh()
		cs.Confirm(ConsentGeneralContactEmail, t0.Add(time.Hour), &ip, &ua)
		before := cs.GeneralContactEmail
		if cs.Confirm(ConsentGeneralContactEmail, t0.Add(2*time.Hour), nil, nil) {
			t.Error("a second confirmation changed the consent")
		}
		if got := cs.RequireConfirmation(form, by); len(got) != 0 || cs.GeneralContactEmail != before {
			t.Errorf("RequireConfirmation on a confirmed consent = %v, %+v; want nothing changed", got, cs.GeneralContactEmail)
		}
		if cs.GeneralContactEmail.StatusAt(t0.Add(3*time.Hour)) != StatusGranted || cs.GeneralContactEmail.Confirmation.At != t0.Add(time.Hour) {
			t.Errorf("confirmed consent = %+v", cs.GeneralContactEmail)
		}
	})
	t.Run("not pending cannot be confirmed", func(t *testing.T) {
		cs := Consents{GeneralContactEmail: Consent{Status: StatusNotGranted}, GeneralContactPhone: Consent{Status: StatusRevoked}}
		if cs.Confirm(ConsentGeneralContactEmail, t0, nil, nil) || cs.Confirm(ConsentGeneralContactPhone, t0, nil, nil) || cs.Confirm(ConsentPrimaryPurpose, t0, nil, nil) {
			t.Error("confirmed a consent that was not pending")
		}
	})
	t.Run("an unsubscribe cancels a pending confirmation", func(t *testing.T) {
		cs := fresh()
		if !cs.RevokeGeneralContact(t0.Add(time.Hour), "withdrawal") || cs.GeneralContactEmail.Status != StatusRevoked {
			t.Fatalf("after unsubscribe = %+v", cs.GeneralContactEmail)
		}
		if cs.Confirm(ConsentGeneralContactEmail, t0.Add(2*time.Hour), nil, nil) {
			t.Error("a cancelled confirmation confirmed")
		}
	})
	t.Run("a pending consent lapses for retention at the end of its period", func(t *testing.T) {
		cs := Consents{GeneralContactEmail: Consent{Status: StatusPending, ConfirmBy: &by}}
		if got := cs.LapsedAt(t0); got == nil || !got.Equal(by) {
			t.Errorf("LapsedAt = %v; want %v", got, by)
		}
	})
	t.Run("withdrawable and granted channels", func(t *testing.T) {
		cs := fresh()
		if !cs.Withdrawable(t0) || len(cs.GrantedChannels(t0)) != 1 || cs.GrantedChannels(t0)[0] != ChannelPhone {
			t.Errorf("Withdrawable = %v, GrantedChannels = %v", cs.Withdrawable(t0), cs.GrantedChannels(t0))
		}
		if (Consents{}).Withdrawable(t0) {
			t.Error("a record without general contact is withdrawable")
		}
		cs.RevokeGeneralContact(t0, "api")
		if cs.Withdrawable(t0) {
			t.Error("a record whose general contact is revoked is withdrawable")
		}
	})
}
