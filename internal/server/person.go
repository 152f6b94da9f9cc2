package server

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/person"
	"valuator/internal/store"
	"valuator/internal/text"
	"valuator/internal/usage"
)

// personInput is POST /api/find-person (and the query of GET /api/v1/person): the spec's snake_case fields and the
// permissible purpose of the lookup.
type personInput struct {
	person.Query
	Purpose string `json:"purpose"`
}

// errPersonNotFound is a miss: 404, never charged.
var errPersonNotFound = apperr.NotFound("person_not_found", "No person found for this name and address")

func (s *Server) findPerson(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var in personInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	who := caller{userID: userFrom(r.Context()).user.ID, endpoint: "POST /api/find-person"}
	s.meteredPerson(w, r, who, in, start)
}

func (s *Server) publicPerson(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	p := keyFrom(r.Context())
	who := caller{userID: p.userID, keyID: p.keyID, keyName: p.keyName, endpoint: "GET /api/v1/person"}
	qs := r.URL.Query()
	in := personInput{Query: person.Query{Name: qs.Get("name"), StreetLine1: qs.Get("street_line_1"), City: qs.Get("city"),
		StateCode: qs.Get("state_code"), PostalCode: qs.Get("postal_code")}, Purpose: qs.Get("purpose")}
	if in.Purpose == "" {
		in.Purpose = person.DefaultPurpose
	}
	var v apperr.Validation
	for _, name := range []string{"name", "street_line_1", "city", "state_code", "postal_code", "purpose"} {
		if p := text.Problem(qs.Get(name)); p != "" {
			v.Add(name, name+" "+p)
		}
	}
	if err := v.Err(); err != nil {
		s.failPerson(w, r, who, in, start, err)
		return
	}
	s.meteredPerson(w, r, who, in, start)
}

