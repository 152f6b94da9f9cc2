package server

import (
	"fmt"
	"net/http"
	"testing"

	"valuator/internal/metrics"
	"valuator/internal/testdb"
)

// TestRequestMetrics: requests are counted by the pattern of the route they matched (never their path), pages of
// the app and unknown paths each under one label; charged valuations by matchCode, with their credits.
func TestRequestMetrics(t *testing.T) {
	m := metrics.New()
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle, func(o *appOptions) { o.metrics = m })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	k := a.createKey(token, "Production", 100)
	expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)
	expectStatus(t, a.public("vk_live_nope", fortieth), http.StatusUnauthorized)
	for id := range 3 {
		expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d", 1000+id), token: token}), http.StatusNotFound)
	}
	expectStatus(t, a.do(req{method: "GET", path: "/history", noContract: true}), http.StatusOK)
	expectStatus(t, a.do(req{method: "GET", path: "/api/no-such-thing", noContract: true}), http.StatusNotFound)
	expectStatus(t, a.do(req{method: "DELETE", path: "/api/jobs", noContract: true}), http.StatusMethodNotAllowed)

	count := func(labels ...string) float64 {
		return counterValue(t, m, "valuator_http_requests_total", labels...)
	}
	for _, tt := range []struct {
		route, status string
		want          float64
	}{
		{"GET /api/v1/property/valuation", "200", 1},
		{"GET /api/v1/property/valuation", "401", 1},
		{"GET /api/jobs/{id}", "404", 3},
		{"POST /api/api-keys", "201", 1},
		{metrics.RouteSPA, "200", 1},
		{metrics.RouteUnmatched, "404", 1},
		{metrics.RouteUnmatched, "405", 1},
	} {
		if got := count(tt.route, tt.status); got != tt.want {
			t.Errorf("requests{route=%q,status=%s} = %v, want %v", tt.route, tt.status, got, tt.want)
		}
	}
	if got := counterValue(t, m, "valuator_valuations_total", "exact"); got != 1 {
		t.Errorf("valuations{match_code=exact} = %v, want 1", got)
	}
	if got := counterValue(t, m, "valuator_credits_charged_total", "property_valuation"); got != 1 {
		t.Errorf("credits{service=property_valuation} = %v, want 1", got)
	}

	// A batch job of 5 homes and one address with no market data: the worker counts 5 rows valued (and their
	// credits) and 1 failed.
	rq := multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(5), nil)
	rq.header = map[string]string{"x-api-key": k.Value}
	r := a.do(rq)
	expectStatus(t, r, http.StatusAccepted)
	var st struct{ JobID int64 }
	r.json(t, &st)
	a.waitJob(token, st.JobID, "completed")
	for _, tt := range []struct {
		name, label string
		want        float64
	}{
		{"valuator_batch_rows_total", "valued", 5},
		{"valuator_batch_rows_total", "failed", 1},
		{"valuator_credits_charged_total", "batch", 5},
	} {
		if got := counterValue(t, m, tt.name, tt.label); got != tt.want {
			t.Errorf("%s{%s} = %v, want %v", tt.name, tt.label, got, tt.want)
		}
	}
}

// counterValue is the value of one series of a counter, found by its label values (0 when there is none).
func counterValue(t *testing.T, m *metrics.Metrics, name string, values ...string) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, s := range mf.GetMetric() {
			if len(s.GetLabel()) != len(values) {
				continue
			}
			// Gather sorts labels by name; match them as a set.
			for _, l := range s.GetLabel() {
				found := false
				for _, v := range values {
					found = found || l.GetValue() == v
				}
				if !found {
					continue series
				}
			}
			return s.GetCounter().GetValue()
		}
	}
	return 0
}
