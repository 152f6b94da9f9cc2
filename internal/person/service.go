package person

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/mail"
	"valuator/internal/ratelimit"
	"valuator/internal/text"
	"valuator/internal/usage"
)

// OptOutRecord is one row of the opt-out log: a request, the listing it matched (if any) and its link's token hash
// (if a link was sent).
type OptOutRecord struct {
	TokenHash string // "" when no link was sent
	ListingID string // "" when no listing matched
	EmailHash string
	Query     string // JSON of the name and address asked about
	ClientIP  string
	Outcome   string // sent, no_match, listing_limited
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Opt-out request outcomes.
const (
	OptOutSent           = "sent"
	OptOutNoMatch        = "no_match"
	OptOutListingLimited = "listing_limited"
)

// ErrOptOutLinkGone is a confirmation link that is unknown, expired or used.
var ErrOptOutLinkGone = errors.New("opt-out link expired or used")

// Audit is one row of the person lookup audit log.
type Audit struct {
	ID              int64
	APIKeyID        *int64
	APIKeyName      *string
	Purpose         string
	Query           string // the query as the caller sent it, JSON
	Outcome         string
	Credits         int64
	ResultID        string
	RequestID       string
	ClientRequestID string
	CreatedAt       time.Time
}

// AuditFilter selects audit rows: from and to are days (UTC; zero: open), purpose one purpose ("": all).
type AuditFilter struct {
	From, To time.Time
	Purpose  string
}

// Store is what the person lookup, its audit log and the opt-out need from the database (internal/store).
type Store interface {
	DirectoryStore
	// CreditTerms is what a charge to the user is checked against (credit.CanPay).
	CreditTerms(ctx context.Context, userID int64) (balance int64, plan string, overageLimitCents *int64, err error)
	// PersonMisses counts the user's lookups that found nobody since then, and when the oldest of them was.
	PersonMisses(ctx context.Context, userID int64, since time.Time) (int, time.Time, error)
	// OptedOutNames is which of the name keys (NameKey) opted out in any of the states.
	OptedOutNames(ctx context.Context, states, names []string) (map[string]bool, error)
	// MeterPersonLookup charges a found person and records the call and its audit row in one transaction; when the
	// balance cannot pay, nothing is written and the error is a *credit.ErrInsufficient.
	MeterPersonLookup(ctx context.Context, rec usage.Record, cost int64, description string, a Audit) (int64, error)
	// RecordPersonLookup records a lookup that cost nothing, with its audit row.
	RecordPersonLookup(ctx context.Context, rec usage.Record, a Audit) error
	PersonAudits(ctx context.Context, userID int64, f AuditFilter, before int64, limit int) ([]Audit, bool, error)
	RecordOptOutRequest(ctx context.Context, r OptOutRecord) error
	// ConfirmOptOut uses a link (ErrOptOutLinkGone when unknown, expired or used) and removes its listing.
	ConfirmOptOut(ctx context.Context, tokenHash string, now time.Time) (Candidate, error)
	DemoResident(ctx context.Context) (Candidate, error)
}

// Service looks people up and charges for what it finds, keeps the audit log of every lookup, and takes opt-outs.
type Service struct {
	store    Store
	provider Provider
	mailer   mail.Sender
	limiter  ratelimit.Limiter
	log      *slog.Logger
	now      func() time.Time
	baseURL  string
	dev      bool
}

// Deps wires a Service.
type Deps struct {
	Store Store
	// Provider finds people (the local Directory, or Whitepages).
	Provider Provider
	// Mailer sends the opt-out confirmation links.
	Mailer mail.Sender
	// Limiter bounds the opt-out requests per mailbox and per listing (the server's limiter of public forms).
	Limiter ratelimit.Limiter
	Logger  *slog.Logger
	Now     func() time.Time // optional: time.Now
	// BaseURL starts the links in emails.
	BaseURL string
	// Dev is development mode: the opt-out answer carries its link and the demo resident is offered.
	Dev bool
}

// NewService returns the person service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{store: d.Store, provider: d.Provider, mailer: d.Mailer, limiter: d.Limiter, log: d.Logger,
		now: d.Now, baseURL: d.BaseURL, dev: d.Dev}
}

