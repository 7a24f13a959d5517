package admin

import (
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// submission shows one form submission.
func (h *handler) submission(c *fiber.Ctx, s *session) error {
	r, err := h.Store.Records.Get(c.UserContext(), s.TenantID, tenants.KindFormSubmission, pathID(c))
	if err != nil {
		return err
	}
	return h.renderRecord(c, s, r, nil)
}

// record shows a record of any kind by its public id: of the kind ?kind= names, or else of
// the first kind that has one, with links to the others. Audit entries that do not say a
// record's kind link here.
func (h *handler) record(c *fiber.Ctx, s *session) error {
	kinds := tenants.Kinds()
	if k := tenants.Kind(c.Query("kind")); k != "" {
		if !slices.Contains(tenants.Kinds(), k) {
			return tenants.ErrNotFound
		}
		kinds = []tenants.Kind{k}
	}
	var found []tenants.Record
	for _, k := range kinds {
		r, err := h.Store.Records.Get(c.UserContext(), s.TenantID, k, pathID(c))
		if err == nil {
			found = append(found, r)
		} else if !isNotFound(err) {
			return err
		}
	}
	if len(found) == 0 {
		return tenants.ErrNotFound
	}
	var others []web.Option
	for _, r := range found[1:] {
		others = append(others, web.Option{Value: web.RecordPath(string(r.Kind), r.PublicID), Label: web.KindLabel(string(r.Kind))})
	}
	return h.renderRecord(c, s, found[0], others)
}

// renderRecord shows a record; personal data in full only to roles that may read contact data.
func (h *handler) renderRecord(c *fiber.Ctx, s *session, r tenants.Record, others []web.Option) error {
	var declared map[string]bool
	if r.FormID != "" {
		if f, err := h.Store.Forms.Get(c.UserContext(), s.TenantID, r.FormID); err == nil {
			declared = f.PersonalFields()
		} else if !isNotFound(err) {
			return err
		}
	}
	now := h.now()
	d := web.SubmissionDetail{Kind: string(r.Kind), ID: r.PublicID, FormID: r.FormID, CreatedAt: r.CreatedAt, AnonymisedAt: r.AnonymisedAt,
		Contact: web.ContactView{Email: str(r.Contact.Email), PhoneNumber: str(r.Contact.PhoneNumber),
			FirstName: str(r.Contact.FirstName), LastName: str(r.Contact.LastName), NamePrefix: str(r.Contact.NamePrefix)},
		Address: web.AddressView{Street: str(r.Address.Street), HouseNumber: str(r.Address.HouseNumber),
			City: str(r.Address.City), Postcode: str(r.Address.Postcode)},
		Consents: web.ConsentRows{PrimaryPurpose: consentView(r.Consents.PrimaryPurpose, now),
			GeneralContactEmail: consentView(r.Consents.GeneralContactEmail, now),
			GeneralContactPhone: consentView(r.Consents.GeneralContactPhone, now)},
		Fields:  web.PayloadFields(r.Fields, func(k string, v any) bool { return personalField(nil, k, v) }),
		Payload: web.PayloadFields(r.Payload, func(k string, v any) bool { return personalField(declared, k, v) }),
	}
	if err := h.attachNotices(c, s.TenantID, r, &d.Consents); err != nil {
		return err
	}
	title := web.KindLabel(d.Kind) + " " + r.PublicID
	if r.Kind == tenants.KindFormSubmission {
		title = "Submission " + r.PublicID
	}
	return h.render(c, fiber.StatusOK, web.Submission(web.SubmissionPage{Layout: h.layout(c, s, title, web.NavSubmissions),
		Submission: d, Others: others, ShowPersonal: h.may(s, permContactRead)}))
}
