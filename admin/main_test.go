package admin

import (
	"os"
	"testing"

	"github.com/consentforms/consentforms/tenants"
	"golang.org/x/crypto/bcrypt"
)

// TestMain hashes the tests' passwords at bcrypt's lowest cost: what they assert does not
// depend on the cost, and the default cost made password hashing most of their time.
func TestMain(m *testing.M) {
	tenants.PasswordCost = bcrypt.MinCost
	os.Exit(m.Run())
}
