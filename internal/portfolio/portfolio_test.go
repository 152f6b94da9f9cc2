package portfolio_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/jobs"
	"valuator/internal/mail"
	"valuator/internal/notify"
	"valuator/internal/portfolio"
	"valuator/internal/store"
	"valuator/internal/testdb"
	"valuator/internal/usage"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// clock is the business clock the tests move: time passing is simulated, never slept.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// valuer is the engine as the tests choose it: each street's value, moved by a factor per month; streets in
// Topeka are not covered (the lookup's area_not_covered). It counts its calls.
type valuer struct {
	mu     sync.Mutex
	clock  *clock
	base   map[string]int64
	factor map[string]float64 // "street|2026-04" -> factor
	calls  int
}

func (v *valuer) Appraise(_ context.Context, in portfolio.HomeInput) (portfolio.Appraisal, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if in.City == "Topeka" {
		return portfolio.Appraisal{}, apperr.NotFound("area_not_covered", "Topeka is not covered")
	}
	street := strings.ToUpper(strings.TrimSpace(in.Address))
	base, ok := v.base[street]
	if !ok {
		base = 500000
	}
	f := v.factor[street+"|"+portfolio.Month(v.clock.Now())]
	if f == 0 {
		f = 1
	}
	val := int64(float64(base) * f)
	return portfolio.Appraisal{FormattedAddress: street + ", SEATTLE, WA 98103", Address: street, City: "SEATTLE",
		State: "WA", ZIP: "98103", Value: val, Low: val * 9 / 10, High: val * 11 / 10, Confidence: 0.9, FSD: 0.1}, nil
}

// outbox records the emails the mail job sends.
type outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
}

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.msgs = append(o.msgs, m)
	return nil
}

type env struct {
	db      *store.DB
	clock   *clock
	valuer  *valuer
	svc     *portfolio.Service
	alerts  *[]int64 // alert ids whose webhook was queued
	url     string
	userID  int64
	otherID int64
}

func openDB(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

func newUser(t *testing.T, db *store.DB, email string, at time.Time) int64 {
	t.Helper()
	u, _, err := db.CreateUser(context.Background(), account.NewUser{Email: email, EmailKey: account.EmailKey(email),
		PasswordHash: "$argon2id$test", FullName: "Jane Doe", Notifications: account.DefaultNotifications,
		CreatedAt: at, SignupCredits: credit.SignupBonus})
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// service is a portfolio service on its own store handle (as another instance would have).
func (e *env) service(db *store.DB) *portfolio.Service {
	var mu sync.Mutex
	return portfolio.NewService(portfolio.Deps{Store: db, Valuer: e.valuer, Now: e.clock.Now,
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewSecret: func() string { return "whsec_test" },
		Enqueue: func(_ context.Context, _ *sql.Tx, id int64) error {
			mu.Lock()
			defer mu.Unlock()
			*e.alerts = append(*e.alerts, id)
			return nil
		}})
}

func setup(t *testing.T, url string) *env {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)}
	db := openDB(t, url)
	e := &env{db: db, clock: c, url: url, alerts: new([]int64),
		valuer: &valuer{clock: c, base: map[string]int64{}, factor: map[string]float64{}}}
	e.svc = e.service(db)
	e.userID = newUser(t, db, "jane@example.com", c.Now())
	e.otherID = newUser(t, db, "john@example.com", c.Now())
	return e
}

func call(userID int64) usage.Call {
	return usage.Call{UserID: userID, Endpoint: "POST /api/v1/portfolios", RequestID: "req-1", Start: time.Now()}
}

func homes(streets ...string) []portfolio.HomeInput {
	out := make([]portfolio.HomeInput, len(streets))
	for i, s := range streets {
		city := "Seattle"
		if strings.Contains(s, "Topeka") {
			s, city = strings.TrimSuffix(s, " Topeka"), "Topeka"
		}
		out[i] = portfolio.HomeInput{Address: s, City: city, State: "WA", ZIP: "98103"}
	}
	return out
}

