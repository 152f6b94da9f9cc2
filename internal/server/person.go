package server

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apikey"
	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/mail"
	"valuator/internal/person"
	"valuator/internal/ratelimit"
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
	u := userFrom(r.Context()).user
	// The dashboard's lookups spend the budget the account's API keys share, so that a script driving the session
	// cannot sweep faster than one driving the API.
	if budget := apikey.AccountBudget(u.Plan); budget > 0 && !s.spend(w, r, fmt.Sprintf("account:%d", u.ID),
		ratelimit.PerMinute(budget)) {
		return
	}
	var in personInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	who := caller{userID: u.ID, endpoint: "POST /api/find-person"}
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
//
// Everything that depends on whether the person is listed comes after the checks that do not: the query, the
// purpose, the credits for a hit and the account's misses of the last hour. An account that cannot pay gets the
// same 402 for a listed and an unlisted person (a broke account must not learn who is listed for free), and one
// that misses again and again is slowed before it learns more.
func (s *Server) meteredPerson(w http.ResponseWriter, r *http.Request, who caller, in personInput, start time.Time) {
	q, err := in.Query.Validate()
	in.Query = q
	if err == nil && !person.ValidPurpose(in.Purpose) {
		err = apperr.Invalid("purpose", "Choose a permissible purpose: real_estate_transaction, identity_verification, fraud_prevention, contacting_owner or legal_process")
	}
	if err == nil {
		err = s.canPayForPerson(r, who.userID)
	}
	if err == nil {
		err = s.slowSweeps(r, who)
	}
	if err != nil {
		s.failPerson(w, r, who, in, start, err)
		return
	}
	res, err := s.people.Find(r.Context(), q)
	if errors.Is(err, person.ErrNotFound) {
		err = errPersonNotFound
	}
	if err == nil {
		err = s.dropOptedOutAssociates(r, &res)
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

// canPayForPerson is the 402 of an account that cannot pay for a hit, decided before the lookup.
func (s *Server) canPayForPerson(r *http.Request, userID int64) error {
	balance, plan, limit, err := s.store.CreditTerms(r.Context(), userID)
	if err != nil {
		return err
	}
	if !credit.Pays(balance, credit.PersonLookupCost, credit.Floor(plan, limit)) {
		return credit.Insufficient(balance, credit.PersonLookupCost, plan, limit)
	}
	return nil
}

// slowSweeps refuses the lookups of an account that made person.MissesPerHour misses in the last hour, until the
// oldest of them is an hour old. The refusals are audited (outcome rate_limited), which is how an operator finds the
// account, and logged as a warning.
func (s *Server) slowSweeps(r *http.Request, who caller) error {
	now := s.now()
	n, oldest, err := s.store.PersonMisses(r.Context(), who.userID, now.Add(-time.Hour))
	if err != nil || n < person.MissesPerHour {
		return err
	}
	wait := max(int(math.Ceil(oldest.Add(time.Hour).Sub(now).Seconds())), 1)
	s.log.Warn("person lookups slowed: too many misses", "request_id", requestIDFrom(r.Context()), "user_id", who.userID,
		"misses_last_hour", n)
	return apperr.RateLimited(fmt.Sprintf("Too many lookups found nobody: %d in the last hour. Person lookup is for people "+
		"you know by name and address. Try again in %d %s.", n, wait, text.Plural(wait, "second", "seconds")), wait)
}

// dropOptedOutAssociates leaves out of a result's associated people everyone who opted out in a state where the
// result lives: associates are names in another person's record, so the opt-out of the listing alone would leave
// them named there.
func (s *Server) dropOptedOutAssociates(r *http.Request, res *person.Result) error {
	if len(res.AssociatedPeople) == 0 {
		return nil
	}
	states := map[string]bool{}
	for _, a := range append(append(res.CurrentAddresses, res.HistoricalAddrs...), derefAddress(res.FoundAtAddress)...) {
		if a.StateCode != "" {
			states[a.StateCode] = true
		}
	}
	keys := make([]string, len(res.AssociatedPeople))
	for i, a := range res.AssociatedPeople {
		first, last := a.Firstname, a.Lastname
		if last == "" {
			n := person.ParseName(a.Name)
			first, last = n.First, n.Last
		}
		keys[i] = person.NameKey(first, last)
	}
	out, err := s.store.OptedOutNames(r.Context(), slices.Collect(maps.Keys(states)), keys)
	if err != nil || len(out) == 0 {
		return err
	}
	kept := res.AssociatedPeople[:0:0]
	for i, a := range res.AssociatedPeople {
		if !out[keys[i]] {
			kept = append(kept, a)
		}
	}
	res.AssociatedPeople = kept
	return nil
}

func derefAddress(a *person.Address) []person.Address {
	if a == nil {
		return nil
	}
	return []person.Address{*a}
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
	case apperr.KindRateLimited:
		outcome = "rate_limited"
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
		RequestID: requestIDFrom(r.Context()), ClientRequestID: clientRequestIDFrom(r.Context()), CreatedAt: s.now()}
}

func (s *Server) personAudit(r *http.Request, who caller, in personInput, outcome, resultID string) store.PersonAudit {
	a := store.PersonAudit{Purpose: text.Sanitize(in.Purpose), Query: personJSON(in), Outcome: outcome, ResultID: resultID,
		RequestID: requestIDFrom(r.Context()), ClientRequestID: clientRequestIDFrom(r.Context()), CreatedAt: s.now()}
	if who.keyID != 0 {
		id, name := who.keyID, who.keyName
		a.APIKeyID, a.APIKeyName = &id, &name
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

func viewAudit(a store.PersonAudit) personAuditView {
	v := personAuditView{ID: a.ID, CreatedAt: a.CreatedAt.UTC(), Via: "dashboard", APIKeyID: a.APIKeyID,
		APIKeyName: a.APIKeyName, Purpose: a.Purpose, Outcome: a.Outcome, Credits: a.Credits, ResultID: a.ResultID,
		RequestID: a.RequestID}
	if a.APIKeyID != nil {
		v.Via = "api_key"
	}
	var in personInput
	_ = json.Unmarshal([]byte(a.Query), &in) // written by personJSON; an old row that does not parse shows empty
	v.Query = in.Query
	if a.ClientRequestID != "" {
		c := a.ClientRequestID
		v.ClientRequestID = &c
	}
	return v
}

// auditFilter reads from, to (days, YYYY-MM-DD) and purpose, and checks format (json or csv).
func auditFilter(r *http.Request) (store.PersonAuditFilter, error) {
	var f store.PersonAuditFilter
	var v apperr.Validation
	q := r.URL.Query()
	day := func(name string) time.Time {
		s := q.Get(name)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.DateOnly, s)
		v.Check(err == nil, name, name+" must be a date such as 2026-11-26")
		return t
	}
	f.From, f.To = day("from"), day("to")
	v.Check(f.From.IsZero() || f.To.IsZero() || !f.To.Before(f.From), "to", "to must not be before from")
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
	rows, more, err := s.store.PersonAudits(r.Context(), u.ID, f, before, limit)
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
func (s *Server) exportAudit(w http.ResponseWriter, r *http.Request, userID int64, f store.PersonAuditFilter) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="person-lookup-audit-%d.csv"`, s.now().UnixMilli()))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"id", "createdAt", "via", "apiKeyName", "purpose", "name", "street_line_1", "city", "state_code",
		"postal_code", "outcome", "credits", "resultId", "requestId", "clientRequestId"})
	var before int64
	for {
		rows, more, err := s.store.PersonAudits(r.Context(), userID, f, before, 500)
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

// Opt-out answers. The request's answer is the same whatever is listed, so the form tells nobody who is.
const (
	msgOptOutRequested = "If we hold a listing that matches, we have sent a confirmation link to %s. The link works for 24 hours; nothing is removed until it is used."
	msgOptOutGone      = "This link has expired or was already used. Ask again from the opt-out page."
)

// Per-mailbox and per-listing limits of the opt-out form (person.OptOutsPerEmailPerDay, ...).
var (
	optOutEmailLimit   = ratelimit.Per(person.OptOutsPerEmailPerDay, 24*time.Hour)
	optOutListingLimit = ratelimit.Per(person.OptOutsPerListingPerDay, 24*time.Hour)
)

// personOptOut is the public opt-out's first step: the listing that matches strictly (person.StrictMatch) gets a
// confirmation link mailed to the address given; nothing is removed until the link is used. Every request is
// written to the opt-out log. The answer is the same for a listed and an unlisted person; a mailbox over its daily
// limit gets a 429 (which says nothing of the listing), a listing over its limit gets no more links, silently.
func (s *Server) personOptOut(w http.ResponseWriter, r *http.Request) {
	var in person.OptOutRequest
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	in, err := in.Validate()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	emailHash := person.HashOptOutToken(strings.ToLower(in.Email))
	if res, err := s.formLimiter.Allow(r.Context(), "optout-email:"+emailHash, optOutEmailLimit); err != nil {
		s.log.Error("opt-out rate limiter", "err", err)
	} else if !res.Allowed {
		secs := int((res.RetryAfter + time.Second - 1) / time.Second)
		s.writeError(w, r, apperr.RateLimited("Too many opt-out requests for this email address today. Try again later.", secs))
		return
	}
	now := s.now()
	cands, err := s.store.PeopleNamed(r.Context(), person.FoldName(person.ParseName(in.Name).Last), in.StateCode)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	query, _ := json.Marshal(in.Query)
	rec := store.OptOutRecord{EmailHash: emailHash, Query: text.Sanitize(string(query)), ClientIP: s.clientIP(r),
		Outcome: store.OptOutNoMatch, CreatedAt: now}
	listing, ok := person.StrictMatch(in.Query, cands)
	var link string
	if ok {
		rec.ListingID, rec.Outcome = listing.ID, store.OptOutListingLimited
		res, lerr := s.formLimiter.Allow(r.Context(), "optout-listing:"+listing.ID, optOutListingLimit)
		if lerr != nil || res.Allowed {
			token, hash := person.NewOptOutToken()
			rec.TokenHash, rec.Outcome, rec.ExpiresAt = hash, store.OptOutSent, now.Add(person.OptOutTTL)
			link = s.cfg.BaseURL + "/opt-out/confirm?token=" + url.QueryEscape(token)
		}
	}
	if err := s.store.RecordOptOutRequest(r.Context(), rec); err != nil {
		s.writeError(w, r, err)
		return
	}
	if link != "" {
		msg := mail.Message{To: in.Email, Subject: "Confirm the removal of your listing from Valuator",
			Text: fmt.Sprintf("Hello,\n\nSomeone (we hope you) asked to remove the listing of %s at %s, %s, %s from Valuator's "+
				"people directory.\n\nTo remove it, open this link within 24 hours and confirm:\n%s\n\nIf you did not ask, "+
				"ignore this email: nothing is removed without the link.\n", listing.Name, in.StreetLine1, in.City,
				in.StateCode, link)}
		if err := s.mailer.Send(r.Context(), msg); err != nil {
			s.log.Error("sending an opt-out link", "request_id", requestIDFrom(r.Context()), "err", err)
		}
	}
	s.log.Info("person opt-out requested", "request_id", requestIDFrom(r.Context()), "outcome", rec.Outcome)
	out := map[string]string{"message": fmt.Sprintf(msgOptOutRequested, in.Email)}
	if s.cfg.Dev() && link != "" {
		// As the password reset does in development: the link is also in the answer, so the flow can be tried
		// without a mailbox.
		out["confirmUrl"] = link
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
	token := strings.TrimSpace(in.Token)
	if !person.WellFormedOptOutToken(token) {
		s.writeError(w, r, apperr.Invalid("token", "This is not an opt-out link's token. Open the link from the email."))
		return
	}
	listing, err := s.store.ConfirmOptOut(r.Context(), person.HashOptOutToken(token), s.now())
	if errors.Is(err, store.ErrOptOutLinkGone) {
		err = &apperr.Error{Kind: apperr.KindGone, Code: "optout_link_gone", Message: msgOptOutGone}
	}
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
	if !s.cfg.Dev() {
		s.writeError(w, r, apperr.NotFound("not_found", "Not found"))
		return
	}
	c, err := s.store.DemoResident(r.Context())
	if errors.Is(err, person.ErrNotFound) {
		err = apperr.NotFound("no_demo_residents", "This server holds no demo residents")
	}
	if err != nil || len(c.CurrentAddresses) == 0 {
		if err == nil {
			err = apperr.NotFound("no_demo_residents", "This server holds no demo residents")
		}
		s.writeError(w, r, err)
		return
	}
	a := c.CurrentAddresses[0]
	writeJSON(w, http.StatusOK, person.Query{Name: c.Name, StreetLine1: a.StreetLine1, City: a.City, StateCode: a.StateCode,
		PostalCode: a.PostalCode})
}
