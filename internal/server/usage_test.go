package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"valuator/internal/testdb"
)

type historyAnswer struct {
	Data []struct {
		ID              int64
		PropertyAddress *string
		Valuation       *int64
		ResponseStatus  int
		APIKeyName      *string
		Endpoint        string
		APIService      string
		CreditsUsed     int64
		RequestData     map[string]any
	}
	Pagination struct {
		Page, Limit, Total, TotalPages int
		HasPreviousPage, HasNextPage   bool
	}
}

func TestUsageHistory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		jane, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		k := a.createKey(jane, "Production", 100)

		// Three public calls (two valued, one not found) and two dashboard lookups (one bad).
		expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)
		expectStatus(t, a.public(k.Value, url.Values{"address": {"2000 Stone Way N Unit 101"}, "city": {"Seattle"},
			"state": {"WA"}, "zip": {"98103"}}), http.StatusOK)
		expectStatus(t, a.public(k.Value, url.Values{"address": {"1 Main St"}, "city": {"Miami"}, "state": {"FL"}, "zip": {"33101"}}), http.StatusNotFound)
		expectStatus(t, a.do(req{method: "POST", path: "/api/property/lookup", token: jane,
			body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}}), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: "/api/property/lookup", token: jane, badRequest: true,
			body: map[string]any{"address": "", "city": "Seattle", "state": "WA", "zip": "98103"}}), http.StatusBadRequest)
		// The key is deleted: its calls keep its name.
		expectStatus(t, a.do(req{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID), token: jane}), http.StatusNoContent)

		get := func(token, query string) historyAnswer {
			t.Helper()
			r := a.do(req{method: "GET", path: "/api/usage/history" + query, token: token})
			expectStatus(t, r, http.StatusOK)
			var h historyAnswer
			r.json(t, &h)
			return h
		}
		h := get(jane, "")
		if h.Pagination.Total != 5 || len(h.Data) != 5 || h.Pagination.Limit != 50 || h.Pagination.TotalPages != 1 {
			t.Fatalf("history = %d entries, pagination %+v", len(h.Data), h.Pagination)
		}
		newest := h.Data[0]
		if newest.ResponseStatus != 400 || newest.APIKeyName != nil || newest.Endpoint != "POST /api/property/lookup" ||
			newest.CreditsUsed != 0 || newest.APIService != "property_valuation" {
			t.Errorf("newest entry = %+v", newest)
		}
		oldest := h.Data[4]
		if oldest.ResponseStatus != 200 || oldest.APIKeyName == nil || *oldest.APIKeyName != "Production" ||
			oldest.CreditsUsed != 1 || oldest.Valuation == nil || *oldest.Valuation <= 0 ||
			oldest.PropertyAddress == nil || *oldest.PropertyAddress != "1000 N 40TH ST, SEATTLE, WA 98103" ||
			oldest.RequestData["address"] != "1000 N 40th St" {
			t.Errorf("oldest entry = %+v", oldest)
		}

		// Pages.
		h = get(jane, "?limit=2&page=2")
		if len(h.Data) != 2 || !h.Pagination.HasPreviousPage || !h.Pagination.HasNextPage || h.Pagination.TotalPages != 3 {
			t.Errorf("page 2 of 2 = %+v", h.Pagination)
		}
		h = get(jane, "?limit=2&page=3")
		if len(h.Data) != 1 || h.Pagination.HasNextPage {
			t.Errorf("last page = %d entries %+v", len(h.Data), h.Pagination)
		}
		// Filters, applied on the server across all pages.
		for _, tt := range []struct {
			query string
			want  int
		}{
			{"?status=success", 3}, {"?status=error", 2}, {"?apiKey=Production", 3}, {"?apiKey=dashboard", 2},
			{"?search=stone%20way", 1}, {"?search=MIAMI", 1}, {"?search=100%25", 0}, {"?apiKey=Production&status=error", 1},
		} {
			if got := get(jane, tt.query).Pagination.Total; got != tt.want {
				t.Errorf("%s: %d entries, want %d", tt.query, got, tt.want)
			}
		}
		// John sees none of it.
		if h := get(john, ""); h.Pagination.Total != 0 || len(h.Data) != 0 {
			t.Errorf("John sees %d of Jane's entries", h.Pagination.Total)
		}
		for _, q := range []string{"?page=0", "?limit=500", "?status=fine", "?page=x"} {
			r := a.do(req{method: "GET", path: "/api/usage/history" + q, token: jane, badRequest: true})
			expectStatus(t, r, http.StatusBadRequest)
		}
		expectStatus(t, a.do(req{method: "GET", path: "/api/usage/history"}), http.StatusUnauthorized)
	})
}

