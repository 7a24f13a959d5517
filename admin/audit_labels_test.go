package admin

import (
	"testing"

	"github.com/consentforms/consentforms/web"
)

// TestEveryAuditActionHasALabel: an action the filter offers without words would show its raw code.
func TestEveryAuditActionHasALabel(t *testing.T) {
	for _, a := range auditActions {
		if web.ActionLabel(a) == a {
			t.Errorf("audit action %q has no label", a)
		}
	}
}
