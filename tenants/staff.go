package tenants

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/consentforms/consentforms/tenants/contact"
	"golang.org/x/crypto/bcrypt"
)

// Staff roles (issue 6). The platform admin belongs to no tenant.
const (
	RolePlatformAdmin = "platform_admin"
	RoleTenantAdmin   = "tenant_admin"
	RoleSupport       = "support"
	RoleViewer        = "viewer"
)

// roles lists every role, most powerful first.
var roles = []string{RolePlatformAdmin, RoleTenantAdmin, RoleSupport, RoleViewer}

// Roles returns them afresh: a caller may change its copy.
func Roles() []string { return slices.Clone(roles) }

// Staff is a user of the admin UI.
type Staff struct {
	ID           string    `json:"id"`
	Email        string    `json:"email"`
	PasswordHash string    `json:"passwordHash"`
	Role         string    `json:"role"`
	TenantID     string    `json:"tenantId"`
	CreatedAt    time.Time `json:"createdAt"`
	// Disabled users cannot sign in, and their sessions end.
	Disabled bool `json:"disabled,omitempty"`
	// MustChangePassword is set on a generated password (the first platform admin's): the
	// user must choose a new one before anything else.
	MustChangePassword bool `json:"mustChangePassword,omitempty"`
	// CreatedBy is the id of the staff user who created this one in the admin UI; "" for a
	// user created from the command line, the environment or the first start. Four-eyes
	// approval follows it (package ops, DecideBulk).
	CreatedBy string `json:"createdBy,omitempty"`
}

// The lengths of a staff password, in bytes: bcrypt reads no more than 72. A person choosing
// a password in the admin UI needs MinPasswordLength; an operator setting one from the command
// line or the environment (staff create, staff set-password, CONSENTFORMS_ADMIN_PASSWORD)
// needs MinOperatorPasswordLength, the rule scripts were written against, and such a password
// set for someone else must be changed at first sign-in anyway.
const (
	MinPasswordLength         = 12
	MinOperatorPasswordLength = 10
	MaxPasswordLength         = 72
)

// ValidPassword reports whether password has an accepted length for a password a person
// chooses in the admin UI.
func ValidPassword(password string) bool {
	return len(password) >= MinPasswordLength && len(password) <= MaxPasswordLength
}

// ValidOperatorPassword reports whether password has an accepted length for a password an
// operator sets from the command line or the environment.
func ValidOperatorPassword(password string) bool {
	return len(password) >= MinOperatorPasswordLength && len(password) <= MaxPasswordLength
}

// NewStaff makes a user and hashes the password with bcrypt. The e-mail address, the role
// and the tenant it needs are checked by the caller (package provision checks them all).
func NewStaff(id, email, password, role, tenantID string, now time.Time) (Staff, error) {
	h, err := HashPassword(password)
	if err != nil {
		return Staff{}, err
	}
	return Staff{ID: id, Email: email, PasswordHash: h, Role: role, TenantID: tenantID, CreatedAt: now}, nil
}

// PasswordCost is bcrypt's cost for new password hashes. The server never changes it; tests
// lower it to bcrypt.MinCost, where a hash takes well under a millisecond instead of tens
// (many times that under the race detector), since what they assert does not depend on it.
var PasswordCost = bcrypt.DefaultCost

// HashPassword checks a password's length and hashes it with bcrypt at PasswordCost.
func HashPassword(password string) (string, error) {
	if !ValidOperatorPassword(password) {
		return "", fmt.Errorf("password must be %d to %d characters", MinOperatorPasswordLength, MaxPasswordLength)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// CheckPassword reports whether password is the user's.
func (s Staff) CheckPassword(password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(s.PasswordHash), []byte(password)) == nil
}

// StaffEmailKey is the form of a staff e-mail address that is stored and looked up:
// trimmed and lower-cased, so that an address signs in one user however it is typed.
func StaffEmailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidStaffEmail reports whether email can be a staff sign-in.
func ValidStaffEmail(email string) bool {
	_, ok := contact.NormaliseEmail(email)
	return ok
}
