package server

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"valuator/internal/portfolio"
	"valuator/internal/testdb"
)

type portfolioAnswer struct {
	ID            int64
	Name, Status  string
	HomeCount     int
	WebhookSecret string
	Results       []struct {
		Index       int
		Status      string
		HomeID      int64
		Code, Field string
		CreditsUsed int
	}
	Homes []struct {
		ID     int64
		Latest *struct {
			Month           string
			Value           int64
			ConfidenceLevel string
		}
	}
	Totals  struct{ Value int64 }
	History []struct {
		Month string
		Value int64
	}
}

// The portfolio routes under /api/v1 (API key) and their session twins under /api: create (charged as lookups),
// read, add, remove, delete; another account's portfolio is 404 on every route; bad input names the field; every
// answer matches api/openapi.yaml (the harness checks).
func TestPortfolioRoutes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		key := a.createKey(token, "Production", 60).Value
		johnKey := a.createKey(john, "Other", 60).Value
		before := a.credits(token)

		r := a.do(req{method: "POST", path: "/api/v1/portfolios", header: map[string]string{"x-api-key": key},
			body: map[string]any{"name": "Rentals", "alertThreshold": 5, "properties": []map[string]any{
				{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"},
				{"address": "3000 Test Ave N", "city": "Seattle", "state": "WA", "zip": "98103"},
				{"address": "1 Main St", "city": "Topeka", "state": "KS", "zip": "66603"},
			}}})
		expectStatus(t, r, http.StatusCreated)
		var p portfolioAnswer
		r.json(t, &p)
		if p.HomeCount != 2 || p.Status != "active" || len(p.Results) != 3 || p.Results[2].Status != "failed" ||
			p.Results[2].Code == "" || p.Results[2].CreditsUsed != 0 || p.Results[0].CreditsUsed != 1 {
			t.Fatalf("created = %+v", p)
		}
		if got := a.credits(token); got != before-2 {
			t.Errorf("credits = %d, want %d (two homes valued)", got, before-2)
		}

		// The dashboard reads the same portfolio through the session.
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/portfolios/%d", p.ID), token: token})
		expectStatus(t, r, http.StatusOK)
		var d portfolioAnswer
		r.json(t, &d)
		if len(d.Homes) != 2 || d.Homes[0].Latest == nil || d.Homes[0].Latest.Month != "2026-03" ||
			d.Totals.Value == 0 || len(d.History) != 1 {
			t.Errorf("detail = %+v", d)
		}
		r = a.do(req{method: "GET", path: "/api/portfolios", token: token})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "GET", path: "/api/v1/portfolios?limit=10", header: map[string]string{"x-api-key": key}})
		expectStatus(t, r, http.StatusOK)

		// Another account: 404 on every route, by key and by session.
		for _, rq := range []req{
			{method: "GET", path: fmt.Sprintf("/api/v1/portfolios/%d", p.ID), header: map[string]string{"x-api-key": johnKey}},
			{method: "DELETE", path: fmt.Sprintf("/api/v1/portfolios/%d", p.ID), header: map[string]string{"x-api-key": johnKey}},
			{method: "POST", path: fmt.Sprintf("/api/v1/portfolios/%d/properties", p.ID), header: map[string]string{"x-api-key": johnKey},
				body: map[string]any{"properties": []map[string]any{{"address": "3002 Test Ave N", "city": "Seattle", "state": "WA", "zip": "98103"}}}},
			{method: "DELETE", path: fmt.Sprintf("/api/v1/portfolios/%d/properties", p.ID), header: map[string]string{"x-api-key": johnKey},
				body: map[string]any{"homeIds": []int64{d.Homes[0].ID}}},
			{method: "GET", path: fmt.Sprintf("/api/portfolios/%d", p.ID), token: john},
			{method: "DELETE", path: fmt.Sprintf("/api/portfolios/%d", p.ID), token: john},
		} {
			r := a.do(rq)
			if r.status != http.StatusNotFound || r.errBody(t).Code != "portfolio_not_found" {
				t.Errorf("%s %s by another account = %d %s, want 404 portfolio_not_found", rq.method, rq.path, r.status, r.body)
			}
		}

		// Bad input names the field, on each route.
		for _, c := range []struct {
			rq    req
			field string
		}{
			{req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": ""}}, "name"},
			{req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "P", "alertThreshold": 0.01}, badRequest: true}, "alertThreshold"},
			{req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "P",
				"properties": []map[string]any{{"city": "Seattle"}}}, badRequest: true}, "properties[0].address"},
			{req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "P",
				"webhookUrl": "ftp://x"}}, "webhookUrl"},
			{req{method: "GET", path: "/api/portfolios/abc", token: token, badRequest: true}, "id"},
			{req{method: "GET", path: "/api/portfolios?limit=0", token: token, badRequest: true}, "limit"},
			{req{method: "GET", path: fmt.Sprintf("/api/portfolios/%d?page=0", p.ID), token: token, badRequest: true}, "page"},
			{req{method: "POST", path: fmt.Sprintf("/api/portfolios/%d/properties", p.ID), token: token,
				body: map[string]any{"properties": []map[string]any{}}, badRequest: true}, "properties"},
			{req{method: "DELETE", path: fmt.Sprintf("/api/portfolios/%d/properties", p.ID), token: token,
				body: map[string]any{"homeIds": []int64{}}, badRequest: true}, "homeIds"},
			{req{method: "DELETE", path: "/api/v1/portfolios/0", header: map[string]string{"x-api-key": key}, badRequest: true}, "id"},
		} {
			r := a.do(c.rq)
			if r.status != http.StatusBadRequest || r.errBody(t).Field != c.field {
				t.Errorf("%s %s %v = %d %s, want 400 naming %s", c.rq.method, c.rq.path, c.rq.body, r.status, r.body, c.field)
			}
		}

		// Add one home (charged), remove one, delete the portfolio.
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/portfolios/%d/properties", p.ID), token: token,
			body: map[string]any{"properties": []map[string]any{{"address": "3002 Test Ave N", "city": "Seattle", "state": "WA", "zip": "98103"}}}})
		expectStatus(t, r, http.StatusOK)
		if got := a.credits(token); got != before-3 {
			t.Errorf("credits after add = %d, want %d", got, before-3)
		}
		r = a.do(req{method: "DELETE", path: fmt.Sprintf("/api/v1/portfolios/%d/properties", p.ID), header: map[string]string{"x-api-key": key},
			body: map[string]any{"homeIds": []int64{d.Homes[0].ID}}})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "DELETE", path: fmt.Sprintf("/api/portfolios/%d", p.ID), token: token})
		expectStatus(t, r, http.StatusNoContent)
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/v1/portfolios/%d", p.ID), header: map[string]string{"x-api-key": key}})
		expectStatus(t, r, http.StatusNotFound)
	})
}

