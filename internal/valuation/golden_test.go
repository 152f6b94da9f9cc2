package valuation

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/demo"
	"valuator/internal/store"
)

// updateGolden rewrites testdata/golden_lookups.json.gz from the current code: only when the answers are meant to
// change (a change to the engine or the answer), never to make a refactoring pass.
var updateGolden = flag.Bool("update-golden", os.Getenv("VALUATOR_UPDATE_GOLDEN") == "1",
	"rewrite testdata/golden_lookups.json.gz")

const goldenFile = "testdata/golden_lookups.json.gz"

// goldenDay is the day the golden answers are of (noon UTC, as testclock reads a day). It is fixed, not
// testclock.Day (which VALUATOR_TEST_TODAY moves): the answers depend on the day, and the file holds one day's.
const goldenDay = "2026-11-28"

// TestGoldenLookups: 500 homes of the demo market, valued through Lookup as the API does, answer field for field
// what the committed golden file says; by the engine trained on the records and by the same engine restored from
// its saved form (a restart). It guards refactorings that must not move an answer (issue 39: the compact memory
// layout); the demo market is imported into SQLite and read back as a server reads it (rents included).
func TestGoldenLookups(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the demo market's engine")
	}
	ctx := context.Background()
	now, err := time.Parse("2006-01-02 15:04", goldenDay+" 12:00")
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportRecords(ctx, demo.Source, demo.Generate(1, now).Records(), now); err != nil {
		t.Fatal(err)
	}
	md, err := db.LoadMarket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every sixth home with an address, in id order: 500 of the 3,000.
	var inputs []Input
	for i, h := range md.Homes {
		if h.Street == "" || i%6 != 0 || len(inputs) == 500 {
			continue
		}
		inputs = append(inputs, Input{Address: strings.Join(strings.Fields(h.Street+" "+h.UnitType+" "+h.Unit), " "),
			City: h.City, State: h.State, ZIP: h.ZIP})
	}
	if len(inputs) != 500 {
		t.Fatalf("%d homes chosen, want 500", len(inputs))
	}
	md = store.MarketData{}

	log := slog.New(slog.DiscardHandler)
	answers := func(what string) []byte {
		s := New(db, log, func() time.Time { return now }, avm.DefaultOptions())
		if err := s.Load(ctx); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, in := range inputs {
			res, err := s.Lookup(ctx, in)
			var line []byte
			if err != nil {
				line, _ = json.Marshal(map[string]string{"input": in.Line(), "error": err.Error()})
			} else if line, err = json.Marshal(res); err != nil {
				t.Fatal(err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
		t.Logf("%s: %d answers", what, len(inputs))
		return buf.Bytes()
	}
	trained := answers("trained")
	restored := answers("restored") // the second service finds the first one's saved engine

	if *updateGolden {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(trained)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goldenFile)
	}
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatalf("%v (run with -update-golden to write it)", err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "trained", trained, want)
	compareGolden(t, "restored", restored, want)
}

// compareGolden reports, for each answer that differs, the fields that differ (at most 20 answers).
func compareGolden(t *testing.T, what string, got, want []byte) {
	t.Helper()
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	if len(g) != len(w) {
		t.Fatalf("%s: %d answers, golden has %d", what, len(g), len(w))
	}
	bad := 0
	for i := range g {
		if bytes.Equal(g[i], w[i]) {
			continue
		}
		bad++
		if bad <= 20 {
			var gv, wv any
			json.Unmarshal(g[i], &gv)
			json.Unmarshal(w[i], &wv)
			t.Errorf("%s: answer %d differs: %s", what, i, strings.Join(diffJSON("", gv, wv), "; "))
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d answers differ from %s", what, bad, len(g)-1, goldenFile)
	}
}

// diffJSON lists the paths where two decoded JSON values differ, with both values.
func diffJSON(path string, got, want any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		var keys []string
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		var out []string
		for _, k := range keys {
			out = append(out, diffJSON(path+"."+k, g[k], w[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		var out []string
		for i := range w {
			out = append(out, diffJSON(path+"["+strconv.Itoa(i)+"]", g[i], w[i])...)
		}
		return out
	default:
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if bytes.Equal(gb, wb) {
			return nil
		}
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	return []string{path + ": got " + trunc(string(gb)) + ", want " + trunc(string(wb))}
}

func trunc(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
