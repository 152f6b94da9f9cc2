package valuator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	valuator "valuator.dev/sdk/go"
	"valuator.dev/sdk/go/api"
)

// The SDK against the real server: valuation, error mapping, a batch upload waited to completion, a person
// lookup, and a 429 with its Retry-After.

var home = api.PublicValuationParams{Address: "5873 River Dr N", City: ptr("Seattle"), State: ptr("WA"), Zip: ptr("98103")}

func ptr[T any](v T) *T { return &v }

func newClient(t *testing.T, s *testServer, key string, opts *valuator.Options) *valuator.Client {
	t.Helper()
	c, err := valuator.NewClient(s.baseURL, key, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func apiErr(t *testing.T, err error) *valuator.APIError {
	t.Helper()
	var e *valuator.APIError
	if !errors.As(err, &e) {
		t.Fatalf("want an *APIError, got %v", err)
	}
	return e
}

func TestValuate(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, s.createKey(t, "sdk-go", 0), nil)
	ctx := context.Background()

	v, err := c.Valuate(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if v.Valuation.EstimatedValue <= 0 || !strings.EqualFold(v.Property.Address, "5873 River Dr N") || v.Property.Zip != "98103" {
		t.Errorf("valuation = %+v, %+v", v.Property, v.Valuation)
	}
	// Confidence is 1 − FSD; a fresh demo market needs no warning.
	if d := v.Valuation.Confidence - (1 - v.Valuation.Fsd); d > 0.0005 || d < -0.0005 || v.Valuation.Warnings == nil ||
		len(v.Valuation.Warnings) != 0 || v.Valuation.WithinTenPercent <= 0 || !v.Property.IsDemo {
		t.Errorf("valuation = %+v", v.Valuation)
	}

	// A home far larger than any on record near it: a free 422 naming the fact and the range the records hold.
	_, err = c.Valuate(ctx, api.PublicValuationParams{Address: "1 Nowhere Ln", City: ptr("Seattle"), State: ptr("WA"),
		Zip: ptr("98103"), PropertyType: ptr(api.PublicValuationParamsPropertyType("Single Family")), SquareFeet: ptr(float32(100000))})
	if e := apiErr(t, err); e.StatusCode != 422 || e.Code != "outside_records" || e.Field != "squareFeet" ||
		!valuator.IsOutsideRecords(err) || valuator.IsTooUncertain(err) || e.RecordRange == nil ||
		e.RecordRange.Area != "98103" || !(e.RecordRange.Max > 0 && e.RecordRange.Max < 100000) {
		t.Errorf("outside the records: %+v (range %+v)", e, e.RecordRange)
	}

	_, err = c.Valuate(ctx, api.PublicValuationParams{Address: "1 Nowhere Ln", City: ptr("Seattle"), State: ptr("WA"), Zip: ptr("98103")})
	if e := apiErr(t, err); e.StatusCode != 404 || e.Code != "property_not_found" || e.Message == "" || e.RequestID == "" || !valuator.IsNotFound(err) {
		t.Errorf("not on record: %+v", e)
	}

	bad := home
	bad.Zip = ptr("nope")
	_, err = c.Valuate(ctx, bad)
	if e := apiErr(t, err); e.StatusCode != 400 || e.Field != "zip" {
		t.Errorf("bad zip: %+v", e)
	}

	_, err = newClient(t, s, "not-a-key", nil).Valuate(ctx, home)
	if e := apiErr(t, err); e.StatusCode != 401 {
		t.Errorf("bad key: %+v", e)
	}
}

func TestBatch(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, s.createKey(t, "sdk-go-batch", 0), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	csv := "address,city,state,zip\n5873 River Dr N,Seattle,WA,98103\n1 Nowhere Ln,Seattle,WA,98103\n"
	job, err := c.UploadBatch(ctx, "homes.csv", strings.NewReader(csv), &valuator.UploadOptions{IdempotencyKey: "sdk-go-test-1"})
	if err != nil {
		t.Fatal(err)
	}
	if job.JobId <= 0 {
		t.Fatalf("job = %+v", job)
	}
	// The same Idempotency-Key answers the first job.
	again, err := c.UploadBatch(ctx, "homes.csv", strings.NewReader(csv), &valuator.UploadOptions{IdempotencyKey: "sdk-go-test-1"})
	if err != nil || again.JobId != job.JobId {
		t.Fatalf("idempotent upload = %+v, %v; want job %d", again, err, job.JobId)
	}

	done, err := c.WaitBatch(ctx, job.JobId, 250*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != api.BatchStatusStatusCompleted || done.Progress.Total != 2 || done.Progress.Successful != 1 || done.Progress.Failed != 1 {
		t.Fatalf("done = %s %+v (%v)", done.Status, done.Progress, done.StatusMessage)
	}
	if !valuator.Done(done) || len(done.Results) != 2 {
		t.Errorf("results = %+v", done.Results)
	}

	file, err := c.DownloadBatch(ctx, job.JobId, "")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(file)), "\n"); len(lines) != 3 || !strings.Contains(strings.ToUpper(string(file)), "5873 RIVER DR N") {
		t.Errorf("download = %q", file)
	}

	_, err = c.BatchStatus(ctx, 999999999, nil)
	if e := apiErr(t, err); e.StatusCode != 404 {
		t.Errorf("unknown job: %+v", e)
	}
}

func TestFindPerson(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, s.createKey(t, "sdk-go-person", 0), nil)
	ctx := context.Background()

	// The demo directory's resident of 5873 River Dr N (person.DemoResidents with seed 1).
	p, err := c.FindPerson(ctx, api.PublicPersonParams{Name: "Margaret Larkspur", StreetLine1: ptr("5873 River Dr N"),
		City: "Seattle", StateCode: "WA", PostalCode: ptr("98103")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Data.Name != "Margaret Larkspur" {
		t.Errorf("person = %+v", p.Data)
	}

	_, err = c.FindPerson(ctx, api.PublicPersonParams{Name: "Nobody Atall", StreetLine1: ptr("1 Nowhere Ln"), City: "Seattle", StateCode: "WA"})
	if e := apiErr(t, err); e.StatusCode != 404 {
		t.Errorf("no one: %+v", e)
	}
}

func TestRateLimited(t *testing.T) {
	s := startServer(t)
	key := s.createKey(t, "sdk-go-limited", 1)
	ctx := context.Background()

	// Without retries the second call of the minute is the server's 429, with its Retry-After.
	c := newClient(t, s, key, &valuator.Options{MaxRetries: -1})
	if _, err := c.Valuate(ctx, home); err != nil {
		t.Fatal(err)
	}
	_, err := c.Valuate(ctx, home)
	e := apiErr(t, err)
	if e.StatusCode != 429 || e.Code != "rate_limited" || e.RetryAfter <= 0 || e.RateLimit.Remaining != 0 || !valuator.IsRateLimited(err) {
		t.Errorf("429 = %+v", e)
	}

	// With retries whose wait is capped far below Retry-After, the budget is still spent: the retries are made
	// and the last 429 is returned.
	c = newClient(t, s, key, &valuator.Options{MaxRetries: 2, MaxRetryDelay: 20 * time.Millisecond})
	_, err = c.Valuate(ctx, home)
	if e := apiErr(t, err); e.StatusCode != 429 {
		t.Errorf("after retries: %+v", e)
	}

	// A context that ends before Retry-After does not wait.
	c = newClient(t, s, key, nil)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err = c.Valuate(short, home)
	if e := apiErr(t, err); e.StatusCode != 429 || time.Since(start) > time.Second {
		t.Errorf("short deadline: %+v after %s", e, time.Since(start))
	}
}

// TestOutOfCredits: a 402 carries the account's balance, the same figures the dashboard shows.
func TestOutOfCredits(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, s.newAccountKey(t, "sdk-go-broke"), nil)
	ctx := context.Background()
	margaret := api.PublicPersonParams{Name: "Margaret Larkspur", StreetLine1: ptr("5873 River Dr N"), City: "Seattle",
		StateCode: "WA", PostalCode: ptr("98103")}
	// A new Free account's 100 credits buy 20 person lookups at 5 credits.
	var err error
	for i := 0; i < 21 && err == nil; i++ {
		_, err = c.FindPerson(ctx, margaret)
	}
	e := apiErr(t, err)
	if !valuator.IsPaymentRequired(err) || e.Code != "insufficient_credits" || e.Balance == nil {
		t.Fatalf("402 = %+v", e)
	}
	if b := e.Balance; b.Credits != 0 || b.State != api.BalanceStateEmpty || b.PlanType != api.Free {
		t.Errorf("402 balance = %+v, want a Free account with no credits left", *b)
	}
}

// TestMarket: a ZIP code's statistics, a comparison that lists the ZIP code without records, and the free 404 and
// 400.
func TestMarket(t *testing.T) {
	s := startServer(t)
	c := newClient(t, s, s.createKey(t, "sdk-go-market", 0), nil)
	ctx := context.Background()

	m, err := c.Market(ctx, api.PublicMarketParams{Zip: "98103", HistoryMonths: ptr(12)})
	if err != nil {
		t.Fatal(err)
	}
	sales, err := m.Sales.AsMarketFigures()
	if m.Zip != "98103" || len(m.History) != 12 || len(m.PriceIndex) != 12 || err != nil || sales.Count < 5 ||
		!(sales.Min <= sales.Median && sales.Median <= sales.Max) {
		t.Errorf("market %+v, sales %+v (%v)", m, sales, err)
	}
	if v, err := m.Values.AsMarketValues(); err != nil || v.Count < 5 || v.P25 > v.P75 {
		t.Errorf("values %+v (%v)", v, err)
	}

	cmp, err := c.CompareMarkets(ctx, api.PublicMarketComparisonParams{Zip: []string{"98103", "12345"}})
	if err != nil || len(cmp.Markets) != 1 || len(cmp.NotFound) != 1 || cmp.NotFound[0] != "12345" {
		t.Errorf("compare %+v (%v)", cmp, err)
	}

	_, err = c.Market(ctx, api.PublicMarketParams{Zip: "12345"})
	if e := apiErr(t, err); e.StatusCode != 404 || e.Code != "market_not_found" || !valuator.IsNotFound(err) {
		t.Errorf("no records: %+v", e)
	}
	_, err = c.Market(ctx, api.PublicMarketParams{Zip: "981"})
	if e := apiErr(t, err); e.StatusCode != 400 || e.Field != "zip" {
		t.Errorf("bad zip: %+v", e)
	}
}
