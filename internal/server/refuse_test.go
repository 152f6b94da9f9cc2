package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// Known, estimated or refused (DESIGN.md section 5): a home on record is valued from its record; a home that is
// not on record only from the facts the caller gives, and without them it is a free 404 that says what to add;
// input that is not an address is a free 400 naming the field. The dashboard lookup and the public API share the
// rules, so every case runs through both.

// refuseEndpoint is one of the two metered valuation routes.
type refuseEndpoint struct {
	name string
	call func(a *testApp, token, key string, in map[string]any, bad bool) resp
}

var refuseEndpoints = []refuseEndpoint{
	{"dashboard", func(a *testApp, token, _ string, in map[string]any, bad bool) resp {
		return a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: in, badRequest: bad})
	}},
	{"public", func(a *testApp, _, key string, in map[string]any, bad bool) resp {
		q := url.Values{}
		for k, v := range in {
			b, _ := json.Marshal(v)
			s := strings.Trim(string(b), `"`)
			q.Set(k, s)
		}
		return a.do(req{method: "GET", path: "/api/v1/property/valuation?" + q.Encode(),
			header: map[string]string{"x-api-key": key}, badRequest: bad})
	}},
}

// detailsAnswer is the whole details object, to compare with exactly the facts given.
type detailsAnswer struct {
	Data struct {
		Property struct {
			MatchCode        string
			FormattedAddress string
		}
		Valuation struct{ EstimatedValue int64 }
		Details   map[string]any
		Meta      struct{ CreditsUsed, CreditsRemaining int64 }
	}
}

var seattle = map[string]any{"city": "Seattle", "state": "WA", "zip": "98103"}

