package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// The hardening tests of the HTTP edge: what reaches the handlers and what a call may cost.

// TestHeadOnAMeteredEndpointIsRefusedAndFree: net/http answers HEAD with the GET handler, which valued the home
// and charged a credit for a body nobody receives.
func TestHeadOnAMeteredEndpointIsRefusedAndFree(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 100)
		before := a.credits(token)
		r := a.do(req{method: "HEAD", path: "/api/v1/property/valuation?address=1000+N+40th+St&city=Seattle&state=WA&zip=98103",
			header: map[string]string{"x-api-key": k.Value}, noContract: true})
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET" {
			t.Errorf("HEAD answered %d (Allow %q), want 405 with Allow: GET", r.status, r.header.Get("Allow"))
		}
		if after := a.credits(token); after != before {
			t.Errorf("HEAD charged: balance %d -> %d", before, after)
		}
		var h historyAnswer
		a.do(req{method: "GET", path: "/api/usage/history", token: token}).json(t, &h)
		if h.Pagination.Total != 0 {
			t.Errorf("HEAD left %d history entries, want none", h.Pagination.Total)
		}
	})
}

// TestManyKeysDoNotBuyMoreRequests: on a capped plan the account's keys share one budget equal to the plan's cap,
// and an account has at most 20 keys.
func TestManyKeysDoNotBuyMoreRequests(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		keys := []string{}
		for i := 0; i < 3; i++ {
			keys = append(keys, a.createKey(token, fmt.Sprintf("Key %d", i+1), 100).Value)
		}
		nowhere := url.Values{"address": {"1 Main St"}, "city": {"Topeka"}, "state": {"KS"}, "zip": {"66603"}}
		// 60 calls a minute on the Free plan, spread over three keys of 60 each: all served (404: not on record).
		for i := 0; i < 60; i++ {
			r := a.public(keys[i%3], nowhere)
			if r.status != http.StatusNotFound {
				t.Fatalf("call %d: %d %s", i+1, r.status, r.body)
			}
		}
		// The 61st, on any key, is over the account's budget.
		for _, k := range keys {
			r := a.public(k, nowhere)
			expectStatus(t, r, http.StatusTooManyRequests)
			e := r.errBody(t)
			if limit, remaining, _ := rateHeaders(t, r); limit != 60 || remaining != 0 || e.RetryAfter < 1 ||
				!strings.Contains(e.Error, "account") {
				t.Errorf("over the account budget: limit %d, remaining %d, retry %d, %q", limit, remaining, e.RetryAfter, e.Error)
			}
		}
		// The dashboard's market statistics spend the same budget (issue 36, L-6: they had none), free when refused.
		before := a.credits(token)
		for _, path := range []string{"/api/markets?zip=98103", "/api/markets/compare?zip=98103&zip=98115"} {
			r := a.do(req{method: "GET", path: path, token: token})
			expectStatus(t, r, http.StatusTooManyRequests)
			if e := r.errBody(t); e.RetryAfter < 1 || e.Code != "rate_limited" {
				t.Errorf("%s over the account budget: %+v", path, e)
			}
		}
		if after := a.credits(token); after != before {
			t.Errorf("a refused market call charged: %d -> %d", before, after)
		}
		// Another account's budget is its own.
		expectStatus(t, a.public(a.createKey(john, "John's", 100).Value, nowhere), http.StatusNotFound)
		expectStatus(t, a.do(req{method: "GET", path: "/api/markets?zip=00000", token: john}), http.StatusNotFound)

		// Twenty keys at most.
		for i := 3; i < 20; i++ {
			a.createKey(token, fmt.Sprintf("Key %d", i+1), 100)
		}
		r := a.do(req{method: "POST", path: "/api/api-keys", token: token, body: map[string]any{"name": "Key 21"}})
		expectStatus(t, r, http.StatusConflict)
		if e := r.errBody(t); e.Code != "too_many_api_keys" || !strings.Contains(e.Error, "20") {
			t.Errorf("key 21: %s", r.body)
		}
	})
}

// TestNamesRefuseControlAndBidiCharacters: a key or contact name that would display as something else (a right-to-
// left override) or break a line is refused naming the field.
func TestNamesRefuseControlAndBidiCharacters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		contact := func(first, last, company string) map[string]any {
			return map[string]any{"firstName": first, "lastName": last, "company": company, "email": "ada@example.com",
				"subject": "general", "message": "Line one\nline two"}
		}
		for _, tt := range []struct {
			name  string
			rq    req
			field string
		}{
			{"key name with an override", req{method: "POST", path: "/api/api-keys", token: token,
				body: map[string]any{"name": "Prod\u202Eyek"}}, "name"},
			{"key name with a line break", req{method: "POST", path: "/api/api-keys", token: token,
				body: map[string]any{"name": "Prod\nkey"}}, "name"},
			{"contact first name with an isolate", req{method: "POST", path: "/api/contact",
				body: contact("Ada\u2067", "Lovelace", "")}, "firstName"},
			{"contact last name with a control character", req{method: "POST", path: "/api/contact",
				body: contact("Ada", "Love\x1blace", "")}, "lastName"},
			{"contact company with a tab", req{method: "POST", path: "/api/contact",
				body: contact("Ada", "Lovelace", "Analytical\tEngines")}, "company"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				expectField(t, a.do(tt.rq), http.StatusBadRequest, tt.field)
			})
		}
		// A message keeps its line breaks.
		expectStatus(t, a.do(req{method: "POST", path: "/api/contact", body: contact("Ada", "Lovelace", "")}), http.StatusCreated)
	})
}

// TestHistoryPagesAreBounded: a page number whose offset overflows made PostgreSQL answer 500 (and SQLite page 1).
func TestHistoryPagesAreBounded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		for _, page := range []string{"9223372036854775807", "1000001", "99999999999999999999"} {
			r := a.do(req{method: "GET", path: "/api/usage/history?page=" + page, token: token, badRequest: true})
			expectField(t, r, http.StatusBadRequest, "page")
		}
		expectStatus(t, a.do(req{method: "GET", path: "/api/usage/history?page=1000000", token: token}), http.StatusOK)
	})
}

// TestNULInAnyJSONBodyNamesTheField: the check at the edge covers nested fields and lists, and names them by their
// JSON path.
func TestNULInAnyJSONBodyNamesTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		for _, tt := range []struct {
			name  string
			rq    req
			field string
		}{
			{"a nested field", req{method: "POST", path: "/api/properties/download-report", token: token,
				body: map[string]any{"propertyData": map[string]any{"address": "1 Main\x00 St"}}}, "propertyData.address"},
			{"a list of rows", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "batch", "inputData": map[string]any{"properties": []map[string]string{
					{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "98103"},
					{"address": "2 Main St", "city": "Seat\x00tle", "state": "WA", "zip": "98103"}}}}}, "inputData.properties"},
			{"the password", req{method: "POST", path: "/api/auth/login",
				body: map[string]any{"email": "jane@example.com", "password": "correct-horse\x00"}}, "password"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				r := a.do(tt.rq)
				e := expectField(t, r, http.StatusBadRequest, tt.field)
				if !strings.Contains(e.Error, "NUL") || tt.field == "inputData.properties" &&
					!strings.HasPrefix(e.Error, "inputData.properties[1].city ") {
					t.Errorf("message %q does not say what is wrong", e.Error)
				}
			})
		}
	})
}
