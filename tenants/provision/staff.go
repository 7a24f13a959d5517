package provision

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// PasswordHint is what a refused staff password is told in the admin UI; OperatorPasswordHint
// on the command line (tenants.MinOperatorPasswordLength).
var (
	PasswordHint         = "Use " + strconv.Itoa(tenants.MinPasswordLength) + " to " + strconv.Itoa(tenants.MaxPasswordLength) + " characters."
	OperatorPasswordHint = "Use " + strconv.Itoa(tenants.MinOperatorPasswordLength) + " to " + strconv.Itoa(tenants.MaxPasswordLength) + " characters."
)

// passwordViolation is the refusal of a password that is too short or too long for who sets
// it (an operator, or a person in the admin UI), or nil.
func passwordViolation(password string, operator bool) *tenants.Violation {
	ok, hint := tenants.ValidPassword(password), PasswordHint
	if operator {
		ok, hint = tenants.ValidOperatorPassword(password), OperatorPasswordHint
	}
	if ok {
		return nil
	}
	return &tenants.Violation{Field: "password", Code: CodeOutOfRange, Message: hint}
}

// StaffInput is a staff user to create.
type StaffInput struct {
	Email    string
	Password string
	Role     string
	TenantID string // "" for a platform admin only
	// Operator marks a user created from the command line or the environment, whose password
	// follows tenants.MinOperatorPasswordLength and whose e-mail need only be non-empty.
	Operator bool
	// Roles are the roles the actor may give (an admin gives none above their own); nil:
	// any role.
	Roles []string
}

// CheckStaff validates a new user: e-mail, password, role, and the tenant the role needs.
func (s *Service) CheckStaff(ctx context.Context, in StaffInput) (tenants.Violations, error) {
	var c checks
	// An operator names accounts as their installation does (admin@localhost is common and
	// has always worked); the admin UI asks people for a deliverable address.
	switch {
	case strings.TrimSpace(in.Email) == "":
		c.add("email", CodeRequired, "Give an e-mail address.")
	case !in.Operator && !tenants.ValidStaffEmail(in.Email):
		c.add("email", CodeInvalid, "Give an e-mail address.")
	}
	if v := passwordViolation(in.Password, in.Operator); v != nil {
		c.vs = append(c.vs, *v)
	}
	switch {
	case !slices.Contains(tenants.Roles(), in.Role):
		c.add("role", CodeUnknown, "Choose a role from the list.")
	case in.Roles != nil && !slices.Contains(in.Roles, in.Role):
		c.add("role", CodeNotAllowed, "Choose a role from the list.")
	}
	switch {
	case in.Role == tenants.RolePlatformAdmin && in.TenantID != "":
		c.add("tenant", CodeNotAllowed, "A platform admin belongs to no tenant.")
	case in.Role != tenants.RolePlatformAdmin && in.TenantID == "":
		c.add("tenant", CodeRequired, "Choose the tenant this user belongs to: every role but platform admin belongs to one.")
	case in.TenantID != "":
		if err := c.tenant(ctx, s, in.TenantID); err != nil {
			return nil, err
		}
	}
	return c.vs, nil
}

// CreateStaff creates a staff user with a "u_" id, recording the staff user who created it
// (none from the command line); an e-mail address in use is tenants.ErrConflict, which
// callers answer as their audience may be told.
func (s *Service) CreateStaff(ctx context.Context, a Actor, in StaffInput) (tenants.Staff, error) {
	st, err := s.newStaff(ctx, in)
	if err != nil {
		return tenants.Staff{}, err
	}
	st.CreatedBy = a.StaffID()
	if err := s.Staff.Insert(ctx, st); err != nil {
		return tenants.Staff{}, err
	}
	return st, s.audit(ctx, a, st.TenantID, tenants.ActionStaffCreated, "", st.ID)
}

// CreateFirstAdmin creates the platform admin a new installation starts with. No audit entry
// is written: no one acted, the service started.
func (s *Service) CreateFirstAdmin(ctx context.Context, email, password string, mustChangePassword bool) (tenants.Staff, error) {
	st, err := s.newStaff(ctx, StaffInput{Email: email, Password: password, Role: tenants.RolePlatformAdmin, Operator: true})
	if err != nil {
		return tenants.Staff{}, err
	}
	st.MustChangePassword = mustChangePassword
	return st, s.Staff.Insert(ctx, st)
}

func (s *Service) newStaff(ctx context.Context, in StaffInput) (tenants.Staff, error) {
	vs, err := s.CheckStaff(ctx, in)
	if err != nil {
		return tenants.Staff{}, err
	}
	if len(vs) > 0 {
		return tenants.Staff{}, vs
	}
	return tenants.NewStaff(tenants.NewID("u_"), tenants.StaffEmailKey(in.Email), in.Password, in.Role, in.TenantID, s.now())
}

// SetStaffDisabled disables a user, ending their sessions on every instance, or enables them
// again. Callers find the user and decide whether the actor may change them.
func (s *Service) SetStaffDisabled(ctx context.Context, a Actor, st tenants.Staff, disabled bool) error {
	if err := s.Staff.SetDisabled(ctx, st.ID, disabled); err != nil {
		return err
	}
	action := tenants.ActionStaffEnabled
	if disabled {
		if err := s.Sessions.DeleteStaff(ctx, st.ID, ""); err != nil {
			return err
		}
		action = tenants.ActionStaffDisabled
	}
	return s.audit(ctx, a, st.TenantID, action, "", st.ID)
}

// SetStaffPassword gives a user a new password and ends their sessions but keepSession (""
// for none). mustChange is set for a password someone else chose (an operator's reset): the
// user must change it at their next sign-in.
func (s *Service) SetStaffPassword(ctx context.Context, a Actor, st tenants.Staff, password string, mustChange bool, keepSession string) error {
	if v := passwordViolation(password, a.Operator); v != nil {
		return tenants.Violations{*v}
	}
	hash, err := tenants.HashPassword(password)
	if err != nil {
		return err
	}
	if err := s.Staff.SetPassword(ctx, st.ID, hash, mustChange); err != nil {
		return err
	}
	if err := s.Sessions.DeleteStaff(ctx, st.ID, keepSession); err != nil {
		return err
	}
	return s.audit(ctx, a, st.TenantID, tenants.ActionStaffPassword, "", st.ID)
}
