package valuation

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/demo"
	"valuator/internal/property"
	"valuator/internal/store"
)

// TestPartitionedMarket (issue 39): a market split by state trains one engine a state, values each address with
// its state's engine (the same answer as an installation holding that state alone), answers each ZIP code's
// statistics from its state, retrains and reloads only the state an import touched, and restores every engine
// at a restart.
func TestPartitionedMarket(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the demo market's engines")
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	log := slog.New(slog.DiscardHandler)
	opt := avm.DefaultOptions()
	opt.Model.Trees, opt.Model.LearningRate, opt.Folds = 150, 0.15, 3 // quicker; the figures do not matter
	open := func(recs []property.Record) *store.DB {
		db, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ImportRecords(ctx, demo.Source, recs, now); err != nil {
			t.Fatal(err)
		}
		return db
	}
	recs := demo.Generate(1, now).Records()
	db := open(recs)
	load := func(db *store.DB, partitioned bool) *Service {
		t.Helper()
		s := New(db, log, clock, opt)
		if partitioned {
			if err := s.Partitions(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Load(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load(db, true)
	set := s.set.Load()
	want := []string{"AZ", "CO", "GA", "NC", "OH", "TX", "WA"}
	if got := set.states(); !slices.Equal(got, want) {
		t.Fatalf("partitions %v, want the demo's states %v", got, want)
	}
	if n := s.Trainings(); n != int64(len(want)) {
		t.Errorf("%d engines trained, want one a state (%d)", n, len(want))
	}

	// One recorded home of each state, valued by its state's engine.
	first := map[string]property.Home{}
	for _, r := range recs {
		if _, ok := first[r.Home.State]; !ok && r.Home.Street != "" && r.Price > 0 {
			first[r.Home.State] = r.Home
		}
	}
	input := func(h property.Home) Input {
		return Input{Address: strings.Join(strings.Fields(h.Street+" "+h.UnitType+" "+h.Unit), " "), City: h.City,
			State: h.State, ZIP: h.ZIP}
	}
	for _, st := range want {
		res, err := s.Lookup(ctx, input(first[st]))
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if res.Property.MatchCode != MatchExact || res.Valuation.EstimatedValue <= 0 {
			t.Errorf("%s: match %s, value %v", st, res.Property.MatchCode, res.Valuation.EstimatedValue)
		}
	}

	// A state's partition answers what an installation holding that state alone answers.
	var wa []property.Record
	for _, r := range recs {
		if r.Home.State == "WA" {
			wa = append(wa, r)
		}
	}
	alone := load(open(wa), false)
	answer := func(s *Service, in Input) string {
		res, err := s.Lookup(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	in := input(first["WA"])
	if a, b := answer(s, in), answer(alone, in); a != b {
		t.Errorf("WA partition and WA alone differ:\n%s\n%s", a, b)
	}
	beds, baths, sqft, built := 3.0, 2.0, 1800.0, 1990.0
	typ := "Single Family"
	outside := Input{Address: "1 Nowhere Lane", City: first["WA"].City, State: "WA", ZIP: first["WA"].ZIP,
		Bedrooms: &beds, Bathrooms: &baths, SquareFeet: &sqft, YearBuilt: &built, PropertyType: &typ}
	if a, b := answer(s, outside), answer(alone, outside); a != b {
		t.Errorf("a home not on record in WA, partition and alone differ:\n%s\n%s", a, b)
	}
	// A state with no records is not a market this installation covers.
	maine := outside
	maine.City, maine.State, maine.ZIP = "Portland", "ME", "04101"
	if _, err := s.Lookup(ctx, maine); !isCode(err, CodeAreaNotCovered) {
		t.Errorf("an address in Maine: %v, want %s", err, CodeAreaNotCovered)
	}

	// Market statistics of a ZIP code come from its state's partition.
	ans, err := s.Markets(ctx, MarketInput{ZIP: []string{first["AZ"].ZIP, first["WA"].ZIP}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Markets) != 2 || len(ans.NotFound) != 0 {
		t.Errorf("markets of an AZ and a WA ZIP: %d found, not found %v", len(ans.Markets), ans.NotFound)
	}

	// A sale imported in one state retrains and reloads that state only; the others are kept as they were.
	h := first["GA"]
	if _, err := db.ImportRecords(ctx, demo.Source, []property.Record{{Home: h, SaleDate: now.AddDate(0, 0, -3),
		Price: 412345}}, now); err != nil {
		t.Fatal(err)
	}
	before := s.set.Load()
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	after := s.set.Load()
	if n := s.Trainings(); n != int64(len(want))+1 {
		t.Errorf("%d engines trained after a sale in GA, want %d (GA's only)", n, len(want)+1)
	}
	for _, st := range want {
		if same := after.part(st) == before.part(st); same != (st != "GA") {
			t.Errorf("%s kept as loaded: %v after a sale in GA", st, same)
		}
	}

	// An instance that serves a share of the states loads only those, restored, and answers the same there;
	// elsewhere is not a market it covers.
	share := New(db, log, clock, opt)
	if err := share.Partitions("WA", "OR"); err != nil {
		t.Fatal(err)
	}
	if err := share.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := share.set.Load().states(); !slices.Equal(got, []string{"WA"}) || share.Trainings() != 0 {
		t.Errorf("WA and OR: loaded %v, trained %d; want WA, restored", got, share.Trainings())
	}
	if a, b := answer(share, in), answer(s, in); a != b {
		t.Errorf("WA served alone and with every state differ:\n%s\n%s", a, b)
	}
	if _, err := share.Lookup(ctx, input(first["AZ"])); !isCode(err, CodeAreaNotCovered) {
		t.Errorf("an AZ home on an instance of WA and OR: %v, want %s", err, CodeAreaNotCovered)
	}

	// A restart restores every state's engine; the answers are the same.
	again := load(db, true)
	if n := again.Trainings(); n != 0 {
		t.Errorf("%d engines trained at a restart, want every one restored", n)
	}
	for _, st := range want {
		if a, b := answer(s, input(first[st])), answer(again, input(first[st])); a != b {
			t.Errorf("%s after a restart:\n%s\n%s", st, a, b)
		}
	}
}

// states (for the tests) are the states of the loaded partitions, in order ("" for an unpartitioned market).
func (set *marketSet) states() []string {
	out := make([]string, len(set.parts))
	for i, snap := range set.parts {
		out[i] = snap.part.State
	}
	sort.Strings(out)
	return out
}

func isCode(err error, code string) bool {
	e, ok := apperr.As(err)
	return ok && e.Code == code
}
