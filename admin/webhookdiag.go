package admin

import (
	"fmt"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/tenants/unsubscribe"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// webhookDeliveries are the diagnostics of each provider's unsubscribe webhook for the user's
// tenant, with the URL to paste.
func (h *handler) webhookDeliveries(c *fiber.Ctx, s *session) ([]web.WebhookDiagItem, error) {
	var stats []tenants.WebhookStats
	if h.Diagnostics != nil {
		var err error
		if stats, err = h.Diagnostics.Stats(c.UserContext(), s.TenantID); err != nil {
			return nil, err
		}
	}
	var out []web.WebhookDiagItem
	for _, hook := range h.providerWebhooks(c, s) {
		item := web.WebhookDiagItem{ProviderWebhook: hook}
		if i := slices.IndexFunc(stats, func(st tenants.WebhookStats) bool { return st.Provider == hook.Provider }); i >= 0 {
			st := stats[i]
			if !st.LastDelivery.IsZero() {
				item.LastDelivery, item.LastEvents, item.LastUnsubscribed = &st.LastDelivery, st.LastEvents, st.LastUnsubscribed
			}
			if !st.LastRefusal.IsZero() {
				item.LastRefusal, item.LastReason = &st.LastRefusal, st.LastReason
			}
			for _, d := range st.Days {
				item.Days = append(item.Days, web.WebhookDayItem{Day: d.Day, Accepted: d.Accepted, Refused: d.Refused})
			}
		}
		out = append(out, item)
	}
	return out, nil
}

// webhookTest is "Send test": a sample event of the provider, for an address on a reserved
// domain that matches no one, goes through the provider's parser and the unsubscribe
// operation as a delivery does after its credential check (which needs the provider's own
// secret), and is recorded as a delivery. The flash says what came of it.
func (h *handler) webhookTest(c *fiber.Ctx, s *session) error {
	provider := c.Params("provider")
	ct, body, ok := unsubscribe.Sample(provider)
	if !ok {
		return fiber.ErrNotFound
	}
	res, err := unsubscribe.Parse(provider, ct, body)
	if err != nil {
		return h.redirect(c, web.PathWebhooks, web.Flash{Kind: web.FlashError, Text: fmt.Sprintf("Send test (%s): the sample was refused as a malformed body.", providerLabel(provider))})
	}
	actor, sample := "staff:"+s.Staff.ID, "address "+unsubscribe.SampleAddress
	var revoked int
	if res.PhoneOnly {
		sample = "number " + unsubscribe.SamplePhone
		// Sent to one of the tenant's numbers where it registered any, and with no message id:
		// a test is applied as a delivery is, and not remembered.
		to, err := h.firstSMSNumber(c, s.TenantID)
		if err != nil {
			return err
		}
		for i := range res.Messages {
			res.Messages[i].ID = ""
			if to != "" {
				res.Messages[i].To = to
			}
		}
		out, err := h.Persons.ApplySMS(c.UserContext(), s.TenantID, actor, provider, requestID(c), res.Messages)
		if err != nil {
			return err
		}
		revoked = out.Revoked
	} else {
		ids := make([]ops.Identity, len(res.Events))
		for i, ev := range res.Events {
			ids[i] = ops.EventIdentity(ev, "")
		}
		revoked, err = h.Persons.UnsubscribeAll(c.UserContext(), s.TenantID, actor, provider, requestID(c), ids)
	}
	if err != nil {
		return err
	}
	events := len(res.Events) + len(res.Messages) + res.Ignored
	h.Diagnostics.Delivered(s.TenantID, provider, events, revoked)
	return h.redirect(c, web.PathWebhooks, success(fmt.Sprintf("Send test (%s): delivered — %d event(s) read, %d unsubscribe(s) applied (the sample %s matches no one).",
		providerLabel(provider), events, revoked, sample)))
}

// firstSMSNumber is the first of the tenant's SMS sending numbers, "" when it has none.
func (h *handler) firstSMSNumber(c *fiber.Ctx, tenantID string) (string, error) {
	if h.Store.SMS == nil {
		return "", nil
	}
	numbers, err := h.Store.SMS.Numbers(c.UserContext(), tenantID)
	if err != nil || len(numbers) == 0 {
		return "", err
	}
	return numbers[0].Number, nil
}

// providerLabel is a provider's name as staff read it ("SendGrid").
func providerLabel(provider string) string {
	for _, p := range web.ProviderWebhooks("") {
		if p.Provider == provider {
			return p.Label
		}
	}
	return provider
}