// Lookup is a person lookup as asked (the body of POST /api/find-person, the query of GET /api/v1/person): the
// spec's snake_case fields and the permissible purpose of the lookup. It is also what the usage record and the
// audit row keep of the query, as JSON.
type Lookup struct {
	Query
	Purpose string `json:"purpose"`
}

// errPersonNotFound is a miss: 404, never charged.
var errPersonNotFound = apperr.NotFound("person_not_found", "No person found for this name and address")

// Find finds the person and charges PersonLookupCost credits for a hit, with the usage record and the audit row in
// one transaction; it returns the balance after the charge. A miss, bad input or a provider failure costs nothing
// and is recorded and audited too (Refused).
//
// Everything that depends on whether the person is listed comes after the checks that do not: the query, the
// purpose, the credits for a hit and the account's misses of the last hour. An account that cannot pay gets the
// same 402 for a listed and an unlisted person (a broke account must not learn who is listed for free), and one
// that misses again and again is slowed before it learns more.
func (s *Service) Find(ctx context.Context, call usage.Call, in Lookup) (Result, int64, error) {
	q, err := in.Query.Validate()
	in.Query = q
	if err == nil && !ValidPurpose(in.Purpose) {
		err = apperr.Invalid("purpose", "Choose a permissible purpose: real_estate_transaction, identity_verification, fraud_prevention, contacting_owner or legal_process")
	}
	if err == nil {
		err = s.canPay(ctx, call.UserID)
	}
	if err == nil {
		err = s.slowSweeps(ctx, call)
	}
	if err != nil {
		return Result{}, 0, s.Refused(ctx, call, in, err)
	}
	res, err := s.provider.Find(ctx, q)
	if errors.Is(err, ErrNotFound) {
		err = errPersonNotFound
	}
	if err == nil {
		err = s.dropOptedOutAssociates(ctx, &res)
	}
	if err != nil {
		return Result{}, 0, s.Refused(ctx, call, in, err)
	}
	rec := record(call, in, 200, s.now())
	balance, err := s.store.MeterPersonLookup(ctx, rec, credit.PersonLookupCost, "Person lookup: "+res.Name,
		s.audit(call, in, "found", res.ID))
	var ins *credit.ErrInsufficient
	if errors.As(err, &ins) {
		return Result{}, 0, s.Refused(ctx, call, in, ins.Answer(credit.PersonLookupCost))
	}
	if err != nil {
		return Result{}, 0, err
	}
	return res, balance, nil
}

// canPay is the 402 of an account that cannot pay for a hit, decided before the lookup.
func (s *Service) canPay(ctx context.Context, userID int64) error {
	balance, plan, limit, err := s.store.CreditTerms(ctx, userID)
	if err != nil {
		return err
	}
	return credit.CanPay(balance, credit.PersonLookupCost, plan, limit)
}

// slowSweeps refuses the lookups of an account that made MissesPerHour misses in the last hour, until the oldest
// of them is an hour old. The refusals are audited (outcome rate_limited), which is how an operator finds the
// account, and logged as a warning.
func (s *Service) slowSweeps(ctx context.Context, call usage.Call) error {
	now := s.now()
	n, oldest, err := s.store.PersonMisses(ctx, call.UserID, now.Add(-time.Hour))
	if err != nil || n < MissesPerHour {
		return err
	}
	wait := max(int(math.Ceil(oldest.Add(time.Hour).Sub(now).Seconds())), 1)
	s.log.Warn("person lookups slowed: too many misses", "request_id", call.RequestID, "user_id", call.UserID,
		"misses_last_hour", n)
	return apperr.RateLimited(fmt.Sprintf("Too many lookups found nobody: %d in the last hour. Person lookup is for people "+
		"you know by name and address. Try again in %d %s.", n, wait, text.Plural(wait, "second", "seconds")), wait)
}

