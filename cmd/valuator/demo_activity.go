package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"valuator/internal/apikey"
	"valuator/internal/apperr"
	"valuator/internal/avm"
	"valuator/internal/batch"
	"valuator/internal/billing"
	"valuator/internal/credit"
	"valuator/internal/demo"
	"valuator/internal/jobs"
	"valuator/internal/person"
	"valuator/internal/property"
	"valuator/internal/store"
	usagerec "valuator/internal/usage" // "usage" is the command's help text
	"valuator/internal/valuation"
)

// The demo account's activity: what a few weeks of real use leave behind, so that History, Reporting, API Keys,
// Batch and Billing show what they are for on the first start instead of empty states.
//
// Everything is written by the functions that write real use, with the real results: property lookups are valued
// by the engine and charged by store.Meter (the debit and the usage record in one transaction), person lookups are
// matched in the demo directory and charged by store.MeterPersonLookup with their audit rows, the API key is made
// by apikey and store.CreateAPIKey, and the batch job is created by store.CreateBatchJob and run by jobs.RunNow, the
// queue's own run. The only thing that is not what a live request does is the time: each call takes an explicit
// time (the usage record's and ledger row's CreatedAt, the key's and job's at), set to a moment of the past weeks,
// and the records are written in time order so that ids and times agree. Balances, ledger and history therefore
// agree as they do for real use. The response times are drawn (a live server measures them): mostly fast, a few
// slower, so that each band of the Reporting chart has something in it.
//
// The account stays on the Free plan with its 100 sign-up credits, of which this activity uses under half (47), so
// that the balance stays above the low-balance alert (billing.LowBalance: no alert email at the first start) and a
// developer has credits left to try things with. A paid plan would need payments that were never made.
//
// The activity is deterministic: the same homes, people, days and outcomes on every first start (the days are
// counted back from the start). It is written once the engine is trained (the training the server needs anyway);
// the writing itself takes a fraction of a second: about 40 calls and a 12-row batch job. Person lookups use the
// local directory's demo residents, never a network provider.

// demoActivity is the seeding of one demo account.
type demoActivity struct {
	db     *store.DB
	valuer jobs.Valuer
	people person.Provider
	sealer *apikey.Sealer
	userID int64
	now    time.Time // the start: every record is dated before it
	rng    *rand.Rand
	seq    int // request ids: demo-0001, demo-0002, ...

	requests, credits int64
}

// demoEvent is one call of the demo account at its time.
type demoEvent struct {
	at  time.Time
	run func(ctx context.Context, at time.Time) error
}

// How much the demo account used: with the dashboard's 10 valuations and a person found (5 credits), 47 credits.
const (
	demoAPICalls   = 22 // valuations made with the API key (one or two each working day: 16 to 17 of them)
	demoBatchHomes = 10 // homes valued by the batch job, beside two rows it cannot value
)

// seedDemoTrained trains the valuation engine on the seeded market (saving it, so that the server's engine
// restores it instead of training again) and seeds the demo account's activity with it.
func seedDemoTrained(ctx context.Context, db *store.DB, log *slog.Logger, sealer *apikey.Sealer, userID int64,
	now time.Time, clock func() time.Time, stdout io.Writer) error {
	vals := valuation.New(db, log, clock, avm.DefaultOptions())
	if err := vals.Load(ctx); err != nil {
		return err
	}
	return seedDemoActivity(ctx, db, vals, person.Directory{Store: db}, sealer, userID, now, stdout)
}

