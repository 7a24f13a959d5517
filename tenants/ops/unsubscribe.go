package ops

import (
	"context"

	"github.com/consentforms/consentforms/tenants"
)

// Unsubscribe revokes both general-contact consents (e-mail and phone) on every record of
// the tenant matching the identity that carries consents; primary purpose and every other
// consent stay as they are. It returns how many records it changed: a repeat changes none.
func (s *Service) Unsubscribe(ctx context.Context, tenantID, actor, via, requestID string, id Identity) (int, error) {
	matches, _, err := s.find(ctx, tenantID, id, tenants.KindFormSubmission, tenants.KindDigitisation, tenants.KindCanvassing)
	if err != nil {
		return 0, wrap("unsubscribe", err)
	}
	now := s.Now()
	var ids []string
	var changedRecs []tenants.Record
	for _, m := range matches {
		rec := m.rec
		changed := false
		for _, c := range []*tenants.Consent{&rec.Consents.GeneralContactEmail, &rec.Consents.GeneralContactPhone} {
			if c.Status == tenants.StatusGranted || c.Status == tenants.StatusExpired {
				c.Status = tenants.StatusRevoked
				c.RevokedAt = &now
				c.RevokedBy = via
				changed = true
			}
		}
		if !changed {
			continue
		}
		changedRecs = append(changedRecs, rec)
		ids = append(ids, rec.PublicID)
	}
	if err := s.Records.SetConsentsMany(ctx, changedRecs); err != nil {
		return 0, wrap("unsubscribe", err)
	}
	if len(ids) > 0 {
		err := s.Audit.Append(ctx, tenants.AuditEntry{Time: now, TenantID: tenantID, Actor: actor,
			Action: tenants.ActionConsentRevoked, RecordIDs: ids, Counts: map[string]int{"revoked": len(ids)},
			Subject: s.Subject(tenantID, id), Detail: "generalContact via " + via, RequestID: requestID})
		if err != nil {
			return len(ids), wrap("unsubscribe", err)
		}
	}
	return len(ids), nil
}