type statsAnswer struct {
	Days               int
	TotalRequests      int64
	SuccessfulRequests int64
	AvgResponseTime    float64
	RequestsByDay      []struct {
		Date                 string
		Requests, Successful int64
	}
	ResponseTimes        struct{ Fast, Normal, Slow int64 }
	P50, P95             int64
	CreditsUsed          int64
	ThisMonth            int64
	LastMonth            int64
	MonthOverMonthChange *float64
}

func TestUsageStats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 100)
		stats := func(q string) statsAnswer {
			t.Helper()
			r := a.do(req{method: "GET", path: "/api/usage/stats" + q, token: token})
			expectStatus(t, r, http.StatusOK)
			var s statsAnswer
			r.json(t, &s)
			return s
		}
		// No requests: every day of the period is listed with 0.
		s := stats("")
		if s.Days != 30 || len(s.RequestsByDay) != 30 || s.TotalRequests != 0 || s.MonthOverMonthChange != nil {
			t.Fatalf("empty stats = %+v", s)
		}
		if s.RequestsByDay[29].Date != a.clock.Now().Format("2006-01-02") {
			t.Errorf("last day %s, want today", s.RequestsByDay[29].Date)
		}
		// Last month (the clock starts on March 1): two calls in February...
		a.clock.Advance(-48 * time.Hour)
		a.public(k.Value, fortieth)
		a.public(k.Value, fortieth)
		a.clock.Advance(48 * time.Hour)
		// ...and three this month, one of them not found.
		a.public(k.Value, fortieth)
		a.public(k.Value, fortieth)
		a.public(k.Value, url.Values{"address": {"1 Main St"}, "city": {"Miami"}, "state": {"FL"}, "zip": {"33101"}})

		s = stats("?days=7")
		if s.Days != 7 || len(s.RequestsByDay) != 7 || s.TotalRequests != 5 || s.SuccessfulRequests != 4 || s.CreditsUsed != 4 {
			t.Errorf("7-day stats = %+v", s)
		}
		if s.ResponseTimes.Fast+s.ResponseTimes.Normal+s.ResponseTimes.Slow != 5 || s.P95 < s.P50 {
			t.Errorf("response times %+v p50 %d p95 %d", s.ResponseTimes, s.P50, s.P95)
		}
		var onDays, withCalls int64
		for _, d := range s.RequestsByDay {
			onDays += d.Requests
			if d.Requests > 0 {
				withCalls++
			}
		}
		if onDays != 5 || withCalls != 2 || s.RequestsByDay[6].Requests != 3 || s.RequestsByDay[4].Requests != 2 {
			t.Errorf("days = %+v", s.RequestsByDay)
		}
		if s.ThisMonth != 3 || s.LastMonth != 2 || s.MonthOverMonthChange == nil || *s.MonthOverMonthChange != 0.5 {
			t.Errorf("month over month: this %d last %d change %v", s.ThisMonth, s.LastMonth, s.MonthOverMonthChange)
		}
		if s := stats("?days=90"); len(s.RequestsByDay) != 90 {
			t.Errorf("90 days = %d", len(s.RequestsByDay))
		}
		r := a.do(req{method: "GET", path: "/api/usage/stats?days=14", token: token, badRequest: true})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "days" {
			t.Errorf("days=14: %+v", e)
		}
		// Another user's statistics are their own.
		other, _ := a.register("john@example.com", "correct-horse", "John Roe")
		r = a.do(req{method: "GET", path: "/api/usage/stats", token: other})
		var os statsAnswer
		r.json(t, &os)
		if os.TotalRequests != 0 || os.ThisMonth != 0 {
			t.Errorf("John's stats count Jane's calls: %+v", os)
		}
	})
}

func TestKeysLastUseIsKeptWithoutAWritePerCall(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	k := a.createKey(token, "Production", 100)
	a.public(k.Value, fortieth)
	a.clock.Advance(time.Minute)
	a.public(k.Value, fortieth)
	// Until the server flushes, the database is unchanged.
	var list []struct{ LastUsedAt *time.Time }
	a.do(req{method: "GET", path: "/api/api-keys", token: token}).json(t, &list)
	if list[0].LastUsedAt != nil {
		t.Fatalf("lastUsedAt written on the call: %v", list[0].LastUsedAt)
	}
	used := a.touches.Drain()
	if len(used) != 1 || !used[k.ID].Equal(a.clock.Now()) {
		t.Fatalf("touches = %v, want the last call's time", used)
	}
	if err := a.db.TouchAPIKeys(context.Background(), used); err != nil {
		t.Fatal(err)
	}
	// An older flush from another instance does not move it back.
	if err := a.db.TouchAPIKeys(context.Background(), map[int64]time.Time{k.ID: a.clock.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	a.do(req{method: "GET", path: "/api/api-keys", token: token}).json(t, &list)
	if list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(a.clock.Now()) {
		t.Errorf("lastUsedAt = %v, want %v", list[0].LastUsedAt, a.clock.Now())
	}
}
