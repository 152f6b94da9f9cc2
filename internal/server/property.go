package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/text"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// callOf is the metered call of the request, made by who through endpoint, arriving at start.
func callOf(r *http.Request, userID, keyID int64, keyName, endpoint string, start time.Time) usage.Call {
	return usage.Call{UserID: userID, APIKeyID: keyID, APIKeyName: keyName, Endpoint: endpoint,
		RequestID: requestIDFrom(r.Context()), ClientRequestID: clientRequestIDFrom(r.Context()), Start: start}
}

func (s *Server) lookupProperty(w http.ResponseWriter, r *http.Request) {
	call := callOf(r, userFrom(r.Context()).user.ID, 0, "", "POST /api/property/lookup", time.Now())
	var in valuation.Input
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, s.valuation.Refused(r.Context(), call, in, err))
		return
	}
	s.meteredValuation(w, r, call, in)
}

func (s *Server) publicValuation(w http.ResponseWriter, r *http.Request) {
	p := keyFrom(r.Context())
	call := callOf(r, p.userID, p.keyID, p.keyName, "GET /api/v1/property/valuation", time.Now())
	in, err := queryInput(r)
	if err != nil {
		s.writeError(w, r, s.valuation.Refused(r.Context(), call, in, err))
		return
	}
	s.meteredValuation(w, r, call, in)
}

// refuseBody refuses a body on a GET that reads its query (the public valuation, market statistics): callers that
// send JSON expect it to be read, and it would be silently ignored. example is the call as it should be made.
func refuseBody(r *http.Request, example string) error {
	if r.ContentLength > 0 || len(r.TransferEncoding) > 0 || strings.Contains(r.Header.Get("Content-Type"), "json") {
		return apperr.Invalid("body", "Use GET with query parameters and no JSON body: "+example)
	}
	return nil
}

// queryInput reads the public endpoint's query parameters. A body on this GET is refused: callers that send JSON
// expect it to be read, and it would be silently ignored.
func queryInput(r *http.Request) (valuation.Input, error) {
	q := r.URL.Query()
	in := valuation.Input{Address: q.Get("address"), City: q.Get("city"), State: q.Get("state"), ZIP: q.Get("zip")}
	if err := refuseBody(r, "/api/v1/property/valuation?address=...&city=...&state=...&zip=..."); err != nil {
		return in, err
	}
	var v apperr.Validation
	for _, name := range []string{"address", "city", "state", "zip", "propertyType"} {
		if p := text.Problem(q.Get(name)); p != "" {
			v.Add(name, name+" "+p)
		}
	}
	num := func(name string, dst **float64) {
		s := strings.TrimSpace(q.Get(name))
		if s == "" {
			return
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			v.Add(name, name+" must be a number")
			return
		}
		*dst = &f
	}
	num("bedrooms", &in.Bedrooms)
	num("bathrooms", &in.Bathrooms)
	num("squareFeet", &in.SquareFeet)
	num("yearBuilt", &in.YearBuilt)
	num("lotSize", &in.LotSize)
	if t := q.Get("propertyType"); t != "" {
		in.PropertyType = &t
	}
	return in, v.Err()
}

// meteredValuation values the input and charges for it (valuation.Service.Metered).
func (s *Server) meteredValuation(w http.ResponseWriter, r *http.Request, call usage.Call, in valuation.Input) {
	res, err := s.valuation.Metered(r.Context(), call, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.metrics.Valuation(res.Property.MatchCode)
	s.metrics.Credits(usage.ServiceValuation, credit.ValuationCost)
	writeJSON(w, http.StatusOK, map[string]any{"data": res})
}

func (s *Server) downloadReport(w http.ResponseWriter, r *http.Request) {
	var in struct {
		PropertyData *valuation.ReportData `json:"propertyData"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var data valuation.ReportData
	if in.PropertyData != nil {
		data = *in.PropertyData
	}
	if err := data.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	csv, err := valuation.Report(data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="property-report-%d.csv"`, s.now().UnixMilli()))
	_, _ = w.Write(csv)
}
