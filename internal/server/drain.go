package server

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Drain is the one switch of a server told to stop (SIGTERM): from Start on, GET /readyz answers 503 (code
// `draining`) so that load balancers take the instance out of their pools, while every other route keeps serving
// as before. Connections are then closed after each response (run.go turns keep-alives off as it starts the
// drain), so a load balancer's persistent connections move to the other instances. The zero value is not draining.
type Drain struct {
	since atomic.Pointer[time.Time]
	// RetryAfter is what /readyz tells a caller to wait while draining (0: DrainRetryAfter).
	RetryAfter time.Duration
}

// DrainRetryAfter is the Retry-After of /readyz while draining: an instance that drains does not come back, but a
// new one is usually started in its place within a few seconds.
const DrainRetryAfter = 5 * time.Second

// Start begins the drain (once; later calls keep the first start).
func (d *Drain) Start(now time.Time) {
	if d == nil {
		return
	}
	d.since.CompareAndSwap(nil, &now)
}

// Draining reports whether the drain has begun, and since when.
func (d *Drain) Draining() (bool, time.Time) {
	if d == nil {
		return false, time.Time{}
	}
	if t := d.since.Load(); t != nil {
		return true, *t
	}
	return false, time.Time{}
}

// retryAfter is the Retry-After value in whole seconds (at least 1).
func (d *Drain) retryAfter() int {
	ra := d.RetryAfter
	if ra <= 0 {
		ra = DrainRetryAfter
	}
	return max(1, int((ra+time.Second-1)/time.Second))
}

// answerDraining answers /readyz while the server drains: 503 with Retry-After. It is not logged per request (a
// load balancer asks several times a second); run.go logs the drain once.
func (s *Server) answerDraining(w http.ResponseWriter, r *http.Request) bool {
	on, _ := s.drain.Draining()
	if !on {
		return false
	}
	secs := s.drain.retryAfter()
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "This instance is shutting down; send requests to another one.",
		Code: "draining", RequestID: requestIDFrom(r.Context()), RetryAfter: secs})
	return true
}
