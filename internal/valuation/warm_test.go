package valuation

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/market"
	"valuator/internal/store"
	"valuator/internal/testmarket"
)

// TestWarmMarketsComputesEveryZIP: after a load, a server's service computes every ZIP code's statistics on its
// own, so that the first customer to ask for a ZIP is not the one who waits for its homes' values.
func TestWarmMarketsComputesEveryZIP(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := testmarket.Seattle()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportRecords(ctx, "demo", recs, testmarket.Start); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := func() time.Time { return testmarket.Start }
	opt := avm.DefaultOptions()
	opt.Model.Trees, opt.Model.LearningRate, opt.Folds = 150, 0.15, 3 // a quicker training: the figures do not matter
	for _, warm := range []bool{false, true} {
		s := New(db, log, now, opt)
		if warm {
			s.WarmMarkets()
		}
		if err := s.Load(ctx); err != nil {
			t.Fatal(err)
		}
		snap := s.set.Load().whole()
		key := marketKey(snap, "98103", market.Options{HistoryMonths: market.DefaultHistoryMonths})
		deadline := time.Now().Add(30 * time.Second)
		for warm && time.Now().Before(deadline) {
			if _, ok := s.markets.get(key); ok {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, ok := s.markets.get(key); ok != warm {
			t.Fatalf("warm %v: 98103 computed before any call: %v", warm, ok)
		}
		if warm {
			// The call is answered from what the warm-up computed: the same figures.
			ans, err := s.Markets(ctx, MarketInput{ZIP: []string{"98103"}}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := s.markets.get(key); ans.Markets[0] != got || got.Values.Count == 0 {
				t.Fatalf("the call computed again, or the warm-up left out values: %+v", got)
			}
		}
	}
}
