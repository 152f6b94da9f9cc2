package server

import (
	"net/http"
	"time"

	"valuator/internal/apperr"
)

// devRoutes are the routes a development server run on a chosen clock (VALUATOR_CLOCK) adds for its tests. They are
// not part of the API contract: a production server, or one on the wall clock, never has them.
func (s *Server) devRoutes() []route {
	if s.clock == nil || !s.clock.Settable() || !s.cfg.Dev() {
		return nil
	}
	routes := []route{{"GET", "/api/dev/clock", s.readClock}, {"POST", "/api/dev/clock", s.advanceClock}}
	if s.portfolios != nil {
		routes = append(routes, route{"POST", "/api/dev/portfolios/revalue", s.revalueNow})
	}
	return routes
}

// revalueNow runs the portfolios' monthly revaluation at once (the periodic job's work, portfolio.Service.Revalue) for
// the month the clock reads, and answers what it did. An end-to-end test moves the clock a month and calls it rather
// than waiting up to an hour for the job (jobs.RevalueInterval). Each home is still valued and charged once a month.
func (s *Server) revalueNow(w http.ResponseWriter, r *http.Request) {
	rep, err := s.portfolios.Revalue(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"month": rep.Month, "valued": rep.Valued, "skipped": rep.Skipped,
		"failed": rep.Failed, "paused": rep.Paused, "resumed": rep.Resumed, "alerts": rep.Alerts, "finished": rep.Finished})
}

// readClock answers the time the server's clock reads: the end-to-end tests set the browser's clock to it, so that
// what the page computes from "now" (a request made "just now", the days left in a billing period) agrees with
// what the server recorded, on whatever day the suite runs.
func (s *Server) readClock(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"now": s.clock.Now().Format(time.RFC3339Nano)})
}

// maxAdvance bounds one step of the clock: enough for a billing period or a weekly report, not a slip of a digit.
const maxAdvance = 400 * 24 * time.Hour

// advanceClock lets time pass on the server's clock ({"advance": "25h"}) and answers the time it now reads. An
// end-to-end test uses it instead of sleeping (a payment's expiry, a billing period's end).
func (s *Server) advanceClock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Advance string `json:"advance"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := time.ParseDuration(in.Advance)
	if err != nil || d <= 0 || d > maxAdvance {
		s.writeError(w, r, apperr.Invalid("advance", "advance must be a duration from 1ns to 9600h such as 25h"))
		return
	}
	if err := s.clock.Advance(d); err != nil {
		s.writeError(w, r, apperr.Invalid("advance", err.Error()))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"now": s.clock.Now().Format(time.RFC3339Nano)})
}
