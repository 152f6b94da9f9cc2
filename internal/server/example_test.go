package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/config"
	"valuator/internal/demo"
	"valuator/internal/examples/example"
	"valuator/internal/ratelimit"
	"valuator/internal/store"
	"valuator/internal/testdb"
	"valuator/internal/valuation"
)

// demoMarketOf imports the demo market a development server seeds (the example's seed and size) as generated on
// day, as `valuator serve` does on the day it first starts.
func demoMarketOf(day time.Time) func(t *testing.T, db *store.DB) {
	return func(t *testing.T, db *store.DB) {
		t.Helper()
		recs := demo.GenerateN(example.MarketSeed, day, example.MarketHomes).Records()
		for i := 0; i < len(recs); i += 1000 {
			if _, err := db.ImportRecords(context.Background(), demo.Source, recs[i:min(i+1000, len(recs))], day); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// exampleAnswer is GET /api/example as the screens read it; Data is kept as decoded JSON so that every field is
// compared, including fields this test does not know of.
type exampleAnswer struct {
	Market struct {
		Day string `json:"day"`
	} `json:"market"`
	Request     example.Request     `json:"request"`
	Path        string              `json:"path"`
	Comparables example.Comparables `json:"comparables"`
	Response    struct {
		Data map[string]any `json:"data"`
	} `json:"response"`
}

// TestExampleIsTheLiveAnswer: on a server whose demo market was seeded on another day than the generated example's
// (so its numbers differ from the checked-in file's), GET /api/example is, in every field but meta, what a real
// call of the public API with a key returns for the example address on that server that day: value, range,
// confidence, evidence, details, price history, rent, and the comparables it keeps (the first 3 of as many).
func TestExampleIsTheLiveAnswer(t *testing.T) {
	day := time.Date(2027, 7, 14, 0, 0, 0, 0, time.UTC)
	if day.Equal(example.MarketDay) {
		t.Fatal("the test's day must differ from the generated example's")
	}
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.market = demoMarketOf(day) })
	// The server's clock: that afternoon, as on a development server first started that morning.
	a.clock.Advance(day.Add(15*time.Hour + 4*time.Minute).Sub(a.clock.Now()))

	r := a.do(req{method: "GET", path: "/api/example"})
	expectStatus(t, r, http.StatusOK)
	var ex exampleAnswer
	r.json(t, &ex)

	token, _ := a.register("eve@example.com", "correct-horse-battery", "Eve Example")
	key := a.createKey(token, "Example check", 60)
	pub := a.public(key.Value, example.Home.Query())
	expectStatus(t, pub, http.StatusOK)
	var real struct {
		Data map[string]any `json:"data"`
	}
	pub.json(t, &real)

	if ex.Request != example.Home || ex.Path != example.Home.Path() {
		t.Errorf("request = %+v %q, want %+v %q", ex.Request, ex.Path, example.Home, example.Home.Path())
	}
	comps, _ := real.Data["marketData"].(map[string]any)["comparables"].([]any)
	if ex.Comparables.Returned != len(comps) || ex.Comparables.Kept != min(example.MaxComparables, len(comps)) {
		t.Errorf("comparables = %+v, want returned %d, kept %d", ex.Comparables, len(comps),
			min(example.MaxComparables, len(comps)))
	}
	// The real answer, cut as the example is.
	real.Data["marketData"].(map[string]any)["comparables"] = comps[:min(example.MaxComparables, len(comps))]

	valuationOf := func(d map[string]any) map[string]any { return d["valuation"].(map[string]any) }
	if got, want := valuationOf(ex.Response.Data)["valuationDate"], day.Format("2006-01-02"); got != want {
		t.Errorf("the example is valued as of %v, want the server's day %s", got, want)
	}
	lastUpdated, _ := valuationOf(real.Data)["lastUpdated"].(string)
	if !strings.HasPrefix(lastUpdated, ex.Market.Day) || ex.Market.Day == "" {
		t.Errorf("market.day = %q, want the day of the latest sale the engine learned from (%s)", ex.Market.Day, lastUpdated)
	}

	exMeta, _ := ex.Response.Data["meta"].(map[string]any)
	delete(ex.Response.Data, "meta")
	delete(real.Data, "meta")
	var diffs []string
	diffJSON("data", ex.Response.Data, real.Data, &diffs)
	if len(diffs) > 0 {
		t.Errorf("GET /api/example differs from GET %s (example -> real call):\n  %s", example.Home.Path(),
			strings.Join(diffs, "\n  "))
	}
	t.Logf("the example on %s: %v (%v)", day.Format("2006-01-02"), valuationOf(real.Data)["estimatedValue"],
		valuationOf(real.Data)["confidence"])

	// meta: the server's own request id, and the credits a real call would use (this one is free).
	if exMeta["requestId"] != r.header.Get("X-Request-Id") || exMeta["creditsUsed"] != float64(1) ||
		exMeta["creditsRemaining"] != float64(99) {
		t.Errorf("meta = %v, want the request's own id (%s), creditsUsed 1 and creditsRemaining 99", exMeta,
			r.header.Get("X-Request-Id"))
	}
}

// diffJSON records where b differs from a, two decoded JSON values.
func diffJSON(path string, a, b any, diffs *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			diffJSON(path+"."+k, am[k], bm[k], diffs)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			diffJSON(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i], diffs)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		*diffs = append(*diffs, fmt.Sprintf("%s: %s -> %s", path, ja, jb))
	}
}

