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

// Roles lists every role, most powerful first.
var Roles = []string{RolePlatformAdmin, RoleTenantAdmin, RoleSupport, RoleViewer}

// Staff is a user of the admin UI.
type Staff struct {
	ID           string    `bson:"_id" json:"id"`
	Email        string    `bson:"email" json:"email"`
	PasswordHash string    `bson:"passwordHash" json:"passwordHash"`
	Role         string    `bson:"role" json:"role"`
	TenantID     string    `bson:"tenantId" json:"tenantId"`
	CreatedAt    time.Time `bson:"createdAt" json:"createdAt"`
	// Disabled users cannot sign in, and their sessions end.
	Disabled bool `bson:"disabled,omitempty" json:"disabled,omitempty"`
	// MustChangePassword is set on a generated password (the first platform admin's): the
	// user must choose a new one before anything else.
	MustChangePassword bool `bson:"mustChangePassword,omitempty" json:"mustChangePassword,omitempty"`
}

// MinPasswordLength is the shortest staff password accepted.
const MinPasswordLength = 10

// NewStaff validates the fields and hashes the password with bcrypt.
func NewStaff(id, email, password, role, tenantID string, now time.Time) (Staff, error) {
	if !slices.Contains(Roles, role) {
		return Staff{}, fmt.Errorf("unknown role %q", role)
	}
	if role == RolePlatformAdmin && tenantID != "" {
		return Staff{}, fmt.Errorf("a platform admin belongs to no tenant")
	}
	if role != RolePlatformAdmin && tenantID == "" {
		return Staff{}, fmt.Errorf("role %s needs a tenant", role)
	}
	h, err := HashPassword(password)
	if err != nil {
		return Staff{}, err
	}
	return Staff{ID: id, Email: email, PasswordHash: h, Role: role, TenantID: tenantID, CreatedAt: now}, nil
}

// HashPassword checks a password's length and hashes it with bcrypt.
func HashPassword(password string) (string, error) {
	if len(password) < MinPasswordLength || len(password) > 72 {
		return "", fmt.Errorf("password must be %d to 72 characters", MinPasswordLength)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
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