// A portfolio made from a spreadsheet: the dashboard's batch preview and the confirmed mapping go through the batch
// reader; each result says its line in the file; the mapping, a fact that is not a number, another account's upload
// and properties sent beside the upload each answer 400 or 404 naming what is wrong, and nothing is charged.
func TestPortfolioFromSpreadsheet(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		before := a.credits(token)
		uploadID, r := a.preview(token, "homes.csv", batchCSV(2)) // two Seattle homes and one in Topeka
		expectStatus(t, r, http.StatusOK)
		mapping := map[string]string{"Property Address": "address", "City": "city", "State": "state",
			"Zip Code": "zip", "List Price": "ignore"}

		for _, c := range []struct {
			name   string
			rq     req
			status int
			field  string
		}{
			{"another account's upload", req{method: "POST", path: "/api/portfolios", token: john,
				body: map[string]any{"name": "P", "uploadId": uploadID, "mapping": mapping}}, http.StatusNotFound, ""},
			{"no address column", req{method: "POST", path: "/api/portfolios", token: token,
				body: map[string]any{"name": "P", "uploadId": uploadID, "mapping": map[string]string{"City": "city"}}},
				http.StatusBadRequest, "mapping"},
			{"uploadId 0", req{method: "POST", path: "/api/portfolios", token: token,
				body: map[string]any{"name": "P", "uploadId": 0}, badRequest: true}, http.StatusBadRequest, "uploadId"},
			{"the largest uploadId", req{method: "POST", path: "/api/portfolios", token: token,
				body: map[string]any{"name": "P", "uploadId": int64(math.MaxInt64)}}, http.StatusNotFound, ""},
			{"both properties and an upload", req{method: "POST", path: "/api/portfolios", token: token,
				body: map[string]any{"name": "P", "uploadId": uploadID, "properties": []map[string]any{{"address": "3000 Test Ave N"}}}},
				http.StatusBadRequest, "uploadId"},
		} {
			r := a.do(c.rq)
			if r.status != c.status || (c.field != "" && r.errBody(t).Field != c.field) {
				t.Errorf("%s = %d %s, want %d naming %q", c.name, r.status, r.body, c.status, c.field)
			}
		}
		if got := a.credits(token); got != before {
			t.Errorf("credits after refused requests = %d, want %d", got, before)
		}

		r = a.do(req{method: "POST", path: "/api/portfolios", token: token,
			body: map[string]any{"name": "From the sheet", "uploadId": uploadID, "mapping": mapping}})
		expectStatus(t, r, http.StatusCreated)
		var p struct {
			HomeCount int
			Results   []struct {
				Index, Line int
				Status      string
			}
		}
		r.json(t, &p)
		if p.HomeCount != 2 || len(p.Results) != 3 {
			t.Fatalf("created = %s", r.body)
		}
		for i, want := range []struct {
			line   int
			status string
		}{{2, "added"}, {3, "added"}, {4, "failed"}} {
			if p.Results[i].Line != want.line || p.Results[i].Status != want.status {
				t.Errorf("result %d = %+v, want line %d %s", i, p.Results[i], want.line, want.status)
			}
		}
		if got := a.credits(token); got != before-2 {
			t.Errorf("credits = %d, want %d", got, before-2)
		}

		// No mapping: the detected one (the preview's) is used.
		r = a.do(req{method: "POST", path: "/api/portfolios", token: token,
			body: map[string]any{"name": "Detected", "uploadId": uploadID}})
		expectStatus(t, r, http.StatusCreated)

		// A fact that is not a number refuses the file, naming its line; nothing is charged.
		bad, r := a.preview(token, "bad.csv", []byte("Address,City,State,ZIP,Sq Ft\n3000 Test Ave N,Seattle,WA,98103,1850\n3002 Test Ave N,Seattle,WA,98103,big\n"))
		expectStatus(t, r, http.StatusOK)
		before = a.credits(token)
		r = a.do(req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "Bad", "uploadId": bad,
			"mapping": map[string]string{"Address": "address", "City": "city", "State": "state", "ZIP": "zip", "Sq Ft": "squareFeet"}}})
		if r.status != http.StatusBadRequest || r.errBody(t).Field != "uploadId" || !strings.Contains(r.errBody(t).Error, "Line 3") {
			t.Errorf("a bad fact = %d %s, want 400 naming line 3", r.status, r.body)
		}
		if got := a.credits(token); got != before {
			t.Errorf("credits after a refused file = %d, want %d", got, before)
		}
	})
}

