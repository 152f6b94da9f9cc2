package valuation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/credit"
	"valuator/internal/market"
	"valuator/internal/property"
	"valuator/internal/usage"
)

// MarketInput is a market statistics call as sent (GET /api/v1/markets and its twins): read by ParseMarket, kept
// as sent in the usage record.
type MarketInput struct {
	ZIP           []string `json:"zip"`
	HistoryMonths string   `json:"historyMonths,omitempty"`
	PropertyType  string   `json:"propertyType,omitempty"`
}

// MaxCompareZIPs is how many ZIP codes one comparison may ask for.
const MaxCompareZIPs = 5

var zipPattern = regexp.MustCompile(`^[0-9]{5}$`)

// marketQuery is a valid MarketInput.
type marketQuery struct {
	zips []string
	opt  market.Options
}

// parse checks the input, naming the first bad field; compare allows up to MaxCompareZIPs distinct ZIP codes,
// otherwise exactly one is asked for.
func (in MarketInput) parse(compare bool) (marketQuery, error) {
	var q marketQuery
	var v apperr.Validation
	seen := map[string]bool{}
	for _, z := range in.ZIP {
		z = strings.TrimSpace(z)
		if !zipPattern.MatchString(z) {
			v.Add("zip", "zip must be a 5-digit ZIP code")
			break
		}
		if !seen[z] {
			seen[z] = true
			q.zips = append(q.zips, z)
		}
	}
	switch {
	case len(in.ZIP) == 0:
		v.Add("zip", "zip is required: a 5-digit ZIP code")
	case !compare && len(in.ZIP) > 1:
		v.Add("zip", "zip must be given once; compare markets with /markets/compare")
	case compare && len(q.zips) > MaxCompareZIPs:
		v.Add("zip", fmt.Sprintf("zip: at most %d ZIP codes can be compared", MaxCompareZIPs))
	}
	q.opt.HistoryMonths = market.DefaultHistoryMonths
	if s := strings.TrimSpace(in.HistoryMonths); s != "" {
		n, err := strconv.Atoi(s)
		ok := err == nil && n >= 1 && n <= market.MaxHistoryMonths
		v.Check(ok, "historyMonths", fmt.Sprintf("historyMonths must be a whole number from 1 to %d", market.MaxHistoryMonths))
		if ok {
			q.opt.HistoryMonths = n
		}
	}
	if t := strings.TrimSpace(in.PropertyType); t != "" {
		known := false
		for _, k := range market.Types {
			if strings.EqualFold(k, t) {
				q.opt.PropertyType, known = k, true
			}
		}
		v.Check(known, "propertyType", "propertyType must be one of: "+strings.Join(market.Types, ", "))
	}
	return q, v.Err()
}

// MarketsAnswer is what a market statistics call returns: the markets found, in the order asked, and the ZIP codes
// with no records (a comparison only; a single ZIP with none is a 404).
type MarketsAnswer struct {
	Markets  []*market.Market
	NotFound []string
	Meta     ResultMeta
}

// errMarketNotFound answers a ZIP code with no records, free.
func errMarketNotFound(zips []string) error {
	return apperr.NotFound("market_not_found", "No records for ZIP "+strings.Join(zips, ", ")+".")
}

// marketStats is a snapshot's statistics: its records by ZIP code, grouped on first use, and the engine's values
// of each ZIP's homes, computed once per ZIP (a value is the costliest part, and it does not depend on the type
// filter or the months asked).
type marketStats struct {
	once   sync.Once
	zips   map[string]*market.ZIP
	mu     sync.Mutex
	values map[string]*zipValues
}

type zipValues struct {
	once sync.Once
	v    []float64
}

// records are the market's sales and rents as records, made for ByZIP and dropped after it: the snapshot keeps
// them once, in the engine's market.
func (snap *snapshot) records() ([]property.Sale, []property.Rental) {
	m := snap.market
	sales := make([]property.Sale, len(m.Sales))
	for i, s := range m.Sales {
		sales[i] = property.Sale{ID: s.ID, PropertyID: m.PropertyID(s.Property), Date: s.Date(), Price: int64(s.Price)}
	}
	rents := make([]property.Rental, len(m.Rentals))
	for i, r := range m.Rentals {
		rents[i] = property.Rental{PropertyID: m.PropertyID(r.Property), Date: r.Date(), Rent: int64(r.Rent)}
	}
	return sales, rents
}

func (snap *snapshot) zip(code string) *market.ZIP {
	st := &snap.stats
	st.once.Do(func() {
		sales, rents := snap.records()
		st.zips = market.ByZIPOf(snap.homes.len(), snap.homes.fill, sales, rents)
		st.values = map[string]*zipValues{}
	})
	return st.zips[code]
}

