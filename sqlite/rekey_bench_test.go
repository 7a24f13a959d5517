package sqlite_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/consentforms/consentforms/sqlite"
	"github.com/consentforms/consentforms/tenants"
	"github.com/consentforms/consentforms/tenants/ops"
)

// BenchmarkRekey10k times the start-up re-key (ops.Rights.Rekey) of 10,000 records keyed the
// old way — benchRecord's (~1 KB), every second one naming a friend by e-mail in a custom field
// under a belonging key — of which 5,000 are rewritten. Run once:
//
//	go test ./sqlite -run '^$' -bench BenchmarkRekey10k -benchtime 1x
//
// and extrapolate linearly to the store's size (the pass is one read of every record plus one
// transaction per record rewritten).
func BenchmarkRekey10k(b *testing.B) {
	const n = 10000
	for range b.N {
		b.StopTimer()
		ctx := context.Background()
		s, err := sqlite.Open(ctx, sqlite.Config{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		hasher := tenants.NewHasher([]byte("0123456789abcdef0123456789abcdef"))
		items := []tenants.Item{{Tenant: &tenants.Tenant{ID: "t1", Name: "bench", Status: tenants.TenantActive, CreatedAt: time.Now()}}}
		for i := range int64(n) {
			rec := benchRecord(i).Record
			rec.MatchKeys = []string{hasher.Hash("t1", "e", *rec.Contact.Email), hasher.Hash("t1", "p", *rec.Contact.PhoneNumber)}
			if i%2 == 0 {
				friend := fmt.Sprintf("friend%d@example.org", i)
				rec.Payload["referred_friend"] = friend
				rec.MatchKeys = append(rec.MatchKeys, hasher.Hash("t1", "e", friend))
			}
			items = append(items, tenants.Item{Record: &rec})
		}
		for start := 0; start < len(items); start += 500 {
			if _, err := s.Stores().Transfer.Import(ctx, items[start:min(start+500, len(items))]); err != nil {
				b.Fatal(err)
			}
		}
		svc := ops.New(ops.Config{Hasher: hasher, Now: time.Now}).Rights
		b.StartTimer()
		started := time.Now()
		scanned, rekeyed, err := svc.Rekey(ctx, s.Stores().Transfer, s.Stores().MatchKeys, func(int, int) {})
		if err != nil || scanned != n || rekeyed != n/2 {
			b.Fatalf("Rekey = %d, %d, %v; want %d, %d", scanned, rekeyed, err, n, n/2)
		}
		b.ReportMetric(float64(time.Since(started).Milliseconds()), "ms/10k")
		b.StopTimer()
		s.Close(ctx)
	}
}
