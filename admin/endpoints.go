package admin

import (
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/tenants/webhook"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// deliveriesShown bounds an endpoint's delivery log page.
const deliveriesShown = 100

// healthWindow is how many recent deliveries the endpoints list reads an endpoint's health from.
const healthWindow = 50

// withHealth adds the health the endpoint's recent deliveries (newest first) show.
func withHealth(item web.EndpointItem, recent []tenants.Delivery) web.EndpointItem {
	hl := webhook.HealthOf(recent)
	item.LastSuccess, item.ConsecutiveFailures, item.NextAttempt = hl.LastSuccess, hl.ConsecutiveFailures, hl.NextAttempt
	return item
}

func (h *handler) endpoints(c *fiber.Ctx, s *session) error {
	return h.renderEndpoints(c, s, fiber.StatusOK, "", nil, nil)
}

// renderEndpoints lists the endpoints; url, events and errs show a refused form again.
func (h *handler) renderEndpoints(c *fiber.Ctx, s *session, status int, url string, events []string, errs web.FieldErrors) error {
	list, err := h.Store.Outbox.Endpoints(c.UserContext(), s.TenantID)
	if err != nil {
		return err
	}
	p := web.EndpointsPage{Layout: h.layout(c, s, "Outgoing webhooks", web.NavWebhooks), EventTypes: tenants.EventTypes(),
		FormURL: url, FormEvents: events, Errors: errs, CanManage: h.may(s, permEndpointsWrite)}
	for _, e := range list {
		recent, err := h.Store.Outbox.Deliveries(c.UserContext(), s.TenantID, e.ID, healthWindow)
		if err != nil {
			return err
		}
		p.Endpoints = append(p.Endpoints, withHealth(endpointItem(e), recent))
	}
	return h.render(c, status, web.Endpoints(p))
}

func endpointItem(e tenants.Endpoint) web.EndpointItem {
	return web.EndpointItem{ID: e.ID, URL: e.URL, Events: e.Events, CreatedAt: e.CreatedAt, FailingSince: e.FailingSince}
}

// endpointCreate adds an endpoint and shows its secret, this once.
func (h *handler) endpointCreate(c *fiber.Ctx, s *session) error {
	url := strings.TrimSpace(c.FormValue("url"))
	var picked []string
	for _, v := range c.Request().PostArgs().PeekMulti("event") {
		picked = append(picked, string(v))
	}
	e, err := h.provision().CreateEndpoint(c.UserContext(), by(c, s),
		provision.EndpointInput{TenantID: s.TenantID, URL: url, Events: strings.Join(picked, ",")})
	if errs, ok := fieldErrors(err); ok {
		return h.renderEndpoints(c, s, fiber.StatusUnprocessableEntity, url, picked, errs)
	}
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.EndpointCreated(web.EndpointCreatedPage{
		Layout: h.layout(c, s, "Outgoing webhook endpoint added", web.NavWebhooks), Endpoint: endpointItem(e), Secret: e.Secret}))
}

func (h *handler) endpointDelete(c *fiber.Ctx, s *session) error {
	if err := h.provision().DeleteEndpoint(c.UserContext(), by(c, s), s.TenantID, pathID(c)); err != nil {
		return err
	}
	return h.redirect(c, web.PathEndpoints, success("Endpoint deleted."))
}

// endpointEnable clears a failing endpoint's mark: new events reach it again.
func (h *handler) endpointEnable(c *fiber.Ctx, s *session) error {
	id := pathID(c)
	if err := h.Store.Outbox.SetFailing(c.UserContext(), s.TenantID, id, nil); err != nil {
		return err
	}
	if err := h.appendAudit(c, s, tenants.ActionWebhookChanged, []string{id}, "outgoing endpoint re-enabled"); err != nil {
		return err
	}
	return h.redirect(c, web.PathEndpoints, success("Endpoint re-enabled."))
}

// endpointLog shows an endpoint's deliveries, newest first.
func (h *handler) endpointLog(c *fiber.Ctx, s *session) error {
	ctx := c.UserContext()
	e, err := h.Store.Outbox.Endpoint(ctx, s.TenantID, pathID(c))
	if err != nil {
		return err
	}
	list, err := h.Store.Outbox.Deliveries(ctx, s.TenantID, e.ID, deliveriesShown)
	if err != nil {
		return err
	}
	p := web.DeliveriesPage{Layout: h.layout(c, s, "Delivery log", web.NavWebhooks), Endpoint: withHealth(endpointItem(e), list),
		CanManage: h.may(s, permEndpointsWrite)}
	for _, d := range list {
		item := web.DeliveryItem{EventID: d.EventID, Type: d.Type, CreatedAt: d.CreatedAt, Status: d.Status, Attempts: d.Attempts,
			LastAt: d.LastAt, LastResult: d.LastResult}
		if d.Status == tenants.DeliveryPending {
			item.NextAt = &d.NextAt
		}
		p.Deliveries = append(p.Deliveries, item)
	}
	return h.render(c, fiber.StatusOK, web.Deliveries(p))
}