// seedDemoActivity writes the demo account's activity (see above) and says what it did on stdout.
func seedDemoActivity(ctx context.Context, db *store.DB, valuer jobs.Valuer, people person.Provider,
	sealer *apikey.Sealer, userID int64, now time.Time, stdout io.Writer) error {
	a := &demoActivity{db: db, valuer: valuer, people: people, sealer: sealer, userID: userID, now: now.UTC(),
		rng: rand.New(rand.NewPCG(13, 2026))}
	homes := demoHomes(a.now)
	if len(homes) < 100 {
		return errors.New("demo activity: the demo market has too few homes")
	}
	a.rng.Shuffle(len(homes), func(i, j int) { homes[i], homes[j] = homes[j], homes[i] })
	next := func() property.Home { // a home not looked up before
		h := homes[0]
		homes = homes[1:]
		return h
	}

	var events []demoEvent
	add := func(at time.Time, run func(ctx context.Context, at time.Time) error) {
		events = append(events, demoEvent{at: at, run: run})
	}

	// The dashboard: a first session on the day of sign-up (one typo'd ZIP code), then a lookup every few days,
	// one of them of a home that is not on record, entered without the facts to value it from.
	dashboard := []struct {
		day, hh, mm int
		input       func() valuation.Input
	}{
		{demoJoinedDays, 9, 31, nil}, {demoJoinedDays, 9, 38, nil}, {demoJoinedDays, 9, 44, wrongZIP(next())},
		{demoJoinedDays, 9, 46, nil}, {25, 14, 2, nil}, {22, 11, 20, nil}, {19, 16, 45, notOnRecord(next())},
		{15, 10, 5, nil}, {12, 15, 30, nil}, {8, 9, 50, nil}, {5, 13, 15, nil}, {2, 17, 40, nil},
	}
	for _, d := range dashboard {
		in := d.input
		if in == nil {
			h := next()
			in = func() valuation.Input { return lookupOf(h) }
		}
		add(demoAt(a.now, d.day, d.hh, d.mm), func(ctx context.Context, at time.Time) error {
			return a.lookup(ctx, at, in(), 0, "")
		})
	}

	// A person lookup: a first try under a name not at that address finds no one (free), then the resident.
	resident := next()
	add(demoAt(a.now, 18, 11, 2), func(ctx context.Context, at time.Time) error {
		return a.findPerson(ctx, at, "Thomas Whitfield", resident)
	})
	add(demoAt(a.now, 18, 11, 4), func(ctx context.Context, at time.Time) error {
		return a.findPerson(ctx, at, demoResident(resident).Name, resident)
	})

	// The API key: made two days after sign-up for a CRM, called on weekdays since; a few calls are refused (a
	// lead's address not on record, one sent without its city).
	keyAt := demoAt(a.now, demoJoinedDays-2, 10, 5)
	keyID, keyName, err := a.createKey(ctx, keyAt)
	if err != nil {
		return err
	}
	var weekdays []int // days ago, oldest first
	for day := demoJoinedDays - 3; day >= 1; day-- {
		if wd := demoAt(a.now, day, 0, 0).Weekday(); wd != time.Saturday && wd != time.Sunday {
			weekdays = append(weekdays, day)
		}
	}
	// A call every working day, and a second one on a few of them, up to demoAPICalls.
	perDay := make([]int, len(weekdays))
	for i, k := range a.rng.Perm(len(weekdays)) {
		perDay[k] = 1
		if i < demoAPICalls-len(weekdays) {
			perDay[k] = 2
		}
	}
	refused := []func() valuation.Input{notOnRecord(next()), withoutCity(next()), notOnRecord(next())}
	var lastCall time.Time
	for i, day := range weekdays {
		for j := range perDay[i] {
			h := next()
			at := demoAt(a.now, day, 8+j*4+a.rng.IntN(4), a.rng.IntN(60))
			lastCall = latest(lastCall, at)
			add(at, func(ctx context.Context, at time.Time) error {
				return a.lookup(ctx, at, lookupOf(h), keyID, keyName)
			})
		}
		// Every fifth working day, from the third, one call is refused.
		if i%5 == 2 && len(refused) > 0 {
			in := refused[0]
			refused = refused[1:]
			at := demoAt(a.now, day, 19, 12)
			lastCall = latest(lastCall, at)
			add(at, func(ctx context.Context, at time.Time) error { return a.lookup(ctx, at, in(), keyID, keyName) })
		}
	}

	slices.SortStableFunc(events, func(x, y demoEvent) int { return x.at.Compare(y.at) })
	for _, e := range events {
		if err := e.run(ctx, e.at); err != nil {
			return fmt.Errorf("demo activity: %w", err)
		}
	}
	if !lastCall.IsZero() {
		if err := a.db.TouchAPIKeys(ctx, map[int64]time.Time{keyID: lastCall}); err != nil {
			return err
		}
	}

	// A spreadsheet of open houses valued in the dashboard three hours before the start: its results are still
	// downloadable (a job's rows are kept for batch.Retention after it finishes).
	var batchHomes []property.Home
	for range demoBatchHomes {
		batchHomes = append(batchHomes, next())
	}
	if err := a.batchJob(ctx, a.now.Add(-3*time.Hour).Truncate(time.Minute), batchHomes, next()); err != nil {
		return fmt.Errorf("demo batch job: %w", err)
	}

	balance, _, _, err := a.db.CreditTerms(ctx, a.userID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Development mode: gave the demo account %d days of use: %d requests, an API key and a batch "+
		"job (%d credits used, %d left)\n", demoJoinedDays, a.requests, a.credits, balance)
	return nil
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// demoHomes is the demo market of now's day: its homes with a street address, in the market's order.
func demoHomes(now time.Time) []property.Home {
	var out []property.Home
	for _, h := range demo.GenerateN(1, now, demo.DefaultHomes).Homes {
		if h.Street != "" {
			out = append(out, h)
		}
	}
	return out
}

// lookupOf is a lookup of a home by its address, as the lookup form sends it.
func lookupOf(h property.Home) valuation.Input {
	return valuation.Input{Address: demoStreet(h), City: h.City, State: h.State, ZIP: h.ZIP}
}

// wrongZIP is a home's address with the ZIP code of another state: the lookup refuses it (400).
func wrongZIP(h property.Home) func() valuation.Input {
	return func() valuation.Input {
		in := lookupOf(h)
		in.ZIP = "10001" // New York
		if h.State == "NY" {
			in.ZIP = "98103"
		}
		return in
	}
}

// withoutCity is a home's address sent without its city: a 400 naming the field.
func withoutCity(h property.Home) func() valuation.Input {
	return func() valuation.Input {
		in := lookupOf(h)
		in.City = ""
		return in
	}
}

// notOnRecord is an address on a home's street that is not on record, sent without the facts it could be valued
// from: a free 404 that says what to add.
func notOnRecord(h property.Home) func() valuation.Input {
	return func() valuation.Input {
		in := lookupOf(h)
		num, rest, _ := strings.Cut(h.Street, " ")
		in.Address = num + "9 " + rest // a house number the street does not have
		return in
	}
}

// nextRequestID is the next seeded call's request id: "demo-0001", ... (a live call gets a ULID; these say
// where they came from).
func (a *demoActivity) nextRequestID() string {
	a.seq++
	return fmt.Sprintf("demo-%04d", a.seq)
}

// responseTime is a drawn response time: mostly under 120 ms, one call in eight between 300 and 700 ms.
func (a *demoActivity) responseTime() int64 {
	if a.rng.IntN(8) == 0 {
		return 300 + a.rng.Int64N(400)
	}
	return 25 + a.rng.Int64N(95)
}

// lookup values a property at the given time, through the dashboard (keyID 0) or the API key, and records and
// charges it as valuation.Service's Metered and Refused do.
func (a *demoActivity) lookup(ctx context.Context, at time.Time, in valuation.Input, keyID int64, keyName string) error {
	endpoint := "POST /api/property/lookup"
	if keyID != 0 {
		endpoint = "GET /api/v1/property/valuation"
	}
	data, _ := json.Marshal(in)
	rec := usagerec.Record{UserID: a.userID, APIKeyID: keyID, APIKeyName: keyName, Endpoint: endpoint,
		Service: usagerec.ServiceValuation, ResponseTimeMs: a.responseTime(), RequestData: string(data),
		RequestID: a.nextRequestID(), CreatedAt: at}
	a.requests++
	res, err := a.valuer.Lookup(ctx, in)
	if status, refused := refusal(err); refused {
		rec.Status, rec.PropertyAddress = status, in.Line()
		return a.db.RecordUsage(ctx, rec)
	}
	if err != nil {
		return err
	}
	rec.Status = 200
	rec.PropertyAddress = res.Property.FormattedAddress
	rec.Valuation = res.Valuation.EstimatedValue
	if _, err := a.db.Meter(ctx, rec, credit.ValuationCost, "Property valuation: "+res.Property.FormattedAddress); err != nil {
		return err
	}
	a.credits += credit.ValuationCost
	return nil
}

// refusal is the status a refused call is recorded with (a bad input or a miss: free); refused is false for
// success and for our own failures, which stop the seeding.
func refusal(err error) (status int, refused bool) {
	e, ok := apperr.As(err)
	switch {
	case errors.Is(err, person.ErrNotFound), ok && e.Kind == apperr.KindNotFound:
		return 404, true
	case ok && e.Kind == apperr.KindInvalid:
		return 400, true
	}
	return 0, false
}

// demoResident is the demo directory's resident of a demo home (seedDemoPeople files the same one).
func demoResident(h property.Home) person.Candidate {
	return person.DemoResidents([]person.Address{{StreetLine1: demoStreet(h), City: h.City, StateCode: h.State,
		PostalCode: h.ZIP}}, 1)[0]
}

// findPerson looks a person up in the dashboard at the given time, and records, audits and charges it as the
// person.Service's Find and Refused do.
func (a *demoActivity) findPerson(ctx context.Context, at time.Time, name string, h property.Home) error {
	in := struct {
		person.Query
		Purpose string `json:"purpose"`
	}{person.Query{Name: name, StreetLine1: demoStreet(h), City: h.City, StateCode: h.State, PostalCode: h.ZIP},
		person.DefaultPurpose}
	q, err := in.Query.Validate()
	if err != nil {
		return err
	}
	in.Query = q
	data, _ := json.Marshal(in)
	id := a.nextRequestID()
	rec := usagerec.Record{UserID: a.userID, Endpoint: "POST /api/find-person", Service: usagerec.ServicePersonLookup,
		ResponseTimeMs: a.responseTime(), PropertyAddress: fmt.Sprintf("%s, %s, %s, %s %s", q.Name, q.StreetLine1,
			q.City, q.StateCode, q.PostalCode), RequestData: string(data), RequestID: id, CreatedAt: at}
	audit := person.Audit{Purpose: in.Purpose, Query: string(data), RequestID: id, CreatedAt: at}
	a.requests++
	res, err := a.people.Find(ctx, q)
	if status, refused := refusal(err); refused {
		rec.Status, audit.Outcome = status, "not_found"
		if status == 400 {
			audit.Outcome = "invalid"
		}
		return a.db.RecordPersonLookup(ctx, rec, audit)
	}
	if err != nil {
		return err
	}
	rec.Status, audit.Outcome, audit.ResultID = 200, "found", res.ID
	if _, err := a.db.MeterPersonLookup(ctx, rec, credit.PersonLookupCost, "Person lookup: "+res.Name, audit); err != nil {
		return err
	}
	a.credits += credit.PersonLookupCost
	return nil
}

// createKey makes the demo account's API key at the given time, as the API Keys screen does with the default
// rate limit (the plan's cap).
func (a *demoActivity) createKey(ctx context.Context, at time.Time) (int64, string, error) {
	const name = "CRM integration"
	value, err := apikey.New()
	if err != nil {
		return 0, "", err
	}
	sealed, err := a.sealer.Seal(value)
	if err != nil {
		return 0, "", err
	}
	row, err := a.db.CreateAPIKey(ctx, a.userID, name, apikey.Hash(value), sealed, apikey.Preview(value),
		apikey.DefaultFor(billing.Free), apikey.MaxPerAccount, at)
	return row.ID, name, err
}

// batchJob uploads a spreadsheet of homes (and two rows that cannot be valued: a home not on record without its
// facts, and an address with another state's ZIP code) at the given time, and runs the job to its end a few
// seconds later, as the dashboard's upload and the queue's worker do.
func (a *demoActivity) batchJob(ctx context.Context, at time.Time, homes []property.Home, other property.Home) error {
	var sb strings.Builder
	sb.WriteString("Address,City,State,ZIP,Notes\n")
	row := func(in valuation.Input, note string) {
		fmt.Fprintf(&sb, "%s,%s,%s,%s,%s\n", in.Address, in.City, in.State, in.ZIP, note)
	}
	for i, h := range homes {
		row(lookupOf(h), []string{"Open house Sat", "Listing appointment", "Price check", "Seller lead"}[i%4])
	}
	row(notOnRecord(other)(), "New construction")
	row(wrongZIP(other)(), "From a flyer")
	const fileName = "open-houses.csv"
	data := []byte(sb.String())
	tbl, err := batch.ReadFile(fileName, data, billing.Free)
	if err != nil {
		return err
	}
	mapping, _ := batch.Detect(tbl)
	if err := mapping.Validate(tbl.Headers); err != nil {
		return err
	}
	rows, dropped := batch.Apply(tbl, mapping)
	inputs := make([][]byte, len(rows))
	for i, r := range rows {
		if inputs[i], err = json.Marshal(r); err != nil {
			return err
		}
	}
	mappingJSON, _ := json.Marshal(mapping)
	sum := sha256.Sum256(data)
	// Not queued: jobs.RunNow below runs it in this goroutine, at the job's own times.
	notQueued := func(context.Context, *sql.Tx, int64) error { return nil }
	job, _, err := a.db.CreateBatchJob(ctx, batch.Job{UserID: a.userID, FileName: fileName,
		FileSHA256: hex.EncodeToString(sum[:]), Mapping: string(mappingJSON), Dropped: dropped, CreatedAt: at},
		inputs, notQueued)
	if err != nil {
		return err
	}
	// The job starts two seconds after the upload and each step of it takes 1.5 seconds.
	clock := at.Add(500 * time.Millisecond)
	tick := func() time.Time {
		clock = clock.Add(1500 * time.Millisecond)
		return clock
	}
	if err := jobs.RunNow(ctx, jobs.Config{Store: a.db, Valuer: a.valuer, Now: tick}, job.ID); err != nil {
		return err
	}
	done, err := a.db.BatchJob(ctx, a.userID, job.ID)
	if err != nil {
		return err
	}
	a.requests++
	a.credits += done.CreditsUsed
	return nil
}