func balance(t *testing.T, db *store.DB, userID int64) int64 {
	t.Helper()
	b, _, _, err := db.CreditTerms(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// charges are the user's portfolio valuation ledger rows.
func charges(t *testing.T, db *store.DB, userID int64) []credit.Entry {
	t.Helper()
	all, err := db.Ledger(context.Background(), userID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []credit.Entry
	for _, e := range all {
		if e.Kind == usage.ServiceValuation {
			out = append(out, e)
		}
	}
	return out
}

func valuationCount(t *testing.T, db *store.DB, month string) (rows, distinct int) {
	t.Helper()
	err := db.SQL().QueryRowContext(context.Background(), rebind(db, `SELECT COUNT(*), COUNT(DISTINCT home_id)
		FROM portfolio_valuations WHERE month = ?`), month).Scan(&rows, &distinct)
	if err != nil {
		t.Fatal(err)
	}
	return rows, distinct
}

func rebind(db *store.DB, q string) string {
	if db.Dialect() == store.Postgres {
		return strings.Replace(q, "?", "$1", 1)
	}
	return q
}

func TestCreateChargesEachValuedHomeOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		threshold := 5.0
		p, rows, err := e.svc.Create(ctx, call(e.userID), portfolio.Settings{Name: " Rentals ", AlertThreshold: &threshold},
			homes("1 A St", "2 B St", "1 Main St Topeka", "1 a st"))
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "Rentals" || p.Status != portfolio.StatusActive || p.HomeCount != 2 {
			t.Errorf("portfolio = %+v, want Rentals, active, 2 homes", p)
		}
		want := []struct{ status, code string }{{"added", ""}, {"added", ""}, {"failed", "area_not_covered"},
			{"failed", "duplicate_property"}}
		for i, w := range want {
			if rows[i].Status != w.status || rows[i].Code != w.code || (w.status == "added") != (rows[i].HomeID != 0) {
				t.Errorf("row %d = %+v, want %s %s", i, rows[i], w.status, w.code)
			}
		}
		// Exactly the two valued homes are charged, one ledger row each naming its usage record.
		if b := balance(t, e.db, e.userID); b != credit.SignupBonus-2 {
			t.Errorf("balance = %d, want %d", b, credit.SignupBonus-2)
		}
		ch := charges(t, e.db, e.userID)
		if len(ch) != 2 {
			t.Fatalf("ledger has %d valuation rows, want 2: %+v", len(ch), ch)
		}
		for _, c := range ch {
			if c.Amount != -1 || !strings.HasPrefix(c.Reference, "usage:") {
				t.Errorf("ledger row %+v: want -1 with a usage reference", c)
			}
		}
		if n, _ := valuationCount(t, e.db, "2026-03"); n != 2 {
			t.Errorf("%d valuations in March, want 2", n)
		}

		// Add: one more home (charged), one already there (not).
		rows, err = e.svc.Add(ctx, call(e.userID), p.ID, homes("3 C St", "2 B St"))
		if err != nil || rows[0].Status != "added" || rows[1].Code != "duplicate_property" {
			t.Fatalf("add = %+v, %v", rows, err)
		}
		if b := balance(t, e.db, e.userID); b != credit.SignupBonus-3 {
			t.Errorf("balance after add = %d, want %d", b, credit.SignupBonus-3)
		}

		// Get: the totals are the homes' latest values; the series starts in the month created.
		got, views, total, totals, series, err := e.svc.Get(ctx, e.userID, p.ID, 0, 100)
		if err != nil || got.ID != p.ID || total != 3 || len(views) != 3 {
			t.Fatalf("get = %+v, %d views, %d, %v", got, len(views), total, err)
		}
		if totals.Value != 1500000 || totals.ValuedHomes != 3 || len(series) != 1 || series[0].Value != 1500000 {
			t.Errorf("totals = %+v, series = %+v", totals, series)
		}

		// Remove one home: no refund (it was valued), and it leaves the totals.
		if n, err := e.svc.Remove(ctx, e.userID, p.ID, []int64{rows[0].HomeID}); err != nil || n != 1 {
			t.Fatalf("remove = %d, %v", n, err)
		}
		if _, _, total, _, _, _ := e.svc.Get(ctx, e.userID, p.ID, 0, 100); total != 2 {
			t.Errorf("%d homes after removing one, want 2", total)
		}
	})
}