func addr(street string, extra map[string]any) map[string]any {
	out := map[string]any{"address": street}
	for k, v := range seattle {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func TestKnownEstimatedOrRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Production", 1000).Value
		balance := int64(100)
		expectBalance := func(t *testing.T, what string) {
			t.Helper()
			if got := a.credits(token); got != balance {
				t.Fatalf("%s: balance %d, want %d", what, got, balance)
			}
		}
		for _, ep := range refuseEndpoints {
			t.Run(ep.name, func(t *testing.T) {
				// Known: a home on record is valued from its record, exact.
				r := ep.call(a, token, key, addr("1000 N 40th St", nil), false)
				expectStatus(t, r, http.StatusOK)
				var ans detailsAnswer
				r.json(t, &ans)
				if ans.Data.Property.MatchCode != "exact" || ans.Data.Details["propertyType"] != "Single Family" ||
					ans.Data.Details["squareFeet"] != 1500.0 || ans.Data.Details["homeStatus"] == nil {
					t.Errorf("a home on record: %+v", ans.Data)
				}
				balance--
				expectBalance(t, "a home on record")

				// Refused: made-up streets without the facts to value them are a free 404 saying what to add.
				for _, in := range []map[string]any{
					addr("1 Nowhere Lane", nil),
					addr("99999 Fake St", nil),
					addr("55 Imaginary Blvd", nil),
					{"address": "1 Nowhere Lane, Seattle, WA 98103"},
					addr("55 Imaginary Blvd", map[string]any{"bedrooms": 3, "bathrooms": 2, "yearBuilt": 1990}),
				} {
					r := ep.call(a, token, key, in, false)
					expectStatus(t, r, http.StatusNotFound)
					e := r.errBody(t)
					want := "No property on record at this address. To value it anyway, add its propertyType and " +
						"squareFeet (optionally bedrooms, bathrooms, yearBuilt, lotSize)."
					if e.Code != "property_not_found" || e.Error != want || e.Field != "propertyType" ||
						e.Fields["propertyType"] == "" || e.Fields["squareFeet"] == "" {
						t.Errorf("%v: %+v", in, e)
					}
				}
				// One fact of the two: the message names the other.
				r = ep.call(a, token, key, addr("1 Nowhere Lane", map[string]any{"squareFeet": 1400}), false)
				expectStatus(t, r, http.StatusNotFound)
				if e := r.errBody(t); !strings.Contains(e.Error, "add its propertyType (") || e.Field != "propertyType" || len(e.Fields) != 1 {
					t.Errorf("square feet only: %+v", e)
				}
				r = ep.call(a, token, key, addr("1 Nowhere Lane", map[string]any{"propertyType": "Condo"}), false)
				expectStatus(t, r, http.StatusNotFound)
				if e := r.errBody(t); !strings.Contains(e.Error, "add its squareFeet (") || e.Field != "squareFeet" || len(e.Fields) != 1 {
					t.Errorf("type only: %+v", e)
				}
				expectBalance(t, "refused lookups")

				// Estimated: with the type and the size, valued at the ZIP centre from exactly those facts.
				r = ep.call(a, token, key, addr("1 Nowhere Lane", map[string]any{"propertyType": "Townhouse", "squareFeet": 1400}), false)
				expectStatus(t, r, http.StatusOK)
				r.json(t, &ans)
				wantDetails := map[string]any{"bedrooms": nil, "bathrooms": nil, "squareFeet": 1400.0, "livingArea": 1400.0,
					"yearBuilt": nil, "propertyType": "Townhouse", "lotSize": nil, "lotSizeSqFt": nil, "imageUrl": nil,
					"homeStatus": nil}
				if ans.Data.Property.MatchCode != "not_on_record" || !sameJSON(ans.Data.Details, wantDetails) ||
					ans.Data.Meta.CreditsUsed != 1 || ans.Data.Valuation.EstimatedValue <= 0 ||
					ans.Data.Property.FormattedAddress != "1 NOWHERE LN, SEATTLE, WA 98103" {
					t.Errorf("estimated: %+v, want details %v", ans.Data, wantDetails)
				}
				balance--
				expectBalance(t, "an estimated home")
				r = ep.call(a, token, key, addr("99999 Fake St", map[string]any{"propertyType": "Condo", "squareFeet": 900,
					"bedrooms": 2, "bathrooms": 1.5, "yearBuilt": 2004, "lotSize": 8712}), false)
				expectStatus(t, r, http.StatusOK)
				r.json(t, &ans)
				wantDetails = map[string]any{"bedrooms": 2.0, "bathrooms": 1.5, "squareFeet": 900.0, "livingArea": 900.0,
					"yearBuilt": 2004.0, "propertyType": "Condo", "lotSize": 0.2, "lotSizeSqFt": 8712.0, "imageUrl": nil,
					"homeStatus": nil}
				if ans.Data.Property.MatchCode != "not_on_record" || !sameJSON(ans.Data.Details, wantDetails) {
					t.Errorf("every fact: %+v, want details %v", ans.Data, wantDetails)
				}
				balance--
				expectBalance(t, "an estimated home with every fact")

				// Not an address: a free 400 naming the field.
				for _, tt := range []struct {
					in    map[string]any
					field string
					msg   string
				}{
					{addr("=1+2", nil), "address", ""},
					{addr("Maple Rd' OR '1'='1", nil), "address", ""},
					{addr("Main St", nil), "address", "house number"},
					{map[string]any{"address": "Main St, Seattle, WA 98103"}, "address", "house number"},
					{addr("1 2", nil), "address", "street name"},
					{map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "00000"}, "zip", ""},
					{map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "1234"}, "zip", ""},
					{map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "99999"}, "zip", ""},
					{map[string]any{"address": "1 Main St, Seattle, WA 00000"}, "zip", ""},
					{map[string]any{"address": "1 Main St", "city": "Seattle", "state": "FL", "zip": "98103"}, "zip", "ZIP code 98103 is in WA, not FL"},
					{map[string]any{"address": "1 Main St", "city": "Seattle", "state": "XX", "zip": "98103"}, "state", ""},
				} {
					r := ep.call(a, token, key, tt.in, true)
					expectStatus(t, r, http.StatusBadRequest)
					e := r.errBody(t)
					if e.Field != tt.field || e.Fields[tt.field] == "" || !strings.Contains(e.Error, tt.msg) {
						t.Errorf("%v: %+v, want field %s", tt.in, e, tt.field)
					}
				}
				expectBalance(t, "bad input")
			})
		}

		// The request history records every refused call as a 404 or 400 that cost nothing.
		var h historyAnswer
		a.do(req{method: "GET", path: "/api/usage/history?limit=200", token: token}).json(t, &h)
		byStatus := map[int]int{}
		for _, e := range h.Data {
			byStatus[e.ResponseStatus]++
			if e.ResponseStatus != 200 && e.CreditsUsed != 0 {
				t.Errorf("a refused call cost %d: %+v", e.CreditsUsed, e)
			}
		}
		if byStatus[404] != 2*7 || byStatus[400] != 2*11 || byStatus[200] != 2*3 {
			t.Errorf("history by status = %v", byStatus)
		}
		for _, e := range h.Data {
			if e.ResponseStatus == 404 && e.PropertyAddress != nil && strings.Contains(*e.PropertyAddress, "Fake St") {
				return
			}
		}
		t.Errorf("no not-found entry names the address it refused")
	})
}

