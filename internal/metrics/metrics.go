// Package metrics holds the Prometheus metrics of a valuator process (serve or worker) on a registry of its own, and
// the small methods the rest of the code calls to update them. A nil *Metrics is valid and does nothing, so code
// paths and tests without metrics need no special case.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Route labels of requests that matched no route of the API.
const (
	RouteSPA       = "spa"       // a page of the single-page app (any GET outside /api/)
	RouteUnmatched = "unmatched" // anything else: an unknown /api/ path, a method not allowed
)

// Metrics is one process's metrics.
type Metrics struct {
	reg *prometheus.Registry

	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	outOfCredits *prometheus.CounterVec
	rateLimited  *prometheus.CounterVec
	valuations   *prometheus.CounterVec
	credits      *prometheus.CounterVec
	batchRows    *prometheus.CounterVec
	training     prometheus.Gauge
	trainings    prometheus.Counter
}

// New returns metrics on a new registry that also holds the Go runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_http_requests_total",
			Help: "HTTP requests answered, by route (the mux pattern, or spa/unmatched) and status code.",
		}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "valuator_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route and status code.",
			// From a cached lookup (a millisecond) to a large upload (tens of seconds).
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "status"}),
		outOfCredits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_http_payment_required_total",
			Help: "Requests refused with 402 (out of credits or over the overage limit), by route.",
		}, []string{"route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_http_rate_limited_total",
			Help: "Requests refused with 429 (rate limits, form limits, busy spreadsheet readers), by route.",
		}, []string{"route"}),
		valuations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_valuations_total",
			Help: "Single property valuations charged (dashboard and public API), by matchCode.",
		}, []string{"match_code"}),
		credits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_credits_charged_total",
			Help: "Credits charged, by service (property_valuation, person_lookup, batch).",
		}, []string{"service"}),
		batchRows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "valuator_batch_rows_total",
			Help: "Batch rows saved by this process's workers, by outcome (valued: charged; failed: not valued, free).",
		}, []string{"outcome"}),
		training: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "valuator_engine_training_seconds",
			Help: "How long the last training of the valuation engine took in this process (0: restored, never trained).",
		}),
		trainings: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "valuator_engine_trainings_total",
			Help: "Trainings of the valuation engine in this process.",
		}),
	}
	reg.MustRegister(m.requests, m.duration, m.outOfCredits, m.rateLimited, m.valuations, m.credits, m.batchRows,
		m.training, m.trainings,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Both outcomes exist from the start, so that a rate of failed rows is 0 rather than absent.
	m.batchRows.WithLabelValues("valued")
	m.batchRows.WithLabelValues("failed")
	return m
}

// Registry is the registry the metrics are on (tests read it; more collectors may be added).
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the metrics in Prometheus' exposition format.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A failing collector (the database down) costs its own series, not the whole scrape.
		ErrorHandling:       promhttp.ContinueOnError,
		Timeout:             10 * time.Second,
		MaxRequestsInFlight: 4,
	})
}

// statusText holds the status codes as label values, so that a request does not format its code.
var statusText = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// ObserveRequest counts an answered request and its duration. route is the mux pattern ("GET /api/jobs/{id}"),
// never the raw path, or RouteSPA / RouteUnmatched.
func (m *Metrics) ObserveRequest(route string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if status == 0 {
		status = http.StatusOK // a handler that wrote nothing: net/http answers 200
	}
	code := "other"
	if status > 0 && status < len(statusText) {
		code = statusText[status]
	}
	m.requests.WithLabelValues(route, code).Inc()
	m.duration.WithLabelValues(route, code).Observe(d.Seconds())
	switch status {
	case http.StatusPaymentRequired:
		m.outOfCredits.WithLabelValues(route).Inc()
	case http.StatusTooManyRequests:
		m.rateLimited.WithLabelValues(route).Inc()
	}
}

// Valuation counts a charged single valuation by its matchCode.
func (m *Metrics) Valuation(matchCode string) {
	if m == nil {
		return
	}
	if matchCode == "" {
		matchCode = "none"
	}
	m.valuations.WithLabelValues(matchCode).Inc()
}

// Credits counts credits charged for a service (usage.ServiceValuation, ServicePersonLookup or ServiceBatch).
func (m *Metrics) Credits(service string, n int64) {
	if m == nil || n <= 0 {
		return
	}
	m.credits.WithLabelValues(service).Add(float64(n))
}

// BatchRows counts rows of a batch job saved by a worker: valued (charged) and failed (not valued).
func (m *Metrics) BatchRows(valued, failed int) {
	if m == nil {
		return
	}
	if valued > 0 {
		m.batchRows.WithLabelValues("valued").Add(float64(valued))
	}
	if failed > 0 {
		m.batchRows.WithLabelValues("failed").Add(float64(failed))
	}
}

// EngineTrained records a training of the valuation engine and how long it took.
func (m *Metrics) EngineTrained(d time.Duration) {
	if m == nil {
		return
	}
	m.training.Set(d.Seconds())
	m.trainings.Inc()
}

// WatchEngine exposes valuator_engine_ready: 1 when the engine answers lookups, 0 while it loads.
func (m *Metrics) WatchEngine(ready func() bool) {
	if m == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "valuator_engine_ready",
		Help: "1 when the valuation engine is loaded and answers lookups, 0 while it loads.",
	}, func() float64 {
		if ready() {
			return 1
		}
		return 0
	}))
}

// WatchDB exposes the connection pool statistics of db (go_sql_* series labelled db_name=name).
func (m *Metrics) WatchDB(name string, db *sql.DB) {
	if m == nil || db == nil {
		return
	}
	m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
}

// QueueStats reports how many batch jobs are in each status, and when the oldest pending job was created (zero
// when none is pending).
type QueueStats func(ctx context.Context) (byStatus map[string]int64, oldestPending time.Time, err error)

// WatchBatchQueue exposes the batch jobs by status and the age of the oldest pending one, read from the database
// at each scrape (within queueTimeout, so that a slow database cannot hang the scrape). statuses are reported
// even when no job has them (0).
func (m *Metrics) WatchBatchQueue(stats QueueStats, statuses []string) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&queueCollector{stats: stats, statuses: statuses, now: time.Now})
}

const queueTimeout = 3 * time.Second

var (
	queueJobsDesc = prometheus.NewDesc("valuator_batch_jobs",
		"Batch jobs in the database, by status (all instances).", []string{"status"}, nil)
	queueOldestDesc = prometheus.NewDesc("valuator_batch_oldest_pending_seconds",
		"Age of the oldest pending batch job (0 when none is pending).", nil, nil)
)

type queueCollector struct {
	stats    QueueStats
	statuses []string
	now      func() time.Time
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueJobsDesc
	ch <- queueOldestDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueTimeout)
	defer cancel()
	counts, oldest, err := c.stats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(queueJobsDesc, err)
		return
	}
	for _, s := range c.statuses {
		if _, ok := counts[s]; !ok {
			ch <- prometheus.MustNewConstMetric(queueJobsDesc, prometheus.GaugeValue, 0, s)
		}
	}
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(queueJobsDesc, prometheus.GaugeValue, float64(n), s)
	}
	age := 0.0
	if !oldest.IsZero() {
		age = max(0, c.now().Sub(oldest).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(queueOldestDesc, prometheus.GaugeValue, age)
}
