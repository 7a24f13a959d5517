package admin

import (
	"context"
	"errors"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Four-eyes bulk erasure (docs/API.md §5.6): support staff paste identifiers, preview what
// they match and submit a request; a tenant admin other than the requester approves or
// rejects it; the server's bulk job erases through ops, the erasure of the API.

func (h *handler) bulkList(c *fiber.Ctx, s *session) error {
	return h.renderBulkList(c, s, fiber.StatusOK, "", nil)
}

func (h *handler) renderBulkList(c *fiber.Ctx, s *session, status int, text string, errs web.FieldErrors) error {
	ctx := c.UserContext()
	list, err := h.Store.Bulk.ListBulk(ctx, s.TenantID)
	if err != nil {
		return err
	}
	p := web.BulkListPage{Layout: h.layout(c, s, "Bulk erasure", web.NavAnonymise), Text: text, Errors: errs}
	names := h.staffNames(ctx, s.TenantID)
	for _, b := range list {
		p.Requests = append(p.Requests, bulkItem(b, names))
	}
	return h.render(c, status, web.BulkList(p))
}

// bulkInput parses the pasted identifiers; a refusal shows the form again with the reason.
func (h *handler) bulkInput(c *fiber.Ctx, s *session) (ops.BulkInput, string, error, bool) {
	text := c.FormValue("identifiers")
	in, err := ops.ParseBulk(text, h.country(c, s))
	if err != nil {
		return in, text, h.renderBulkList(c, s, fiber.StatusUnprocessableEntity, text,
			web.FieldErrors{"identifiers": "Nothing to erase: " + err.Error() + "."}), false
	}
	return in, text, nil, true
}

func (h *handler) bulkPreview(c *fiber.Ctx, s *session) error {
	in, text, err, ok := h.bulkInput(c, s)
	if !ok {
		return err
	}
	p, err := h.Bulk.PreviewBulk(c.UserContext(), s.TenantID, in)
	if err != nil {
		return err
	}
	return h.render(c, fiber.StatusOK, web.BulkPreview(web.BulkPreviewPage{Layout: h.layout(c, s, "Bulk erasure: review", web.NavAnonymise),
		Text: text, Emails: len(in.Emails), Phones: len(in.Phones), Counts: recordCounts(p.Counts), Mentions: p.Mentions, Unmatched: p.Unmatched,
		Invalid: in.Invalid, InvalidCount: in.InvalidCount}))
}

func (h *handler) bulkRequest(c *fiber.Ctx, s *session) error {
	in, _, err, ok := h.bulkInput(c, s)
	if !ok {
		return err
	}
	b, err := h.Bulk.RequestBulk(c.UserContext(), s.TenantID, s.Staff.ID, requestID(c), in)
	if err != nil {
		return err
	}
	return h.redirect(c, web.BulkPath(b.ID), success("Submitted for approval by a tenant admin other than you."))
}

func (h *handler) bulkPage(c *fiber.Ctx, s *session) error {
	ctx := c.UserContext()
	b, err := h.Store.Bulk.GetBulk(ctx, s.TenantID, pathID(c))
	if err != nil {
		return err
	}
	own := b.RequestedBy == s.Staff.ID
	return h.render(c, fiber.StatusOK, web.Bulk(web.BulkPage{Layout: h.layout(c, s, "Bulk erasure request", web.NavAnonymise),
		Bulk: bulkItem(b, h.staffNames(ctx, s.TenantID)), Own: own,
		CanDecide: !own && h.may(s, permBulkApprove)}))
}

func (h *handler) bulkApprove(c *fiber.Ctx, s *session) error { return h.bulkDecide(c, s, true) }
func (h *handler) bulkReject(c *fiber.Ctx, s *session) error  { return h.bulkDecide(c, s, false) }

// bulkDecide records the decision; a refusal (own request, decided, expired) is 409 with the
// reason on the request's page.
func (h *handler) bulkDecide(c *fiber.Ctx, s *session, approve bool) error {
	id := pathID(c)
	err := h.Bulk.DecideBulk(c.UserContext(), s.TenantID, id, s.Staff.ID, requestID(c), approve)
	switch {
	case errors.Is(err, ops.ErrSelfApproval), errors.Is(err, ops.ErrBulkDecided), errors.Is(err, ops.ErrBulkExpired), errors.Is(err, ops.ErrPuppetApprover):
		return h.render(c, fiber.StatusConflict, web.Error(web.ErrorPage{Layout: h.layout(c, s, "Not possible", web.NavAnonymise),
			Status: fiber.StatusConflict, Message: "Not possible: " + err.Error() + ".", RequestID: requestID(c)}))
	case err != nil:
		return err
	}
	if !approve {
		return h.redirect(c, web.BulkPath(id), success("Rejected. Nothing was erased."))
	}
	return h.redirect(c, web.BulkPath(id), success("Approved. The erasure runs now."))
}

// staffNames maps the tenant's staff ids to their e-mail addresses, shown to staff only.
func (h *handler) staffNames(ctx context.Context, tenantID string) map[string]string {
	list, err := h.Store.Staff.List(ctx, tenantID)
	names := map[string]string{}
	if err != nil {
		return names
	}
	for _, st := range list {
		names[st.ID] = st.Email
	}
	return names
}

func bulkItem(b tenants.BulkErasure, names map[string]string) web.BulkItem {
	name := func(id string) string {
		if n, ok := names[id]; ok {
			return n
		}
		return id
	}
	return web.BulkItem{ID: b.ID, Status: b.Status, RequestedBy: name(b.RequestedBy), RequestedAt: b.RequestedAt, ExpiresAt: b.ExpiresAt,
		DecidedBy: name(b.DecidedBy), DecidedAt: b.DecidedAt, FinishedAt: b.FinishedAt, Emails: b.Emails, Phones: b.Phones,
		Expected: recordCounts(tenants.CountsFrom(b.Expected)), Erased: recordCounts(tenants.CountsFrom(b.Erased)), Total: b.Total, Done: b.Done,
		ExpectedMentions: b.Expected[ops.RemovedMentionsKey], RemovedMentions: b.Erased[ops.RemovedMentionsKey]}
}