func TestAnotherAccountsPortfolioIsNotFound(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		p, rows, err := e.svc.Create(ctx, call(e.userID), portfolio.Settings{Name: "Mine"}, homes("1 A St"))
		if err != nil {
			t.Fatal(err)
		}
		before := balance(t, e.db, e.otherID)
		checks := map[string]error{}
		_, _, _, _, _, checks["get"] = e.svc.Get(ctx, e.otherID, p.ID, 0, 10)
		_, checks["add"] = e.svc.Add(ctx, call(e.otherID), p.ID, homes("9 Z St"))
		_, checks["remove"] = e.svc.Remove(ctx, e.otherID, p.ID, []int64{rows[0].HomeID})
		checks["delete"] = e.svc.Delete(ctx, e.otherID, p.ID)
		for op, err := range checks {
			if !errors.Is(err, portfolio.ErrNotFound) {
				t.Errorf("%s of another account's portfolio: %v, want portfolio_not_found", op, err)
			}
		}
		if list, n, err := e.svc.List(ctx, e.otherID, 0, 10); err != nil || n != 0 || len(list) != 0 {
			t.Errorf("other's list = %d, %v", n, err)
		}
		if b := balance(t, e.db, e.otherID); b != before {
			t.Errorf("other's balance moved: %d -> %d", before, b)
		}
		if _, _, total, _, _, err := e.svc.Get(ctx, e.userID, p.ID, 0, 10); err != nil || total != 1 {
			t.Errorf("owner's portfolio after the attempts: %d homes, %v", total, err)
		}
	})
}

func TestCreateWithoutCreditsIsTheLookups402(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		if _, err := e.db.Grant(ctx, e.userID, -(credit.SignupBonus - 1), "adjustment", "test", "t", e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		_, _, err := e.svc.Create(ctx, call(e.userID), portfolio.Settings{Name: "Two"}, homes("1 A St", "2 B St"))
		ae, ok := apperr.As(err)
		if !ok || ae.Kind != apperr.KindPaymentRequired || ae.Code != "insufficient_credits" || ae.Extra["creditsRequired"] != int64(2) {
			t.Fatalf("create beyond the balance: %v (%+v), want the lookup's 402 for 2 credits", err, ae)
		}
		if list, _, _ := e.svc.List(ctx, e.userID, 0, 10); len(list) != 0 {
			t.Errorf("a refused create left %d portfolios", len(list))
		}
		if b := balance(t, e.db, e.userID); b != 1 {
			t.Errorf("balance = %d, want 1 (nothing charged)", b)
		}
	})
}

func TestBadInputNamesTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		big := 0.0
		cases := []struct {
			name  string
			set   portfolio.Settings
			homes []portfolio.HomeInput
			field string
		}{
			{"no name", portfolio.Settings{Name: "  "}, nil, "name"},
			{"long name", portfolio.Settings{Name: strings.Repeat("x", 101)}, nil, "name"},
			{"control in name", portfolio.Settings{Name: "a\x07b"}, nil, "name"},
			{"threshold", portfolio.Settings{Name: "P", AlertThreshold: &big}, nil, "alertThreshold"},
			{"no address", portfolio.Settings{Name: "P"}, []portfolio.HomeInput{{Address: "1 A St"}, {City: "Seattle"}},
				"properties[1].address"},
			{"too many", portfolio.Settings{Name: "P"}, make([]portfolio.HomeInput, 101), "properties"},
		}
		for _, c := range cases {
			_, _, err := e.svc.Create(ctx, call(e.userID), c.set, c.homes)
			ae, ok := apperr.As(err)
			if !ok || ae.Kind != apperr.KindInvalid || ae.Field != c.field {
				t.Errorf("%s: %v (field %q), want 400 naming %s", c.name, err, fieldOf(ae), c.field)
			}
		}
		if e.valuer.calls != 0 {
			t.Errorf("bad input reached the engine %d times", e.valuer.calls)
		}
	})
}