// dropOptedOutAssociates leaves out of a result's associated people everyone who opted out in a state where the
// result lives: associates are names in another person's record, so the opt-out of the listing alone would leave
// them named there.
func (s *Service) dropOptedOutAssociates(ctx context.Context, res *Result) error {
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
			n := ParseName(a.Name)
			first, last = n.First, n.Last
		}
		keys[i] = NameKey(first, last)
	}
	out, err := s.store.OptedOutNames(ctx, slices.Collect(maps.Keys(states)), keys)
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

func derefAddress(a *Address) []Address {
	if a == nil {
		return nil
	}
	return []Address{*a}
}

// Refused records and audits a lookup that failed with err (it cost nothing) and returns err. The handlers call it
// for input they could not read, so that every lookup reaches the history and the audit log.
func (s *Service) Refused(ctx context.Context, call usage.Call, in Lookup, err error) error {
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
	rec := record(call, in, kind.Status(), s.now())
	if uerr := s.store.RecordPersonLookup(ctx, rec, s.audit(call, in, outcome, "")); uerr != nil {
		s.log.Error("recording a person lookup", "request_id", rec.RequestID, "err", uerr)
	}
	return err
}

func record(call usage.Call, in Lookup, status int, now time.Time) usage.Record {
	rec := call.Record(usage.ServicePersonLookup, status, now)
	rec.PropertyAddress = text.Sanitize(line(in.Query))
	rec.RequestData = lookupJSON(in)
	return rec
}

func (s *Service) audit(call usage.Call, in Lookup, outcome, resultID string) Audit {
	a := Audit{Purpose: text.Sanitize(in.Purpose), Query: lookupJSON(in), Outcome: outcome, ResultID: resultID,
		RequestID: call.RequestID, ClientRequestID: call.ClientRequestID, CreatedAt: s.now()}
	if call.APIKeyID != 0 {
		id, name := call.APIKeyID, call.APIKeyName
		a.APIKeyID, a.APIKeyName = &id, &name
	}
	return a
}

