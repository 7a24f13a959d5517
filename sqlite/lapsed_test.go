package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// TestLapsedBackfill: migration 00003's computation of lapsed_at for the records stored before
// it agrees with tenants.Consents.LapsedAt, which every later write stores.
func TestLapsedBackfill(t *testing.T) {
	ctx := context.Background()
	s := newFile(t)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 678000000, time.UTC)
	at := func(sec int) *time.Time { v := t0.Add(time.Duration(sec) * time.Second); return &v }
	granted := func(dl *time.Time) tenants.Consent {
		return tenants.Consent{Status: tenants.StatusGranted, GrantedAt: &t0, Deadline: dl}
	}
	cases := []tenants.Consents{
		{},
		{PrimaryPurpose: granted(nil)},
		{PrimaryPurpose: granted(at(100)), GeneralContactEmail: granted(at(50))},
		{GeneralContactEmail: tenants.Consent{Status: tenants.StatusExpired, Deadline: at(70)}},
		{GeneralContactPhone: tenants.Consent{Status: tenants.StatusRevoked, RevokedAt: at(30), Deadline: at(300)}},
		{GeneralContactPhone: tenants.Consent{Status: tenants.StatusRevoked, RevokedAt: at(30), Deadline: at(10)},
			PrimaryPurpose: tenants.Consent{Status: tenants.StatusRevoked, RevokedAt: at(20)}},
		{GeneralContactPhone: tenants.Consent{Status: tenants.StatusRevoked, RevokedAt: at(30)}, PrimaryPurpose: granted(nil)},
	}
	for i, c := range cases {
		rec := tenants.Record{TenantID: "a", Kind: tenants.KindFormSubmission, PublicID: string(rune('a' + i)), CreatedAt: t0, Consents: c}
		if _, err := s.Writer.Ingest(ctx, tenants.Ingestion{Record: rec}); err != nil {
			t.Fatal(err)
		}
	}
	up, _ := migrations.ReadFile("migrations/00003_rights.sql")
	start := strings.Index(string(up), "UPDATE records SET lapsed_at")
	stmt := string(up)[start : start+strings.Index(string(up)[start:], ";")]
	if _, err := s.w.ExecContext(ctx, `UPDATE records SET lapsed_at = -1`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, stmt); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		var got *int64
		if err := s.w.QueryRowContext(ctx, `SELECT lapsed_at FROM records WHERE public_id = ?`, string(rune('a'+i))).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := c.LapsedAt(t0)
		switch {
		case want == nil && got != nil, want != nil && (got == nil || *got != want.UnixMilli()):
			t.Errorf("case %d: backfilled %v, want %v", i, got, want)
		}
	}
}
