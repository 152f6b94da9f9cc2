package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"valuator/internal/testdb"
	"valuator/internal/usage"
)

// BenchmarkMeter charges valuations from 32 callers at once across 50 accounts, as the public API does under
// load: the store's share of a metered call (issue 14, part 4), on each database.
func BenchmarkMeter(b *testing.B) {
	for _, d := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", testdb.SQLiteURL}, {"postgres", testdb.PostgresURL}} {
		b.Run(d.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, d.url(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			if err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			var users []int64
			for i := range 50 {
				u := newUser(fmt.Sprintf("meter%d@example.com", i))
				u.SignupCredits = 1 << 40
				got, _, err := db.CreateUser(ctx, u)
				if err != nil {
					b.Fatal(err)
				}
				users = append(users, got.ID)
			}
			var n atomic.Int64
			b.SetParallelism(16) // 32 callers on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					rec := usage.Record{UserID: users[i%int64(len(users))], Endpoint: "GET /api/v1/property/valuation",
						Service: usage.ServiceValuation, Status: 200, ResponseTimeMs: 3,
						PropertyAddress: "1204 Alder St, Seattle, WA 98122", Valuation: 812000,
						RequestData: `{"address":"1204 Alder St","city":"Seattle","state":"WA","zip":"98122"}`,
						RequestID:   fmt.Sprint("req-", i), CreatedAt: t0}
					if _, err := db.Meter(ctx, rec, 1, "Property valuation: 1204 Alder St, Seattle, WA 98122"); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "charges/s")
		})
	}
}