// zipValues are the engine's current values of z's homes (as of at), computed once per snapshot.
func (snap *snapshot) zipValues(z *market.ZIP, at time.Time) []float64 {
	if snap.engine == nil {
		return nil
	}
	st := &snap.stats
	st.mu.Lock()
	zv := st.values[z.ZIP]
	if zv == nil {
		zv = &zipValues{}
		st.values[z.ZIP] = zv
	}
	st.mu.Unlock()
	zv.once.Do(func() {
		at, _ = snap.engine.AsOf(at)
		zv.v = make([]float64, len(z.Homes))
		// A chunk of homes a core at once: a ZIP code of the ten-million-home demo market has 180,000 homes, 40 s
		// of values on one core, which its first call would wait for (issue 39). Each value is the
		// engine's alone, whichever goroutine computes it.
		const chunk = 2048
		eachParallel(context.Background(), (len(z.Homes)+chunk-1)/chunk, func(c int) error {
			for i := c * chunk; i < min(len(z.Homes), (c+1)*chunk); i++ {
				h := z.Homes[i]
				if v := snap.engine.PointValue(snap.market.Home(h.Index), h.Index, at); v > 0 && !math.IsInf(v, 0) {
					zv.v[i] = v
				}
			}
			return nil
		})
	})
	return zv.v
}

// Market is the statistics of one ZIP code as opt selects, from the market in memory; nil when the ZIP has no
// records. Answers are cached per snapshot version, so they last until the market is reloaded.
func (s *Service) market(snap *snapshot, code string, opt market.Options) *market.Market {
	key := marketKey(snap, code, opt)
	if m, ok := s.markets.get(key); ok {
		return m
	}
	z := snap.zip(code)
	if z == nil || len(z.Sales)+len(z.Rents) == 0 {
		return nil
	}
	var ix market.Index
	var area *market.IndexArea
	if snap.engine != nil {
		// The ZIP code's own area index (avm.AreaIndex), the one its homes' values move with.
		h := avm.Unknown()
		h.ZIP = code
		aix, level, key := snap.engine.AreaIndex(h)
		ix, area = aix, &market.IndexArea{Level: level, Area: optS(key)}
	}
	m := market.Compute(z, opt, snap.zipValues(z, s.now().UTC()), ix)
	if len(m.PriceIndex) > 0 {
		m.IndexArea = area
	}
	s.markets.put(key, &m)
	return &m
}

// WarmMarkets makes each load compute every ZIP code's statistics (the default ones) in the background, so that
// no customer waits for the first call of a ZIP: its homes' values are the costliest part. On the demo market (56
// ZIPs) the warm-up takes under a second and took the p99 of the first 10 seconds at 200 calls a second from 70 ms
// to 3 ms (BenchmarkLoadMarkets). The server calls it; a batch worker, which answers no market calls, does not.
func (s *Service) WarmMarkets() { s.warmMarkets.Store(true) }

// WaitMarkets returns once the loaded market's statistics are computed (or the warm-up gave way to a newer
// market), or ctx ends: the server says it is running only then. It returns at once when nothing is loaded or
// the loaded market is not being warmed.
func (s *Service) WaitMarkets(ctx context.Context) {
	set := s.set.Load()
	if set == nil {
		return
	}
	for _, snap := range set.parts {
		if !snap.warming {
			continue
		}
		select {
		case <-snap.warmed:
		case <-ctx.Done():
			return
		}
	}
}

