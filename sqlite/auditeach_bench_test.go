package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consentforms/consentforms/tenants"
)

// BenchmarkAuditEach: the audit CSV export's read, one entry per op, from a log of 20,000
// entries of the shape intake writes.
func BenchmarkAuditEach(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close(ctx)
	const n = 20000
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for i := range n {
		if _, err := tx.ExecContext(ctx, insertAudit, tenants.NewAuditID(now.Add(time.Duration(i))), ms(now)+int64(i), "t_bench", "key:k1",
			tenants.ActionConsentGranted, fmt.Sprintf(`["%026d"]`, i), nil, "", "primaryPurpose,generalContactEmail", "0123456789abcdef01234567",
			i+1, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for read := 0; read < b.N; {
		err := s.Audit.Each(ctx, "t_bench", tenants.AuditFilter{Limit: int64(min(n, b.N-read))}, func(tenants.AuditEntry) error {
			read++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
