package main

import "testing"

// TestForbiddenNamesTheScope: a key without the scope an endpoint needs hears which scope that
// is, in the message and as details.scope.
func TestForbiddenNamesTheScope(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tn := openTenant(s)
	readOnly := s.key(tn, "submissions:read")
	scope := func(want string) func(t *testing.T, r response) {
		return func(t *testing.T, r response) {
			body := r.JSON(t)
			if got := str(body, "details.scope"); got != want {
				t.Errorf("details.scope %q, want %q", got, want)
			}
			if got := str(body, "message"); got != "This endpoint needs the scope "+want+"." {
				t.Errorf("message %q", got)
			}
		}
	}
	runCases(t, s, []apiCase{
		{name: "unsubscribe", path: "/api/v1/brevo/unsubscribe", key: readOnly, body: map[string]any{"event": "unsubscribed", "email": "a@example.org"}, status: 403, kind: "Forbidden",
			check: scope("unsubscribe:write")},
		{name: "accept submission", path: "/api/v1/forms/accept-submission", key: readOnly, body: map[string]any{"form_id": "petition"}, status: 403,
			kind: "Forbidden", check: scope("submissions:write")},
		{name: "erase", path: erasePath, key: readOnly, body: map[string]any{"email": "a@example.org"}, status: 403, kind: "Forbidden",
			check: scope("gdpr:anonymise")},
		{name: "export", path: exportPath, key: readOnly, body: map[string]any{"email": "a@example.org"}, status: 403, kind: "Forbidden",
			check: scope("gdpr:export")},
		{name: "records", path: callsPath, key: readOnly, body: map[string]any{}, status: 403, kind: "Forbidden", check: scope("records:write")},
	})
}
