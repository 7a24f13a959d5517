package admin

import (
	"testing"

	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
)

// TestEveryRoutePermissionIsGranted: each permission the route table requires is granted to a
// role in policies/policy.csv (the platform admin inherits them all), so no route is one that
// nobody may open because of a typo in its object or action.
func TestEveryRoutePermissionIsGranted(t *testing.T) {
	enf, err := policies.New()
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler(Deps{Enforcer: enf, Secret: testKey})
	admin := &session{Staff: tenants.Staff{Role: tenants.RolePlatformAdmin}}
	for _, r := range h.routes() {
		if r.who == signedIn && !h.may(admin, r.access) {
			t.Errorf("%s %s: no role is granted %s %s", r.method, r.path, r.obj, r.act)
		}
	}
}