// PATCH changes a portfolio's name, threshold and webhook (by key and by session): a field left out is unchanged,
// null turns alerts off or removes the webhook, a webhook added gets a secret; bad input names the field; another
// account's portfolio is 404.
func TestPortfolioSettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		key := a.createKey(token, "Production", 60).Value
		r := a.do(req{method: "POST", path: "/api/portfolios", token: token, body: map[string]any{"name": "Rentals",
			"alertThreshold": 5, "properties": []map[string]any{{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}}}})
		expectStatus(t, r, http.StatusCreated)
		var p portfolioAnswer
		r.json(t, &p)
		path := fmt.Sprintf("/api/portfolios/%d", p.ID)
		before := a.credits(token)

		type view struct {
			Name           string
			AlertThreshold *float64
			WebhookURL     *string
			WebhookSecret  string
			HomeCount      int
		}
		patch := func(rq req) view {
			t.Helper()
			rq.method = "PATCH"
			r := a.do(rq)
			expectStatus(t, r, http.StatusOK)
			var v view
			r.json(t, &v)
			return v
		}
		v := patch(req{path: path, token: token, body: map[string]any{"name": "  Seattle rentals "}})
		if v.Name != "Seattle rentals" || v.AlertThreshold == nil || *v.AlertThreshold != 5 || v.HomeCount != 1 {
			t.Errorf("after a new name = %+v (the threshold unchanged)", v)
		}
		v = patch(req{path: "/api/v1" + path[len("/api"):], header: map[string]string{"x-api-key": key},
			body: map[string]any{"alertThreshold": 2.5}})
		if v.Name != "Seattle rentals" || v.AlertThreshold == nil || *v.AlertThreshold != 2.5 {
			t.Errorf("after a new threshold = %+v", v)
		}
		v = patch(req{path: path, token: token, body: map[string]any{"alertThreshold": nil}})
		if v.AlertThreshold != nil {
			t.Errorf("alertThreshold null = %+v, want alerts off", v)
		}
		v = patch(req{path: path, token: token, body: map[string]any{"webhookUrl": "http://127.0.0.1:9/hook"}})
		if v.WebhookURL == nil || v.WebhookSecret == "" {
			t.Errorf("a webhook added = %+v, want it with a secret", v)
		}
		secret := v.WebhookSecret
		v = patch(req{path: path, token: token, body: map[string]any{"webhookUrl": "http://127.0.0.1:9/other"}})
		if v.WebhookSecret != secret {
			t.Errorf("a webhook moved changed its secret")
		}
		v = patch(req{path: path, token: token, body: map[string]any{"webhookUrl": nil}})
		if v.WebhookURL != nil || v.WebhookSecret != "" {
			t.Errorf("webhookUrl null = %+v, want no webhook", v)
		}
		if got := a.credits(token); got != before {
			t.Errorf("credits = %d, want %d (settings are free)", got, before)
		}

		for _, c := range []struct {
			body  any
			field string
		}{
			{map[string]any{"name": ""}, "name"},
			{map[string]any{"name": "a\u202eb"}, "name"},
			{map[string]any{"alertThreshold": 0}, "alertThreshold"},
			{map[string]any{"alertThreshold": "5"}, "alertThreshold"},
			{map[string]any{"webhookUrl": "ftp://x"}, "webhookUrl"},
			{map[string]any{"webhookUrl": 5}, "webhookUrl"},
		} {
			r := a.do(req{method: "PATCH", path: path, token: token, body: c.body, badRequest: true})
			if r.status != http.StatusBadRequest || r.errBody(t).Field != c.field {
				t.Errorf("PATCH %v = %d %s, want 400 naming %s", c.body, r.status, r.body, c.field)
			}
		}
		r = a.do(req{method: "PATCH", path: path, token: john, body: map[string]any{"name": "Mine"}})
		if r.status != http.StatusNotFound || r.errBody(t).Code != "portfolio_not_found" {
			t.Errorf("another account's PATCH = %d %s, want 404", r.status, r.body)
		}
		r = a.do(req{method: "GET", path: path, token: token})
		var d view
		r.json(t, &d)
		if d.Name != "Seattle rentals" {
			t.Errorf("after the refused requests the name is %q", d.Name)
		}
	})
}

