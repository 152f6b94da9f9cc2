package server

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"valuator/internal/testdb"
	"valuator/internal/testmarket"
)

// marketAnswer is the part of a market statistics answer the tests read.
type marketAnswer struct {
	ZIP, City, State, AsOf string
	PropertyType           *string
	Sales                  struct {
		Count                  int
		Median, Mean, Min, Max int64
		MedianPricePerSqft     *int64
		Omitted                any
		ByBedrooms             []struct {
			Bedrooms string
			Count    int
			Median   int64
		}
		ByPropertyType []struct {
			PropertyType string
			Count        int
			Median       int64
		}
	}
	Rents struct {
		Count   int
		Omitted any
	}
	Values struct {
		Count                      int
		Median, P25, P75, Min, Max int64
	}
	PriceIndex []struct {
		Month               string
		Index               float64
		Change1m, Change12m *float64
	}
	History []struct {
		Month           string
		SalesCount      int
		MedianSalePrice *int64
	}
}

type marketMeta struct {
	RequestID                     string
	CreditsUsed, CreditsRemaining int64
}

// medianInts is the test's own median, to the dollar: the middle value, or the rounded mean of the middle two.
func medianInts(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return int64(math.Round(float64(s[len(s)/2-1]+s[len(s)/2]) / 2))
}

func medianFloats(v []float64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return int64(math.Round(s[len(s)/2]))
	}
	return int64(math.Round((s[len(s)/2-1] + s[len(s)/2]) / 2))
}

// seattleSales are testmarket.Seattle's sales in the 12 months up to its newest, computed here from the records.
func seattleSales(t *testing.T) (asOf time.Time, prices []int64, perSqft []float64, byBeds map[string][]int64) {
	t.Helper()
	recs, err := testmarket.Seattle()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Price > 0 && r.SaleDate.After(asOf) {
			asOf = r.SaleDate
		}
	}
	byBeds = map[string][]int64{}
	for _, r := range recs {
		if r.Price <= 0 || !r.SaleDate.After(asOf.AddDate(-1, 0, 0)) {
			continue
		}
		prices = append(prices, r.Price)
		perSqft = append(perSqft, float64(r.Price)/r.Home.Sqft)
		k := map[float64]string{1: "1", 2: "2", 3: "3", 4: "4"}[r.Home.Beds]
		if r.Home.Beds >= 5 {
			k = "5+"
		}
		byBeds[k] = append(byBeds[k], r.Price)
	}
	return asOf, prices, perSqft, byBeds
}

