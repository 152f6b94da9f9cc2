package avm

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"valuator/internal/avm/gbm"
)

// SnapshotVersion changes whenever the engine's learned state or features change meaning; a saved engine of
// another version is retrained rather than restored.
const SnapshotVersion = 13

// snapshot is what Marshal saves: everything Train learned that cannot be recomputed cheaply from the market.
type snapshot struct {
	Version int
	Opt     Options
	// Final is the model trained on every sale; Folds the out-of-fold models, by fold (empty when a fold had none:
	// a restored engine then values a recorded home with Final alone rather than with its fold's model, see
	// predictFor). With Opt.Bag the engine averages them all.
	Final *gbm.Model
	Folds []*gbm.Model
	Index Index
	// Areas, and each ZIP code's area (areaIndexes.ByZIP) as two slices sorted by ZIP code: gob writes a map in
	// random order, and the same records must save the same bytes (issue 39: the engines that several workers
	// train are compared with one worker's).
	Areas     []AreaIndex
	AreaZIPs  []string
	AreaOfZIP []int32
	Alpha, K0 float64
	Offset    float64
	BlendSale saleBlend
	DataEnd   time.Time
	Scale     []*gbm.Model
	// Bands by key, as two slices sorted by key (for the same reason).
	BandKeys []string
	Bands    [][]band
	Disagree float64
	Horizon  float64
	HeldN    int
	HeldHits float64
	Forward  bool

	// Elasticity is the size elasticity of the neighbours' likeness-weighted price (fitElasticity).
	Elasticity float64
	// Per sale (by Sale.ID): the out-of-fold residual and prediction.
	SaleIDs []int64
	Resid   []float64
	Pred    []float64
}