// A portfolio's past alerts, by key and by session: the months that sent one, newest first, each with its threshold
// and the homes that moved as the alert carried them; a month that sent nothing is not listed; pages; another
// account's portfolio is 404; a bad id or paging parameter is 400 naming it; a page far past the last is an empty
// page. The alerts are stored as the monthly run stores them (store.SaveAlert), at times of the test's clock.
func TestPortfolioAlerts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		key := a.createKey(token, "Production", 60).Value
		johnKey := a.createKey(john, "Other", 60).Value
		r := a.do(req{method: "POST", path: "/api/v1/portfolios", header: map[string]string{"x-api-key": key},
			body: map[string]any{"name": "Rentals", "alertThreshold": 0.1, "properties": []map[string]any{
				{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}}}})
		expectStatus(t, r, http.StatusCreated)
		var p struct {
			ID      int64
			Results []struct {
				HomeID           int64
				FormattedAddress string
				Value            int64
			}
		}
		r.json(t, &p)
		pub := fmt.Sprintf("/api/v1/portfolios/%d/alerts", p.ID)
		dash := fmt.Sprintf("/api/portfolios/%d/alerts", p.ID)

		type page struct {
			Data []struct {
				Month     string
				CreatedAt time.Time
				Threshold float64
				Homes     []portfolio.Move
			}
			Pagination struct {
				Page, Limit, Total, TotalPages int
				HasPreviousPage, HasNextPage   bool
			}
		}
		read := func(rq req) page {
			t.Helper()
			r := a.do(rq)
			expectStatus(t, r, http.StatusOK)
			var pg page
			r.json(t, &pg)
			return pg
		}
		if pg := read(req{method: "GET", path: dash, token: token}); len(pg.Data) != 0 || pg.Pagination.Total != 0 {
			t.Errorf("a new portfolio's alerts = %+v, want none", pg)
		}

		// April: the home moved past 0.1%; May: nothing did (decided, not sent); June: it moved again. Each is
		// decided on its month's first day on the test's clock (which stays put, so the session lasts).
		home := p.Results[0]
		var sent []time.Time
		for i, moved := range []bool{true, false, true} {
			at := a.clock.Now().AddDate(0, i+1, 0)
			al := portfolio.Alert{PortfolioID: p.ID, PortfolioName: "Rentals", Month: portfolio.Month(at),
				Threshold: 0.1, CreatedAt: at}
			if moved {
				al.Homes = []portfolio.Move{{HomeID: home.HomeID, FormattedAddress: home.FormattedAddress,
					PreviousMonth: fmt.Sprintf("2026-%02d", 3+i), PreviousValue: home.Value, Value: home.Value + 1000 + int64(i),
					ChangePercent: 0.2}}
				sent = append(sent, at)
			}
			if saved, err := a.db.SaveAlert(context.Background(), al, nil); err != nil || !saved {
				t.Fatalf("save %s's alert: %v, %v", al.Month, saved, err)
			}
		}

		pg := read(req{method: "GET", path: pub, header: map[string]string{"x-api-key": key}})
		if len(pg.Data) != 2 || pg.Data[0].Month != "2026-06" || pg.Data[1].Month != "2026-04" ||
			pg.Pagination.Total != 2 || pg.Pagination.Limit != 12 || pg.Pagination.HasNextPage {
			t.Fatalf("alerts = %+v, want June then April on one page (May sent nothing)", pg)
		}
		june := pg.Data[0]
		want := portfolio.Move{HomeID: home.HomeID, FormattedAddress: home.FormattedAddress, PreviousMonth: "2026-05",
			PreviousValue: home.Value, Value: home.Value + 1002, ChangePercent: 0.2}
		if !june.CreatedAt.Equal(sent[1]) || june.Threshold != 0.1 || len(june.Homes) != 1 || june.Homes[0] != want {
			t.Errorf("June's alert = %+v, want sent at %s with %+v", june, sent[1], want)
		}

		// The session twin, a page at a time; a page far past the last is empty.
		pg = read(req{method: "GET", path: dash + "?limit=1&page=2", token: token})
		if len(pg.Data) != 1 || pg.Data[0].Month != "2026-04" || !pg.Pagination.HasPreviousPage || pg.Pagination.HasNextPage ||
			pg.Pagination.TotalPages != 2 {
			t.Errorf("page 2 at one alert a page = %+v, want April, the last page", pg)
		}
		pg = read(req{method: "GET", path: pub + "?page=1000000&limit=1000", header: map[string]string{"x-api-key": key}})
		if len(pg.Data) != 0 || pg.Pagination.Total != 2 || pg.Pagination.HasNextPage {
			t.Errorf("page 1000000 = %+v, want an empty page of 2 alerts", pg)
		}

		for _, rq := range []req{
			{method: "GET", path: pub, header: map[string]string{"x-api-key": johnKey}},
			{method: "GET", path: dash, token: john},
			{method: "GET", path: "/api/portfolios/9223372036854775807/alerts", token: token},
		} {
			r := a.do(rq)
			if r.status != http.StatusNotFound || r.errBody(t).Code != "portfolio_not_found" {
				t.Errorf("GET %s = %d %s, want 404 portfolio_not_found", rq.path, r.status, r.body)
			}
		}

		for _, c := range []struct {
			rq    req
			field string
		}{
			{req{method: "GET", path: "/api/portfolios/abc/alerts", token: token}, "id"},
			{req{method: "GET", path: "/api/v1/portfolios/0/alerts", header: map[string]string{"x-api-key": key}}, "id"},
			{req{method: "GET", path: "/api/portfolios/9223372036854775808/alerts", token: token}, "id"},
			{req{method: "GET", path: dash + "?page=0", token: token}, "page"},
			{req{method: "GET", path: dash + "?page=1000001", token: token}, "page"},
			{req{method: "GET", path: pub + "?page=two", header: map[string]string{"x-api-key": key}}, "page"},
			{req{method: "GET", path: dash + "?limit=0", token: token}, "limit"},
			{req{method: "GET", path: pub + "?limit=1001", header: map[string]string{"x-api-key": key}}, "limit"},
		} {
			c.rq.badRequest = true
			r := a.do(c.rq)
			if r.status != http.StatusBadRequest || r.errBody(t).Field != c.field {
				t.Errorf("GET %s = %d %s, want 400 naming %s", c.rq.path, r.status, r.body, c.field)
			}
		}
	})
}
