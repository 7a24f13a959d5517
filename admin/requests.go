package admin

import (
	"errors"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Data-subject requests (docs/API.md §17.3): what people filed on their preference page —
// a copy of their data, or its erasure — listed for support staff, who download the copy
// (the access export) and mark it sent, or carry out the erasure. The list names the person
// by the keyed hash only; the identifiers are read from the record when staff act.

func (h *handler) requestList(c *fiber.Ctx, s *session) error {
	status := c.Query("status", tenants.SubjectRequestOpen)
	if status == "all" {
		status = ""
	}
	ctx := c.UserContext()
	list, err := h.Requests.List(ctx, s.TenantID, status)
	if err != nil {
		return err
	}
	p := web.RequestsPage{Layout: h.layout(c, s, "Data-subject requests", web.NavRequests), Status: c.Query("status", tenants.SubjectRequestOpen)}
	names := h.staffNames(ctx, s.TenantID)
	for _, r := range list {
		p.Requests = append(p.Requests, requestItem(r, names, h.may(s, permGDPRExport), h.may(s, permGDPRAnonymise)))
	}
	return h.render(c, fiber.StatusOK, web.Requests(p))
}

// requestItem is a request as the list shows it: the staff who carried it out by e-mail.
func requestItem(r tenants.SubjectRequest, names map[string]string, mayExport, mayErase bool) web.RequestItem {
	done := r.DoneBy
	if n, ok := names[strings.TrimPrefix(done, "staff:")]; ok {
		done = n
	}
	open := r.Status == tenants.SubjectRequestOpen
	return web.RequestItem{ID: r.ID, Kind: r.Kind, Status: r.Status, Source: r.Source, Subject: r.Subject,
		RecordPath: web.RecordPath(string(r.RecordKind), r.RecordID), FiledAt: r.FiledAt, DoneBy: done, DoneAt: r.DoneAt,
		CanExport:   open && mayExport && r.Kind == tenants.SubjectRequestAccess,
		CanComplete: open && mayErase}
}

// requestExport downloads the copy an access request asks for, as the person's export.
func (h *handler) requestExport(c *fiber.Ctx, s *session) error {
	out, err := h.Requests.Export(c.UserContext(), s.TenantID, pathID(c), actor(s), requestID(c))
	if errors.Is(err, tenants.ErrConflict) {
		return h.requestRefused(c, s, "there is no data of this person left to copy")
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="person-export-`+h.now().Format("20060102-150405")+`.json"`)
	return c.JSON(h.ExportJSON(out))
}

// requestComplete carries out a request: the erasure at once, an access request marked sent.
func (h *handler) requestComplete(c *fiber.Ctx, s *session) error {
	r, done, err := h.Requests.Complete(c.UserContext(), s.TenantID, pathID(c), actor(s), requestID(c))
	switch {
	case errors.Is(err, tenants.ErrConflict):
		return h.requestRefused(c, s, "the request was carried out already")
	case err != nil:
		return err
	}
	msg := "Marked as sent: the person sees on their page that their copy was sent."
	if r.Kind == tenants.SubjectRequestErasure {
		msg = "Erased: " + web.Plural(done.Counts.Total(), "record", "records") + " of the person anonymised; the person sees on their page that it is done."
	}
	return h.redirect(c, web.PathRequests, success(msg))
}

func (h *handler) requestRefused(c *fiber.Ctx, s *session, why string) error {
	return h.render(c, fiber.StatusConflict, web.Error(web.ErrorPage{Layout: h.layout(c, s, "Not possible", web.NavRequests),
		Status: fiber.StatusConflict, Message: "Not possible: " + why + ".", RequestID: requestID(c)}))
}

var _ Requests = (*ops.Requests)(nil)