// sameJSON compares two decoded JSON values.
func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// batchResults reads every result of a job.
func (a *testApp) batchResults(token string, id int64) []batchRowAnswer {
	a.t.Helper()
	r := a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?limit=200", id), token: token})
	expectStatus(a.t, r, http.StatusOK)
	var page struct{ Data []batchRowAnswer }
	r.json(a.t, &page)
	return page.Data
}

type batchRowAnswer struct {
	Line         int
	Status       string
	Reason       *string
	Error        string
	MatchCode    string
	PropertyType string
	SquareFeet   *int64
	Bedrooms     *float64
}

// TestBatchOfHomesNotOnRecordCostsNothing: a sheet of made-up streets and garbage is refused row by row, each row
// saying why, and costs nothing.
func TestBatchOfHomesNotOnRecordCostsNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var b strings.Builder
		b.WriteString("Address,City,State,Zip\n")
		fakes := []string{"%d Nowhere Lane", "%d Fake St", "%d Imaginary Blvd"}
		garbage := []string{"=1+2", `"Maple Rd' OR '1'='1"`, "Main St", "1 2"}
		for i := 0; i < 100; i++ {
			switch {
			case i%5 == 4:
				fmt.Fprintf(&b, "%s,Seattle,WA,98103\n", garbage[i/5%len(garbage)])
			case i%10 == 3:
				fmt.Fprintf(&b, "%d Fake St,Seattle,WA,00000\n", 100+i)
			default:
				fmt.Fprintf(&b, fakes[i%len(fakes)]+",Seattle,WA,98103\n", 100+i)
			}
		}
		r := a.do(multipartReq(t, "POST", "/api/jobs", token, "fakes.csv", []byte(b.String()), nil))
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		done := a.waitJob(token, j.ID, "completed", "failed")
		if done.Status != "completed" || done.TotalProperties != 100 || done.SuccessfulProperties != 0 ||
			done.FailedProperties != 100 || done.CreditsUsed != 0 {
			t.Errorf("job = %+v", done)
		}
		if c := a.credits(token); c != 100 {
			t.Errorf("balance = %d after 100 refused rows, want 100", c)
		}
		entries, err := a.db.Ledger(context.Background(), u.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Kind == "batch" {
				t.Errorf("a refused batch was charged: %+v", e)
			}
		}
		reasons := map[string]int{}
		for _, row := range a.batchResults(token, j.ID) {
			if row.Status != "failed" || row.Reason == nil || row.Error == "" || row.MatchCode != "" {
				t.Errorf("row %+v", row)
				continue
			}
			reasons[*row.Reason]++
			switch *row.Reason {
			case "not_found":
				if !strings.HasPrefix(row.Error, "No property on record at this address. To value it anyway, add its propertyType and squareFeet") {
					t.Errorf("line %d: %q", row.Line, row.Error)
				}
			case "invalid":
				if !strings.Contains(row.Error, "address") && !strings.Contains(row.Error, "ZIP code") {
					t.Errorf("line %d: %q does not say what is wrong", row.Line, row.Error)
				}
			}
		}
		if reasons["not_found"] != 70 || reasons["invalid"] != 30 {
			t.Errorf("reasons = %v, want 70 not found and 30 invalid", reasons)
		}
	})
}

