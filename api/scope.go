package api

import (
	"github.com/consentforms/consentforms/policies"
	"github.com/consentforms/consentforms/tenants"
)

// missingScope is the 403 of a key without the scope an endpoint needs: it names that scope
// (the narrowest that allows it, not "all"), in the message and as details.scope, so that an
// integrator knows which key to ask for.
func missingScope(e *policies.Enforcer, obj, act string) *Error {
	for _, sc := range tenants.AllScopes() {
		if sc != tenants.ScopeAll && e.ScopesAllow([]string{sc}, obj, act) {
			err := forbidden("This endpoint needs the scope " + sc + ".")
			err.Details = map[string]any{"scope": sc}
			return err
		}
	}
	return forbidden("The API key lacks the scope this endpoint needs.")
}
