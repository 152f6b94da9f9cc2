package server

import (
	"net/http"
	"testing"
	"time"

	"valuator/internal/testdb"
)

// TestReadyzWhileDraining: once the drain starts, /readyz answers 503 `draining` with Retry-After, and every other
// route keeps answering as before (a sign-up, a profile read, the liveness probe).
func TestReadyzWhileDraining(t *testing.T) {
	d := &Drain{}
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.drain = d })
	expectStatus(t, a.do(req{method: "GET", path: "/readyz"}), http.StatusOK)
	token, _ := a.register("drain@example.com", "drain-pass-123", "Drain Test")

	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	d.Start(start)
	d.Start(start.Add(time.Minute)) // a second signal does not move the start
	if on, since := d.Draining(); !on || !since.Equal(start) {
		t.Errorf("Draining() = %v, %v; want true since %v", on, since, start)
	}
	r := a.do(req{method: "GET", path: "/readyz"})
	expectStatus(t, r, http.StatusServiceUnavailable)
	if e := r.errBody(t); e.Code != "draining" || e.RetryAfter != 5 {
		t.Errorf("readyz while draining: %s, want code draining and retryAfter 5", r.body)
	}
	if got := r.header.Get("Retry-After"); got != "5" {
		t.Errorf("Retry-After = %q, want 5", got)
	}
	expectStatus(t, a.do(req{method: "GET", path: "/healthz"}), http.StatusOK)
	expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusOK)
	a.register("drain2@example.com", "drain-pass-123", "Drain Two")

	// A server without a drain (nil) never drains.
	var none *Drain
	none.Start(start)
	if on, _ := none.Draining(); on {
		t.Error("a nil Drain drains")
	}
}
