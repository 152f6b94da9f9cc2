package server

import (
	"net/http"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/credit"
	"valuator/internal/examples/example"
	"valuator/internal/ratelimit"
)

// exampleLimit bounds GET /api/example per client address, as the public forms are bounded. The answer is almost
// always the valuation cache's (one entry a day for the one home), so the limit is there for the rare miss and
// for loops, and is high enough for a visitor's pages and for an office behind one address.
var exampleLimit = ratelimit.PerMinute(300)

// errExampleUnavailable: this server's market has no record of the example home (a production install with real
// records), so the screens show the generated example, labelled with its day.
var errExampleUnavailable = apperr.NotFound("example_unavailable",
	"This server's market has no record of the example home "+example.Home.Line())

// exampleValuation answers the example valuation the product's pages show, live: the lookup a real call for
// example.Home makes, through the same valuation service and at the same clock (so from the same per-day cache
// entry), trimmed to the example's size as the generated example is. It reads nothing of the request (no query,
// no body), so a long query string costs nothing, and it charges nothing. Its meta is that of a real call by a new
// Free account: 1 credit used, the rest of the Free plan's credits remaining.
func (s *Server) exampleValuation(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	res, err := s.valuation.Lookup(r.Context(), example.Home.Input())
	if e, ok := apperr.As(err); ok && e.Kind == apperr.KindNotFound {
		err = errExampleUnavailable
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f := example.Live(res)
	res.Meta.RequestID = requestIDFrom(r.Context())
	res.Meta.Timestamp = s.now().UTC().Format(time.RFC3339)
	res.Meta.ResponseTime = time.Since(start).Milliseconds()
	res.Meta.CreditsUsed = credit.ValuationCost
	res.Meta.CreditsRemaining = billing.Get(billing.Free).Credits - credit.ValuationCost
	// The answer changes with the day and with the market: every page load asks again.
	w.Header().Set("Cache-Control", "no-cache")
	writeJSON(w, http.StatusOK, f)
}
