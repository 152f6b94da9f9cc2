package valuation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/market"
	"valuator/internal/metrics"
	"valuator/internal/store"
	"valuator/internal/usage"
)

// Store is what the service needs from the database.
type Store interface {
	LoadMarket(ctx context.Context) (store.MarketData, error)
	MarketVersion(ctx context.Context) (string, error)
	SaveModel(ctx context.Context, fingerprint string, version int, blob []byte, at time.Time) error
	LoadModel(ctx context.Context, fingerprint string, version int) ([]byte, error)
	// Meter charges a call and writes its usage record in one transaction, returning the new balance; when the
	// balance cannot pay, nothing is written and the error is a *credit.ErrInsufficient.
	Meter(ctx context.Context, rec usage.Record, cost int64, description string) (int64, error)
	// RecordUsage records a call that cost nothing (bad input, not found, refused).
	RecordUsage(ctx context.Context, rec usage.Record) error
}

// Service values properties.
type Service struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	opt   avm.Options

	snap atomic.Pointer[snapshot]
	// cache keeps recent valuations (see resultCache); the key includes the snapshot's version.
	cache *resultCache
	// markets keeps market statistics (markets.go); the key includes the snapshot's version.
	markets *lru[*market.Market]
	// loading serialises reloads; status says what the engine is doing, for readiness and errors.
	loading sync.Mutex
	status  atomic.Value // string
	// metrics, when set, hears of trainings (SetMetrics may be called while the engine loads).
	metrics atomic.Pointer[metrics.Metrics]
	// warmMarkets computes every ZIP's market statistics in the background after each load (WarmMarkets).
	warmMarkets atomic.Bool
}

// New returns a service; call Load (or Start) before lookups.
func New(st Store, log *slog.Logger, now func() time.Time, opt avm.Options) *Service {
	if now == nil {
		now = time.Now
	}
	s := &Service{store: st, log: log, now: now, opt: opt, cache: newResultCache(20000),
		markets: newLRU[*market.Market](2000)}
	s.status.Store("not loaded")
	return s
}

// SetMetrics makes the service report its trainings (and whether it is ready) to m; call it once, before Load.
func (s *Service) SetMetrics(m *metrics.Metrics) {
	s.metrics.Store(m)
	m.WatchEngine(s.Ready)
}

// Ready reports whether lookups can be answered (the market is loaded, with or without enough sales to value).
func (s *Service) Ready() bool { return s.snap.Load() != nil }

// Status describes the engine's state for logs and readiness answers.
func (s *Service) Status() string { return s.status.Load().(string) }

// Load reads the market and readies the engine: a saved engine for the same data is restored, otherwise one is
// trained (and saved). It is safe to call while lookups run; they use the previous market until the new one is
// ready.
func (s *Service) Load(ctx context.Context) error {
	s.loading.Lock()
	defer s.loading.Unlock()
	version, err := s.store.MarketVersion(ctx)
	if err != nil {
		return err
	}
	if cur := s.snap.Load(); cur != nil && cur.version == version {
		return nil
	}
	s.status.Store("loading market data")
	b, err := s.readMarket(ctx)
	if err != nil {
		return err
	}
	market, fp := b.m, b.fingerprint()
	recs := b.records()
	nHomes, nSales := recs.len(), b.sales
	b = nil
	started := time.Now()
	var engine *avm.Engine
	if blob, err := s.store.LoadModel(ctx, fp, avm.SnapshotVersion); err == nil {
		engine, err = avm.Restore(market, blob)
		if err != nil {
			s.log.Warn("saved valuation engine unusable; retraining", "err", err)
		} else {
			s.log.Info("valuation engine restored", "sales", nSales, "ms", time.Since(started).Milliseconds())
		}
	} else if !errors.Is(err, store.ErrNoModel) {
		return err
	}
	if engine == nil && len(market.Sales) > 0 {
		s.status.Store(fmt.Sprintf("learning from %d sales", len(market.Sales)))
		s.log.Info("training the valuation engine", "properties", nHomes, "sales", nSales)
		engine, err = avm.Train(market, s.opt)
		switch {
		case errors.Is(err, avm.ErrNoMarket):
			s.log.Warn("too few sales to value properties", "err", err)
			engine = nil
		case err != nil:
			return err
		default:
			s.log.Info("valuation engine trained", "sales", nSales, "seconds", time.Since(started).Seconds())
			s.metrics.Load().EngineTrained(time.Since(started))
			if blob, err := engine.Marshal(); err != nil {
				s.log.Error("saving the valuation engine", "err", err)
			} else if err := s.store.SaveModel(ctx, fp, avm.SnapshotVersion, blob, s.now()); err != nil {
				s.log.Error("saving the valuation engine", "err", err)
			}
		}
	}
	snap := newSnapshot(recs, engine, market, version)
	snap.warming = s.warmMarkets.Load()
	s.snap.Store(snap)
	s.status.Store("ready")
	if snap.warming {
		go s.warm(snap)
	}
	return nil
}

// marketReader is a store that can hand over the records one at a time (store.DB): the service then never holds
// them all as read.
type marketReader interface {
	EachMarket(ctx context.Context, v store.MarketVisitor) error
}

// readMarket reads the records into a marketBuilder.
func (s *Service) readMarket(ctx context.Context) (*marketBuilder, error) {
	r, ok := s.store.(marketReader)
	if !ok {
		md, err := s.store.LoadMarket(ctx)
		if err != nil {
			return nil, err
		}
		return buildMarket(md), nil
	}
	b := newMarketBuilder()
	err := r.EachMarket(ctx, store.MarketVisitor{Counts: b.counts, Home: b.home, Sale: b.sale, Rental: b.rent})
	return b, err
}

// Watch reloads the market whenever its records change (an import on this or another instance), checking every
// interval until ctx ends. While the engine has no market to value from (not loaded, or too few sales: a worker
// started beside the first server of an empty database, before that server has seeded the demo or an operator has
// imported records) it checks every emptyInterval instead, which costs nothing on tables that small, so that such
// an instance does not answer "not found" (and fail whole batch jobs) for a minute after the records arrive.
func (s *Service) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTimer(s.nextCheck(interval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Load(ctx); err != nil && ctx.Err() == nil {
				s.log.Error("reloading market data", "err", err)
			}
			t.Reset(s.nextCheck(interval))
		}
	}
}

// emptyInterval is how often Watch checks for records while the engine has none to value from.
const emptyInterval = 2 * time.Second

func (s *Service) nextCheck(interval time.Duration) time.Duration {
	if cur := s.snap.Load(); cur == nil || cur.engine == nil {
		return min(interval, emptyInterval)
	}
	return interval
}

// errNotReady answers lookups that arrive before the engine is loaded.
func (s *Service) errNotReady() error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "engine_loading",
		Message: "The valuation engine is starting (" + s.Status() + "). Please try again in a minute."}
}
