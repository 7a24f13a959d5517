package admin

import (
	"cmp"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// arrivingSample is how many of a form's latest submissions its page reads to show which
// custom fields actually arrive: one index range of the form's list, never a scan.
const arrivingSample = 200

// arrivingFields counts the custom fields of the form's latest live submissions, each with
// how the form declares it (personal, not personal, or not at all), so that staff see which
// fields to declare personal; most-seen first.
func (h *handler) arrivingFields(c *fiber.Ctx, s *session, f tenants.Form) (web.ArrivingFields, error) {
	recs, err := h.Store.Records.List(c.UserContext(), s.TenantID, tenants.KindFormSubmission,
		tenants.Page{FormID: f.FormID, Limit: arrivingSample, Now: h.now()})
	if err != nil {
		return web.ArrivingFields{}, err
	}
	declared := map[string]tenants.FieldDef{}
	for _, d := range f.Fields {
		declared[strings.ToLower(d.Name)] = d
	}
	seen := map[string]*web.ArrivingField{}
	out := web.ArrivingFields{}
	for _, r := range recs {
		if r.AnonymisedAt != nil {
			continue
		}
		out.Read++
		for name := range r.Payload {
			a := seen[name]
			if a == nil {
				d, ok := declared[strings.ToLower(name)]
				a = &web.ArrivingField{Name: name, Declared: ok, Personal: ok && d.Personal}
				seen[name] = a
			}
			a.Seen++
		}
	}
	for _, a := range seen {
		out.Fields = append(out.Fields, *a)
	}
	slices.SortFunc(out.Fields, func(a, b web.ArrivingField) int {
		return cmp.Or(cmp.Compare(b.Seen, a.Seen), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}
