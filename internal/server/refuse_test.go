package server

import (
	"encoding/json"
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