// Marshal saves the engine; Restore rebuilds it against the same market.
func (e *Engine) Marshal() ([]byte, error) {
	s := snapshot{Version: SnapshotVersion, Opt: e.opt, Final: e.models[0], Folds: e.folds, Index: e.index,
		Areas: e.areas.Areas,
		Alpha: e.alpha, K0: e.k0, Offset: e.offset, Elasticity: e.elasticity, BlendSale: e.blendSale,
		DataEnd: e.dataEnd, Scale: e.calib.scale, Disagree: e.calib.disagreeUsual,
		Horizon: e.calib.horizon, HeldN: e.calib.holdoutN,
		HeldHits: e.calib.holdoutHits, Forward: e.calib.timeForward}
	s.AreaZIPs, s.AreaOfZIP = sortedMap(e.areas.ByZIP)
	s.BandKeys, s.Bands = sortedMap(e.calib.bands)
	if len(present(e.folds)) != len(e.folds) {
		s.Folds = nil
	}
	for _, si := range e.sales {
		s.SaleIDs = append(s.SaleIDs, e.market.Sales[si.sale].ID)
		s.Resid = append(s.Resid, si.resid)
		s.Pred = append(s.Pred, si.pred)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sortedMap is m's keys in order and their values: a map saved in an order that does not change.
func sortedMap[V any](m map[string]V) ([]string, []V) {
	keys := slices.Sorted(maps.Keys(m))
	vals := make([]V, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return keys, vals
}

// ErrStale means a saved engine does not fit the market it is restored against.
var ErrStale = errors.New("avm: the saved engine was trained on other market data")

// Restore rebuilds a saved engine for market m, which must hold the sales it was trained on.
func Restore(m *Market, data []byte) (*Engine, error) {
	var s snapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return nil, fmt.Errorf("avm: decode saved engine: %w", err)
	}
	if s.Version != SnapshotVersion {
		return nil, fmt.Errorf("%w (version %d, want %d)", ErrStale, s.Version, SnapshotVersion)
	}
	if s.Final == nil {
		return nil, fmt.Errorf("%w (no model)", ErrStale)
	}
	fillNeighbourhood(m)
	byID := make(map[int64]int32, len(m.Sales))
	for i, sale := range m.Sales {
		byID[sale.ID] = int32(i)
	}
	if len(s.AreaZIPs) != len(s.AreaOfZIP) || len(s.BandKeys) != len(s.Bands) {
		return nil, fmt.Errorf("%w (inconsistent saved engine)", ErrStale)
	}
	areas := areaIndexes{Areas: s.Areas, ByZIP: make(map[string]int32, len(s.AreaZIPs))}
	for i, z := range s.AreaZIPs {
		areas.ByZIP[z] = s.AreaOfZIP[i]
	}
	bands := make(map[string][]band, len(s.BandKeys))
	for i, k := range s.BandKeys {
		bands[k] = s.Bands[i]
	}
	e := &Engine{market: m, opt: s.Opt, models: []*gbm.Model{s.Final}, folds: s.Folds, index: s.Index,
		areas: areas,
		alpha: s.Alpha, k0: s.K0, offset: s.Offset, elasticity: s.Elasticity, blendSale: s.BlendSale, dataEnd: s.DataEnd,
		calib: calibration{scale: s.Scale, bands: bands, widen: thinWidening(bands), disagreeUsual: s.Disagree,
			horizon: s.Horizon, holdoutN: s.HeldN, holdoutHits: s.HeldHits, timeForward: s.Forward}}
	e.sales = make([]saleInfo, 0, len(s.SaleIDs))
	for k, id := range s.SaleIDs {
		i, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%w (sale %d is gone)", ErrStale, id)
		}
		sale := m.Sales[i]
		y := math.Log(sale.Price)
		ix, _ := e.indexOfZIP(m.homes.zip.at(sale.Property)) // its home's ZIP code, not the whole home read
		e.sales = append(e.sales, saleInfo{sale: i, property: sale.Property,
			deflated: y - ix.At(sale.Date()), resid: s.Resid[k], pred: s.Pred[k]})
	}
	if s.Opt.Bag {
		e.models = append(e.models, s.Folds...)
	}
	// The four indexes only read the market and the sales, and each writes its own field: built at once, a core
	// each (a restart of ten million homes spent most of its 75 s of restoring on them one after the other).
	var wg sync.WaitGroup
	wg.Go(func() { e.spatial = e.salesIndex() })
	wg.Go(func() { e.homes = propertyIndex(m) })
	wg.Go(e.indexByProperty)
	wg.Go(func() { e.rent = trainRent(m) })
	wg.Wait()
	return e, nil
}

// Info describes what an engine learned, for logs and reports.
type Info struct {
	Sales          int
	DataEnd        time.Time
	Models         int
	TrendPerMonth  float64 // the seasonally adjusted trend extrapolated past the data, in log units
	Blend          float64 // alpha: how far the comparables' residuals move the model's value
	SizeElasticity float64 // of the neighbours' likeness-weighted price (fitElasticity)
	HeldOut        int     // held-out valuations of recorded homes the calibration learned from
	HeldOutApprox  int     // and of addresses not on record
	HeldOutHitRate float64 // share of all held-out valuations within 10%
	HorizonMonths  float64
	// TimeForward: the calibration learned from a holdout after the data (else from out-of-fold errors).
	TimeForward bool
	// Paths: each valuation path's held-out valuations, and whether it borrows its pool's calibration (Thin).
	Paths []PathInfo
	// Change12m is the whole market's index change over the 12 months to the last month of the data; Areas are
	// its area indexes.
	Change12m float64
	Areas     []AreaInfo
}

// PathInfo is what the calibration of one valuation path learned from.
type PathInfo struct {
	Path    string
	HeldOut int
	Thin    bool
	// Widen is how many times its pool's error scale a thin path's valuations read (thinWidening); 1 when not.
	Widen float64
}

// Info reports what the engine learned.
func (e *Engine) Info() Info {
	info := Info{Sales: len(e.sales), DataEnd: e.dataEnd, Models: len(e.models), TrendPerMonth: e.index.Slope,
		Blend: e.alpha, SizeElasticity: e.elasticity, HeldOut: heldIn(e.calib.bands[pooled(PathRecord)]), HeldOutApprox: heldIn(e.calib.bands[pooled(PathFacts)]),
		HeldOutHitRate: e.calib.holdoutHits, HorizonMonths: e.calib.horizon,
		TimeForward: e.calib.timeForward, Paths: e.calib.pathInfo(), Change12m: e.index.Change12m(e.lastDay())}
	for _, a := range e.areas.Areas {
		info.Areas = append(info.Areas, AreaInfo{Level: a.Level, Key: a.Key, Sales: a.Sales,
			Change12m: a.Change12m(e.lastDay())})
	}
	return info
}

// lastDay is the day of the latest sale the engine learned from.
func (e *Engine) lastDay() time.Time { return e.dataEnd.AddDate(0, 0, -1) }

// AreaInfo describes one area index (AreaIndex).
type AreaInfo struct {
	Level, Key string
	Sales      int
	Change12m  float64 // over the 12 months to the last month of the data
}
