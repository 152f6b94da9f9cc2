package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/apikey"
	"valuator/internal/ratelimit"
	"valuator/internal/testdb"
	"valuator/internal/testredis"
)

// createKey makes an API key through the dashboard API and returns it.
func (a *testApp) createKey(token, name string, rateLimit int) apikey.Key {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/api-keys", token: token, body: map[string]any{"name": name, "rateLimit": rateLimit}})
	expectStatus(a.t, r, http.StatusCreated)
	var k apikey.Key
	r.json(a.t, &k)
	return k
}

// public calls the public valuation endpoint with a key.
func (a *testApp) public(key string, q url.Values) resp {
	a.t.Helper()
	h := map[string]string{}
	if key != "" {
		h["x-api-key"] = key
	}
	return a.do(req{method: "GET", path: "/api/v1/property/valuation?" + q.Encode(), header: h})
}

var fortieth = url.Values{"address": {"1000 N 40th St"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98103"}}

func rateHeaders(t *testing.T, r resp) (limit, remaining, reset int) {
	t.Helper()
	var err error
	for _, h := range []struct {
		name string
		dst  *int
	}{{"x-ratelimit-limit", &limit}, {"x-ratelimit-remaining", &remaining}, {"x-ratelimit-reset", &reset}} {
		if *h.dst, err = strconv.Atoi(r.header.Get(h.name)); err != nil {
			t.Fatalf("response %d lacks %s: %v", r.status, h.name, r.header)
		}
	}
	return
}

// TestNewKeyDefaultsToThePlanCap: a key created without a rate limit gets the plan's cap (100 on Enterprise, which has
// none), so that its own limit is the one that applies and the table shows no "(N/min on your plan)" note.
func TestNewKeyDefaultsToThePlanCap(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	for i, tt := range []struct {
		plan string
		want int
	}{{"free", 60}, {"basic", 60}, {"professional", 120}, {"enterprise", 100}} {
		t.Run(tt.plan, func(t *testing.T) {
			token, u := a.register(fmt.Sprintf("key%d@example.com", i), "correct-horse", "Key Owner")
			setPlan(t, a, u.ID, tt.plan, -1)
			r := a.do(req{method: "POST", path: "/api/api-keys", token: token, body: map[string]any{"name": "Default"}})
			expectStatus(t, r, http.StatusCreated)
			var k apikey.Key
			r.json(t, &k)
			if k.RateLimit != tt.want || k.EffectiveRateLimit != tt.want {
				t.Errorf("new key on %s: rateLimit %d, effective %d; want %d and %d", tt.plan, k.RateLimit,
					k.EffectiveRateLimit, tt.want, tt.want)
			}
		})
	}
}

func TestAPIKeyLifecycle(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		jane, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")

		r := a.do(req{method: "GET", path: "/api/api-keys", token: jane})
		expectStatus(t, r, http.StatusOK)
		if strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("new account's keys = %s, want []", r.body)
		}

		k := a.createKey(jane, "  Production  ", 100)
		if k.Name != "Production" || !apikey.WellFormed(k.Value) || k.Preview != apikey.Preview(k.Value) ||
			k.RateLimit != 100 || k.EffectiveRateLimit != 60 || k.LastUsedAt != nil {
			t.Errorf("created key = %+v (the Free plan caps 100 at 60)", k)
		}
		def := a.do(req{method: "POST", path: "/api/api-keys", token: jane, body: map[string]any{"name": "Default"}})
		var d apikey.Key
		def.json(t, &d)
		// Without a limit, a key gets the plan's cap: the limit it shows is the one it has.
		if d.RateLimit != 60 || d.EffectiveRateLimit != 60 {
			t.Errorf("default rate limit on the Free plan = %d (effective %d), want 60", d.RateLimit, d.EffectiveRateLimit)
		}

		var list []apikey.Key
		a.do(req{method: "GET", path: "/api/api-keys", token: jane}).json(t, &list)
		if len(list) != 2 || list[1].Value != k.Value || list[0].Name != "Default" {
			t.Errorf("list = %+v, want both keys newest first with the full key", list)
		}
		// John sees none of Jane's keys and cannot delete them.
		a.do(req{method: "GET", path: "/api/api-keys", token: john}).json(t, &list)
		if len(list) != 0 {
			t.Errorf("John sees %d keys", len(list))
		}
		r = a.do(req{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID), token: john})
		expectStatus(t, r, http.StatusNotFound)
		expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)

		// Deleting stops the key at once.
		expectStatus(t, a.do(req{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID), token: jane}), http.StatusNoContent)
		r = a.public(k.Value, fortieth)
		expectStatus(t, r, http.StatusUnauthorized)
		if e := r.errBody(t); e.Code != "invalid_api_key" {
			t.Errorf("deleted key: %+v", e)
		}
		expectStatus(t, a.do(req{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID), token: jane}), http.StatusNotFound)
		a.do(req{method: "GET", path: "/api/api-keys", token: jane}).json(t, &list)
		if len(list) != 1 {
			t.Errorf("%d keys after deleting one of two", len(list))
		}

		for _, tt := range []struct {
			body  map[string]any
			field string
			msg   string
		}{
			{map[string]any{"name": "   "}, "name", "Please enter a key name"},
			{map[string]any{"name": " DashBoard "}, "name", apikey.MsgNameReserved},
			{map[string]any{"name": "x", "rateLimit": 0}, "rateLimit", apikey.MsgRateLimit},
			{map[string]any{"name": "x", "rateLimit": 1001}, "rateLimit", apikey.MsgRateLimit},
			{map[string]any{"name": "x", "rateLimit": 2.5}, "rateLimit", apikey.MsgRateLimit},
			{map[string]any{"name": "x", "rateLimit": "fast"}, "rateLimit", "rateLimit must be a number"},
		} {
			r := a.do(req{method: "POST", path: "/api/api-keys", token: jane, body: tt.body, badRequest: true})
			expectStatus(t, r, http.StatusBadRequest)
			if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
				t.Errorf("create %v: %+v, want %s: %s", tt.body, e, tt.field, tt.msg)
			}
		}
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/api-keys/abc", token: jane, badRequest: true}), http.StatusBadRequest)
		expectStatus(t, a.do(req{method: "GET", path: "/api/api-keys"}), http.StatusUnauthorized)
		expectStatus(t, a.do(req{method: "POST", path: "/api/api-keys", body: map[string]any{"name": "x"}}), http.StatusUnauthorized)
	})
}