// meteredPerson finds the person and charges 5 credits for a hit, with the usage record and the audit row in one
// transaction. A miss, bad input or a provider failure costs nothing and is recorded and audited too.
func (s *Server) meteredPerson(w http.ResponseWriter, r *http.Request, who caller, in personInput, start time.Time) {
	q, err := in.Query.Validate()
	in.Query = q
	if err == nil && !person.ValidPurpose(in.Purpose) {
		err = apperr.Invalid("purpose", "Choose a permissible purpose: real_estate_transaction, identity_verification, fraud_prevention, contacting_owner or legal_process")
	}
	if err != nil {
		s.failPerson(w, r, who, in, start, err)
		return
	}
	res, err := s.people.Find(r.Context(), q)
	if errors.Is(err, person.ErrNotFound) {
		err = errPersonNotFound
	}
	if err != nil {
		s.failPerson(w, r, who, in, start, err)
		return
	}
	rec := s.personRecord(r, who, in, start, http.StatusOK)
	audit := s.personAudit(r, who, in, "found", res.ID)
	balance, err := s.store.MeterPersonLookup(r.Context(), rec, credit.PersonLookupCost, "Person lookup: "+res.Name, audit)
	var ins *store.ErrInsufficientCredits
	if errors.As(err, &ins) {
		s.failPerson(w, r, who, in, start, credit.Insufficient(ins.Balance, credit.PersonLookupCost, ins.Plan, ins.OverageLimitCents))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.metrics.Credits(usage.ServicePersonLookup, credit.PersonLookupCost)
	writeJSON(w, http.StatusOK, map[string]any{"data": res, "meta": map[string]any{
		"requestId": requestIDFrom(r.Context()), "timestamp": s.now().UTC().Format(time.RFC3339),
		"responseTime": time.Since(start).Milliseconds(), "creditsUsed": credit.PersonLookupCost, "creditsRemaining": balance}})
}

// failPerson records and audits a lookup that cost nothing, and answers the error.
func (s *Server) failPerson(w http.ResponseWriter, r *http.Request, who caller, in personInput, start time.Time, err error) {
	kind := apperr.KindInternal
	if e, ok := apperr.As(err); ok {
		kind = e.Kind
	}
	outcome := "error"
	switch kind {
	case apperr.KindNotFound:
		outcome = "not_found"
	case apperr.KindInvalid:
		outcome = "invalid"
	case apperr.KindPaymentRequired:
		outcome = "insufficient_credits"
	}
	rec := s.personRecord(r, who, in, start, statusOf(kind))
	if uerr := s.store.RecordPersonLookup(r.Context(), rec, s.personAudit(r, who, in, outcome, "")); uerr != nil {
		s.log.Error("recording a person lookup", "request_id", rec.RequestID, "err", uerr)
	}
	s.writeError(w, r, err)
}

func (s *Server) personRecord(r *http.Request, who caller, in personInput, start time.Time, status int) usage.Record {
	return usage.Record{UserID: who.userID, APIKeyID: who.keyID, APIKeyName: who.keyName, Endpoint: who.endpoint,
		Service: usage.ServicePersonLookup, Status: status, ResponseTimeMs: time.Since(start).Milliseconds(),
		PropertyAddress: text.Sanitize(personLine(in.Query)), RequestData: personJSON(in),
		RequestID: requestIDFrom(r.Context()), CreatedAt: s.now()}
}

func (s *Server) personAudit(r *http.Request, who caller, in personInput, outcome, resultID string) store.PersonAudit {
	a := store.PersonAudit{Purpose: text.Sanitize(in.Purpose), Query: personJSON(in), Outcome: outcome, ResultID: resultID,
		RequestID: requestIDFrom(r.Context()), CreatedAt: s.now()}
	if who.keyID != 0 {
		id := who.keyID
		a.APIKeyID = &id
	}
	return a
}

// personLine is the query as history shows it: "Jane Doe, 123 Main St, Seattle, WA 98103".
func personLine(q person.Query) string {
	s := q.Name
	for _, part := range []string{q.StreetLine1, q.City} {
		if part != "" {
			s += ", " + part
		}
	}
	if q.StateCode != "" {
		s += ", " + q.StateCode
	}
	if q.PostalCode != "" {
		s += " " + q.PostalCode
	}
	return s
}

func personJSON(in personInput) string {
	in.Query.Name, in.Query.StreetLine1 = text.Sanitize(in.Query.Name), text.Sanitize(in.Query.StreetLine1)
	in.Query.City, in.Query.StateCode = text.Sanitize(in.Query.City), text.Sanitize(in.Query.StateCode)
	in.Query.PostalCode, in.Purpose = text.Sanitize(in.Query.PostalCode), text.Sanitize(in.Purpose)
	b, _ := json.Marshal(in)
	return string(b)
}

// personAuditLog is the owner's audit log: JSON pages (limit, before) or the whole log as CSV (format=csv).
func (s *Server) personAuditLog(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	if r.URL.Query().Get("format") == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="person-lookup-audit-%d.csv"`, s.now().UnixMilli()))
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"id", "createdAt", "apiKeyId", "purpose", "query", "outcome", "resultId", "requestId"})
		var before int64
		for {
			rows, more, err := s.store.PersonAudits(r.Context(), u.ID, before, 500)
			if err != nil {
				s.log.Error("exporting the person audit log", "err", err)
				break
			}
			for _, a := range rows {
				key := ""
				if a.APIKeyID != nil {
					key = strconv.FormatInt(*a.APIKeyID, 10)
				}
				_ = cw.Write([]string{strconv.FormatInt(a.ID, 10), a.CreatedAt.UTC().Format(time.RFC3339), key,
					csvSafe(a.Purpose), csvSafe(a.Query), a.Outcome, a.ResultID, a.RequestID})
				before = a.ID
			}
			if !more {
				break
			}
		}
		cw.Flush()
		return
	}
	before, limit, err := cursorParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, more, err := s.store.PersonAudits(r.Context(), u.ID, before, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if rows == nil {
		rows = []store.PersonAudit{}
	}
	var last int64
	if len(rows) > 0 {
		last = rows[len(rows)-1].ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": rows,
		"pagination": cursorPage{Limit: limit, HasMore: more, NextBefore: nextCursor(more, last)}})
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet.
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@') {
		return "'" + s
	}
	return s
}

// personOptOut is the public opt-out: the person's record is removed from the local directory and kept out of
// future imports. It answers the same whether or not anyone was removed, so it tells nobody who is listed.
func (s *Server) personOptOut(w http.ResponseWriter, r *http.Request) {
	var in person.Query
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	q, err := in.Validate()
	if err == nil && q.StreetLine1 == "" {
		err = apperr.Invalid("street_line_1", "Street address is required to opt out")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := s.store.OptOut(r.Context(), q, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("person opt-out", "removed", n)
	writeJSON(w, http.StatusOK, map[string]string{"message": "Your opt-out is recorded. Matching records are removed from our directory and will not be imported again."})
}
