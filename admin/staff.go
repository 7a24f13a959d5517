package admin

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/provision"
	"github.com/consentforms/consentforms/web"
	"github.com/gofiber/fiber/v2"
)

// lastLoginLookups bounds the audit reads the staff list makes for "last sign-in".
const lastLoginLookups = 100

// staff lists the users of the user's tenant; a platform admin sees those of the chosen
// tenant, or every user when none is chosen.
func (h *handler) staff(c *fiber.Ctx, s *session) error {
	// The form starts at the least powerful role, in the tenant worked on: valid together.
	// A platform admin who has chosen no tenant picks one (nothing is guessed).
	return h.renderStaff(c, s, fiber.StatusOK, web.StaffInput{Role: tenants.RoleViewer, TenantID: s.TenantID}, nil)
}

func (h *handler) renderStaff(c *fiber.Ctx, s *session, status int, in web.StaffInput, errs web.FieldErrors) error {
	ctx := c.UserContext()
	list, err := h.listStaff(ctx, s)
	if err != nil {
		return err
	}
	names := map[string]string{s.TenantID: s.TenantName}
	p := web.StaffPage{Layout: h.layout(c, s, "Staff", web.NavStaff), Form: in, Roles: assignableRoles(s.Staff.Role),
		Errors: errs, CanManage: h.may(s, permStaffWrite)}
	if isPlatformAdmin(s) {
		all, err := h.Store.Tenants.List(ctx)
		if err != nil {
			return err
		}
		for _, t := range all {
			names[t.ID] = t.Name
			p.Tenants = append(p.Tenants, web.Option{Value: t.ID, Label: t.Name})
		}
	}
	for i, st := range list {
		it := web.StaffItem{ID: st.ID, Email: st.Email, Role: st.Role, TenantName: names[st.TenantID], CreatedAt: st.CreatedAt,
			Disabled: st.Disabled, CanToggle: p.CanManage && canToggle(s, st)}
		if i < lastLoginLookups {
			last, err := h.Store.Audit.List(ctx, st.TenantID, tenants.AuditFilter{Action: tenants.ActionStaffLogin,
				Actor: "staff:" + st.ID, Limit: 1})
			if err != nil {
				return err
			}
			if len(last) > 0 {
				it.LastLoginAt = &last[0].Time
			}
		}
		p.Staff = append(p.Staff, it)
	}
	return h.render(c, status, web.Staff(p))
}

// staffCreate adds a user with a role no higher than the creator's, in the creator's
// tenant (a platform admin chooses any).
func (h *handler) staffCreate(c *fiber.Ctx, s *session) error {
	in := web.StaffInput{Email: strings.TrimSpace(c.FormValue("email")), Role: c.FormValue("role"), TenantID: s.Staff.TenantID}
	if isPlatformAdmin(s) {
		in.TenantID = c.FormValue("tenant")
	}
	if in.Role == tenants.RolePlatformAdmin {
		in.TenantID = "" // a platform admin belongs to no tenant: what the select shows does not matter
	}
	def := provision.StaffInput{Email: in.Email, Password: c.FormValue("password"), Role: in.Role, TenantID: in.TenantID,
		Roles: assignableRoles(s.Staff.Role)}
	if def.Roles == nil {
		def.Roles = []string{} // an unknown role assigns none
	}
	ctx := c.UserContext()
	if _, wait := h.throttle.waiting(takenLimit(s)); wait && !isPlatformAdmin(s) {
		vs, err := h.provision().CheckStaff(ctx, def)
		if err != nil {
			return err
		}
		errs := addViolations(web.FieldErrors{"email": "Too many addresses were refused. Wait a few minutes, then try again."}, vs)
		return h.renderStaff(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	_, err := h.provision().CreateStaff(ctx, by(c, s), def)
	if errors.Is(err, tenants.ErrConflict) {
		return h.renderStaff(c, s, fiber.StatusUnprocessableEntity, in, web.FieldErrors{"email": h.emailTaken(s)})
	}
	if errs, ok := fieldErrors(err); ok {
		return h.renderStaff(c, s, fiber.StatusUnprocessableEntity, in, errs)
	}
	if err != nil {
		return err
	}
	return h.redirect(c, web.PathStaff, success("Staff user added."))
}

// assignableRoles are the roles at or below role (tenants.Roles() is ordered most powerful first).
func assignableRoles(role string) []string {
	i := slices.Index(tenants.Roles(), role)
	if i < 0 {
		return nil
	}
	return slices.Clone(tenants.Roles()[i:])
}

func isPlatformAdmin(s *session) bool { return s.Staff.Role == tenants.RolePlatformAdmin }

// listStaff lists the users of the user's tenant; a platform admin without a chosen tenant
// sees every user.
func (h *handler) listStaff(ctx context.Context, s *session) ([]tenants.Staff, error) {
	if isPlatformAdmin(s) && s.TenantID == "" {
		return h.Store.Staff.ListAll(ctx)
	}
	return h.Store.Staff.List(ctx, s.TenantID)
}

// staffDisable disables a user and ends their sessions on every instance.
func (h *handler) staffDisable(c *fiber.Ctx, s *session) error { return h.setStaffDisabled(c, s, true) }

// staffEnable re-enables a disabled user.
func (h *handler) staffEnable(c *fiber.Ctx, s *session) error { return h.setStaffDisabled(c, s, false) }

// setStaffDisabled changes a user whom s may manage (canToggle); any other id, another
// tenant's user included, is not found.
func (h *handler) setStaffDisabled(c *fiber.Ctx, s *session, disabled bool) error {
	ctx := c.UserContext()
	st, err := h.Store.Staff.Lookup(ctx, pathID(c))
	if err != nil {
		return err
	}
	if !canToggle(s, st) {
		return tenants.ErrNotFound
	}
	if err := h.provision().SetStaffDisabled(ctx, by(c, s), st, disabled); err != nil {
		return err
	}
	if disabled {
		return h.redirect(c, web.PathStaff, success("Staff user disabled and signed out."))
	}
	return h.redirect(c, web.PathStaff, success("Staff user enabled."))
}

// canToggle: a platform admin may disable anyone but themselves; a tenant admin their own
// tenant's users of a role no higher than theirs, but not themselves.
func canToggle(s *session, st tenants.Staff) bool {
	if st.ID == s.Staff.ID {
		return false
	}
	if isPlatformAdmin(s) {
		return true
	}
	return st.TenantID == s.Staff.TenantID && slices.Contains(assignableRoles(s.Staff.Role), st.Role)
}

func takenLimit(s *session) limit { return limit{"staff-email:" + s.Staff.ID, maxTakenEmails} }

// maxTakenEmails is how many addresses in use a tenant admin is told of before backoff.
const maxTakenEmails = 5

// emailTaken is the answer to an e-mail address in use. A platform admin, who sees every
// user, is told so. A tenant admin is not told whether it is a user of another tenant (an
// address signs in one user, so the refusal itself cannot be avoided), and each refusal
// counts against a throttle that, once spent, refuses every new user for a while, so that the
// form cannot be used to list other tenants' users.
func (h *handler) emailTaken(s *session) string {
	if isPlatformAdmin(s) {
		return "A user with this e-mail address exists."
	}
	h.throttle.take(takenLimit(s))
	return "This e-mail address cannot be used for a new user. If it should be, ask the service's operator."
}
