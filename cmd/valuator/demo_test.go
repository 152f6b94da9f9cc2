package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/avm"
	"valuator/internal/clock"
	"valuator/internal/mail"
	"valuator/internal/person"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	usagerec "valuator/internal/usage"
	"valuator/internal/valuation"
)

// TestDemoAccountShowsTheProduct starts a development server on an empty database, as `make run` does (SQLite, and
// PostgreSQL), and looks at the demo account the way its first visitor does: the sign-in page's demo button, then
// History, Reporting, API Keys, Batch and Billing. The account has weeks of use on many days, every outcome of a
// call, a finished batch job whose results download, and a balance that is the sum of its ledger and the 100
// sign-up credits less what its history says it spent.
func TestDemoAccountShowsTheProduct(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the valuation engine on the demo market")
	}
	testdb.Each(t, func(t *testing.T, dbURL string) {
		before := testclock.Now() // the server's clock starts here (startServeFor sets VALUATOR_CLOCK)
		srv := startServeFor(t, map[string]string{"VALUATOR_DEMO": "true", "VALUATOR_DATABASE_URL": dbURL}, 3*time.Minute)
		if !strings.Contains(srv.out.String(), "gave the demo account") {
			t.Fatalf("stdout does not say the demo account was given its activity:\n%s", srv.out.String())
		}
		// A newcomer is told the server is running only once there is nothing left to prepare: it says it is
		// starting, writes the demo account's history, computes the market statistics, and only then runs.
		out := srv.out.String()
		starting, history, running := strings.Index(out, "Valuator is starting at"),
			strings.Index(out, "gave the demo account"), strings.Index(out, "Valuator is running at")
		if starting < 0 || !(starting < history && history < running) {
			t.Errorf("stdout does not say starting, then the demo history, then running:\n%s", out)
		}
		if !strings.Contains(srv.logs.String(), "market statistics ready") {
			t.Errorf("running before the market statistics were ready:\n%s", srv.logs.String())
		}

		// The sign-in page's "Use the demo account" reads this, then signs in with it.
		var demo struct{ Email, Password string }
		getJSON(t, srv.url+"/api/auth/demo", "", http.StatusOK, &demo)
		if demo.Email != demoEmail || demo.Password != demoPassword {
			t.Fatalf("GET /api/auth/demo = %+v", demo)
		}
		body, _ := json.Marshal(map[string]string{"email": demo.Email, "password": demo.Password})
		res, err := http.Post(srv.url+"/api/auth/login", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var auth struct {
			Token string
			User  struct {
				ID        int64
				Credits   int64
				Plan      string
				CreatedAt time.Time
			}
		}
		decode(t, res, http.StatusOK, &auth)
		token := auth.Token
		if auth.User.Plan != "free" || auth.User.CreatedAt.After(before.AddDate(0, 0, -21)) {
			t.Errorf("demo user: plan %s, joined %s; want the Free plan, weeks ago", auth.User.Plan, auth.User.CreatedAt)
		}

		// History: every record in the past weeks, many days, every kind of call and outcome.
		type entry struct {
			CreatedAt      time.Time
			ResponseStatus int
			APIKeyName     *string
			Endpoint       string
			APIService     string
			CreditsUsed    int64
			Valuation      *int64
		}
		var hist struct {
			Data       []entry
			Pagination struct{ Total int }
		}
		getJSON(t, srv.url+"/api/usage/history?limit=100", token, http.StatusOK, &hist)
		if hist.Pagination.Total < 30 || len(hist.Data) != hist.Pagination.Total {
			t.Fatalf("history has %d of %d entries, want at least 30 on one page", len(hist.Data), hist.Pagination.Total)
		}
		days := map[string]bool{}
		kinds := map[string]int{}
		var spent int64
		for i, e := range hist.Data {
			days[e.CreatedAt.Format(time.DateOnly)] = true
			spent += e.CreditsUsed
			if !e.CreatedAt.Before(before) || e.CreatedAt.Before(auth.User.CreatedAt) {
				t.Errorf("entry at %s: not between the sign-up (%s) and the start (%s)", e.CreatedAt, auth.User.CreatedAt, before)
			}
			if i > 0 && e.CreatedAt.After(hist.Data[i-1].CreatedAt) {
				t.Errorf("history out of time order at %d: %s after %s", i, e.CreatedAt, hist.Data[i-1].CreatedAt)
			}
			switch {
			case e.APIService == "batch" && e.ResponseStatus == 200 && e.CreditsUsed > 0:
				kinds["batch"]++
			case e.APIService == "person_lookup" && e.ResponseStatus == 200 && e.CreditsUsed == 5:
				kinds["person found"]++
			case e.APIService == "person_lookup" && e.ResponseStatus == 404 && e.CreditsUsed == 0:
				kinds["person not found"]++
			case e.APIService != "property_valuation":
				t.Errorf("unexpected entry %+v", e)
			case e.ResponseStatus == 200 && (e.CreditsUsed != 1 || e.Valuation == nil):
				t.Errorf("a valuation without its charge or value: %+v", e)
			case e.ResponseStatus == 200 && e.APIKeyName != nil:
				kinds["api valued"]++
			case e.ResponseStatus == 200:
				kinds["dashboard valued"]++
			case e.CreditsUsed != 0:
				t.Errorf("a refused call was charged: %+v", e)
			case e.ResponseStatus == 404:
				kinds["not found"]++
			case e.ResponseStatus == 400:
				kinds["invalid"]++
			}
		}
		first, last := hist.Data[len(hist.Data)-1].CreatedAt, hist.Data[0].CreatedAt
		if len(days) < 12 || last.Sub(first) < 21*24*time.Hour {
			t.Errorf("history covers %d days from %s to %s; want weeks of use on at least 12 days", len(days), first, last)
		}
		for _, k := range []string{"api valued", "dashboard valued", "not found", "invalid", "person found",
			"person not found", "batch"} {
			if kinds[k] == 0 {
				t.Errorf("history has no %q entry: %v", k, kinds)
			}
		}
		if kinds["api valued"] < 15 {
			t.Errorf("%d calls with the API key, want weeks of them", kinds["api valued"])
		}

		// Reporting: the same requests, spread over the chart's days.
		var stats struct {
			TotalRequests, SuccessfulRequests int
			CreditsUsed                       int64
			ResponseTimes                     struct{ Fast, Normal, Slow int }
			RequestsByDay                     []struct{ Requests int }
		}
		getJSON(t, srv.url+"/api/usage/stats?days=30", token, http.StatusOK, &stats)
		busy := 0
		for _, d := range stats.RequestsByDay {
			if d.Requests > 0 {
				busy++
			}
		}
		if stats.TotalRequests != hist.Pagination.Total || stats.CreditsUsed != spent || busy != len(days) ||
			stats.SuccessfulRequests >= stats.TotalRequests || stats.ResponseTimes.Fast == 0 || stats.ResponseTimes.Slow == 0 {
			t.Errorf("stats %+v (%d days with requests); want the history's %d requests and %d credits on its %d days",
				stats, busy, hist.Pagination.Total, spent, len(days))
		}

		// The balance is what the ledger says, and the sign-up grant less what the history spent.
		var ledger struct {
			Data []struct {
				Amount, Balance int64
				Kind            string
			}
		}
		getJSON(t, srv.url+"/api/billing/credits/history?limit=100", token, http.StatusOK, &ledger)
		var sum int64
		for _, r := range ledger.Data {
			sum += r.Amount
		}
		if len(ledger.Data) == 0 || ledger.Data[0].Balance != auth.User.Credits || sum != auth.User.Credits ||
			auth.User.Credits != 100-spent || auth.User.Credits < 50 {
			t.Errorf("balance %d, ledger sum %d over %d rows (newest balance %v), history spent %d; want them to agree "+
				"and at least 50 left", auth.User.Credits, sum, len(ledger.Data), ledger.Data, spent)
		}

		// The API key was created weeks ago with the plan's cap, and used since.
		var keys []struct {
			Name                          string
			RateLimit, EffectiveRateLimit int
			CreatedAt                     time.Time
			LastUsedAt                    *time.Time
		}
		getJSON(t, srv.url+"/api/api-keys", token, http.StatusOK, &keys)
		if len(keys) != 1 || keys[0].RateLimit != 60 || keys[0].EffectiveRateLimit != 60 || keys[0].LastUsedAt == nil ||
			keys[0].CreatedAt.After(before.AddDate(0, 0, -21)) {
			t.Errorf("API keys %+v, want one made weeks ago at 60/min and used since", keys)
		}

		// The batch job finished, and its results download: a row per property, valued or saying why not.
		var jobs []struct {
			ID                                    int64
			Status                                string
			TotalProperties, SuccessfulProperties int
			ResultsAvailable                      bool
		}
		getJSON(t, srv.url+"/api/jobs", token, http.StatusOK, &jobs)
		if len(jobs) != 1 || jobs[0].Status != "completed" || !jobs[0].ResultsAvailable ||
			jobs[0].SuccessfulProperties == 0 || jobs[0].SuccessfulProperties == jobs[0].TotalProperties {
			t.Fatalf("batch jobs %+v, want one completed with results, some rows valued and some not", jobs)
		}
		res = get(t, srv.url+"/api/jobs/1/download", token)
		rows, err := csv.NewReader(res.Body).ReadAll()
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || len(rows) != 1+jobs[0].TotalProperties {
			t.Errorf("download: %d, %d lines (%v); want the header and %d rows", res.StatusCode, len(rows), err,
				jobs[0].TotalProperties)
		}

		// The seeding is deterministic: run again for another account at the same start (the batch job was
		// uploaded three hours before it), with the engine the server saved, it writes the same history.
		var job struct{ CreatedAt time.Time }
		getJSON(t, srv.url+"/api/jobs/1", token, http.StatusOK, &job)
		checkDemoDeterministic(t, dbURL, auth.User.ID, job.CreatedAt.Add(3*time.Hour))

		// A second start of the same database adds nothing: the demo is seeded once, into an empty database.
		srv.stop(t)
		again := startServeFor(t, map[string]string{"VALUATOR_DEMO": "true", "VALUATOR_DATABASE_URL": dbURL}, time.Minute)
		if strings.Contains(again.out.String(), "Development mode:") {
			t.Errorf("second start seeded again:\n%s", again.out.String())
		}
		getJSON(t, again.url+"/api/auth/demo", "", http.StatusOK, &demo)
		again.stop(t)
	})
}