// warm computes snap's statistics ZIP by ZIP (each ZIP's homes valued on every core, zipValues), and gives up
// once a newer market has replaced snap. A home's value takes about 0.2 ms of a core: at ten million demo homes
// 9,400 homes a second on this machine's two cores, 16 m 41 s (issue 39, docs/operations.md); meanwhile a call for
// a ZIP not yet warmed computes its own.
func (s *Service) warm(snap *snapshot) {
	defer close(snap.warmed)
	started := time.Now()
	snap.zip("")
	codes := make([]string, 0, len(snap.stats.zips))
	for code := range snap.stats.zips {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	opt := market.Options{HistoryMonths: market.DefaultHistoryMonths}
	total, done := 0, 0
	for _, code := range codes {
		total += len(snap.stats.zips[code].Homes)
	}
	said := time.Now()
	for i, code := range codes {
		if !s.set.Load().holds(snap) {
			return
		}
		s.market(snap, code, opt)
		done += len(snap.stats.zips[code].Homes)
		if time.Since(said) > time.Minute { // a large market's warm-up takes minutes: its progress, once a minute
			said = time.Now()
			s.log.Info("market statistics", "zips", i+1, "of", len(codes), "homes", done, "of_homes", total,
				"ms", time.Since(started).Milliseconds())
		}
	}
	s.log.Info("market statistics ready", "zips", len(codes), "homes", total, "ms", time.Since(started).Milliseconds())
}

// marketKey is the cache key of code's statistics as opt selects, from snap.
func marketKey(snap *snapshot, code string, opt market.Options) string {
	return fmt.Sprintf("%s|%s|%s|%d", snap.version, code, opt.PropertyType, opt.HistoryMonths)
}

// Markets answers a market statistics call without charging for it.
func (s *Service) Markets(ctx context.Context, in MarketInput, compare bool) (*MarketsAnswer, error) {
	q, err := in.parse(compare)
	if err != nil {
		return nil, err
	}
	set := s.set.Load()
	if set == nil {
		return nil, s.errNotReady()
	}
	ans := &MarketsAnswer{Markets: []*market.Market{}, NotFound: []string{}}
	for _, z := range q.zips {
		// A ZIP code's statistics are its partition's (the one its homes are in).
		if snap := set.byZIP[z]; snap == nil {
			ans.NotFound = append(ans.NotFound, z)
		} else if m := s.market(snap, z, q.opt); m != nil {
			ans.Markets = append(ans.Markets, m)
		} else {
			ans.NotFound = append(ans.NotFound, z)
		}
	}
	if len(ans.Markets) == 0 {
		return nil, errMarketNotFound(ans.NotFound)
	}
	return ans, nil
}

// MeteredMarkets answers and charges a market statistics call: MarketCost per ZIP code found, with its usage
// record, in one transaction (as Metered does for valuations); bad input, a ZIP with no records or our failure
// cost nothing and are recorded by RefusedMarkets.
func (s *Service) MeteredMarkets(ctx context.Context, call usage.Call, in MarketInput, compare bool) (*MarketsAnswer, error) {
	ans, err := s.Markets(ctx, in, compare)
	if err != nil {
		return nil, s.RefusedMarkets(ctx, call, in, err)
	}
	zips := make([]string, len(ans.Markets))
	for i, m := range ans.Markets {
		zips[i] = m.ZIP
	}
	cost := credit.MarketCost * int64(len(ans.Markets))
	rec := marketRecord(call, in, 200, s.now())
	rec.PropertyAddress = marketSubject(zips)
	balance, err := s.store.Meter(ctx, rec, cost, rec.PropertyAddress)
	var ins *credit.ErrInsufficient
	if errors.As(err, &ins) {
		return nil, s.RefusedMarkets(ctx, call, in, ins.Answer(cost))
	}
	if err != nil {
		return nil, err
	}
	ans.Meta = ResultMeta{RequestID: call.RequestID, Timestamp: s.now().UTC().Format(time.RFC3339),
		ResponseTime: time.Since(call.Start).Milliseconds(), CreditsUsed: cost, CreditsRemaining: balance}
	return ans, nil
}

// marketSubject is what History shows of a market call: "Market statistics: 98103" (or "98103, 98115").
func marketSubject(zips []string) string { return "Market statistics: " + strings.Join(zips, ", ") }

// RefusedMarkets records a market call that failed with err (it cost nothing) and returns err.
func (s *Service) RefusedMarkets(ctx context.Context, call usage.Call, in MarketInput, err error) error {
	kind := apperr.KindInternal
	if e, ok := apperr.As(err); ok {
		kind = e.Kind
	}
	rec := marketRecord(call, in, kind.Status(), s.now())
	var valid []string
	for _, z := range in.ZIP {
		if zipPattern.MatchString(strings.TrimSpace(z)) {
			valid = append(valid, strings.TrimSpace(z))
		}
	}
	// Only well-formed ZIP codes are written into the subject: the rest of the input is kept, sanitised, as
	// request data.
	rec.PropertyAddress = marketSubject(valid)
	if uerr := s.store.RecordUsage(ctx, rec); uerr != nil {
		s.log.Error("recording usage", "request_id", rec.RequestID, "err", uerr)
	}
	return err
}

// marketRecord is the usage record of a market call, keeping the input as sent but no more than one ZIP code past
// the limit (enough to show why a comparison was refused), each cut to 16 bytes: a query of thousands of ZIP codes
// must not store them all.
func marketRecord(call usage.Call, in MarketInput, status int, now time.Time) usage.Record {
	rec := call.Record(usage.ServiceMarket, status, now)
	kept := make([]string, 0, min(len(in.ZIP), MaxCompareZIPs+1))
	for _, z := range in.ZIP[:min(len(in.ZIP), MaxCompareZIPs+1)] {
		kept = append(kept, z[:min(len(z), 16)])
	}
	in.ZIP = kept
	in.HistoryMonths = in.HistoryMonths[:min(len(in.HistoryMonths), 16)]
	in.PropertyType = in.PropertyType[:min(len(in.PropertyType), 32)]
	data, _ := json.Marshal(in)
	rec.RequestData = string(data)
	return rec
}