// line is the query as history shows it: "Jane Doe, 123 Main St, Seattle, WA 98103".
func line(q Query) string {
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

func lookupJSON(in Lookup) string {
	in.Query.Name, in.Query.StreetLine1 = text.Sanitize(in.Query.Name), text.Sanitize(in.Query.StreetLine1)
	in.Query.City, in.Query.StateCode = text.Sanitize(in.Query.City), text.Sanitize(in.Query.StateCode)
	in.Query.PostalCode, in.Purpose = text.Sanitize(in.Query.PostalCode), text.Sanitize(in.Purpose)
	b, _ := json.Marshal(in)
	return string(b)
}

// Audits is a page of the user's audit log, newest first, before the row id before (0: the newest); more says
// whether older rows match.
func (s *Service) Audits(ctx context.Context, userID int64, f AuditFilter, before int64, limit int) ([]Audit, bool, error) {
	return s.store.PersonAudits(ctx, userID, f, before, limit)
}

// msgOptOutGone answers a confirmation link that is unknown, expired or used.
const msgOptOutGone = "This link has expired or was already used. Ask again from the opt-out page."

// Per-mailbox and per-listing limits of the opt-out form (OptOutsPerEmailPerDay, ...).
var (
	optOutEmailLimit   = ratelimit.Per(OptOutsPerEmailPerDay, 24*time.Hour)
	optOutListingLimit = ratelimit.Per(OptOutsPerListingPerDay, 24*time.Hour)
)

// RequestOptOut is the public opt-out's first step: the listing that matches strictly (StrictMatch) gets a
// confirmation link mailed to the address given; nothing is removed until the link is used. Every request is
// written to the opt-out log. The outcome is the same for a listed and an unlisted person; a mailbox over its daily
// limit gets a 429 (which says nothing of the listing), and so does a mailbox that was sent the listing's links for
// the day (MsgOptOutListingLimit: it knows of the listing already).
//
// In development the link is also returned, as the password reset does, so the flow can be tried without a
// mailbox; otherwise devLink is "".
func (s *Service) RequestOptOut(ctx context.Context, in OptOutRequest, clientIP, requestID string) (
	valid OptOutRequest, devLink string, err error) {
	in, err = in.Validate()
	if err != nil {
		return in, "", err
	}
	emailHash := HashOptOutToken(strings.ToLower(in.Email))
	if res, err := s.limiter.Allow(ctx, "optout-email:"+emailHash, optOutEmailLimit); err != nil {
		s.log.Error("opt-out rate limiter", "err", err)
	} else if !res.Allowed {
		secs := int((res.RetryAfter + time.Second - 1) / time.Second)
		return in, "", apperr.RateLimited("Too many opt-out requests for this email address today. Try again later.", secs)
	}
	now := s.now()
	cands, err := s.store.PeopleNamed(ctx, FoldName(ParseName(in.Name).Last), in.StateCode)
	if err != nil {
		return in, "", err
	}
	query, _ := json.Marshal(in.Query)
	rec := OptOutRecord{EmailHash: emailHash, Query: text.Sanitize(string(query)), ClientIP: clientIP,
		Outcome: OptOutNoMatch, CreatedAt: now}
	listing, ok := StrictMatch(in.Query, cands)
	var link string
	var limited *apperr.Error
	if ok {
		rec.ListingID, rec.Outcome = listing.ID, OptOutListingLimited
		res, lerr := s.limiter.Allow(ctx, "optout-listing:"+listing.ID+":"+emailHash, optOutListingLimit)
		if lerr != nil || res.Allowed {
			token, hash := NewOptOutToken()
			rec.TokenHash, rec.Outcome, rec.ExpiresAt = hash, OptOutSent, now.Add(OptOutTTL)
			link = s.baseURL + "/opt-out/confirm?token=" + url.QueryEscape(token)
		} else {
			limited = apperr.RateLimited(MsgOptOutListingLimit, int((res.RetryAfter+time.Second-1)/time.Second))
		}
	}
	if err := s.store.RecordOptOutRequest(ctx, rec); err != nil {
		return in, "", err
	}
	if limited != nil {
		return in, "", limited
	}
	if link != "" {
		msg := mail.Message{To: in.Email, Subject: "Confirm the removal of your listing from Valuator",
			Text: fmt.Sprintf("Hello,\n\nSomeone (we hope you) asked to remove the listing of %s at %s, %s, %s from Valuator's "+
				"people directory.\n\nTo remove it, open this link within 24 hours and confirm:\n%s\n\nIf you did not ask, "+
				"ignore this email: nothing is removed without the link.\n", listing.Name, in.StreetLine1, in.City,
				in.StateCode, link)}
		if err := s.mailer.Send(ctx, msg); err != nil {
			s.log.Error("sending an opt-out link", "request_id", requestID, "err", err)
		}
	}
	s.log.Info("person opt-out requested", "request_id", requestID, "outcome", rec.Outcome)
	if !s.dev {
		link = ""
	}
	return in, link, nil
}

// ConfirmOptOut uses an opt-out link's token: its one listing is removed everywhere and kept out of imports.
func (s *Service) ConfirmOptOut(ctx context.Context, token string) (Candidate, error) {
	token = strings.TrimSpace(token)
	if !WellFormedOptOutToken(token) {
		return Candidate{}, apperr.Invalid("token", "This is not an opt-out link's token. Open the link from the email.")
	}
	listing, err := s.store.ConfirmOptOut(ctx, HashOptOutToken(token), s.now())
	if errors.Is(err, ErrOptOutLinkGone) {
		err = &apperr.Error{Kind: apperr.KindGone, Code: "optout_link_gone", Message: msgOptOutGone}
	}
	return listing, err
}

// DemoResident is a demo resident for a development dashboard to try the lookup with; production has none.
func (s *Service) DemoResident(ctx context.Context) (Query, error) {
	none := apperr.NotFound("no_demo_residents", "This server holds no demo residents")
	if !s.dev {
		return Query{}, apperr.NotFound("not_found", "Not found")
	}
	c, err := s.store.DemoResident(ctx)
	if errors.Is(err, ErrNotFound) {
		return Query{}, none
	}
	if err != nil {
		return Query{}, err
	}
	if len(c.CurrentAddresses) == 0 {
		return Query{}, none
	}
	a := c.CurrentAddresses[0]
	return Query{Name: c.Name, StreetLine1: a.StreetLine1, City: a.City, StateCode: a.StateCode, PostalCode: a.PostalCode}, nil
}