// TestMixedBatchChargesOnlyTheValuedRows: homes on record, homes not on record with and without their facts, and
// garbage; only the valued rows are charged, and a home not on record is valued from its columns alone.
func TestMixedBatchChargesOnlyTheValuedRows(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		csvText := "Address,City,State,Zip,Property Type,Sq Ft,Beds\n" +
			"1000 N 40th St,Seattle,WA,98103,,,\n" + // on record: valued, 1
			"3000 Test Ave N,Seattle,WA,98103,Condo,999,9\n" + // on record: its record wins, 1
			"1 Nowhere Lane,Seattle,WA,98103,Townhouse,\"1,400\",3\n" + // not on record with facts: 1
			"99999 Fake St,Seattle,WA,98103,Condo,,\n" + // no square feet: refused
			"55 Imaginary Blvd,Seattle,WA,98103,,,\n" + // no facts: refused
			"=1+2,Seattle,WA,98103,Condo,900,\n" + // not an address: refused
			"77 Imaginary Blvd,Seattle,FL,98103,Condo,900,\n" + // ZIP of another state: refused
			"88 Imaginary Blvd,Seattle,WA,98103,Condo,huge,\n" + // not a number: refused
			"1 Main St,Topeka,KS,66603,Condo,900,\n" // outside the markets: refused
		r := a.do(multipartReq(t, "POST", "/api/jobs", token, "mixed.csv", []byte(csvText), nil))
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		done := a.waitJob(token, j.ID, "completed", "failed")
		if done.Status != "completed" || done.SuccessfulProperties != 3 || done.FailedProperties != 6 || done.CreditsUsed != 3 {
			t.Errorf("job = %+v", done)
		}
		if c := a.credits(token); c != 97 {
			t.Errorf("balance = %d, want 97", c)
		}
		rows := a.batchResults(token, j.ID)
		if len(rows) != 9 {
			t.Fatalf("%d rows", len(rows))
		}
		want := []struct{ status, reason, match, errPart string }{
			{"success", "", "exact", ""},
			{"success", "", "exact", ""},
			{"success", "", "not_on_record", ""},
			{"failed", "not_found", "", "add its squareFeet ("},
			{"failed", "not_found", "", "add its propertyType and squareFeet ("},
			{"failed", "invalid", "", "="},
			{"failed", "invalid", "", "ZIP code 98103 is in WA, not FL"},
			{"failed", "invalid", "", `squareFeet must be a number, not "huge"`},
			{"failed", "area_not_covered", "", "We have no sales near 66603"},
		}
		for i, w := range want {
			row := rows[i]
			reason := ""
			if row.Reason != nil {
				reason = *row.Reason
			}
			if row.Status != w.status || reason != w.reason || row.MatchCode != w.match || !strings.Contains(row.Error, w.errPart) {
				t.Errorf("line %d = %+v (reason %q), want %+v", row.Line, row, reason, w)
			}
		}
		// The record's facts, not the sheet's; the sheet's for the home not on record, and nothing invented.
		if rows[1].PropertyType == "Condo" || rows[1].SquareFeet == nil || *rows[1].SquareFeet == 999 {
			t.Errorf("a home on record valued from the sheet: %+v", rows[1])
		}
		if rows[2].PropertyType != "Townhouse" || rows[2].SquareFeet == nil || *rows[2].SquareFeet != 1400 ||
			rows[2].Bedrooms == nil || *rows[2].Bedrooms != 3 {
			t.Errorf("a home not on record: %+v", rows[2])
		}

		// The rows form of the API takes the facts as numbers or text.
		r = a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"type": "batch", "inputData": map[string]any{
			"properties": []map[string]any{
				{"address": "1 Nowhere Lane", "city": "Seattle", "state": "WA", "zip": "98103", "propertyType": "Condo", "squareFeet": 900},
				{"address": "2 Nowhere Lane", "city": "Seattle", "state": "WA", "zip": "98103", "propertyType": "Condo", "squareFeet": "1,100", "bedrooms": nil},
				{"address": "3 Nowhere Lane", "city": "Seattle", "state": "WA", "zip": "98103"},
			}}}})
		expectStatus(t, r, http.StatusCreated)
		r.json(t, &j)
		done = a.waitJob(token, j.ID, "completed", "failed")
		if done.SuccessfulProperties != 2 || done.FailedProperties != 1 || done.CreditsUsed != 2 {
			t.Errorf("rows job = %+v", done)
		}
		if c := a.credits(token); c != 95 {
			t.Errorf("balance = %d, want 95", c)
		}
		r = a.do(req{method: "POST", path: "/api/jobs", token: token, badRequest: true, body: map[string]any{"type": "batch",
			"inputData": map[string]any{"properties": []map[string]any{{"address": "1 Nowhere Lane", "squareFeet": true}}}}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); !strings.HasPrefix(e.Field, "inputData.properties") {
			t.Errorf("a fact of the wrong type: %+v", e)
		}
	})
}