// checkDemoDeterministic seeds the demo activity for a second account in the database and checks that its history
// is the demo account's: the same calls at the same times with the same answers.
func checkDemoDeterministic(t *testing.T, dbURL string, demoID int64, now time.Time) {
	t.Helper()
	ctx := context.Background()
	db := testStore(t, dbURL)
	quiet := slog.New(slog.DiscardHandler)
	vals := valuation.New(db, quiet, clock.Starting(now).Now, avm.DefaultOptions())
	if err := vals.Load(ctx); err != nil { // restores the engine the start saved
		t.Fatal(err)
	}
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: quiet}, SessionTTL: time.Hour})
	twin, err := accounts.Register(ctx, account.RegisterInput{Email: "twin@example.com", Password: "twin-password",
		FullName: "Demo Twin"}, account.Client{IP: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := apikey.NewSealer(strings.Repeat("t", 32))
	if err != nil {
		t.Fatal(err)
	}
	if err := seedDemoActivity(ctx, db, vals, person.Directory{Store: db}, sealer, twin.User.ID, now, io.Discard); err != nil {
		t.Fatal(err)
	}
	history := func(id int64) []string {
		entries, _, err := db.UsageHistory(ctx, id, usagerec.Filter{Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			e.ID, e.RequestData = 0, nil
			if e.PropertyAddress != nil && strings.HasPrefix(*e.PropertyAddress, "Batch #") {
				_, rest, _ := strings.Cut(*e.PropertyAddress, " (")
				e.PropertyAddress = &rest // without the job's id
				e.RequestID = ""
			}
			b, _ := json.Marshal(e)
			out = append(out, string(b))
		}
		return out
	}
	got, want := history(twin.User.ID), history(demoID)
	if len(want) < 30 {
		t.Fatalf("the demo account's history has %d entries", len(want))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a second seeding wrote another history:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDemoSeedsAnEmptyDevelopmentDatabase checks the demo account and market of a first development start, without
// the engine's training (TestDemoAccountShowsTheProduct runs all of it).
func TestDemoSeedsAnEmptyDevelopmentDatabase(t *testing.T) {
	ctx := context.Background()
	db := testStore(t, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	now := time.Date(2026, 3, 2, 15, 4, 5, 0, time.UTC)
	var out bytes.Buffer
	id, err := seedDemoAccount(ctx, db, now, &out)
	if err != nil || id == 0 {
		t.Fatalf("seedDemoAccount = %d, %v", id, err)
	}
	if err := seedDemoMarket(ctx, db, now, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), demoEmail) || !strings.Contains(out.String(), "3000 homes") {
		t.Errorf("output = %q", out.String())
	}
	// The account signed up weeks before the start, with its sign-up credits that day.
	u, err := db.UserByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 2, 4, 9, 14, 0, 0, time.UTC); !u.CreatedAt.Equal(want) || u.Credits != 100 {
		t.Errorf("demo account joined %s with %d credits, want %s and 100", u.CreatedAt, u.Credits, want)
	}
	rows, err := db.Ledger(ctx, id, 10)
	if err != nil || len(rows) != 1 || !rows[0].CreatedAt.Equal(u.CreatedAt) {
		t.Errorf("ledger %+v (%v), want the sign-up grant on the day of sign-up", rows, err)
	}
	// A second start leaves a seeded database alone.
	out.Reset()
	if id, err := seedDemoAccount(ctx, db, now, &out); err != nil || id != 0 || out.Len() != 0 {
		t.Errorf("second seedDemoAccount: %d %v %q", id, err, out.String())
	}
	if err := seedDemoMarket(ctx, db, now, &out); err != nil || out.Len() != 0 {
		t.Errorf("second seed: %v %q", err, out.String())
	}
}

// TestNoDemoSignInOutsideTheDemo: the sign-in page's demo button is offered only by a development server with the
// demo on; a production server answers 204 (none) (the demo is never seeded there).
func TestNoDemoSignInOutsideTheDemo(t *testing.T) {
	srv := startServe(t, nil) // development, VALUATOR_DEMO=false
	getJSON(t, srv.url+"/api/auth/demo", "", http.StatusNoContent, nil)
	srv.stop(t)
	srv = startServe(t, map[string]string{"VALUATOR_ENV": "production", "VALUATOR_DEMO": "true",
		"VALUATOR_SECRET": strings.Repeat("s", 40), "VALUATOR_BASE_URL": "https://valuator.example.com",
		"VALUATOR_SUPPORT_EMAIL": "support@valuator.example.com"})
	getJSON(t, srv.url+"/api/auth/demo", "", http.StatusNoContent, nil)
	if strings.Contains(srv.out.String(), demoEmail) {
		t.Errorf("production seeded the demo account: %q", srv.out.String())
	}
	srv.stop(t)
}

func get(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// getJSON GETs url (with a session token when given), checks the status and decodes the answer into v (unless nil).
func getJSON(t *testing.T, url, token string, status int, v any) {
	t.Helper()
	decode(t, get(t, url, token), status, v)
}

func decode(t *testing.T, res *http.Response, status int, v any) {
	t.Helper()
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("%s %s: %d %s, want %d", res.Request.Method, res.Request.URL.Path, res.StatusCode, body, status)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
	}
}
