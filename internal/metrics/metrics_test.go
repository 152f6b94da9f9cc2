package metrics

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	_ "modernc.org/sqlite"
)

func TestNilIsNoOp(t *testing.T) {
	var m *Metrics
	m.ObserveRequest("GET /healthz", 200, time.Millisecond)
	m.Valuation("EXACT")
	m.Credits("valuation", 1)
	m.BatchRows(3, 1)
	m.EngineTrained(time.Second)
	m.WatchEngine(func() bool { return true })
	m.WatchDB("valuator", nil)
	m.WatchBatchQueue(nil, nil)
	if m.Registry() != nil {
		t.Error("nil Metrics has a registry")
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("nil Metrics handler: got %d, want 404", rec.Code)
	}
}

func TestCounters(t *testing.T) {
	m := New()
	m.ObserveRequest("GET /api/v1/property/valuation", 200, 3*time.Millisecond)
	m.ObserveRequest("GET /api/v1/property/valuation", 200, 5*time.Millisecond)
	m.ObserveRequest("GET /api/v1/property/valuation", 402, time.Millisecond)
	m.ObserveRequest("GET /api/v1/property/valuation", 429, time.Millisecond)
	m.ObserveRequest(RouteSPA, 200, time.Millisecond)
	m.ObserveRequest(RouteSPA, 0, time.Millisecond) // nothing written: net/http answers 200
	m.ObserveRequest(RouteUnmatched, 999, time.Millisecond)
	m.Valuation("EXACT")
	m.Valuation("")
	m.Credits("valuation", 1)
	m.Credits("person", 5)
	m.Credits("batch", 0)
	m.BatchRows(7, 2)
	m.EngineTrained(1500 * time.Millisecond)

	const route = "GET /api/v1/property/valuation"
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"requests 200", testutil.ToFloat64(m.requests.WithLabelValues(route, "200")), 2},
		{"requests 402", testutil.ToFloat64(m.requests.WithLabelValues(route, "402")), 1},
		{"requests spa", testutil.ToFloat64(m.requests.WithLabelValues(RouteSPA, "200")), 2},
		{"requests odd status", testutil.ToFloat64(m.requests.WithLabelValues(RouteUnmatched, "other")), 1},
		{"402s", testutil.ToFloat64(m.outOfCredits.WithLabelValues(route)), 1},
		{"429s", testutil.ToFloat64(m.rateLimited.WithLabelValues(route)), 1},
		{"valuations EXACT", testutil.ToFloat64(m.valuations.WithLabelValues("EXACT")), 1},
		{"valuations none", testutil.ToFloat64(m.valuations.WithLabelValues("none")), 1},
		{"credits valuation", testutil.ToFloat64(m.credits.WithLabelValues("valuation")), 1},
		{"credits person", testutil.ToFloat64(m.credits.WithLabelValues("person")), 5},
		{"rows valued", testutil.ToFloat64(m.batchRows.WithLabelValues("valued")), 7},
		{"rows failed", testutil.ToFloat64(m.batchRows.WithLabelValues("failed")), 2},
		{"training seconds", testutil.ToFloat64(m.training), 1.5},
		{"trainings", testutil.ToFloat64(m.trainings), 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if n := testutil.CollectAndCount(m.credits); n != 2 {
		t.Errorf("credit series: got %d, want 2 (a charge of 0 adds none)", n)
	}
	if n := testutil.CollectAndCount(m.duration); n != 5 {
		t.Errorf("duration series: got %d, want 5", n)
	}
}

func TestEngineAndQueue(t *testing.T) {
	m := New()
	ready := false
	m.WatchEngine(func() bool { return ready })
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var statsErr error
	m.reg.MustRegister(&queueCollector{
		stats: func(ctx context.Context) (map[string]int64, time.Time, error) {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("queue stats read without a deadline")
			}
			return map[string]int64{"pending": 3, "completed": 9}, now.Add(-90 * time.Second), statsErr
		},
		statuses: []string{"pending", "processing", "completed"},
		now:      func() time.Time { return now },
	})

	want := `
# HELP valuator_batch_jobs Batch jobs in the database, by status (all instances).
# TYPE valuator_batch_jobs gauge
valuator_batch_jobs{status="completed"} 9
valuator_batch_jobs{status="pending"} 3
valuator_batch_jobs{status="processing"} 0
# HELP valuator_batch_oldest_pending_seconds Age of the oldest pending batch job (0 when none is pending).
# TYPE valuator_batch_oldest_pending_seconds gauge
valuator_batch_oldest_pending_seconds 90
# HELP valuator_engine_ready 1 when the valuation engine is loaded and answers lookups, 0 while it loads.
# TYPE valuator_engine_ready gauge
valuator_engine_ready 0
`
	names := []string{"valuator_batch_jobs", "valuator_batch_oldest_pending_seconds", "valuator_engine_ready"}
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	ready = true
	if err := testutil.GatherAndCompare(m.reg, strings.NewReader(strings.Replace(want, "ready 0", "ready 1", 1)), names...); err != nil {
		t.Error(err)
	}

	// A failing database costs the queue's series, not the scrape: the handler still answers with the rest.
	statsErr = errors.New("database down")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "valuator_engine_ready 1") {
		t.Errorf("scrape with a failing collector: got %d\n%s", rec.Code, rec.Body)
	}
}

func TestWatchDB(t *testing.T) {
	m := New()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Skip(err)
	}
	defer db.Close()
	m.WatchDB("valuator", db)
	if n, err := testutil.GatherAndCount(m.reg, "go_sql_max_open_connections"); err != nil || n != 1 {
		t.Errorf("go_sql_max_open_connections: got %d series (%v), want 1", n, err)
	}
}

// BenchmarkObserveRequest is the cost the metrics add to every request.
func BenchmarkObserveRequest(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRequest("GET /api/v1/property/valuation", 200, 3*time.Millisecond)
	}
}
