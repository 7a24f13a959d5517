package admin

import (
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// Finding a person: an exact e-mail address and/or phone number, posted (never in a URL, so
// never in a log or the browser history), normalised as erasure normalises it, looked up
// through the match-key index. Nothing of it is logged or audited: it changes nothing.

// mayFindPeople: looking a person up by e-mail or phone uses contact data, so it takes the
// permission to read it (support and up). A viewer, who sees contact data masked, could
// otherwise confirm whether a given address is on file.
func (h *handler) mayFindPeople(s *session) bool {
	return h.may(s, permContactRead)
}

func (h *handler) findPersonPage(c *fiber.Ctx, s *session) error {
	return h.render(c, fiber.StatusOK, web.FindPerson(h.findPersonView(c, s, "", "")))
}

func (h *handler) findPerson(c *fiber.Ctx, s *session) error {
	email, phone := personInput(c)
	p := h.findPersonView(c, s, email, phone)
	id, errs := h.identity(c, s, email, phone)
	if len(errs) > 0 {
		p.Errors = errs
		return h.invalid(c, web.FindPerson(p))
	}
	recs, mentions, err := h.Persons.FindPerson(c.UserContext(), s.TenantID, id)
	if err != nil {
		return err
	}
	now := h.now()
	p.Searched = true
	p.Counts = recordCounts(tenants.CountKinds(recs))
	for _, r := range recs[:min(len(recs), web.FindPersonShown)] {
		p.Records = append(p.Records, personRecord(r, now))
	}
	p.MentionCount = len(mentions)
	for _, r := range mentions[:min(len(mentions), web.FindPersonShown)] {
		p.Mentions = append(p.Mentions, personRecord(r, now))
	}
	return h.render(c, fiber.StatusOK, web.FindPerson(p))
}

func (h *handler) findPersonView(c *fiber.Ctx, s *session, email, phone string) web.FindPersonPage {
	return web.FindPersonPage{Layout: h.layout(c, s, "Find a person", web.NavSubmissions), Email: email, Phone: phone,
		CanAnonymise: h.may(s, permGDPRAnonymise)}
}

func personRecord(r tenants.Record, now time.Time) web.PersonRecord {
	p := web.PersonRecord{Kind: string(r.Kind), ID: r.PublicID, FormID: r.FormID, CreatedAt: r.CreatedAt, AnonymisedAt: r.AnonymisedAt}
	if r.Kind != tenants.KindPhoneCallTask { // the one kind without consents
		p.PrimaryPurpose = string(r.Consents.PrimaryPurpose.StatusAt(now))
		p.GeneralContactEmail = string(r.Consents.GeneralContactEmail.StatusAt(now))
		p.GeneralContactPhone = string(r.Consents.GeneralContactPhone.StatusAt(now))
	}
	return p
}
