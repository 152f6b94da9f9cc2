package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/store"
	"valuator/internal/text"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// caller says who makes a metered call and through which endpoint.
type caller struct {
	userID   int64
	keyID    int64
	keyName  string
	endpoint string
}

func (s *Server) lookupProperty(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	who := caller{userID: userFrom(r.Context()).user.ID, endpoint: "POST /api/property/lookup"}
	var in valuation.Input
	if err := decodeJSON(w, r, &in); err != nil {
		s.failMetered(w, r, who, in, start, err)
		return
	}
	s.meteredValuation(w, r, who, in, start)
}

func (s *Server) publicValuation(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	p := keyFrom(r.Context())
	who := caller{userID: p.userID, keyID: p.keyID, keyName: p.keyName, endpoint: "GET /api/v1/property/valuation"}
	in, err := queryInput(r)
	if err != nil {
		s.failMetered(w, r, who, in, start, err)
		return
	}
	s.meteredValuation(w, r, who, in, start)
}

// queryInput reads the public endpoint's query parameters. A body on this GET is refused: callers that send JSON
// expect it to be read, and it would be silently ignored.
func queryInput(r *http.Request) (valuation.Input, error) {
	q := r.URL.Query()
	in := valuation.Input{Address: q.Get("address"), City: q.Get("city"), State: q.Get("state"), ZIP: q.Get("zip")}
	if r.ContentLength > 0 || len(r.TransferEncoding) > 0 || strings.Contains(r.Header.Get("Content-Type"), "json") {
		return in, apperr.Invalid("body", "Use GET with query parameters and no JSON body: "+
			"/api/v1/property/valuation?address=...&city=...&state=...&zip=...")
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

// meteredValuation values the input and charges for it: the one path of the dashboard lookup and the public
// endpoint. The valuation exists before anything is charged (a not-found, bad input or our failure costs nothing),
// and the debit and the usage record are written in one transaction.
func (s *Server) meteredValuation(w http.ResponseWriter, r *http.Request, who caller, in valuation.Input, start time.Time) {
	res, err := s.valuation.Lookup(r.Context(), in)
	if err != nil {
		s.failMetered(w, r, who, in, start, err)
		return
	}
	reqID := requestIDFrom(r.Context())
	rec := s.usageRecord(r, who, in, start, http.StatusOK)
	rec.PropertyAddress = res.Property.FormattedAddress
	rec.Valuation = res.Valuation.EstimatedValue
	balance, err := s.store.Meter(r.Context(), rec, credit.ValuationCost, "Property valuation: "+res.Property.FormattedAddress)
	var ins *store.ErrInsufficientCredits
	if errors.As(err, &ins) {
		s.failMetered(w, r, who, in, start, credit.Insufficient(ins.Balance, credit.ValuationCost, ins.Plan, ins.OverageLimitCents))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.metrics.Valuation(res.Property.MatchCode)
	s.metrics.Credits(usage.ServiceValuation, credit.ValuationCost)
	res.Meta.RequestID = reqID
	res.Meta.Timestamp = s.now().UTC().Format(time.RFC3339)
	res.Meta.ResponseTime = time.Since(start).Milliseconds()
	res.Meta.CreditsUsed = credit.ValuationCost
	res.Meta.CreditsRemaining = balance
	writeJSON(w, http.StatusOK, map[string]any{"data": res})
}

// failMetered records a metered call that failed (it cost nothing) and answers with the error.
func (s *Server) failMetered(w http.ResponseWriter, r *http.Request, who caller, in valuation.Input, start time.Time, err error) {
	kind := apperr.KindInternal
	if e, ok := apperr.As(err); ok {
		kind = e.Kind
	}
	rec := s.usageRecord(r, who, in, start, statusOf(kind))
	// A refused call is recorded as it was sent, made storable: a NUL or stray bytes in the address must not cost
	// the caller the record of their error.
	rec.PropertyAddress = text.Sanitize(in.Line())
	if uerr := s.store.RecordUsage(r.Context(), rec); uerr != nil {
		s.log.Error("recording usage", "request_id", rec.RequestID, "err", uerr)
	}
	s.writeError(w, r, err)
}

func (s *Server) usageRecord(r *http.Request, who caller, in valuation.Input, start time.Time, status int) usage.Record {
	data, _ := json.Marshal(in)
	return usage.Record{UserID: who.userID, APIKeyID: who.keyID, APIKeyName: who.keyName, Endpoint: who.endpoint,
		Service: usage.ServiceValuation, Status: status, ResponseTimeMs: time.Since(start).Milliseconds(),
		RequestData: string(data), RequestID: requestIDFrom(r.Context()), ClientRequestID: clientRequestIDFrom(r.Context()),
		CreatedAt: s.now()}
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
