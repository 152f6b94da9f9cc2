package server

import (
	"context"
	"encoding/csv"
	"math"
	"net/http"
	"strings"
	"testing"

	"valuator/internal/store"
	"valuator/internal/testdb"
	"valuator/internal/testmarket"
	"valuator/internal/usage"
)

// seattleMarket imports testmarket.Seattle, as demo records: 404 homes in Seattle's 98103 with two years of
// sales before the test clock (2026-03-01). The first home is "1000 N 40TH ST" with two sales; "2000 STONE WAY N"
// is a building with units 101 and 102.
func seattleMarket(t *testing.T, db *store.DB) {
	t.Helper()
	recs, err := testmarket.Seattle()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportRecords(context.Background(), "demo", recs, testmarket.Start); err != nil {
		t.Fatal(err)
	}
}

func withSeattle(o *appOptions) { o.market = seattleMarket }

type lookupAnswer struct {
	Data struct {
		Property struct {
			Address, City, State, ZIP, MatchCode, FormattedAddress string
			IsDemo                                                 bool
		}
		Valuation struct {
			EstimatedValue, Low, High int64
			Confidence                float64
			ConfidenceLevel           string
		}
		Details struct {
			SquareFeet   *int64
			PropertyType *string
			ImageURL     *string
		}
		MarketData struct {
			RentEstimate *int64
			RentSource   *string
			PriceHistory []struct {
				Date  string
				Price int64
			}
			Comparables []struct {
				Address       string
				SaleDate      string
				AdjustedPrice int64
				Similarity    float64
			}
		}
		Meta struct {
			RequestID        string
			CreditsUsed      int64
			CreditsRemaining int64
		}
	}
}

func TestPropertyLookup(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		lookup := func(body map[string]any) resp {
			return a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: body})
		}

		// An exact match, written differently from the record.
		r := lookup(map[string]any{"address": "1000 North 40th Street", "city": "seattle", "state": "wa", "zip": "98103"})
		expectStatus(t, r, http.StatusOK)
		var ans lookupAnswer
		r.json(t, &ans)
		d := ans.Data
		if d.Property.MatchCode != "exact" || d.Property.Address != "1000 N 40TH ST" || !d.Property.IsDemo {
			t.Errorf("property = %+v", d.Property)
		}
		truth := 450 * 1500 * math.Exp(0.005*24)
		if v := float64(d.Valuation.EstimatedValue); math.Abs(v/truth-1) > 0.15 {
			t.Errorf("value %.0f, market says about %.0f", v, truth)
		}
		if !(d.Valuation.Low < d.Valuation.EstimatedValue && d.Valuation.EstimatedValue < d.Valuation.High) ||
			d.Valuation.Confidence <= 0 || d.Valuation.Confidence >= 1 || d.Valuation.ConfidenceLevel == "" {
			t.Errorf("valuation = %+v", d.Valuation)
		}
		if len(d.MarketData.PriceHistory) != 2 || d.MarketData.PriceHistory[0].Date < d.MarketData.PriceHistory[1].Date {
			t.Errorf("price history = %+v, want the two sales newest first", d.MarketData.PriceHistory)
		}
		if len(d.MarketData.Comparables) == 0 || d.MarketData.RentEstimate == nil || d.MarketData.RentSource == nil {
			t.Errorf("market data = %+v", d.MarketData)
		}
		for _, c := range d.MarketData.Comparables {
			if c.SaleDate >= "2026-03-01" || c.AdjustedPrice <= 0 {
				t.Errorf("comparable %+v", c)
			}
		}
		if d.Meta.CreditsUsed != 1 || d.Meta.CreditsRemaining != 99 || d.Meta.RequestID != r.header.Get("X-Request-Id") {
			t.Errorf("meta = %+v", d.Meta)
		}

		// A unit not on record in a building on record is placed at the building and valued from the facts given;
		// without them it is a free 404 that says what to add.
		r = lookup(map[string]any{"address": "2000 Stone Way N Apt 305", "city": "Seattle", "state": "WA", "zip": "98103"})
		expectStatus(t, r, http.StatusNotFound)
		if e := r.errBody(t); e.Code != "property_not_found" || !strings.HasPrefix(e.Error, "The building is on record but not this unit.") {
			t.Errorf("unknown unit without facts: %+v", e)
		}
		r = lookup(map[string]any{"address": "2000 Stone Way N Apt 305", "city": "Seattle", "state": "WA", "zip": "98103",
			"propertyType": "Condo", "squareFeet": 820})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "unit_fallback" || ans.Data.Details.PropertyType == nil || *ans.Data.Details.PropertyType != "Condo" {
			t.Errorf("unknown unit: matchCode %q, details %+v", ans.Data.Property.MatchCode, ans.Data.Details)
		}
		// A known unit, with "#" for "Unit".
		r = lookup(map[string]any{"address": "2000 Stone Way N # 102", "city": "Seattle", "state": "WA", "zip": "98103"})
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "exact" || ans.Data.Property.Address != "2000 STONE WAY N UNIT 102" {
			t.Errorf("unit 102: %+v", ans.Data.Property)
		}
		// The suffix left out.
		r = lookup(map[string]any{"address": "1000 N 40th", "city": "Seattle", "state": "WA", "zip": "98103"})
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "fuzzy" {
			t.Errorf("no suffix: matchCode %q", ans.Data.Property.MatchCode)
		}
		// One line, no ZIP code.
		r = a.do(req{method: "POST", path: "/api/property/lookup", token: token,
			body: map[string]any{"address": "1000 N 40th St, Seattle, WA"}})
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "exact" {
			t.Errorf("single line: matchCode %q", ans.Data.Property.MatchCode)
		}
		// Not on record, in a ZIP with market data: valued at the ZIP centre from the facts given, and, since the
		// comparables are the demo records seattleMarket imports, said to be demo (issue 25).
		r = lookup(map[string]any{"address": "4242 Nowhere Pl N", "city": "Seattle", "state": "WA", "zip": "98103",
			"propertyType": "Single Family", "squareFeet": 2000, "bedrooms": 3})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &ans)
		if ans.Data.Property.MatchCode != "not_on_record" || !ans.Data.Property.IsDemo || *ans.Data.Details.SquareFeet != 2000 {
			t.Errorf("not on record: %+v %+v", ans.Data.Property, ans.Data.Details)
		}

		// Five lookups so far cost five credits, recorded in the ledger.
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		if me.Credits != 94 {
			t.Errorf("credits after 6 lookups = %d, want 94", me.Credits)
		}
	})
}

