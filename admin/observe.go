package admin

import "github.com/consentforms/consentforms/tenants"

// countThrottled counts a sign-in refused by the failure throttle (the metrics' refusals).
func (h *handler) countThrottled() { h.observer().Count(tenants.EventLoginThrottled, 1) }
