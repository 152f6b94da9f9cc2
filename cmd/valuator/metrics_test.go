package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"valuator/internal/testmarket"
)

// TestServeExposesMetrics runs `valuator serve` with VALUATOR_METRICS_ADDR, makes a few calls of the public API,
// and scrapes /metrics on that address as Prometheus would: the calls are counted by route and status, the
// valuation by its matchCode with its credit, the engine is ready with its training time, and the database pools
// and batch queue are reported. The public listener does not serve /metrics.
func TestServeExposesMetrics(t *testing.T) {
	dir := t.TempDir()
	dbURL := "sqlite://" + filepath.Join(dir, "v.db")
	seedSmallMarket(t, dbURL)
	metricsAddr := freeAddr(t)
	srv := startServeFor(t, map[string]string{"VALUATOR_DATA_DIR": dir, "VALUATOR_DATABASE_URL": dbURL,
		"VALUATOR_METRICS_ADDR": metricsAddr}, 2*time.Minute)
	defer srv.stop(t)

	// A customer with two keys: one of 1 call a minute, to be refused a second call.
	body, _ := json.Marshal(map[string]string{"email": "ops@example.com", "password": "metrics-pass-123", "fullName": "Ops"})
	res, err := http.Post(srv.url+"/api/auth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var auth struct{ Token string }
	decode(t, res, http.StatusCreated, &auth)
	key := func(name string, limit int) string {
		body, _ := json.Marshal(map[string]any{"name": name, "rateLimit": limit})
		req, _ := http.NewRequest("POST", srv.url+"/api/api-keys", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+auth.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var k struct {
			Value string `json:"keyValue"`
		}
		decode(t, res, http.StatusCreated, &k)
		return k.Value
	}
	prod, slow := key("Production", 60), key("Slow", 1)
	value := func(key string, want int) {
		t.Helper()
		q := url.Values{"address": {"1000 N 40th St"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98103"}}
		req, _ := http.NewRequest("GET", srv.url+"/api/v1/property/valuation?"+q.Encode(), nil)
		req.Header.Set("x-api-key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		decode(t, res, want, nil)
	}
	value(prod, http.StatusOK)
	value(prod, http.StatusOK)
	value(slow, http.StatusOK)
	value(slow, http.StatusTooManyRequests)
	for id := range 2 {
		decode(t, get(t, fmt.Sprintf("%s/api/jobs/%d", srv.url, 100+id), auth.Token), http.StatusNotFound, nil)
	}

	// /metrics is not on the public listener: there it is a page of the app (or a 404 without a built app).
	res = get(t, srv.url+"/metrics", "")
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(b), "valuator_http_requests_total") {
		t.Fatalf("the public listener serves the metrics")
	}

	mf := scrape(t, "http://"+metricsAddr+"/metrics")
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"valuator_http_requests_total", map[string]string{"route": "GET /api/v1/property/valuation", "status": "200"}, 3},
		{"valuator_http_requests_total", map[string]string{"route": "GET /api/v1/property/valuation", "status": "429"}, 1},
		{"valuator_http_requests_total", map[string]string{"route": "GET /api/jobs/{id}", "status": "404"}, 2},
		{"valuator_http_requests_total", map[string]string{"route": "spa"}, 1},
		{"valuator_http_request_duration_seconds", map[string]string{"route": "GET /api/v1/property/valuation", "status": "200"}, 3},
		{"valuator_http_rate_limited_total", map[string]string{"route": "GET /api/v1/property/valuation"}, 1},
		{"valuator_valuations_total", map[string]string{"match_code": "exact"}, 3},
		{"valuator_credits_charged_total", map[string]string{"service": "property_valuation"}, 3},
		{"valuator_engine_ready", nil, 1},
		{"valuator_engine_trainings_total", nil, 1},
		{"valuator_batch_jobs", map[string]string{"status": "pending"}, 0},
		{"valuator_batch_oldest_pending_seconds", nil, 0},
		{"valuator_batch_rows_total", map[string]string{"outcome": "valued"}, 0},
		{"go_sql_max_open_connections", map[string]string{"db_name": "valuator_writer"}, 1},
	} {
		got, ok := sample(mf[tt.name], tt.labels)
		if !ok {
			t.Errorf("%s%v: no such series", tt.name, tt.labels)
		} else if got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	if got, _ := sample(mf["valuator_engine_training_seconds"], nil); got <= 0 {
		t.Errorf("valuator_engine_training_seconds = %v, want the training's time", got)
	}
	if got, _ := sample(mf["go_sql_open_connections"], map[string]string{"db_name": "valuator"}); got < 1 {
		t.Errorf("go_sql_open_connections{db_name=valuator} = %v, want at least 1", got)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes"} {
		if mf[name] == nil {
			t.Errorf("no %s (the Go runtime and process collectors)", name)
		}
	}
	// Only /metrics is served there.
	decode(t, get(t, "http://"+metricsAddr+"/", ""), http.StatusNotFound, nil)
}

// TestMetricsAddrIsValidated: a VALUATOR_METRICS_ADDR that is not an address stops the start, naming it.
func TestMetricsAddrIsValidated(t *testing.T) {
	dir := t.TempDir()
	env := envFrom(map[string]string{"VALUATOR_DATA_DIR": dir, "VALUATOR_DEMO": "false", "VALUATOR_ADDR": "127.0.0.1:0",
		"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"), "VALUATOR_METRICS_ADDR": "9090"})
	var out, logs syncBuffer
	if err := run(context.Background(), nil, env, &out, &logs); err == nil || !strings.Contains(err.Error(), "VALUATOR_METRICS_ADDR") {
		t.Errorf("run() = %v, want an error naming VALUATOR_METRICS_ADDR", err)
	}
}

// scrape reads a Prometheus text exposition as a scraper would.
func scrape(t *testing.T, u string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", u, err)
	}
	return mf
}

// sample is the value of the first series of mf whose labels include labels: a counter's or gauge's value, a
// histogram's count.
func sample(mf *dto.MetricFamily, labels map[string]string) (float64, bool) {
	if mf == nil {
		return 0, false
	}
series:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

// seedSmallMarket imports testmarket.Seattle, a few hundred homes with sales around 1000 N 40th St, Seattle:
// enough for the engine to train in seconds.
func seedSmallMarket(t *testing.T, dbURL string) {
	t.Helper()
	recs, err := testmarket.Seattle()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testStore(t, dbURL).ImportRecords(context.Background(), "test", recs, testmarket.Start); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerExposesMetrics: `valuator worker` serves /metrics on VALUATOR_METRICS_ADDR too, from the start.
func TestWorkerExposesMetrics(t *testing.T) {
	dir := t.TempDir()
	metricsAddr := freeAddr(t)
	env := envFrom(map[string]string{"VALUATOR_DATA_DIR": dir, "VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"),
		"VALUATOR_METRICS_ADDR": metricsAddr})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var out, logs syncBuffer
	go func() { done <- run(ctx, []string{"worker"}, env, &out, &logs) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "worker is running") {
		if time.Now().After(deadline) {
			t.Fatalf("the worker did not start:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	mf := scrape(t, "http://"+metricsAddr+"/metrics")
	for _, name := range []string{"valuator_engine_ready", "valuator_batch_jobs", "valuator_batch_rows_total", "go_sql_open_connections"} {
		if mf[name] == nil {
			t.Errorf("worker: no %s", name)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("worker: %v", err)
	}
	if _, err := http.Get("http://" + metricsAddr + "/metrics"); err == nil {
		t.Error("metrics still served after the worker stopped")
	}
}
