package server

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"valuator/internal/credit"
	"valuator/internal/store"
	"valuator/internal/valuation"
)

func (s *Server) lookupProperty(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var in valuation.Input
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.valuation.Lookup(r.Context(), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := userFrom(r.Context())
	reqID := requestIDFrom(r.Context())
	// The valuation exists before anything is charged: a not-found, bad input or our failure costs nothing.
	balance, err := s.store.Charge(r.Context(), p.user.ID, credit.ValuationCost, credit.KindValuation,
		"Property valuation: "+res.Property.FormattedAddress, reqID, s.now())
	var ins *store.ErrInsufficientCredits
	if errors.As(err, &ins) {
		s.writeError(w, r, credit.Insufficient(ins.Balance, credit.ValuationCost, ins.Plan))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res.Meta.RequestID = reqID
	res.Meta.Timestamp = s.now().UTC().Format(time.RFC3339)
	res.Meta.ResponseTime = time.Since(start).Milliseconds()
	res.Meta.CreditsUsed = credit.ValuationCost
	res.Meta.CreditsRemaining = balance
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
	csv, err := valuation.Report(data)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="property-report-%d.csv"`, s.now().UnixMilli()))
	_, _ = w.Write(csv)
}