func TestPublicValuationAnswersEveryError(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 100)

		r := a.public(k.Value, fortieth)
		expectStatus(t, r, http.StatusOK)
		var ans lookupAnswer
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "exact" || ans.Data.Meta.CreditsUsed != 1 || ans.Data.Meta.CreditsRemaining != 99 {
			t.Errorf("answer = %+v %+v", ans.Data.Property, ans.Data.Meta)
		}
		if limit, remaining, reset := rateHeaders(t, r); limit != 60 || remaining != 59 || reset < 1 {
			t.Errorf("headers limit %d remaining %d reset %d", limit, remaining, reset)
		}
		// A single line and an Authorization: Bearer key work too.
		r = a.do(req{method: "GET", path: "/api/v1/property/valuation?address=" + url.QueryEscape("1000 N 40th St, Seattle, WA 98103"),
			header: map[string]string{"Authorization": "Bearer " + k.Value}})
		expectStatus(t, r, http.StatusOK)

		for _, tt := range []struct {
			name   string
			key    string
			query  url.Values
			rq     *req
			status int
			code   string
			field  string
		}{
			{name: "no key", query: fortieth, status: 401, code: "missing_api_key"},
			{name: "malformed key", key: "vk_live_oops", query: fortieth, status: 401, code: "invalid_api_key"},
			{name: "unknown key", key: mustKey(t), query: fortieth, status: 401, code: "invalid_api_key"},
			{name: "no address", key: k.Value, query: url.Values{"city": {"Seattle"}, "state": {"WA"}, "zip": {"98103"}}, status: 400, field: "address"},
			{name: "bad number", key: k.Value, query: url.Values{"address": {"1000 N 40th St"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98103"}, "squareFeet": {"big"}}, status: 400, field: "squareFeet"},
			{name: "short zip", key: k.Value, query: url.Values{"address": {"1 Main St"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98"}}, status: 400, field: "zip"},
			{name: "no market", key: k.Value, query: url.Values{"address": {"1 Main St"}, "city": {"Miami"}, "state": {"FL"}, "zip": {"33101"}}, status: 404, code: "area_not_covered"},
			{name: "json body", rq: &req{method: "GET", path: "/api/v1/property/valuation?" + fortieth.Encode(),
				header: map[string]string{"x-api-key": k.Value}, body: map[string]string{"address": "1000 N 40th St"}, badRequest: true},
				status: 400, field: "body"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var r resp
				if tt.rq != nil {
					r = a.do(*tt.rq)
				} else {
					h := map[string]string{}
					if tt.key != "" {
						h["x-api-key"] = tt.key
					}
					r = a.do(req{method: "GET", path: "/api/v1/property/valuation?" + tt.query.Encode(), header: h,
						badRequest: tt.status == 400})
				}
				expectStatus(t, r, tt.status)
				rateHeaders(t, r)
				e := r.errBody(t)
				if tt.code != "" && e.Code != tt.code {
					t.Errorf("code %q, want %q", e.Code, tt.code)
				}
				if tt.field != "" && e.Field != tt.field {
					t.Errorf("field %q, want %q (%s)", e.Field, tt.field, e.Error)
				}
			})
		}
		// Nothing but the two valuations was charged.
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		if me.Credits != 98 {
			t.Errorf("credits = %d, want 98", me.Credits)
		}

		// Out of credits: 402 with the overage terms, and nothing charged.
		spendAll(t, a, u.ID)
		r = a.public(k.Value, fortieth)
		expectStatus(t, r, http.StatusPaymentRequired)
		rateHeaders(t, r)
		var e struct {
			Code              string
			Balance           int64
			Plan              string
			OverageRateCents  int64
			OverageLimitCents *int64
		}
		r.json(t, &e)
		if e.Code != "insufficient_credits" || e.Balance != 0 || e.Plan != "free" || e.OverageRateCents != 0 {
			t.Errorf("402 = %+v", e)
		}
	})
}

func mustKey(t *testing.T) string {
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPublicRateLimit(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	slow := a.createKey(token, "Slow", 3)
	fast := a.createKey(token, "Fast", 100)
	for i := 0; i < 3; i++ {
		r := a.public(slow.Value, fortieth)
		expectStatus(t, r, http.StatusOK)
		if _, remaining, _ := rateHeaders(t, r); remaining != 2-i {
			t.Errorf("call %d: remaining %d", i+1, remaining)
		}
	}
	r := a.public(slow.Value, fortieth)
	expectStatus(t, r, http.StatusTooManyRequests)
	e := r.errBody(t)
	if limit, remaining, _ := rateHeaders(t, r); limit != 3 || remaining != 0 || e.RetryAfter < 1 ||
		r.header.Get("Retry-After") != strconv.Itoa(e.RetryAfter) {
		t.Errorf("429: limit %d remaining %d retry %d / %q", limit, remaining, e.RetryAfter, r.header.Get("Retry-After"))
	}
	if want := fmt.Sprintf("Rate limit of 3 requests a minute exceeded. Retry in %d seconds.", e.RetryAfter); e.RetryAfter < 2 || e.Error != want {
		t.Errorf("429 says %q, want %q", e.Error, want)
	}
	// Budgets are per key.
	expectStatus(t, a.public(fast.Value, fortieth), http.StatusOK)
	// A second before the end of the wait, the answer says so in the singular.
	a.clock.Advance(time.Duration(e.RetryAfter-1) * time.Second)
	last := a.public(slow.Value, fortieth)
	expectStatus(t, last, http.StatusTooManyRequests)
	if got := last.errBody(t).Error; got != "Rate limit of 3 requests a minute exceeded. Retry in 1 second." {
		t.Errorf("429 a second before the end says %q", got)
	}
	// After the wait the key works again; a throttled call was not charged.
	a.clock.Advance(time.Second)
	expectStatus(t, a.public(slow.Value, fortieth), http.StatusOK)
	var me struct{ Credits int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
	if me.Credits != 95 {
		t.Errorf("credits = %d, want 95 (five valuations)", me.Credits)
	}
	// Calls without a usable key are limited per client address.
	for i := 0; i < 60; i++ {
		a.public("", fortieth)
	}
	anon := a.public("", fortieth)
	expectStatus(t, anon, http.StatusTooManyRequests)
	if got := anon.errBody(t).Error; !strings.HasPrefix(got, "Rate limit of 60 requests a minute exceeded. Retry in ") {
		t.Errorf("429 of the anonymous budget says %q", got)
	}

	// The plan caps the key: Professional allows 120 (the key's 100 applies), Enterprise the key's own 1000.
	var me2 struct{ ID int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me2)
	// In this order: the key of 1000 below is made on Enterprise (a map would pick the order at random).
	for _, p := range []struct {
		plan string
		want int
	}{{"professional", 100}, {"enterprise", 100}} {
		setPlan(t, a, me2.ID, p.plan, -1)
		if limit, _, _ := rateHeaders(t, a.public(fast.Value, fortieth)); limit != p.want {
			t.Errorf("%s: limit %d, want %d", p.plan, limit, p.want)
		}
	}
	big := a.createKey(token, "Big", 1000)
	if limit, _, _ := rateHeaders(t, a.public(big.Value, fortieth)); limit != 1000 {
		t.Errorf("enterprise key of 1000: limit %d", limit)
	}
}

// TestRateLimitMessageCounts: the 429 reads right for a budget of one (issue 33): "1 request a minute", never
// "1 requests a minute", and "60 requests a minute" for sixty.
func TestRateLimitMessageCounts(t *testing.T) {
	for n, want := range map[int]string{1: "1 request a minute", 60: "60 requests a minute"} {
		if got := requestsAMinute(n); got != want {
			t.Errorf("requestsAMinute(%d) = %q, want %q", n, got, want)
		}
	}
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	one := a.createKey(token, "One", 1)
	expectStatus(t, a.public(one.Value, fortieth), http.StatusOK)
	r := a.public(one.Value, fortieth)
	expectStatus(t, r, http.StatusTooManyRequests)
	e := r.errBody(t)
	if want := fmt.Sprintf("Rate limit of 1 request a minute exceeded. Retry in %d seconds.", e.RetryAfter); e.RetryAfter < 2 || e.Error != want {
		t.Errorf("429 of a key of 1 says %q, want %q", e.Error, want)
	}
	// Sixty in words is checked above and, end to end, by TestPublicRateLimit's anonymous budget of 60.
}

// TestMeteringUnderConcurrency fires many parallel calls at a small balance: exactly the balance is charged, the
// rest get 402, and the ledger sums to the balance.
func TestMeteringUnderConcurrency(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Load", 1000)
		// Enterprise (no rate cap worth hitting) with a zero overage limit, so the balance is the hard stop.
		setPlan(t, a, u.ID, "enterprise", 0)
		spendTo(t, a, u.ID, 7)
		const n = 40
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("GET", a.srv.URL+"/api/v1/property/valuation?"+fortieth.Encode(), nil)
				req.Header.Set("x-api-key", k.Value)
				res, err := a.srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				mu.Lock()
				codes[res.StatusCode]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes[200] != 7 || codes[402] != n-7 {
			t.Fatalf("statuses %v, want 7 × 200 and %d × 402", codes, n-7)
		}
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		rows, _ := a.db.Ledger(context.Background(), u.ID, 1000)
		var sum int64
		for _, r := range rows {
			sum += r.Amount
		}
		if me.Credits != 0 || sum != 0 {
			t.Errorf("balance %d, ledger sum %d; want both 0", me.Credits, sum)
		}
		var hist struct {
			Pagination struct{ Total int }
		}
		a.do(req{method: "GET", path: "/api/usage/history?status=error&limit=1", token: token}).json(t, &hist)
		if hist.Pagination.Total != n-7 {
			t.Errorf("%d refused calls recorded, want %d", hist.Pagination.Total, n-7)
		}
	})
}

func TestOverageOnAPaidPlan(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 100)
		// Basic plan with a $0.06 overage limit: two credits of overage at 3 cents.
		setPlan(t, a, u.ID, "basic", 6)
		spendAll(t, a, u.ID)
		expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)
		expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)
		r := a.public(k.Value, fortieth)
		expectStatus(t, r, http.StatusPaymentRequired)
		var e struct {
			Balance           int64
			OverageRateCents  int64
			OverageLimitCents *int64
		}
		r.json(t, &e)
		if e.Balance != -2 || e.OverageRateCents != 3 || e.OverageLimitCents == nil || *e.OverageLimitCents != 6 {
			t.Errorf("402 = %+v, want balance -2 at 3 cents with a 6 cent limit", e)
		}
	})
}

