package server

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"valuator/internal/testdb"
)

// TestAddressOutsideTheMarketsIsFree: an address that is placed (its ZIP code, or its city) but lies far from every
// sale loaded (Miami, on the Seattle test market) is a free 404 area_not_covered that names the place, on the
// dashboard and the public API, even with the property type and square feet given; as a batch row it fails with
// reason area_not_covered and is not charged. A home on record is still valued and charged, and an address that
// cannot be placed at all is still property_not_found (an unknown ZIP code, a 400 invalid_zip, as before).
func TestAddressOutsideTheMarketsIsFree(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Coverage", 60)
		lookup := func(body map[string]any) resp {
			return a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: body})
		}
		miami := map[string]any{"address": "100 Biscayne Blvd", "city": "Miami", "state": "FL", "zip": "33131",
			"propertyType": "Condo", "squareFeet": 1200}
		miamiQuery := url.Values{"address": {"100 Biscayne Blvd"}, "city": {"Miami"}, "state": {"FL"}, "zip": {"33131"},
			"propertyType": {"Condo"}, "squareFeet": {"1200"}}

		for _, tt := range []struct {
			name string
			call func() resp
			want string
		}{
			{"dashboard, facts given", func() resp { return lookup(miami) }, "We have no sales near 33131"},
			{"dashboard, no facts", func() resp {
				return lookup(map[string]any{"address": "100 Biscayne Blvd", "city": "Miami", "state": "FL", "zip": "33131"})
			}, "We have no sales near 33131"},
			{"dashboard, one line without a ZIP", func() resp {
				return lookup(map[string]any{"address": "100 Biscayne Blvd, Miami, FL", "propertyType": "Condo", "squareFeet": 1200})
			}, "We have no sales near Miami, FL"},
			{"public API, facts given", func() resp { return a.public(key.Value, miamiQuery) }, "We have no sales near 33131"},
			{"public API, one line", func() resp {
				return a.public(key.Value, url.Values{"address": {"100 Biscayne Blvd, Miami, FL 33131"}})
			}, "We have no sales near 33131"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := tt.call()
				expectStatus(t, r, http.StatusNotFound)
				if e := r.errBody(t); e.Code != "area_not_covered" || e.Error != tt.want || e.Field != "" {
					t.Errorf("got %+v, want code area_not_covered and the message %q", e, tt.want)
				}
			})
		}
		// An address that cannot be placed at all is not said to be outside the markets: it is not found.
		r := lookup(map[string]any{"address": "1 Main St, Nowhereville, WA", "propertyType": "Condo", "squareFeet": 1200})
		expectStatus(t, r, http.StatusNotFound)
		if e := r.errBody(t); e.Code != "property_not_found" {
			t.Errorf("an address that cannot be placed: %+v, want property_not_found", e)
		}
		// A ZIP code that does not exist stays a 400 naming the zip.
		r = a.do(req{method: "POST", path: "/api/property/lookup", token: token, badRequest: true,
			body: map[string]any{"address": "1 Main St", "city": "Miami", "state": "FL", "zip": "00000"}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Code != "invalid_zip" || e.Field != "zip" {
			t.Errorf("unknown ZIP code: %+v", e)
		}

		// None of it cost a credit, and no ledger row was written for it.
		if c := a.credits(token); c != 100 {
			t.Errorf("refusals cost %d credits", 100-c)
		}
		entries, err := a.db.Ledger(context.Background(), u.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Amount < 0 {
				t.Errorf("a refusal was charged: %+v", e)
			}
		}

		// A home on record is unaffected: valued and charged.
		r = lookup(map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"})
		expectStatus(t, r, http.StatusOK)
		var ans lookupAnswer
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "exact" || ans.Data.Valuation.EstimatedValue <= 0 || ans.Data.Meta.CreditsUsed != 1 {
			t.Errorf("home on record: %+v", ans.Data)
		}
		if c := a.credits(token); c != 99 {
			t.Errorf("after the home on record: %d credits, want 99", c)
		}

		// The same rule in a batch: the uncovered row fails with its reason and the place, free; the home on record
		// is valued and charged.
		r = a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"type": "batch", "fileName": "coverage.json",
			"inputData": map[string]any{"properties": []map[string]any{
				miami,
				{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"},
				{"address": "1 Main St, Nowhereville, WA", "propertyType": "Condo", "squareFeet": 1200},
			}}}})
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		j = a.waitJob(token, j.ID, "completed")
		if j.SuccessfulProperties != 1 || j.FailedProperties != 2 || j.CreditsUsed != 1 {
			t.Errorf("job %+v, want one row valued and charged, two refused", j)
		}
		rows := a.batchResults(token, j.ID)
		if len(rows) != 3 {
			t.Fatalf("%d rows, want 3", len(rows))
		}
		for i, w := range []struct{ status, reason, err string }{
			{"failed", "area_not_covered", "We have no sales near 33131"},
			{"success", "", ""},
			{"failed", "not_found", "Property not found"},
		} {
			row := rows[i]
			reason := ""
			if row.Reason != nil {
				reason = *row.Reason
			}
			if row.Status != w.status || reason != w.reason || row.Error != w.err {
				t.Errorf("row %d = %+v (reason %q), want %+v", i+1, row, reason, w)
			}
		}
		if c := a.credits(token); c != 98 {
			t.Errorf("after the batch: %d credits, want 98", c)
		}
	})
}
