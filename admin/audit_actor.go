package admin

import (
	"context"
	"strings"

	"github.com/consentforms/consentforms/tenants"
)

// actorIDPrefixes are the forms an audit actor id takes; one typed as it is stored filters as
// it is.
var actorIDPrefixes = []string{"staff:", "key:", "token:", "oauth:"}

// resolveActor turns the actor filter as typed — a staff user's e-mail address, an API key's
// or webhook token's name, "System", "Command line", or a stored id — into the stored actor
// id. ok is false when nobody the user may see goes by it.
func (h *handler) resolveActor(ctx context.Context, s *session, typed string) (id string, ok bool, err error) {
	switch {
	case typed == "", typed == tenants.ActorSystem, typed == "cli":
		return typed, true, nil
	case strings.EqualFold(typed, "System"):
		return tenants.ActorSystem, true, nil
	case strings.EqualFold(typed, "Command line"):
		return "cli", true, nil
	}
	for _, p := range actorIDPrefixes {
		if strings.HasPrefix(typed, p) {
			return typed, true, nil
		}
	}
	if strings.Contains(typed, "@") {
		staff, err := h.visibleStaff(ctx, s)
		for _, st := range staff {
			if strings.EqualFold(st.Email, typed) {
				return "staff:" + st.ID, true, nil
			}
		}
		return "", false, err
	}
	if s.TenantID == "" { // key and token names are a tenant's
		return "", false, nil
	}
	keys, err := h.Store.APIKeys.List(ctx, s.TenantID)
	if err != nil {
		return "", false, err
	}
	for _, k := range keys {
		if k.Name != "" && strings.EqualFold(k.Name, typed) {
			return "key:" + k.ID, true, nil
		}
	}
	tokens, err := h.Store.Tokens.List(ctx, s.TenantID)
	for _, t := range tokens {
		if t.Name != "" && strings.EqualFold(t.Name, typed) {
			return "token:" + t.ID, true, nil
		}
	}
	return "", false, err
}

// visibleStaff are the staff users whose names the user may read in the audit log: every
// one for a platform admin, the tenant's for a tenant's user.
func (h *handler) visibleStaff(ctx context.Context, s *session) ([]tenants.Staff, error) {
	if isPlatformAdmin(s) {
		return h.Store.Staff.ListAll(ctx)
	}
	return h.Store.Staff.List(ctx, s.TenantID)
}

// filterActor sets the store filter's actor to the id the typed actor names, or says in errs
// that nobody goes by it.
func (h *handler) filterActor(ctx context.Context, s *session, q *tenants.AuditFilter, errs map[string]string) error {
	id, ok, err := h.resolveActor(ctx, s, q.Actor)
	if err != nil {
		return err
	}
	if !ok {
		errs["actor"] = "No staff user, API key or webhook token goes by this name: give an e-mail address or a name as the list shows it."
	}
	q.Actor = id
	return nil
}
