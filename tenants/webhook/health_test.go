package webhook

import (
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

func TestHealthOf(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	at := func(m int) *time.Time { v := t0.Add(time.Duration(m) * time.Minute); return &v }
	ok := func(m int) tenants.Delivery {
		return tenants.Delivery{Status: tenants.DeliveryDelivered, Attempts: 1, LastAt: at(m)}
	}
	failed := func(m int) tenants.Delivery {
		return tenants.Delivery{Status: tenants.DeliveryFailed, Attempts: 8, LastAt: at(m)}
	}
	retrying := func(m, next int) tenants.Delivery {
		return tenants.Delivery{Status: tenants.DeliveryPending, Attempts: 2, LastAt: at(m), NextAt: *at(next)}
	}
	for _, c := range []struct {
		name   string
		recent []tenants.Delivery
		want   Health
	}{
		{"none", nil, Health{}},
		{"all fail", []tenants.Delivery{retrying(5, 9), failed(3), failed(1)}, Health{ConsecutiveFailures: 3, NextAttempt: at(9)}},
		{"failing after a success", []tenants.Delivery{retrying(5, 9), failed(3), ok(2), failed(1)},
			Health{LastSuccess: at(2), ConsecutiveFailures: 2, NextAttempt: at(9)}},
		{"healthy", []tenants.Delivery{ok(5), failed(3)}, Health{LastSuccess: at(5)}},
		{"not tried yet", []tenants.Delivery{{Status: tenants.DeliveryPending, NextAt: *at(1)}, ok(0)},
			Health{LastSuccess: at(0), NextAttempt: at(1)}},
	} {
		got := HealthOf(c.recent)
		if !eqTime(got.LastSuccess, c.want.LastSuccess) || !eqTime(got.NextAttempt, c.want.NextAttempt) || got.ConsecutiveFailures != c.want.ConsecutiveFailures {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func eqTime(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
