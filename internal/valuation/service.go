package valuation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
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

// partStore is a store that can read and save the market in partitions (store.DB): a partitioned service
// (Partitions) needs one.
type partStore interface {
	marketReader
	EachMarketOf(ctx context.Context, state string, v store.MarketVisitor) error
	PartVersions(ctx context.Context) (map[string]string, error)
	SaveModelOf(ctx context.Context, part, fingerprint string, version int, blob []byte, at time.Time) error
}

// Service values properties.
type Service struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	opt   avm.Options

	set atomic.Pointer[marketSet]
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
	// byState splits the market into one partition a state (Partitions); enqueue, when set, leaves training to
	// the job queue's workers (TrainBy). Both are set before the first Load.
	byState bool
	only    map[string]bool // the states loaded; nil: every state
	enqueue func(ctx context.Context, part Part, fingerprint string) error
	// training lets one engine train at a time in this process (a training uses every core).
	training sync.Mutex
	// trainings counts the engines this service trained itself (not restored, not a worker's), for tests and logs.
	trainings atomic.Int64
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

// Part names a partition of the market: the homes of one state, or (Whole) the whole market.
type Part struct {
	State string `json:"state"`
	Whole bool   `json:"whole"`
}

func (p Part) String() string {
	if p.Whole {
		return "the whole market"
	}
	if p.State == "" {
		return "homes without a state"
	}
	return p.State
}

// Partitions splits the market into one partition a state (issue 39): each state's homes train their own engine,
// saved under its own fingerprint; an import into one state retrains and reloads that state only; a lookup is
// valued by its state's engine. The answers differ from one engine's of the whole market (each engine learns from
// its state's sales only); a market of one state answers the same. Call it before the first Load; it needs a
// store.DB.
//
// With states given, only those states are loaded (VALUATOR_STATES): an instance of a country-wide installation
// serves its share of the states, and an address elsewhere is not a market it covers (docs/operations.md, "A
// country").
func (s *Service) Partitions(states ...string) error {
	if _, ok := s.store.(partStore); !ok {
		return errors.New("valuation: a partitioned market needs a store that reads partitions")
	}
	s.byState = true
	if len(states) > 0 {
		s.only = map[string]bool{}
		for _, st := range states {
			s.only[st] = true
		}
	}
	return nil
}

// TrainBy leaves the training of engines to the job queue (issue 39): a partition whose engine is not saved is
// queued with enqueue (jobs.Queue.EnqueueTraining), and Load waits until a worker has saved it (TrainPart), so
// that several workers train the partitions of one market at once. Call it before the first Load.
func (s *Service) TrainBy(enqueue func(ctx context.Context, part Part, fingerprint string) error) {
	s.enqueue = enqueue
}

// SetMetrics makes the service report its trainings (and whether it is ready) to m; call it once, before Load.
func (s *Service) SetMetrics(m *metrics.Metrics) {
	s.metrics.Store(m)
	m.WatchEngine(s.Ready)
}

// Ready reports whether lookups can be answered (the market is loaded, with or without enough sales to value).
func (s *Service) Ready() bool { return s.set.Load() != nil }

// Status describes the engine's state for logs and readiness answers.
func (s *Service) Status() string { return s.status.Load().(string) }

// Load reads the market and readies the engine: a saved engine for the same data is restored, otherwise one is
// trained (and saved), here or (TrainBy) by a worker. It is safe to call while lookups run; they use the previous
// market until the new one is ready. A partitioned market (Partitions) reloads only the partitions whose records
// changed.
func (s *Service) Load(ctx context.Context) error {
	s.loading.Lock()
	defer s.loading.Unlock()
	for {
		// A load that waits for a worker's engine gives up when the records change meanwhile (the worker trains
		// the records as they are now): it starts again from the records as they are now.
		if err := s.load(ctx); !errors.Is(err, errMarketChanged) {
			return err
		}
		s.log.Info("records changed while the engine was being trained; reading them again")
	}
}

// errMarketChanged: the records changed while a load waited for a worker to train their engine.
var errMarketChanged = errors.New("valuation: the records changed during the load")