// setPlan puts a user on a plan with an overage limit in cents (negative: no limit).
func setPlan(t *testing.T, a *testApp, userID int64, plan string, limitCents int64) {
	t.Helper()
	var limit *int64
	if limitCents >= 0 {
		limit = &limitCents
	}
	if err := a.db.SetPlan(context.Background(), userID, plan, limit, a.clock.Now()); err != nil {
		t.Fatal(err)
	}
}

// spendTo takes a user's balance down to left credits.
func spendTo(t *testing.T, a *testApp, userID, left int64) {
	t.Helper()
	spendAll(t, a, userID)
	if _, err := a.db.Grant(context.Background(), userID, left, "test", "test credits", "", a.clock.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestInstancesShareOneRedisBudget runs two instances of the service on one database and one Redis: a key's
// budget is spent across both, and a key deleted on one stops working on the other at once.
func TestInstancesShareOneRedisBudget(t *testing.T) {
	redisURL := testredis.URL(t)
	dbURL := testdb.SQLiteURL(t)
	instance := func() *testApp {
		l, err := ratelimit.NewRedis(redisURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return newTestApp(t, dbURL, func(o *appOptions) { o.apiLimiter = l })
	}
	a, b := instance(), instance()
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	k := a.createKey(token, "Shared", 3)
	// No market is loaded, so each call is a 404 (not charged), which spends from the budget all the same.
	nowhere := url.Values{"address": {"1 Main St, Topeka, KS 66603"}}
	for i, app := range []*testApp{a, b, a} {
		r := app.public(k.Value, nowhere)
		expectStatus(t, r, http.StatusNotFound)
		if limit, remaining, _ := rateHeaders(t, r); limit != 3 || remaining != 2-i {
			t.Errorf("call %d: limit %d remaining %d, want 3 and %d", i+1, limit, remaining, 2-i)
		}
	}
	r := b.public(k.Value, nowhere)
	expectStatus(t, r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Deleted on one instance, refused by the other at the next call.
	expectStatus(t, a.do(req{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID), token: token}), http.StatusNoContent)
	expectStatus(t, b.public(k.Value, nowhere), http.StatusUnauthorized)
}

// TestKeysOutliveAChangedSecret: after the server secret changes, keys sealed under the old one are listed with an
// empty keyValue (they cannot be shown) and still work, instead of the list failing.
func TestKeysOutliveAChangedSecret(t *testing.T) {
	dbURL := testdb.SQLiteURL(t)
	before := newTestApp(t, dbURL)
	token, _ := before.register("jane@example.com", "correct-horse", "Jane Doe")
	k := before.createKey(token, "Old", 10)
	after := newTestApp(t, dbURL, func(o *appOptions) { o.sealSecret = strings.Repeat("n", 32) })
	r := after.do(req{method: "GET", path: "/api/api-keys", token: token})
	expectStatus(t, r, http.StatusOK)
	var keys []apikey.Key
	r.json(t, &keys)
	if len(keys) != 1 || keys[0].Value != "" || keys[0].Preview != k.Preview {
		t.Errorf("keys after the secret changed = %+v", keys)
	}
	nowhere := url.Values{"address": {"1 Main St, Topeka, KS 66603"}}
	expectStatus(t, after.public(k.Value, nowhere), http.StatusNotFound) // authenticated: the key still works
}
