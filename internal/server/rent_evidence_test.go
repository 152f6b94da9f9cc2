package server

import (
	"bytes"
	"math"
	"net/http"
	"testing"
	"time"

	"valuator/internal/examples/example"
	"valuator/internal/testdb"
)

// rentAnswer is the rent part of a valuation as the API answers it.
type rentAnswer struct {
	Data struct {
		Valuation struct {
			EstimatedValue int64
			ValuationDate  string
		}
		MarketData struct {
			RentEstimate, RentLow, RentHigh *int64
			RentSource                      *string
			GrossYield                      *float64
			RentalComparables               []struct {
				Address, Date                string
				Rent, AdjustedRent           int64
				Bedrooms, Bathrooms          *float64
				SquareFeet                   *int64
				Distance, Similarity, Weight float64
			}
		}
	}
}

// checkGrossYield: grossYield is rentEstimate × 12 / estimatedValue from the figures as quoted, to four decimals.
func checkGrossYield(t *testing.T, a rentAnswer) {
	t.Helper()
	d := a.Data
	if d.MarketData.RentEstimate == nil || d.MarketData.GrossYield == nil {
		t.Fatalf("rentEstimate %v, grossYield %v: want both", d.MarketData.RentEstimate, d.MarketData.GrossYield)
	}
	want := math.Round(float64(*d.MarketData.RentEstimate)*12/float64(d.Valuation.EstimatedValue)*10000) / 10000
	if *d.MarketData.GrossYield != want {
		t.Errorf("grossYield %v, want %d × 12 / %d = %v", *d.MarketData.GrossYield, *d.MarketData.RentEstimate,
			d.Valuation.EstimatedValue, want)
	}
}

// TestValuationCarriesItsRentEvidence (issue 35): a rent estimated from nearby rents comes with the rentals it was
// made from (one entry per home, recent, near, heaviest first, weights adding up to 1, the estimate their weighted
// median adjusted rent) and the gross yield of the quoted figures; a rent from the yield model comes with an empty
// list. The harness checks both answers against api/openapi.yaml.
func TestValuationCarriesItsRentEvidence(t *testing.T) {
	t.Run("from rental comparables", func(t *testing.T) {
		a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.market = demoMarketOf(example.MarketDay) })
		token, _ := a.register("rene@example.com", "correct-horse", "Rene Renter")
		key := a.createKey(token, "Rent evidence", 60)
		r := a.public(key.Value, example.Home.Query())
		expectStatus(t, r, http.StatusOK)
		var ans rentAnswer
		r.json(t, &ans)
		md := ans.Data.MarketData
		if md.RentSource == nil || *md.RentSource != "rental_comparables" {
			t.Fatalf("rentSource %v, want rental_comparables (the example home has rents nearby)", md.RentSource)
		}
		checkGrossYield(t, ans)
		comps := md.RentalComparables
		if len(comps) < 3 || len(comps) > 10 {
			t.Fatalf("%d rental comparables, want 3 to 10", len(comps))
		}
		valued, err := time.Parse("2006-01-02", ans.Data.Valuation.ValuationDate)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var total float64
		for i, c := range comps {
			total += c.Weight
			if seen[c.Address] || c.Address == "" {
				t.Errorf("comparable %d: address %q empty or seen before (one entry per home)", i, c.Address)
			}
			seen[c.Address] = true
			d, err := time.Parse("2006-01-02", c.Date)
			if err != nil || !d.Before(valued) || d.Before(valued.AddDate(-3, 0, 0)) {
				t.Errorf("comparable %d dated %q, want within the three years before %s", i, c.Date, ans.Data.Valuation.ValuationDate)
			}
			if c.Rent <= 0 || c.AdjustedRent <= 0 || c.Distance < 0 || c.Distance > 2 || c.Similarity <= 0 ||
				c.Similarity > 1 || c.Distance != math.Round(c.Distance*100)/100 {
				t.Errorf("comparable %d = %+v", i, c)
			}
			if i > 0 && c.Weight > comps[i-1].Weight {
				t.Errorf("comparable %d weighs %v, more than the one before it (%v)", i, c.Weight, comps[i-1].Weight)
			}
		}
		// Weights to three decimals add up to 1 within their rounding.
		if math.Abs(total-1) > 0.0005*float64(len(comps)) {
			t.Errorf("weights add up to %v, want 1", total)
		}
		// The estimate is the weighted median of the adjusted rents: the comparable at which the weights, summed
		// from the lowest adjusted rent up, pass half, to the $25 the estimate is quoted to and the weights' three
		// decimals (a comparable whose weight interval comes within that rounding of one half may be the one).
		byRent := append(comps[:0:0], comps...)
		for i := 1; i < len(byRent); i++ {
			for j := i; j > 0 && byRent[j].AdjustedRent < byRent[j-1].AdjustedRent; j-- {
				byRent[j], byRent[j-1] = byRent[j-1], byRent[j]
			}
		}
		est := float64(*md.RentEstimate)
		acc, found := 0.0, false
		for _, c := range byRent {
			lo, hi := acc, acc+c.Weight
			acc = hi
			if lo <= 0.5+0.005 && hi >= 0.5-0.005 && math.Abs(float64(c.AdjustedRent)-est) <= 13 {
				found = true
			}
		}
		if !found {
			t.Errorf("rentEstimate %v is not the weighted median of the adjusted rents %+v", est, byRent)
		}
		if *md.RentLow > *md.RentEstimate || *md.RentHigh < *md.RentEstimate {
			t.Errorf("rent range %d-%d does not hold the estimate %d", *md.RentLow, *md.RentHigh, *md.RentEstimate)
		}
	})

	t.Run("from the yield model", func(t *testing.T) {
		// The Seattle test market records no rents.
		a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
		token, _ := a.register("yield@example.com", "correct-horse", "Yve Yield")
		r := a.do(req{method: "POST", path: "/api/property/lookup", token: token,
			body: map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}})
		expectStatus(t, r, http.StatusOK)
		var ans rentAnswer
		r.json(t, &ans)
		if s := ans.Data.MarketData.RentSource; s == nil || *s != "model" {
			t.Fatalf("rentSource %v, want model", s)
		}
		checkGrossYield(t, ans)
		// An empty list, never null.
		if len(ans.Data.MarketData.RentalComparables) != 0 || !bytes.Contains(r.body, []byte(`"rentalComparables":[]`)) {
			t.Errorf("rentalComparables = %+v, want []", ans.Data.MarketData.RentalComparables)
		}
	})
}