// TestExampleUnavailable: a server whose market has no record of the example home (a production install with real
// records, here the small Seattle test market) answers 404 example_unavailable, as does one without a market to
// value from; nothing else than GET is answered, a long query string changes nothing, and the endpoint is limited
// per client address.
func TestExampleUnavailable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		market func(t *testing.T, db *store.DB)
	}{
		{"another market", seattleMarket},
		{"no market", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.market = tc.market })
			r := a.do(req{method: "GET", path: "/api/example"})
			expectStatus(t, r, http.StatusNotFound)
			if e := r.errBody(t); e.Code != "example_unavailable" {
				t.Errorf("code = %q, want example_unavailable", e.Code)
			}
		})
	}

	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	for _, method := range []string{"POST", "PUT", "DELETE", "HEAD"} {
		r := a.do(req{method: method, path: "/api/example", noContract: true})
		if r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s /api/example = %d, want 405", method, r.status)
		}
	}
	long := a.do(req{method: "GET", path: "/api/example?address=" + strings.Repeat("9", 6000), noContract: true})
	if long.status != http.StatusNotFound || !strings.Contains(string(long.body), "example_unavailable") {
		t.Errorf("a long query string: %d %s, want the same 404 (the query is not read)", long.status, long.body)
	}

	// The per-address limit: a loop is refused (429 with Retry-After) once it has spent the minute's budget.
	limited := false
	for i := 0; i < exampleLimit.Burst+1 && !limited; i++ {
		r := a.do(req{method: "GET", path: "/api/example", noContract: i%50 != 0})
		limited = r.status == http.StatusTooManyRequests && r.header.Get("Retry-After") != ""
	}
	if !limited {
		t.Errorf("%d calls from one address in a minute were all answered; want a 429 past %d", exampleLimit.Burst+1,
			exampleLimit.Burst)
	}
}

// TestExampleWhileTheEngineLoads: before the engine has loaded its market the example answers 503 engine_loading, as
// lookups do.
func TestExampleWhileTheEngineLoads(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"VALUATOR_DATABASE_URL": testdb.SQLiteURL(t)}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := New(Deps{Config: cfg, Logger: log, Valuation: valuation.New(nil, log, nil, avm.DefaultOptions()),
		OpenAPI: []byte("{}"), FormLimiter: ratelimit.NewMemory(nil), APILimiter: ratelimit.NewMemory(nil)})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/example", nil))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"engine_loading"`) {
		t.Errorf("GET /api/example before the engine loads = %d %s, want 503 engine_loading", w.Code, w.Body)
	}
}