func fieldOf(e *apperr.Error) string {
	if e == nil {
		return ""
	}
	return e.Field
}

// The monthly job, run at once by two instances (two services, each on its own database handle), values and
// charges each home once; a move past the threshold is alerted once (one email, one webhook, signed); a broke
// account's portfolio pauses, says so by email, and resumes after a grant.
func TestMonthlyRevaluationAcrossInstances(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		threshold := 5.0
		p, _, err := e.svc.Create(ctx, call(e.userID), portfolio.Settings{Name: "Rentals", AlertThreshold: &threshold,
			WebhookURL: "https://hooks.example.com/x"}, homes("1 A St", "2 B St", "3 C St"))
		if err != nil {
			t.Fatal(err)
		}
		// March: the homes were valued when added; the job values nothing more.
		rep, err := e.svc.Revalue(ctx)
		if err != nil || rep.Valued != 0 {
			t.Fatalf("March run = %+v, %v; want nothing valued", rep, err)
		}

		// April: 1 A St is up 10%, 2 B St up 3% (under the threshold). Two instances run the job at once.
		e.clock.Set(time.Date(2026, 4, 1, 0, 30, 0, 0, time.UTC))
		e.valuer.factor["1 A ST|2026-04"], e.valuer.factor["2 B ST|2026-04"] = 1.10, 1.03
		second := e.service(openDB(t, url))
		var wg sync.WaitGroup
		reps := make([]portfolio.RevalueReport, 2)
		errs := make([]error, 2)
		for i, s := range []*portfolio.Service{e.svc, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reps[i], errs[i] = s.Revalue(ctx)
			}()
		}
		wg.Wait()
		for i := range errs {
			if errs[i] != nil {
				t.Fatalf("instance %d: %v", i, errs[i])
			}
		}
		if v := reps[0].Valued + reps[1].Valued; v != 3 {
			t.Errorf("the two instances valued %d homes (%+v, %+v), want 3", v, reps[0], reps[1])
		}
		if rows, distinct := valuationCount(t, e.db, "2026-04"); rows != 3 || distinct != 3 {
			t.Errorf("April has %d valuations of %d homes, want 3 of 3", rows, distinct)
		}
		if b := balance(t, e.db, e.userID); b != credit.SignupBonus-6 {
			t.Errorf("balance = %d, want %d (3 added, 3 revalued)", b, credit.SignupBonus-6)
		}
		if n := len(charges(t, e.db, e.userID)); n != 6 {
			t.Errorf("%d valuation ledger rows, want 6", n)
		}
		// Once more in April: nothing.
		if rep, err := second.Revalue(ctx); err != nil || rep.Valued+rep.Alerts != 0 {
			t.Errorf("second April run = %+v, %v", rep, err)
		}
		if len(*e.alerts) != 1 {
			t.Fatalf("%d webhooks queued, want 1", len(*e.alerts))
		}

		// The detail: change since last month and since added, and the series month by month.
		_, views, _, totals, series, err := e.svc.Get(ctx, e.userID, p.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if c := views[0].ChangeSinceLastMonth; c == nil || c.Amount != 50000 || c.Percent != 10 {
			t.Errorf("1 A St change since last month = %+v, want +50000 (10%%)", c)
		}
		if totals.Value != 550000+515000+500000 || totals.ChangeSinceLastMonth != 65000 || totals.ChangeSinceAdded != 65000 {
			t.Errorf("totals = %+v", totals)
		}
		if len(series) != 2 || series[0].Value != 1500000 || series[1].Value != 1565000 {
			t.Errorf("series = %+v", series)
		}

		// The alert's email (under "Email notifications") lists the home that moved, once.
		box := &outbox{}
		if _, err := jobs.DeliverMail(ctx, e.db, box, notify.Links{BaseURL: "https://valuator.test"}, e.clock.Now); err != nil {
			t.Fatal(err)
		}
		if len(box.msgs) != 1 || !strings.Contains(box.msgs[0].Subject, "Rentals") ||
			!strings.Contains(box.msgs[0].Text, "1 A ST") || strings.Contains(box.msgs[0].Text, "2 B ST") {
			t.Fatalf("alert emails = %+v", box.msgs)
		}

		// The webhook: signed with the portfolio's secret, as batch webhooks are.
		var got struct {
			body []byte
			sig  string
		}
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.body, _ = io.ReadAll(r.Body)
			got.sig = r.Header.Get(jobs.SignatureHeader)
		}))
		defer hook.Close()
		if _, err := e.db.SQL().ExecContext(ctx, rebind(e.db, `UPDATE portfolios SET webhook_url = ?`), hook.URL); err != nil {
			t.Fatal(err)
		}
		if err := jobs.SendPortfolioWebhook(ctx, e.db, hook.Client(), e.clock.Now(), (*e.alerts)[0]); err != nil {
			t.Fatal(err)
		}
		if want := jobs.Sign("whsec_test", e.clock.Now(), got.body); got.sig != want {
			t.Errorf("signature %q, want %q", got.sig, want)
		}
		if !strings.Contains(string(got.body), `"event":"portfolio.alert"`) || !strings.Contains(string(got.body), "1 A ST") ||
			strings.Contains(string(got.body), "2 B ST") {
			t.Errorf("webhook body %s", got.body)
		}

		// May: the account can pay for one home only. The first is valued, then the portfolio pauses and says so.
		b := balance(t, e.db, e.userID)
		if _, err := e.db.Grant(ctx, e.userID, 1-b, "adjustment", "test", "t2", e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC))
		rep, err = e.svc.Revalue(ctx)
		if err != nil || rep.Valued != 1 || rep.Paused != 1 {
			t.Fatalf("May run = %+v, %v; want 1 valued, then paused", rep, err)
		}
		got2, err := e.db.Portfolio(ctx, e.userID, p.ID)
		if err != nil || got2.Status != portfolio.StatusPaused || !strings.Contains(got2.PausedReason, "credits ran out") {
			t.Fatalf("portfolio after running out = %+v, %v", got2, err)
		}
		if b := balance(t, e.db, e.userID); b != 0 {
			t.Errorf("balance = %d, want 0 (never below the Free plan's floor)", b)
		}
		// Runs while broke charge nothing and send no second email.
		for range 2 {
			if rep, err := second.Revalue(ctx); err != nil || rep.Valued != 0 {
				t.Errorf("run while broke = %+v, %v", rep, err)
			}
		}
		box = &outbox{}
		if _, err := jobs.DeliverMail(ctx, e.db, box, notify.Links{BaseURL: "https://valuator.test"}, e.clock.Now); err != nil {
			t.Fatal(err)
		}
		if len(box.msgs) != 1 || !strings.Contains(box.msgs[0].Subject, "paused") ||
			!strings.Contains(box.msgs[0].Text, "2 properties are not revalued") {
			t.Fatalf("paused emails = %+v", box.msgs)
		}

		// Credits return: the next run resumes the portfolio and values the rest, once.
		if _, err := e.db.Grant(ctx, e.userID, 10, "grant", "test", "t3", e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		rep, err = e.svc.Revalue(ctx)
		if err != nil || rep.Resumed != 1 || rep.Valued != 2 {
			t.Fatalf("run after the grant = %+v, %v", rep, err)
		}
		if got2, _ := e.db.Portfolio(ctx, e.userID, p.ID); got2.Status != portfolio.StatusActive || got2.PausedReason != "" {
			t.Errorf("after resuming: %+v", got2)
		}
		if b := balance(t, e.db, e.userID); b != 8 {
			t.Errorf("balance = %d, want 8", b)
		}
		if rows, distinct := valuationCount(t, e.db, "2026-05"); rows != 3 || distinct != 3 {
			t.Errorf("May has %d valuations of %d homes, want 3 of 3", rows, distinct)
		}
		if n := len(charges(t, e.db, e.userID)); n != 9 {
			t.Errorf("%d valuation ledger rows, want 9", n)
		}
	})
}