func (s *Service) load(ctx context.Context) error {
	version, err := s.store.MarketVersion(ctx)
	if err != nil {
		return err
	}
	cur := s.set.Load()
	if cur != nil && cur.version == version {
		return nil
	}
	// Every partition to load is read first (and, when workers train, its training queued), then each is
	// readied: so that the workers train the partitions at once, not one after the other. A market of several
	// partitions is read and readied a partition a core at a time (a restart restores them in parallel); an engine
	// trained here is trained one at a time, since a training uses every core.
	var todo []Part
	var versions map[string]string
	var parts []*snapshot
	if !s.byState {
		todo = []Part{{Whole: true}}
		versions = map[string]string{"": version}
	} else {
		if versions, err = s.store.(partStore).PartVersions(ctx); err != nil {
			return err
		}
		for st, v := range versions {
			if s.only != nil && !s.only[st] {
				continue
			}
			if old := cur.part(st); old != nil && old.version == v {
				parts = append(parts, old) // its records did not change: kept as loaded, statistics and all
			} else {
				todo = append(todo, Part{State: st})
			}
		}
		sort.Slice(todo, func(i, j int) bool { return todo[i].State < todo[j].State })
	}
	loads := make([]*partLoad, len(todo))
	if err := eachParallel(ctx, len(todo), func(i int) (err error) {
		loads[i], err = s.readPart(ctx, todo[i], versions[todo[i].State])
		return err
	}); err != nil {
		return err
	}
	fresh := make([]*snapshot, len(loads))
	if err := eachParallel(ctx, len(loads), func(i int) (err error) {
		fresh[i], err = s.readyPart(ctx, loads[i], version)
		return err
	}); err != nil {
		return err
	}
	parts = append(parts, fresh...)
	sort.Slice(parts, func(i, j int) bool { return parts[i].part.State < parts[j].part.State })
	set := newMarketSet(version, parts)
	s.set.Store(set)
	s.status.Store("ready")
	for _, snap := range parts {
		if snap.warming && !snap.warmStarted.Swap(true) {
			go s.warm(snap)
		}
	}
	return nil
}

