package server

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/person"
	"valuator/internal/text"
	"valuator/internal/usage"
)

func (s *Server) findPerson(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	u := userFrom(r.Context()).user
	if !s.spendAccount(w, r, u) {
		return
	}
	var in person.Lookup
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.meteredPerson(w, r, callOf(r, u.ID, 0, "", "POST /api/find-person", start), in)
}

func (s *Server) publicPerson(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	p := keyFrom(r.Context())
	call := callOf(r, p.userID, p.keyID, p.keyName, "GET /api/v1/person", start)
	qs := r.URL.Query()
	in := person.Lookup{Query: person.Query{Name: qs.Get("name"), StreetLine1: qs.Get("street_line_1"), City: qs.Get("city"),
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
		s.writeError(w, r, s.people.Refused(r.Context(), call, in, err))
		return
	}
	s.meteredPerson(w, r, call, in)
}

// meteredPerson finds the person and charges for a hit (person.Service.Find).
func (s *Server) meteredPerson(w http.ResponseWriter, r *http.Request, call usage.Call, in person.Lookup) {
	res, balance, err := s.people.Find(r.Context(), call, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.metrics.Credits(usage.ServicePersonLookup, credit.PersonLookupCost)
	writeJSON(w, http.StatusOK, map[string]any{"data": res, "meta": map[string]any{
		"requestId": call.RequestID, "timestamp": s.now().UTC().Format(time.RFC3339),
		"responseTime": time.Since(call.Start).Milliseconds(), "creditsUsed": credit.PersonLookupCost, "creditsRemaining": balance}})
}

// personAuditView is an audit row as the API shows it (api/openapi.yaml PersonAuditEntry).
type personAuditView struct {
	ID              int64        `json:"id"`
	CreatedAt       time.Time    `json:"createdAt"`
	Via             string       `json:"via"`
	APIKeyID        *int64       `json:"apiKeyId"`
	APIKeyName      *string      `json:"apiKeyName"`
	Purpose         string       `json:"purpose"`
	Query           person.Query `json:"query"`
	Outcome         string       `json:"outcome"`
	Credits         int64        `json:"credits"`
	ResultID        string       `json:"resultId"`
	RequestID       string       `json:"requestId"`
	ClientRequestID *string      `json:"clientRequestId"`
}

func viewAudit(a person.Audit) personAuditView {
	v := personAuditView{ID: a.ID, CreatedAt: a.CreatedAt.UTC(), Via: "dashboard", APIKeyID: a.APIKeyID,
		APIKeyName: a.APIKeyName, Purpose: a.Purpose, Outcome: a.Outcome, Credits: a.Credits, ResultID: a.ResultID,
		RequestID: a.RequestID}
	if a.APIKeyID != nil {
		v.Via = "api_key"
	}
	var in person.Lookup
	_ = json.Unmarshal([]byte(a.Query), &in) // written by the person service; an old row that does not parse shows empty
	v.Query = in.Query
	if a.ClientRequestID != "" {
		c := a.ClientRequestID
		v.ClientRequestID = &c
	}
	return v
}

// auditFilter reads from, to (days, YYYY-MM-DD) and purpose, and checks format (json or csv).
func auditFilter(r *http.Request) (person.AuditFilter, error) {
	var f person.AuditFilter
	var v apperr.Validation
	q := r.URL.Query()
	f.From, f.To = v.DateRange(q.Get)
	if p := q.Get("purpose"); p != "" {
		v.Check(person.ValidPurpose(p), "purpose", "purpose must be one of the permissible purposes")
		f.Purpose = p
	}
	format := q.Get("format")
	v.Check(format == "" || format == "json" || format == "csv", "format", "format must be json or csv")
	return f, v.Err()
}

// personAuditLog is the owner's audit log: JSON pages (limit, before) or everything that matches as CSV
// (format=csv), filtered by date and purpose.
func (s *Server) personAuditLog(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	f, err := auditFilter(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if r.URL.Query().Get("format") == "csv" {
		s.exportAudit(w, r, u.ID, f)
		return
	}
	before, limit, err := cursorParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, more, err := s.people.Audits(r.Context(), u.ID, f, before, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]personAuditView, 0, len(rows))
	var last int64
	for _, a := range rows {
		out = append(out, viewAudit(a))
		last = a.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out,
		"pagination": cursorPage{Limit: limit, HasMore: more, NextBefore: nextCursor(more, last)}})
}

// exportAudit streams the matching audit rows as CSV, 500 rows a read, so a long log costs bounded memory.
func (s *Server) exportAudit(w http.ResponseWriter, r *http.Request, userID int64, f person.AuditFilter) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="person-lookup-audit-%d.csv"`, s.now().UnixMilli()))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "createdAt", "via", "apiKeyName", "purpose", "name", "street_line_1", "city", "state_code",
		"postal_code", "outcome", "credits", "resultId", "requestId", "clientRequestId"})
	var before int64
	for {
		rows, more, err := s.people.Audits(r.Context(), userID, f, before, 500)
		if err != nil {
			s.log.Error("exporting the person audit log", "err", err)
			break
		}
		for _, a := range rows {
			v := viewAudit(a)
			key, client := "", ""
			if v.APIKeyName != nil {
				key = *v.APIKeyName
			}
			if v.ClientRequestID != nil {
				client = *v.ClientRequestID
			}
			_ = cw.Write([]string{strconv.FormatInt(v.ID, 10), v.CreatedAt.Format(time.RFC3339), v.Via, csvSafe(key),
				csvSafe(v.Purpose), csvSafe(v.Query.Name), csvSafe(v.Query.StreetLine1), csvSafe(v.Query.City),
				csvSafe(v.Query.StateCode), csvSafe(v.Query.PostalCode), v.Outcome, strconv.FormatInt(v.Credits, 10),
				v.ResultID, v.RequestID, csvSafe(client)})
			before = a.ID
		}
		if !more {
			break
		}
	}
	cw.Flush()
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet (OWASP's CSV injection list: = + - @ and a
// leading tab or carriage return).
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// msgOptOutRequested is the opt-out request's answer: the same whatever is listed, so the form tells nobody who is.
const msgOptOutRequested = "If we hold a listing that matches, we have sent a confirmation link to %s. The link works for 24 hours; nothing is removed until it is used."

// personOptOut is the public opt-out's first step (person.Service.RequestOptOut).
func (s *Server) personOptOut(w http.ResponseWriter, r *http.Request) {
	var in person.OptOutRequest
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	in, link, err := s.people.RequestOptOut(r.Context(), in, s.clientIP(r), requestIDFrom(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := map[string]string{"message": fmt.Sprintf(msgOptOutRequested, in.Email)}
	if link != "" {
		out["confirmUrl"] = link // development only: the flow can be tried without a mailbox
	}
	writeJSON(w, http.StatusOK, out)
}

// personOptOutConfirm uses an opt-out link: its one listing is removed everywhere and kept out of imports.
func (s *Server) personOptOutConfirm(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Token string `json:"token"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	listing, err := s.people.ConfirmOptOut(r.Context(), in.Token)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("person opt-out confirmed", "request_id", requestIDFrom(r.Context()), "listing", listing.ID)
	view := map[string]string{"name": listing.Name, "city": "", "state_code": ""}
	if len(listing.CurrentAddresses) > 0 {
		view["city"], view["state_code"] = listing.CurrentAddresses[0].City, listing.CurrentAddresses[0].StateCode
	}
	writeJSON(w, http.StatusOK, map[string]any{"listing": view,
		"message": "Your listing is removed from Valuator's people directory, and from other people's associated people. It will not be imported again."})
}

// personDemoResident gives a development dashboard a demo resident to try the lookup with; production answers 404.
func (s *Server) personDemoResident(w http.ResponseWriter, r *http.Request) {
	q, err := s.people.DemoResident(r.Context())
	s.answer(w, r, q, err)
}