// A portfolio's past alerts are the months that sent one, newest first, each as it was sent (the threshold then,
// the homes that moved); a month with no home past the threshold sent nothing and is not listed; pages read a
// part; another account's portfolio is not found.
func TestPortfolioAlertsAreListedNewestFirst(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		e := setup(t, url)
		ctx := context.Background()
		threshold := 5.0
		p, _, err := e.svc.Create(ctx, call(e.userID), portfolio.Settings{Name: "Rentals", AlertThreshold: &threshold},
			homes("1 A St", "2 B St"))
		if err != nil {
			t.Fatal(err)
		}
		if list, total, err := e.svc.Alerts(ctx, e.userID, p.ID, 0, 10); err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("alerts of a new portfolio = %+v, %d, %v; want none", list, total, err)
		}
		// April: 1 A St up 10%. May: nothing moves. June: 1 A St back down (-9.09%), 2 B St up 20%.
		e.valuer.factor["1 A ST|2026-04"], e.valuer.factor["1 A ST|2026-05"] = 1.10, 1.10
		e.valuer.factor["2 B ST|2026-06"] = 1.20
		runs := map[string]time.Time{}
		for _, at := range []time.Time{
			time.Date(2026, 4, 1, 0, 30, 0, 0, time.UTC),
			time.Date(2026, 5, 1, 0, 30, 0, 0, time.UTC),
			time.Date(2026, 6, 1, 0, 30, 0, 0, time.UTC),
		} {
			e.clock.Set(at)
			if _, err := e.svc.Revalue(ctx); err != nil {
				t.Fatal(err)
			}
			runs[portfolio.Month(at)] = at
		}

		list, total, err := e.svc.Alerts(ctx, e.userID, p.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if total != 2 || len(list) != 2 || list[0].Month != "2026-06" || list[1].Month != "2026-04" {
			t.Fatalf("alerts = %+v (total %d), want June then April (May sent nothing)", list, total)
		}
		june, april := list[0], list[1]
		if !june.CreatedAt.Equal(runs["2026-06"]) || june.Threshold != 5 || len(june.Homes) != 2 {
			t.Errorf("June's alert = %+v, want the run's time, threshold 5, two homes", june)
		}
		want := portfolio.Move{HomeID: april.Homes[0].HomeID, FormattedAddress: "1 A ST, SEATTLE, WA 98103",
			PreviousMonth: "2026-03", PreviousValue: 500000, Value: 550000, ChangePercent: 10}
		if len(april.Homes) != 1 || april.Homes[0] != want || !april.CreatedAt.Equal(runs["2026-04"]) {
			t.Errorf("April's alert = %+v, want %+v", april, want)
		}
		if m := june.Homes[0]; m.PreviousMonth != "2026-05" || m.PreviousValue != 550000 || m.Value != 500000 ||
			m.ChangePercent != -9.09 {
			t.Errorf("June's first mover = %+v, want 550000 in May to 500000 (-9.09%%)", m)
		}

		// Pages: the second of one alert a page is April; a page past the last is empty with the same total.
		for _, c := range []struct {
			offset, limit int
			months        []string
		}{{0, 1, []string{"2026-06"}}, {1, 1, []string{"2026-04"}}, {2, 1, nil}, {999_999_000, 1000, nil}} {
			list, total, err := e.svc.Alerts(ctx, e.userID, p.ID, c.offset, c.limit)
			var got []string
			for _, a := range list {
				got = append(got, a.Month)
			}
			if err != nil || total != 2 || strings.Join(got, ",") != strings.Join(c.months, ",") {
				t.Errorf("offset %d limit %d = %v (total %d), %v; want %v", c.offset, c.limit, got, total, err, c.months)
			}
		}

		if _, _, err := e.svc.Alerts(ctx, e.otherID, p.ID, 0, 10); !errors.Is(err, portfolio.ErrNotFound) {
			t.Errorf("another account's alerts: %v, want portfolio_not_found", err)
		}
	})
}
