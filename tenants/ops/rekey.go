package ops

import (
	"context"
	"slices"

	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/contact"
)

// RekeyProgress is told how far a re-key pass is: records read, and records rewritten.
type RekeyProgress func(scanned, rekeyed int)

// rekeyEvery is how many records pass between two progress reports; rekeyBatch how many are
// rewritten in one store call (one transaction on the embedded store).
const (
	rekeyEvery = 10000
	rekeyBatch = 500
)

// Rekey re-derives every record's match keys as this code derives them (MatchKeys: belonging
// and mention keys, phone numbers by libphonenumber, e-mail addresses in NFC) and rewrites its
// contact phone in E.164, for the records where either differs (docs/STORAGE.md, "Re-keying").
// It reads the whole store once through all (tenants come first, with their default
// countries), then rewrites the records that need it in batches through repo. A stop part-way
// loses nothing: a repeat finds what is left to do and does it, so it is resumable and
// idempotent. It returns how many records it read and rewrote.
func (s *Rights) Rekey(ctx context.Context, all tenants.Transfer, repo tenants.MatchKeyRepo, progress RekeyProgress) (scanned, rekeyed int, err error) {
	countries := map[string]string{}
	var fixes []tenants.Rekeying
	// The fixes are collected first and written after the export's read ends.
	err = all.Export(ctx, func(it tenants.Item) error {
		if it.Tenant != nil {
			countries[it.Tenant.ID] = it.Tenant.DefaultCountry
		}
		if it.Record == nil {
			return nil
		}
		rec := *it.Record
		if scanned++; scanned%rekeyEvery == 0 {
			progress(scanned, 0)
		}
		country := countries[rec.TenantID]
		phone := rec.Contact.PhoneNumber
		if phone != nil {
			if p, ok := contact.NormalisePhone(*phone, country); ok && p != *phone {
				phone = &p
			}
		}
		rec.Contact.PhoneNumber = phone
		keys, _ := s.MatchKeys(rec, country)
		if phone != it.Record.Contact.PhoneNumber || !sameKeys(keys, it.Record.MatchKeys) {
			fixes = append(fixes, tenants.Rekeying{TenantID: rec.TenantID, Kind: rec.Kind, PublicID: rec.PublicID, Phone: phone, Keys: keys})
		}
		return nil
	})
	if err != nil {
		return scanned, 0, wrap("rekey", err)
	}
	for start := 0; start < len(fixes); start += rekeyBatch {
		batch := fixes[start:min(start+rekeyBatch, len(fixes))]
		if err := repo.Rekey(ctx, batch); err != nil {
			return scanned, rekeyed, wrap("rekey", err)
		}
		if rekeyed += len(batch); rekeyed%rekeyEvery == 0 {
			progress(scanned, rekeyed)
		}
	}
	return scanned, rekeyed, nil
}

// sameKeys reports whether a and b hold the same keys, in any order.
func sameKeys(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
