package server

import (
	"net/http"
	"testing"
	"time"

	vclock "valuator/internal/clock"
	"valuator/internal/testdb"
)

// TestDevClockLetsTimePass: a development server started on a chosen day (VALUATOR_CLOCK) lets a test move its clock
// forward (POST /api/dev/clock) instead of sleeping; the step is bounded and never backwards, and a server on the
// wall clock, or in production, has no such route.
func TestDevClockLetsTimePass(t *testing.T) {
	start := time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)
	clk := vclock.Starting(start)
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.devClock = clk })

	r := a.do(req{method: "POST", path: "/api/dev/clock", body: map[string]string{"advance": "25h"}, noContract: true})
	if r.status != http.StatusOK {
		t.Fatalf("advance 25h: %d %s", r.status, r.body)
	}
	var got struct{ Now time.Time }
	r.json(t, &got)
	if want := start.Add(25 * time.Hour); got.Now.Before(want) || got.Now.Sub(want) > time.Minute {
		t.Errorf("the clock reads %s after 25 hours, want just after %s", got.Now, want)
	}
	if now := clk.Now(); now.Year() != 2027 || now.YearDay() != 2 {
		t.Errorf("the server's clock reads %s, want 2027-01-02", now)
	}
	// GET reads it (the end-to-end tests set the browser's clock to it).
	r = a.do(req{method: "GET", path: "/api/dev/clock", noContract: true})
	var read struct{ Now time.Time }
	if r.json(t, &read); r.status != http.StatusOK || read.Now.Before(got.Now) || read.Now.Sub(got.Now) > time.Minute {
		t.Errorf("GET /api/dev/clock: %d %s, want the clock's time %s", r.status, r.body, got.Now)
	}

	for _, advance := range []any{"-1h", "0s", "soon", "9601h", "", 5} {
		r := a.do(req{method: "POST", path: "/api/dev/clock", body: map[string]any{"advance": advance}, noContract: true,
			badRequest: true})
		if e := r.errBody(t); r.status != http.StatusBadRequest || e.Field != "advance" {
			t.Errorf("advance %v: %d %s, want 400 naming advance", advance, r.status, r.body)
		}
	}
	if now := clk.Now(); now.Sub(start) > 26*time.Hour {
		t.Errorf("refused steps moved the clock to %s", now)
	}

	for name, opt := range map[string]func(*appOptions){
		"wall clock": func(o *appOptions) { o.devClock = vclock.Wall() },
		"no clock":   func(*appOptions) {},
		"production": func(o *appOptions) { o.production, o.devClock = true, vclock.Starting(start) },
	} {
		a := newTestApp(t, testdb.SQLiteURL(t), opt)
		r := a.do(req{method: "POST", path: "/api/dev/clock", body: map[string]string{"advance": "1h"}, noContract: true})
		if r.status == http.StatusOK {
			t.Errorf("%s: POST /api/dev/clock = 200, want no such route", name)
		}
		if r := a.do(req{method: "GET", path: "/api/dev/clock", noContract: true}); r.status == http.StatusOK {
			t.Errorf("%s: GET /api/dev/clock = 200, want no such route", name)
		}
	}
}

// TestDevRevalueRunsTheMonthNow: a development server on a chosen clock runs the portfolios' monthly revaluation on
// POST /api/dev/portfolios/revalue (the end-to-end test of alerts uses it after moving the clock a month); each home
// is valued once a month however often it is called, and a production server has no such route.
func TestDevRevalueRunsTheMonthNow(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle, func(o *appOptions) { o.devClock = vclock.Starting(time.Now()) })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	r := a.do(req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "Rentals",
		"alertThreshold": 0.1, "properties": []map[string]any{{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}}}})
	expectStatus(t, r, http.StatusCreated)

	a.clock.Advance(31 * 24 * time.Hour) // March to April
	type report struct {
		Month          string
		Valued, Failed int
	}
	var rep report
	r = a.do(req{method: "POST", path: "/api/dev/portfolios/revalue", noContract: true})
	if r.json(t, &rep); r.status != http.StatusOK || rep.Month != "2026-04" || rep.Valued != 1 {
		t.Fatalf("revalue: %d %s, want April's run valuing the one home", r.status, r.body)
	}
	r = a.do(req{method: "POST", path: "/api/dev/portfolios/revalue", noContract: true})
	if r.json(t, &rep); r.status != http.StatusOK || rep.Valued != 0 {
		t.Errorf("revalue again: %d %s, want nothing valued twice in a month", r.status, r.body)
	}

	p := newTestApp(t, testdb.SQLiteURL(t), withSeattle, func(o *appOptions) { o.production, o.devClock = true, vclock.Starting(time.Now()) })
	if r := p.do(req{method: "POST", path: "/api/dev/portfolios/revalue", noContract: true}); r.status == http.StatusOK {
		t.Errorf("production: POST /api/dev/portfolios/revalue = 200, want no such route")
	}
}
