package admin

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// optInKinds are the record kinds whose consents a form's double opt-in can leave pending.
var optInKinds = []tenants.Kind{tenants.KindFormSubmission, tenants.KindDigitisation, tenants.KindCanvassing}

// actorSubject is the audit actor of a confirmation by the person (ops.ActorSubject).
const actorSubject = "subject"

// optIn counts the tenant's double opt-in requests per general-contact channel: pending and
// lapsed live records from the status columns' index, confirmations from the audit log (one
// consent.granted entry by the person each, kept after erasure).
func (h *handler) optIn(ctx context.Context, tenantID string, now time.Time) (web.OptInView, error) {
	var v web.OptInView
	confirmed, err := h.confirmations(ctx, tenantID)
	if err != nil {
		return v, err
	}
	for _, name := range []tenants.ConsentName{tenants.ConsentGeneralContactEmail, tenants.ConsentGeneralContactPhone} {
		row := web.OptInCounts{Channel: tenants.ChannelOf(name), Label: web.ConsentLabel(string(name)), Confirmed: confirmed[name]}
		for _, k := range optInKinds {
			for status, dst := range map[tenants.ConsentStatus]*int{tenants.StatusPending: &row.Pending, tenants.StatusLapsed: &row.Lapsed} {
				n, err := h.Store.Records.CountUpTo(ctx, tenantID, k, tenants.Page{Consent: name, Status: status, Now: now}, math.MaxInt32)
				if err != nil {
					return v, err
				}
				*dst += int(n)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// confirmations counts the person's confirmations per consent in the audit log.
func (h *handler) confirmations(ctx context.Context, tenantID string) (map[tenants.ConsentName]int, error) {
	out := map[tenants.ConsentName]int{}
	err := h.Store.Audit.Each(ctx, tenantID, tenants.AuditFilter{Action: tenants.ActionConsentGranted, Actor: actorSubject}, func(e tenants.AuditEntry) error {
		name, _, _ := strings.Cut(e.Detail, " ")
		out[tenants.ConsentName(name)]++
		return nil
	})
	return out, err
}