// eachParallel runs fn(0..n-1), as many at once as the process has cores, and returns the first error.
func eachParallel(ctx context.Context, n int, fn func(i int) error) error {
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// partLoad is a partition read for a load: its records, the engine restored for them (nil: to be trained) and
// whether its training is queued.
type partLoad struct {
	part    Part
	version string // the partition's
	market  *avm.Market
	recs    records
	fp      string
	sales   int
	engine  *avm.Engine
	queued  bool
	started time.Time
}

// readPart reads one partition's records and restores the engine saved for them; when none is and the workers
// train (TrainBy), it queues the training.
func (s *Service) readPart(ctx context.Context, part Part, version string) (*partLoad, error) {
	s.status.Store("loading market data (" + part.String() + ")")
	b, err := s.readMarket(ctx, part)
	if err != nil {
		return nil, err
	}
	l := &partLoad{part: part, version: version, market: b.m, fp: b.fingerprint(), recs: b.records(), sales: b.sales,
		started: time.Now()}
	b = nil
	if l.engine, err = s.restore(ctx, l.market, l.fp); err != nil {
		return nil, err
	}
	switch {
	case l.engine != nil:
		s.log.Info("valuation engine restored", "part", part.String(), "sales", l.sales,
			"ms", time.Since(l.started).Milliseconds())
	case len(l.market.Sales) == 0:
	case !avm.Trainable(l.market):
		s.log.Warn("too few sales to value properties", "part", part.String(), "sales", l.sales)
	case s.enqueue != nil:
		if err := s.enqueue(ctx, part, l.fp); err != nil {
			return nil, fmt.Errorf("queueing the training of %s: %w", part, err)
		}
		l.queued = true
		s.log.Info("queued the training of the valuation engine", "part", part.String(), "properties", l.recs.len(),
			"sales", l.sales)
	}
	return l, nil
}

// readyPart makes the partition's snapshot once its engine is ready: restored, trained by a worker (awaited), or
// trained here. global is the market's version when the load began.
func (s *Service) readyPart(ctx context.Context, l *partLoad, global string) (*snapshot, error) {
	var err error
	switch {
	case l.engine != nil || len(l.market.Sales) == 0 || !avm.Trainable(l.market):
	case l.queued:
		s.status.Store(fmt.Sprintf("waiting for a worker to learn from %d sales (%s)", len(l.market.Sales), l.part))
		if l.engine, err = s.awaitTrained(ctx, l.part, l.market, l.fp, global); err != nil {
			return nil, err
		}
		s.log.Info("valuation engine trained by a worker", "part", l.part.String(), "sales", l.sales,
			"seconds", time.Since(l.started).Seconds())
	default:
		s.status.Store(fmt.Sprintf("learning from %d sales (%s)", len(l.market.Sales), l.part))
		s.log.Info("training the valuation engine", "part", l.part.String(), "properties", l.recs.len(), "sales", l.sales)
		if l.engine, err = s.train(ctx, l.part, l.market, l.fp); err != nil {
			return nil, err
		}
	}
	snap := newSnapshot(l.recs, l.engine, l.market, l.version)
	snap.part = l.part
	snap.warming = s.warmMarkets.Load()
	return snap, nil
}

// restore returns the engine saved for the fingerprint, or nil when none is (or it cannot be used).
func (s *Service) restore(ctx context.Context, market *avm.Market, fp string) (*avm.Engine, error) {
	blob, err := s.store.LoadModel(ctx, fp, avm.SnapshotVersion)
	if errors.Is(err, store.ErrNoModel) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	engine, err := avm.Restore(market, blob)
	if err != nil {
		s.log.Warn("saved valuation engine unusable; retraining", "err", err)
		return nil, nil
	}
	return engine, nil
}

// train trains the partition's engine here and saves it; nil when the market has too few sales.
func (s *Service) train(ctx context.Context, part Part, market *avm.Market, fp string) (*avm.Engine, error) {
	s.training.Lock()
	defer s.training.Unlock()
	started := time.Now()
	engine, err := avm.Train(market, s.opt)
	if errors.Is(err, avm.ErrNoMarket) {
		s.log.Warn("too few sales to value properties", "part", part.String(), "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.trainings.Add(1)
	s.log.Info("valuation engine trained", "part", part.String(), "sales", len(market.Sales),
		"seconds", time.Since(started).Seconds())
	s.metrics.Load().EngineTrained(time.Since(started))
	blob, err := engine.Marshal()
	if err == nil {
		if ps, ok := s.store.(partStore); ok {
			err = ps.SaveModelOf(ctx, part.key(), fp, avm.SnapshotVersion, blob, s.now())
		} else {
			err = s.store.SaveModel(ctx, fp, avm.SnapshotVersion, blob, s.now())
		}
	}
	if err != nil {
		s.log.Error("saving the valuation engine", "part", part.String(), "err", err)
	}
	return engine, nil
}

// key is the partition's name in the saved engines (store.SaveModelOf): its state, or "" for the whole market
// (homes without a state are "-", so that their engines are pruned apart from the whole market's).
func (p Part) key() string {
	switch {
	case p.Whole:
		return ""
	case p.State == "":
		return "-"
	}
	return p.State
}

// trainPoll is how often a service that left training to the workers looks for the saved engine.
const trainPoll = time.Second

// awaitTrained waits until a worker has saved the engine of the partition whose training readPart queued. It gives up
// (errMarketChanged) when the market's records change meanwhile: the worker trains the records as they are when
// it runs, whose engine is not the one awaited. The job is queued again now and then, in case it was lost.
func (s *Service) awaitTrained(ctx context.Context, part Part, market *avm.Market, fp, global string) (*avm.Engine, error) {
	for i := 0; ; i++ {
		if i%60 == 59 {
			if err := s.enqueue(ctx, part, fp); err != nil {
				return nil, fmt.Errorf("queueing the training of %s: %w", part, err)
			}
		}
		engine, err := s.restore(ctx, market, fp)
		if err != nil || engine != nil {
			return engine, err
		}
		if i%10 == 9 {
			if v, err := s.store.MarketVersion(ctx); err != nil {
				return nil, err
			} else if v != global {
				return nil, errMarketChanged
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(trainPoll):
		}
	}
}

// TrainPart trains the partition's engine and saves it, unless one is saved for its records already: the work
// of a training job (jobs.TrainArgs). It reads the partition's records as they are now, which may be newer than
// when the job was queued; a service waiting for older records queues them again.
func (s *Service) TrainPart(ctx context.Context, part Part) error {
	b, err := s.readMarket(ctx, part)
	if err != nil {
		return err
	}
	market, fp := b.m, b.fingerprint()
	b = nil
	if _, err := s.store.LoadModel(ctx, fp, avm.SnapshotVersion); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNoModel) {
		return err
	}
	s.log.Info("training the valuation engine (job)", "part", part.String(), "sales", len(market.Sales))
	_, err = s.train(ctx, part, market, fp)
	return err
}

// Trainings is how many engines this service has trained itself.
func (s *Service) Trainings() int64 { return s.trainings.Load() }

// marketReader is a store that can hand over the records one at a time (store.DB): the service then never holds
// them all as read.
type marketReader interface {
	EachMarket(ctx context.Context, v store.MarketVisitor) error
}

// readMarket reads the partition's records into a marketBuilder.
func (s *Service) readMarket(ctx context.Context, part Part) (*marketBuilder, error) {
	if !part.Whole {
		b := newMarketBuilder()
		err := s.store.(partStore).EachMarketOf(ctx, part.State, b.visitor())
		return b, err
	}
	r, ok := s.store.(marketReader)
	if !ok {
		md, err := s.store.LoadMarket(ctx)
		if err != nil {
			return nil, err
		}
		return buildMarket(md), nil
	}
	b := newMarketBuilder()
	err := r.EachMarket(ctx, b.visitor())
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
	if cur := s.set.Load(); cur == nil || !cur.valuing() {
		return min(interval, emptyInterval)
	}
	return interval
}

// errNotReady answers lookups that arrive before the engine is loaded.
func (s *Service) errNotReady() error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "engine_loading",
		Message: "The valuation engine is starting (" + s.Status() + "). Please try again in a minute."}
}
