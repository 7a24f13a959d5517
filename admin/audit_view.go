package admin

import (
	"context"
	"strings"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/web"
)

// actorNames names the actors of one page of audit entries. It is read once per page: the
// staff the user may see, and the API keys of each tenant on the page, never one query a row.
type actorNames struct {
	staff map[string]tenants.Staff // by staff id
	keys  map[string]string        // "tenant\x00key id" → key name
	// tokens label webhook tokens by "tenant\x00token id".
	tokens map[string]string
	// showEmail: the role may read contact data; otherwise staff e-mails are masked as lists mask them.
	showEmail bool
	// tenantView: the user sees one tenant's log, whose staff list lacks the platform admins.
	tenantView bool
}

// auditView turns a page of entries into rows: actors by name, consents in words, and the
// records each entry names linked to their pages.
func (h *handler) auditView(ctx context.Context, s *session, entries []tenants.AuditEntry) ([]web.AuditEntry, error) {
	names, err := h.actorNames(ctx, s, entries)
	if err != nil {
		return nil, err
	}
	out := make([]web.AuditEntry, len(entries))
	for i, e := range entries {
		out[i] = web.AuditEntry{Time: e.Time, Actor: names.actor(e), Action: e.Action, Detail: auditDetail(e),
			Records: names.staffRefs(e, auditRecords(e, s.TenantID != "")), Counts: e.Counts, RequestID: e.RequestID}
	}
	return out, nil
}

func (h *handler) actorNames(ctx context.Context, s *session, entries []tenants.AuditEntry) (actorNames, error) {
	n := actorNames{staff: map[string]tenants.Staff{}, keys: map[string]string{}, tokens: map[string]string{},
		showEmail: h.may(s, permContactRead), tenantView: !isPlatformAdmin(s)}
	if len(entries) == 0 {
		return n, nil
	}
	// A platform admin may see every staff user; a tenant's user sees its tenant's.
	staff, err := h.visibleStaff(ctx, s)
	if err != nil {
		return n, err
	}
	for _, st := range staff {
		n.staff[st.ID] = st
	}
	listed := map[string]bool{}
	for _, e := range entries {
		if !(strings.HasPrefix(e.Actor, "key:") || strings.HasPrefix(e.Actor, "token:")) || e.TenantID == "" || listed[e.TenantID] {
			continue
		}
		listed[e.TenantID] = true
		keys, err := h.Store.APIKeys.List(ctx, e.TenantID)
		if err != nil {
			return n, err
		}
		for _, k := range keys {
			n.keys[e.TenantID+"\x00"+k.ID] = k.Name
		}
		tokens, err := h.Store.Tokens.List(ctx, e.TenantID)
		if err != nil {
			return n, err
		}
		for _, t := range tokens {
			n.tokens[e.TenantID+"\x00"+t.ID] = tokenLabel(t)
		}
	}
	return n, nil
}

// actor names the actor of e; an id it cannot resolve is shown as it is.
func (n actorNames) actor(e tenants.AuditEntry) web.Actor {
	a := web.Actor{ID: e.Actor, Label: e.Actor}
	switch kind, id, _ := strings.Cut(e.Actor, ":"); {
	case e.Actor == tenants.ActorSystem:
		a.Label = "System"
	case e.Actor == "cli":
		a.Label = "Command line"
	case kind == "staff":
		if st, ok := n.staff[id]; ok {
			a.Label = st.Email
			if !n.showEmail {
				a.Label = web.MaskEmail(st.Email)
			}
		} else if n.tenantView {
			// Staff are never deleted, and a tenant's log holds its own staff and platform admins.
			a.Label = "Platform admin"
		}
	case kind == "token":
		if label, ok := n.tokens[e.TenantID+"\x00"+id]; ok {
			a.Label = label
		}
	case kind == "key":
		if name, ok := n.keys[e.TenantID+"\x00"+id]; ok {
			a.Label = "API key “" + name + "”"
			if name == "" {
				a.Label = "API key " + id
			}
		}
	}
	return a
}

// auditDetail says in words which consents a consent entry concerns.
func auditDetail(e tenants.AuditEntry) string {
	switch e.Action {
	case tenants.ActionConsentGranted, tenants.ActionConsentExpired:
		var phrases []string
		for _, name := range strings.Split(e.Detail, ",") {
			if name = strings.TrimSpace(name); name != "" {
				phrases = append(phrases, web.ConsentPhrase(name))
			}
		}
		return strings.Join(phrases, ", ")
	case tenants.ActionConsentRevoked:
		what, via, _ := strings.Cut(e.Detail, " via ")
		if what != "generalContact" {
			return ""
		}
		out := web.ConsentPhrase(string(tenants.ConsentGeneralContactEmail)) + " and by phone"
		if via != "" {
			out += " (via " + via + ")"
		}
		return out
	}
	return ""
}

// auditRecords are the ids an entry names, linked to the page that shows each where there is
// one; linked only when the user works on a tenant, as those pages need one.
func auditRecords(e tenants.AuditEntry, linked bool) []web.RecordRef {
	out := make([]web.RecordRef, len(e.RecordIDs))
	for i, id := range e.RecordIDs {
		out[i] = web.RecordRef{ID: id}
		if !linked {
			continue
		}
		switch e.Action {
		case tenants.ActionSubmissionAccepted:
			out[i].Href = web.RecordPath(string(tenants.KindFormSubmission), id)
		case tenants.ActionRecordAccepted, tenants.ActionRecordCreated:
			kind, _, _ := strings.Cut(e.Detail, " ")
			out[i].Href = web.RecordPath(kind, id)
		case tenants.ActionConsentGranted, tenants.ActionConsentExpired, tenants.ActionConsentRevoked, tenants.ActionGDPRAnonymised,
			tenants.ActionRetentionAnonymised:
			// These entries do not say which kind each record is; the record page finds it.
			out[i].Href = web.RecordPath("", id)
		case tenants.ActionFormChanged:
			out[i].Href = web.FormPath(id)
		}
	}
	return out
}

// tokenLabel names a webhook token as the audit log shows it: by its name, else its provider.
func tokenLabel(t tenants.WebhookToken) string {
	if t.Name != "" {
		return "Webhook token “" + t.Name + "”"
	}
	return "Webhook token (" + t.Provider + ")"
}

// staffRefs names the staff users a staff entry (created, disabled, …) is about by their
// e-mail address, masked where the role sees contact data masked; the id stays in the tooltip.
func (n actorNames) staffRefs(e tenants.AuditEntry, refs []web.RecordRef) []web.RecordRef {
	if !strings.HasPrefix(e.Action, "staff.") {
		return refs
	}
	for i, r := range refs {
		if st, ok := n.staff[r.ID]; ok {
			refs[i].Label = st.Email
			if !n.showEmail {
				refs[i].Label = web.MaskEmail(st.Email)
			}
		}
	}
	return refs
}
