package valuation

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/market"
	"valuator/internal/store"
)

// TestMemoryBreakdown measures what a served market holds, structure by structure, in bytes a home (issue 39; the
// table in docs/operations.md, "Large markets"). It is run by hand on a database made by `valuator demo --homes N`
// whose engine a `valuator serve` has saved:
//
//	VALUATOR_MEM_DB=/tmp/scale/homes-200000/valuator.db go test -run TestMemoryBreakdown -v ./internal/valuation/
//
// VALUATOR_MEM_PROFILE=FILE also writes a heap profile of the loaded service (go tool pprof -top FILE), and
// VALUATOR_MEM_TRAIN=1 trains instead of restoring the saved engine and reports the peak heap while training.
func TestMemoryBreakdown(t *testing.T) {
	path := os.Getenv("VALUATOR_MEM_DB")
	if path == "" {
		t.Skip("VALUATOR_MEM_DB is not set")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, "sqlite://"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()

	train := os.Getenv("VALUATOR_MEM_TRAIN") == "1"
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the peak heap, sampled
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()

	s := New(db, slog.New(slog.DiscardHandler), time.Now, avm.DefaultOptions())
	if train {
		s.store = noModel{db}
	}
	s.WarmMarkets() // as a server does (cmd/valuator): every ZIP code's statistics
	started := time.Now()
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	s.WaitMarkets(ctx)
	close(stop)
	<-done
	snap := s.set.Load().whole()
	n := snap.homes.len()
	t.Logf("%d homes, %d sales, %d rents; loaded in %s; peak heap in use while loading %.0f MiB (%.0f B/home)",
		n, len(snap.market.Sales), len(snap.market.Rentals), time.Since(started).Round(time.Millisecond),
		float64(peak)/(1<<20), float64(peak)/float64(n))
	total := heap() - base
	t.Logf("%-44s %8.1f MiB %6.0f B/home", "the loaded service, all told", float64(total)/(1<<20), float64(total)/float64(n))
	if p := os.Getenv("VALUATOR_MEM_PROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}

	if e := snap.engine; e != nil {
		hb, sb, rb := e.SpatialBytes()
		for _, x := range []struct {
			what  string
			bytes int
		}{{"spatial index over homes", hb}, {"spatial index over sales", sb}, {"spatial index over rents", rb}} {
			t.Logf("  %-52s %8.1f MiB %6.1f B/home", x.what, float64(x.bytes)/(1<<20), float64(x.bytes)/float64(n))
		}
	}

	// Then what each part holds: dropped one at a time from a copy of the snapshot, newest first.
	last := heap()
	release := []struct {
		what string
		drop func()
	}{
		{"market statistics (by ZIP, values of their homes, LRU)", func() {
			snap.stats = marketStats{}
			s.markets = newLRU[*market.Market](2000)
		}},
		{"address indexes (byBuilding, byName, byCity)", func() {
			snap.byBuilding, snap.byName, snap.byCity = nil, nil, nil
		}},
		{"sales of each property (salesOf)", func() { snap.saleStart, snap.saleIdx = nil, nil }},
		{"engine (models, indexes, per-sale info, rents)", func() { snap.engine = nil }},
		{"engine's market (avm.Market)", func() { snap.market, snap.homes.market = nil, nil }},
		{"records (records: strings, codes)", func() { snap.homes = records{} }},
	}
	s.set.Store(nil)
	for _, r := range release {
		r.drop()
		h := heap()
		freed := int64(last) - int64(h)
		t.Logf("%-56s %8.1f MiB %6.0f B/home", r.what, float64(freed)/(1<<20), float64(freed)/float64(n))
		last = h
	}
	runtime.KeepAlive(snap)
}

// noModel is a database without a saved engine, so that Load trains.
type noModel struct{ *store.DB }

func (noModel) LoadModel(context.Context, string, int) ([]byte, error) { return nil, store.ErrNoModel }
func (noModel) SaveModel(context.Context, string, int, []byte, time.Time) error {
	return nil
}