func TestMarketStatistics(t *testing.T) {
	asOf, prices, perSqft, byBeds := seattleSales(t)
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		r := a.do(req{method: "GET", path: "/api/markets?zip=98103", token: token})
		expectStatus(t, r, http.StatusOK)
		var ans struct {
			Data marketAnswer
			Meta marketMeta
		}
		r.json(t, &ans)
		m := ans.Data
		if m.ZIP != "98103" || m.City != "SEATTLE" || m.State != "WA" || m.AsOf != asOf.Format("2006-01-02") || m.PropertyType != nil {
			t.Errorf("head %+v, want asOf %s", m, asOf.Format("2006-01-02"))
		}
		sum := int64(0)
		for _, p := range prices {
			sum += p
		}
		s := m.Sales
		if s.Count != len(prices) || s.Median != medianInts(prices) || s.Mean != int64(math.Round(float64(sum)/float64(len(prices)))) ||
			s.Min != slices.Min(prices) || s.Max != slices.Max(prices) || s.MedianPricePerSqft == nil ||
			*s.MedianPricePerSqft != medianFloats(perSqft) {
			t.Errorf("sales %d median %d mean %d min %d max %d per sqft %v; want %d %d %d %d %d %d", s.Count, s.Median, s.Mean,
				s.Min, s.Max, s.MedianPricePerSqft, len(prices), medianInts(prices), int64(math.Round(float64(sum)/float64(len(prices)))),
				slices.Min(prices), slices.Max(prices), medianFloats(perSqft))
		}
		if len(s.ByPropertyType) != 1 || s.ByPropertyType[0].PropertyType != "Single Family" || s.ByPropertyType[0].Count != len(prices) {
			t.Errorf("by type %+v", s.ByPropertyType)
		}
		for _, g := range s.ByBedrooms {
			if want := byBeds[g.Bedrooms]; len(want) < 5 || g.Count != len(want) || g.Median != medianInts(want) {
				t.Errorf("bedrooms %s: %+v, want %d sales, median %d", g.Bedrooms, g, len(want), medianInts(want))
			}
		}
		shown := len(s.ByBedrooms)
		for _, v := range byBeds {
			if len(v) < 5 {
				shown++ // listed in omitted instead
			}
		}
		if shown != len(byBeds) {
			t.Errorf("bedroom groups %+v, records have %d", s.ByBedrooms, len(byBeds))
		}
		// The test market has no rents: the block is omitted, with its reason.
		if m.Rents.Count != 0 || m.Rents.Omitted != "Fewer than 5 rents in the last 12 months." {
			t.Errorf("rents %+v", m.Rents)
		}
		if v := m.Values; v.Count < 400 || !(v.Min <= v.P25 && v.P25 <= v.Median && v.Median <= v.P75 && v.P75 <= v.Max) {
			t.Errorf("values %+v", v)
		}
		if len(m.PriceIndex) != 24 || m.PriceIndex[0].Index != 1 || m.PriceIndex[23].Month != asOf.Format("2006-01") ||
			len(m.History) != 24 || m.History[23].Month != asOf.Format("2006-01") {
			t.Errorf("index %+v history %+v", m.PriceIndex, m.History)
		}
		// The market appreciates 0.5% a month: the index rises about 6% a year.
		if last := m.PriceIndex[23]; last.Change12m == nil || *last.Change12m < 0.02 || *last.Change12m > 0.1 {
			t.Errorf("12-month change %+v", last)
		}
		if ans.Meta.CreditsUsed != 1 || ans.Meta.CreditsRemaining != 99 || ans.Meta.RequestID != r.header.Get("X-Request-Id") {
			t.Errorf("meta %+v", ans.Meta)
		}

		// Bad input is a free 400 naming the field; a ZIP code with no records is a free 404.
		for _, tt := range []struct {
			query, field string
			status       int
		}{
			{"zip=981", "zip", 400}, {"", "zip", 400}, {"zip=98103&zip=98115", "zip", 400},
			{"zip=98103&historyMonths=0", "historyMonths", 400}, {"zip=98103&historyMonths=121", "historyMonths", 400},
			{"zip=98103&historyMonths=x", "historyMonths", 400}, {"zip=98103&propertyType=Castle", "propertyType", 400},
			{"zip=12345", "", 404},
		} {
			r := a.do(req{method: "GET", path: "/api/markets?" + tt.query, token: token, badRequest: tt.status == 400})
			expectStatus(t, r, tt.status)
			e := r.errBody(t)
			if e.Field != tt.field || (tt.status == 404 && (e.Code != "market_not_found" || e.Error != "No records for ZIP 12345.")) {
				t.Errorf("%s: %+v", tt.query, e)
			}
		}
		// A type filter, with the months asked.
		r = a.do(req{method: "GET", path: "/api/markets?zip=98103&propertyType=Condo&historyMonths=6", token: token})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &ans)
		if ans.Data.PropertyType == nil || *ans.Data.PropertyType != "Condo" || ans.Data.Sales.Count != 0 ||
			len(ans.Data.History) != 6 || ans.Meta.CreditsRemaining != 98 {
			t.Errorf("condo: %+v %+v", ans.Data, ans.Meta)
		}

		// The history: two charged calls and the free ones, each recorded.
		var hist struct {
			Data []struct {
				PropertyAddress *string
				APIService      string `json:"apiService"`
				CreditsUsed     int64
				ResponseStatus  int
				Endpoint        string
			}
		}
		a.do(req{method: "GET", path: "/api/usage/history?limit=50", token: token}).json(t, &hist)
		charged, free := 0, 0
		for _, h := range hist.Data {
			if h.APIService != "market_statistics" || h.Endpoint != "GET /api/markets" {
				t.Errorf("entry %+v", h)
			}
			if h.CreditsUsed == 1 && h.ResponseStatus == 200 && h.PropertyAddress != nil && *h.PropertyAddress == "Market statistics: 98103" {
				charged++
			} else if h.CreditsUsed == 0 && h.ResponseStatus >= 400 {
				free++
			}
		}
		if charged != 2 || free != 8 {
			t.Errorf("history: %d charged, %d free, of %d", charged, free, len(hist.Data))
		}

		// The public API: a comparison charges per ZIP code found, with the rate-limit headers.
		key := a.createKey(token, "Markets", 60)
		pub := func(path string, q url.Values, bad bool) resp {
			return a.do(req{method: "GET", path: path + "?" + q.Encode(), header: map[string]string{"x-api-key": key.Value}, badRequest: bad})
		}
		r = pub("/api/v1/markets/compare", url.Values{"zip": {"98103", "12345", "98103"}}, false)
		expectStatus(t, r, http.StatusOK)
		rateHeaders(t, r)
		var cmp struct {
			Data struct {
				Markets  []marketAnswer
				NotFound []string
			}
			Meta marketMeta
		}
		r.json(t, &cmp)
		if len(cmp.Data.Markets) != 1 || cmp.Data.Markets[0].Sales.Median != medianInts(prices) ||
			!slices.Equal(cmp.Data.NotFound, []string{"12345"}) || cmp.Meta.CreditsUsed != 1 || cmp.Meta.CreditsRemaining != 97 {
			t.Errorf("compare: %+v", cmp)
		}
		expectStatus(t, pub("/api/v1/markets/compare", url.Values{"zip": {"12345", "54321"}}, false), http.StatusNotFound)
		r = pub("/api/v1/markets/compare", url.Values{"zip": {"98101", "98102", "98103", "98104", "98105", "98106"}}, true)
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "zip" {
			t.Errorf("six ZIP codes: %+v", e)
		}
		r = pub("/api/v1/markets", url.Values{"zip": {"98103"}}, false)
		expectStatus(t, r, http.StatusOK)
		rateHeaders(t, r)
		r.json(t, &ans)
		if ans.Data.Sales.Median != medianInts(prices) || ans.Meta.CreditsRemaining != 96 {
			t.Errorf("public market %+v", ans.Meta)
		}
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		if me.Credits != 96 {
			t.Errorf("credits %d, want 96", me.Credits)
		}
	})
}

// TestValuationValueHistory: a valuation carries its value history (60 months, the last the estimate) at no extra
// credit.
func TestValuationValueHistory(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		r := a.do(req{method: "POST", path: "/api/property/lookup", token: token,
			body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}})
		expectStatus(t, r, http.StatusOK)
		var ans struct {
			Data struct {
				Valuation    struct{ EstimatedValue int64 }
				ValueHistory []struct {
					Month string
					Value int64
				}
				Meta marketMeta
			}
		}
		r.json(t, &ans)
		h := ans.Data.ValueHistory
		if len(h) != 60 || h[59].Month != "2026-03" || h[0].Month != "2021-04" || h[59].Value != ans.Data.Valuation.EstimatedValue {
			t.Fatalf("value history %+v, estimate %d", h, ans.Data.Valuation.EstimatedValue)
		}
		// The market rose 0.5% a month over its two years: two years back the home was worth less.
		if h[35].Value >= h[59].Value {
			t.Errorf("March 2024 %d, March 2026 %d", h[35].Value, h[59].Value)
		}
		if ans.Data.Meta.CreditsUsed != 1 || ans.Data.Meta.CreditsRemaining != 99 {
			t.Errorf("meta %+v", ans.Data.Meta)
		}
	})
}
