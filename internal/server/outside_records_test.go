package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// TestFactsOutsideTheRecordsAreFree: a home not on record with a fact far outside what the records of its area and
// type hold (the Seattle test market's single-family homes have 900 to 2,700 sq ft) is refused with a 422
// outside_records naming the field and the range on record, by the dashboard, the public API and as a batch row
// (reason outside_records), and none of it costs a credit; a size within the records is valued and charged.
func TestFactsOutsideTheRecordsAreFree(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Sizes", 60)
		home := func(sqft string) url.Values {
			return url.Values{"address": {"1 Nowhere Ln"}, "city": {"Seattle"}, "state": {"WA"}, "zip": {"98103"},
				"propertyType": {"Single Family"}, "squareFeet": {sqft}}
		}
		type outside struct {
			Code, Field, Error string
			RecordRange        struct {
				Field, Area string
				Min, Max    float64
				Homes       int
			}
		}
		for _, sqft := range []string{"100000", "20000", "400"} {
			r := a.public(key.Value, home(sqft))
			expectStatus(t, r, http.StatusUnprocessableEntity)
			var e outside
			r.json(t, &e)
			rr := e.RecordRange
			if e.Code != "outside_records" || e.Field != "squareFeet" || rr.Field != "squareFeet" || rr.Area != "98103" ||
				rr.Min < 800 || rr.Max > 2800 || rr.Homes < 400 || !strings.HasSuffix(e.Error, "Not charged.") {
				t.Errorf("%s sq ft: %+v", sqft, e)
			}
		}
		r := a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: map[string]any{"address": "1 Nowhere Ln",
			"city": "Seattle", "state": "WA", "zip": "98103", "propertyType": "Single Family", "squareFeet": 100000}})
		expectStatus(t, r, http.StatusUnprocessableEntity)
		if e := r.errBody(t); e.Code != "outside_records" || e.Field != "squareFeet" {
			t.Errorf("dashboard: %+v", e)
		}
		if c := a.credits(token); c != 100 {
			t.Errorf("refusals cost %d credits", 100-c)
		}
		expectStatus(t, a.public(key.Value, home("1800")), http.StatusOK)
		if c := a.credits(token); c != 99 {
			t.Errorf("a size within the records cost %d credits, want 1", 100-c)
		}

		// The same rule in a batch: the row fails with its reason, free.
		r = a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"type": "batch", "fileName": "sizes.json",
			"inputData": map[string]any{"properties": []map[string]any{
				{"address": "1 Nowhere Ln", "city": "Seattle", "state": "WA", "zip": "98103", "propertyType": "Single Family", "squareFeet": 100000},
				{"address": "2 Nowhere Ln", "city": "Seattle", "state": "WA", "zip": "98103", "propertyType": "Single Family", "squareFeet": 1800},
			}}}})
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		j = a.waitJob(token, j.ID, "completed")
		if j.SuccessfulProperties != 1 || j.FailedProperties != 1 || j.CreditsUsed != 1 {
			t.Errorf("job %+v, want one row valued and charged, one refused", j)
		}
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?status=failed", j.ID), token: token})
		var page struct{ Data []resultAnswer }
		r.json(t, &page)
		if len(page.Data) != 1 || page.Data[0].Reason == nil || *page.Data[0].Reason != "outside_records" ||
			page.Data[0].Error == nil || !strings.Contains(*page.Data[0].Error, "100,000 sq ft were given") {
			t.Errorf("failed rows %+v", page.Data)
		}
		if c := a.credits(token); c != 98 {
			t.Errorf("after the batch: %d credits, want 98", c)
		}
	})
}