// TestCachedValuationsAnswerForTheCaller checks the valuation cache, which is keyed by the subject rather than by
// the address text: forms of one address, and addresses placed at one ZIP code's centre, share a valuation but
// each answer names its own address and match.
func TestCachedValuationsAnswerForTheCaller(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	lookup := func(body map[string]any) lookupAnswer {
		t.Helper()
		r := a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: body})
		expectStatus(t, r, http.StatusOK)
		var ans lookupAnswer
		r.json(t, &ans)
		return ans
	}
	first := lookup(map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"})
	again := lookup(map[string]any{"address": "1000 north 40th", "city": "seattle", "state": "wa", "zip": "98103"})
	if again.Data.Valuation != first.Data.Valuation || again.Data.Property.MatchCode != "fuzzy" ||
		first.Data.Property.MatchCode != "exact" || again.Data.Property.Address != "1000 N 40TH ST" {
		t.Errorf("one home written two ways: %+v / %+v", first.Data, again.Data)
	}

	one := lookup(map[string]any{"address": "4242 Nowhere Pl N", "city": "Seattle", "state": "WA", "zip": "98103",
		"propertyType": "Single Family", "squareFeet": 1500})
	two := lookup(map[string]any{"address": "17 Elsewhere Ave", "city": "Seattle", "state": "WA", "zip": "98103",
		"propertyType": "Single Family", "squareFeet": 1500})
	if one.Data.Valuation != two.Data.Valuation {
		t.Errorf("two unknown homes at the ZIP centre, the same facts: %+v / %+v", one.Data.Valuation, two.Data.Valuation)
	}
	if one.Data.Property.FormattedAddress != "4242 NOWHERE PL N, SEATTLE, WA 98103" ||
		two.Data.Property.FormattedAddress != "17 ELSEWHERE AVE, SEATTLE, WA 98103" || two.Data.Property.MatchCode != "not_on_record" {
		t.Errorf("addresses: %q / %q", one.Data.Property.FormattedAddress, two.Data.Property.FormattedAddress)
	}
	// The largest single-family home of the test market has about 2,700 sq ft: 2,600 is within the records.
	big := lookup(map[string]any{"address": "17 Elsewhere Ave", "city": "Seattle", "state": "WA", "zip": "98103",
		"propertyType": "Single Family", "squareFeet": 2600})
	if big.Data.Valuation.EstimatedValue <= two.Data.Valuation.EstimatedValue || *big.Data.Details.SquareFeet != 2600 {
		t.Errorf("2,600 sq ft valued %d, the same home of 1,500 sq ft %d", big.Data.Valuation.EstimatedValue,
			two.Data.Valuation.EstimatedValue)
	}
}

func TestPropertyLookupErrorsCostNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		for _, tt := range []struct {
			name   string
			body   map[string]any
			status int
			field  string
			msg    string
		}{
			{"no address", map[string]any{"address": "", "city": "Seattle", "state": "WA", "zip": "98103"}, 400, "address", "Address is required"},
			{"no city", map[string]any{"address": "1 Main St", "city": "", "state": "WA", "zip": "98103"}, 400, "city", "City is required"},
			{"no state", map[string]any{"address": "1 Main St", "city": "Seattle", "state": "", "zip": "98103"}, 400, "state", "State is required"},
			{"short zip", map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "981"}, 400, "zip", "ZIP code must be at least 5 characters"},
			{"bad state", map[string]any{"address": "1 Main St", "city": "Seattle", "state": "XX", "zip": "98103"}, 400, "state", ""},
			{"po box", map[string]any{"address": "PO Box 123", "city": "Seattle", "state": "WA", "zip": "98103"}, 400, "address", ""},
			{"bad attribute", map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "98103", "squareFeet": 5}, 400, "squareFeet", ""},
			{"attribute of the wrong type", map[string]any{"address": "1 Main St", "city": "Seattle", "state": "WA", "zip": "98103", "bedrooms": "three"}, 400, "bedrooms", ""},
			{"one line without a place", map[string]any{"address": "1 Main St"}, 400, "address", ""},
			{"outside the markets", map[string]any{"address": "1 Main St", "city": "Miami", "state": "FL", "zip": "33101"}, 404, "", "We have no sales near 33101"},
			{"zip 00000", map[string]any{"address": "1 Main St", "city": "Nowhere", "state": "WA", "zip": "00000"}, 400, "zip", ""},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: tt.body, badRequest: tt.status == 400})
				expectStatus(t, r, tt.status)
				e := r.errBody(t)
				if tt.field != "" && e.Field != tt.field {
					t.Errorf("field = %q, want %q (%s)", e.Field, tt.field, e.Error)
				}
				if tt.msg != "" && e.Error != tt.msg {
					t.Errorf("message = %q, want %q", e.Error, tt.msg)
				}
			})
		}
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		if me.Credits != 100 {
			t.Errorf("failed lookups cost %d credits", 100-me.Credits)
		}
		expectStatus(t, a.do(req{method: "POST", path: "/api/property/lookup",
			body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}}),
			http.StatusUnauthorized)
	})
}

func TestPropertyLookupOutOfCredits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		spendAll(t, a, u.ID)
		r := a.do(req{method: "POST", path: "/api/property/lookup", token: token,
			body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}})
		expectStatus(t, r, http.StatusPaymentRequired)
		var e struct {
			Error           string
			Code            string
			Balance         int64
			CreditsRequired int64
			Plan            string
		}
		r.json(t, &e)
		if e.Code != "insufficient_credits" || e.Balance != 0 || e.CreditsRequired != 1 || e.Plan != "free" ||
			!strings.Contains(e.Error, "you have 0 left") {
			t.Errorf("402 body = %+v", e)
		}
	})
}

func TestLookupWithoutMarketData(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	r := a.do(req{method: "POST", path: "/api/property/lookup", token: token,
		body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}})
	expectStatus(t, r, http.StatusNotFound)
}

func TestDownloadReport(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		r := a.do(req{method: "POST", path: "/api/properties/download-report", token: token, body: map[string]any{
			"propertyData": map[string]any{"address": "=HYPERLINK(\"http://evil\")", "city": "Seattle", "state": "WA",
				"zipCode": "98103", "propertyType": "Single Family", "valuation": 812000, "low": 760000, "high": 870000,
				"confidence": 0.74, "confidenceLevel": "Medium", "rentEstimate": 3300, "bedrooms": 3, "bathrooms": 2,
				"squareFeet": 1500, "yearBuilt": 1950,
				"comparables": []map[string]any{{"address": "+1 Evil St", "distanceMiles": 0.2, "saleDate": "2025-11-02",
					"salePrice": 790000, "similarity": 0.8, "adjustedPrice": 805000}}}}})
		expectStatus(t, r, http.StatusOK)
		if !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") ||
			!strings.Contains(r.header.Get("Content-Disposition"), "property-report-") {
			t.Errorf("headers %v", r.header)
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
		if err != nil {
			t.Fatalf("the report is not valid CSV: %v\n%s", err, r.body)
		}
		text := string(r.body)
		for _, want := range []string{"Estimated Value (USD),812000,", "Value Range Low (USD),760000,", "Confidence Level,Medium,",
			"'=HYPERLINK", "'+1 Evil St", "Comparable sales"} {
			if !strings.Contains(text, want) {
				t.Errorf("report lacks %q:\n%s", want, text)
			}
		}
		for _, row := range rows {
			for _, cell := range row {
				if cell != "" && strings.ContainsAny(cell[:1], "=+@") {
					t.Errorf("cell %q could run as a formula", cell)
				}
			}
		}
		r = a.do(req{method: "POST", path: "/api/properties/download-report", token: token,
			body: map[string]any{"propertyData": map[string]any{}}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Error != "No data in report" {
			t.Errorf("empty report: %+v", e)
		}
		expectStatus(t, a.do(req{method: "POST", path: "/api/properties/download-report",
			body: map[string]any{"propertyData": map[string]any{"address": "x"}}}), http.StatusUnauthorized)
	})
}

// spendAll takes a user's whole balance through the metering path.
func spendAll(t *testing.T, a *testApp, userID int64) {
	t.Helper()
	u, err := a.db.UserByID(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.db.Meter(context.Background(), usage.Record{UserID: userID, Endpoint: "test", Service: "test",
		Status: 200, RequestID: "spend", CreatedAt: a.clock.Now()}, u.Credits, "spend it all"); err != nil {
		t.Fatal(err)
	}
}
