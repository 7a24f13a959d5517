package ops

import (
	"context"
	"errors"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// ExpiryStore holds consent deadlines in buckets per minute, read by _id.
type ExpiryStore interface {
	Cursor(ctx context.Context, now time.Time) (time.Time, error)
	SetCursor(ctx context.Context, minute time.Time) error
	Bucket(ctx context.Context, minute time.Time) ([]tenants.Expiry, error)
	DropBucket(ctx context.Context, minute time.Time) error
}

// expiryGrace is how long after its minute a deadline bucket is read.
const expiryGrace = time.Minute

// maxMinutesPerRun bounds one run after a long downtime; the next run goes on.
const maxMinutesPerRun = 1440

// ExpireDue records, for every consent whose deadline has passed since the last run, the
// expiry in its record and the audit log. Status reads already apply deadlines at once; this
// makes the stored status and the audit log catch up. It returns how many consents expired.
func (s *Service) ExpireDue(ctx context.Context) (int, error) {
	now := s.Now().UTC()
	minute, err := s.Expiry.Cursor(ctx, now)
	if err != nil {
		return 0, wrap("expire", err)
	}
	expired := 0
	// A minute is read only once it is a grace period old, so that a deadline accepted just
	// before its minute began but written a moment later is not missed.
	for n := 0; n < maxMinutesPerRun && !minute.After(now.Add(-expiryGrace)); n++ {
		items, err := s.Expiry.Bucket(ctx, minute)
		if err != nil {
			return expired, wrap("expire", err)
		}
		for _, it := range items {
			ok, err := s.expireOne(ctx, it, now)
			if err != nil {
				return expired, wrap("expire", err)
			}
			if ok {
				expired++
			}
		}
		if err := s.Expiry.DropBucket(ctx, minute); err != nil {
			return expired, wrap("expire", err)
		}
		minute = minute.Add(time.Minute)
		if err := s.Expiry.SetCursor(ctx, minute); err != nil {
			return expired, wrap("expire", err)
		}
	}
	return expired, nil
}

func (s *Service) expireOne(ctx context.Context, it tenants.Expiry, now time.Time) (bool, error) {
	rec, err := s.Records.GetByID(ctx, it.TenantID, it.Kind, it.RecordID)
	if errors.Is(err, tenants.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var c *tenants.Consent
	for _, nc := range namedConsents(&rec) {
		if nc.name == it.Consent {
			c = nc.consent
		}
	}
	if c == nil || c.Status != tenants.StatusGranted || c.Deadline == nil || now.Before(*c.Deadline) {
		return false, nil
	}
	c.Status = tenants.StatusExpired
	if err := s.Records.SetConsents(ctx, rec); err != nil {
		return false, err
	}
	// A deterministic id makes a repeated run (another instance, a crash) append nothing twice.
	err = s.Audit.Append(ctx, tenants.AuditEntry{ID: "expired:" + rec.ID + ":" + it.Consent, Time: now,
		TenantID: rec.TenantID, Actor: tenants.ActorSystem, Action: tenants.ActionConsentExpired,
		RecordIDs: []string{rec.PublicID}, Detail: it.Consent})
	return err == nil, err
}
