package admin

import (
	"cmp"
	"slices"
	"time"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/anonymise"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// submissionsPerPage is the page size of the submissions list.
const submissionsPerPage = 25

// submissions lists a page of form submissions, newest first; the store applies the form and
// consent-status filters, so every page is full.
func (h *handler) submissions(c *fiber.Ctx, s *session) error {
	ctx := c.UserContext()
	f := web.SubmissionFilter{Kind: c.Query("kind", web.KindFormSubmission), FormID: c.Query("form"), Consent: c.Query("consent"), Status: c.Query("status")}
	if !slices.Contains(tenants.Kinds(), tenants.Kind(f.Kind)) {
		f.Kind = web.KindFormSubmission
	}
	kind := tenants.Kind(f.Kind)
	if !slices.ContainsFunc(web.ConsentOptions(), func(o web.Option) bool { return o.Value == f.Consent }) {
		f.Consent = ""
	}
	if !slices.ContainsFunc(web.StatusOptions(), func(o web.Option) bool { return o.Value == f.Status }) {
		f.Status = ""
	}
	cur, ok := listCursor(c)
	if !ok {
		return c.Redirect(f.URL(""), fiber.StatusFound)
	}
	now := h.now()
	filter := tenants.Page{FormID: f.FormID, Consent: tenants.ConsentName(f.Consent), Status: tenants.ConsentStatus(f.Status), Now: now}
	recs, newer, older, err := keysetPage(cur, submissionsPerPage, func(cur *tenants.Cursor) ([]tenants.Record, error) {
		paged := filter
		paged.Cursor, paged.Limit = cur, submissionsPerPage+1
		return h.Store.Records.List(ctx, s.TenantID, kind, paged)
	}, func(r tenants.Record) tenants.Cursor { return tenants.Cursor{Time: r.CreatedAt, ID: r.PublicID} })
	if err != nil {
		return err
	}
	total, err := h.listTotal(ctx, s.TenantID, kind, filter)
	if err != nil {
		return err
	}
	forms, err := h.Store.Forms.List(ctx, s.TenantID)
	if err != nil {
		return err
	}
	p := web.SubmissionsPage{Layout: h.layout(c, s, "Submissions", web.NavSubmissions), Filter: f,
		Pager: pagerOf(f.URL, newer, older), Total: total, CanFind: h.mayFindPeople(s)}
	for _, k := range tenants.Kinds() {
		p.Kinds = append(p.Kinds, web.Option{Value: string(k), Label: web.KindPlural(string(k))})
	}
	names := map[string]string{}
	for _, fm := range forms {
		p.Forms = append(p.Forms, web.Option{Value: fm.FormID, Label: cmp.Or(fm.Name, fm.FormID)})
		names[fm.FormID] = fm.Name
	}
	for _, r := range recs {
		item := submissionItem(r, now)
		item.FormName = names[r.FormID]
		p.Items = append(p.Items, item)
	}
	return h.render(c, fiber.StatusOK, web.Submissions(p))
}

// pagerOf is the pager of a list whose URL with a cursor is url.
func pagerOf(url func(cursor string) string, newer, older string) web.Pager {
	var p web.Pager
	if newer != "" {
		p.Newer = url(newer)
	}
	if older != "" {
		p.Older = url(older)
	}
	return p
}

func submissionItem(r tenants.Record, now time.Time) web.SubmissionItem {
	item := web.SubmissionItem{ID: r.PublicID, FormID: r.FormID, CreatedAt: r.CreatedAt, Email: str(r.Contact.Email),
		Phone: str(r.Contact.PhoneNumber), Anonymised: r.AnonymisedAt != nil}
	if r.Kind != tenants.KindPhoneCallTask { // the one kind without consents
		item.PrimaryPurpose = string(r.Consents.PrimaryPurpose.StatusAt(now))
		item.GeneralContactEmail = string(r.Consents.GeneralContactEmail.StatusAt(now))
		item.GeneralContactPhone = string(r.Consents.GeneralContactPhone.StatusAt(now))
	}
	return item
}

// personalField is the anonymiser's classification: declared personal, named like personal
// data, or holding an e-mail address, phone number or IP address.
func personalField(declared map[string]bool, key string, v any) bool {
	return anonymise.PersonalField(declared, key, v, "")
}

func consentView(c tenants.Consent, now time.Time) web.ConsentRow {
	return web.ConsentRow{Status: string(c.DetailAt(now)), Deadline: c.Deadline, GrantedAt: c.GrantedAt,
		RevokedAt: c.RevokedAt, Source: str(c.Source), Timestamp: str(c.Timestamp), IPAddress: str(c.IPAddress)}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
