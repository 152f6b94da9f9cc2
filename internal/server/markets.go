package server

import (
	"net/http"
	"time"

	"valuator/internal/market"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// marketsOf reads a market statistics call's query (validated by the service, which names the bad field). A body on
// this GET is refused as on the public valuation: it would be silently ignored.
func marketsOf(r *http.Request) (valuation.MarketInput, error) {
	q := r.URL.Query()
	in := valuation.MarketInput{ZIP: q["zip"], HistoryMonths: q.Get("historyMonths"), PropertyType: q.Get("propertyType")}
	return in, refuseBody(r, r.URL.Path+"?zip=...")
}

// The four market statistics routes: the public API (API key) and the dashboard (session), one ZIP or a comparison.
func (s *Server) publicMarket(w http.ResponseWriter, r *http.Request) { s.marketsByKey(w, r, false) }
func (s *Server) publicMarketCompare(w http.ResponseWriter, r *http.Request) {
	s.marketsByKey(w, r, true)
}
func (s *Server) dashboardMarket(w http.ResponseWriter, r *http.Request) {
	s.marketsBySession(w, r, false)
}
func (s *Server) dashboardMarketCompare(w http.ResponseWriter, r *http.Request) {
	s.marketsBySession(w, r, true)
}

func (s *Server) marketsByKey(w http.ResponseWriter, r *http.Request, compare bool) {
	p := keyFrom(r.Context())
	s.meteredMarkets(w, r, callOf(r, p.userID, p.keyID, p.keyName, "GET "+r.URL.Path, time.Now()), compare)
}

func (s *Server) marketsBySession(w http.ResponseWriter, r *http.Request, compare bool) {
	u := userFrom(r.Context()).user
	if !s.spendAccount(w, r, u) {
		return
	}
	s.meteredMarkets(w, r, callOf(r, u.ID, 0, "", "GET "+r.URL.Path, time.Now()), compare)
}

// meteredMarkets answers the call and charges for it (valuation.Service.MeteredMarkets): {"data": Market} for one
// ZIP, {"data": {"markets", "notFound"}} for a comparison, with the meta of a valuation.
func (s *Server) meteredMarkets(w http.ResponseWriter, r *http.Request, call usage.Call, compare bool) {
	in, err := marketsOf(r)
	if err != nil {
		s.writeError(w, r, s.valuation.RefusedMarkets(r.Context(), call, in, err))
		return
	}
	ans, err := s.valuation.MeteredMarkets(r.Context(), call, in, compare)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.metrics.Credits(usage.ServiceMarket, ans.Meta.CreditsUsed)
	var data any = ans.Markets[0]
	if compare {
		data = struct {
			Markets  []*market.Market `json:"markets"`
			NotFound []string         `json:"notFound"`
		}{ans.Markets, ans.NotFound}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "meta": ans.Meta})
}
