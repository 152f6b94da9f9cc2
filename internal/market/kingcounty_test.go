package market_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"valuator/internal/market"
	"valuator/internal/property"
	"valuator/internal/store"
	"valuator/internal/testdb"
)

const kcFile = "../../../shared/data/kc_house_sales.csv"

// kcSale is a row of the King County file, read here without the importer.
type kcSale struct {
	date        time.Time
	price, sqft float64
	beds        int
}

// kcZIP reads the file's sales of zip straight from the CSV.
func kcZIP(t *testing.T, zip string) []kcSale {
	t.Helper()
	f, err := os.Open(kcFile)
	if err != nil {
		t.Skipf("King County data not available: %v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var out []kcSale
	for _, r := range rows[1:] {
		if r[col["zipcode"]] != zip {
			continue
		}
		d, err := time.Parse("20060102", r[col["date"]][:8])
		if err != nil {
			t.Fatal(err)
		}
		price, _ := strconv.ParseFloat(r[col["price"]], 64)
		sqft, _ := strconv.ParseFloat(r[col["sqft_living"]], 64)
		beds, _ := strconv.Atoi(r[col["bedrooms"]])
		out = append(out, kcSale{date: d, price: price, sqft: sqft, beds: beds})
	}
	return out
}

func median(v []float64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return int64(math.Round(s[n/2]))
	}
	return int64(math.Round((s[n/2-1] + s[n/2]) / 2))
}

// TestKingCounty98103 imports the King County file as `valuator import sales --format kingcounty` does (the
// importer, then the store), loads the market as the service does, and checks 98103's sales figures against the
// CSV read directly. The figures are logged for the note.
func TestKingCounty98103(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 21,612 sales")
	}
	want := kcZIP(t, "98103")
	f, err := os.Open(kcFile)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var recs []property.Record
	if err := property.Read(f, property.Options{Format: property.FormatKingCounty},
		func(r property.Record) error { recs = append(recs, r); return nil },
		func(e property.RowError) { t.Errorf("bad row %v", e) }); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, testdb.SQLiteURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportRecords(ctx, "kingcounty", recs, time.Now()); err != nil {
		t.Fatal(err)
	}
	md, err := db.LoadMarket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := market.Compute(market.ByZIP(md.Homes, md.Sales, md.Rentals)["98103"], market.Options{HistoryMonths: 13}, nil, nil)

	// The CSV's own figures: the sales of the 12 months up to its newest 98103 sale.
	var asOf time.Time
	for _, s := range want {
		if s.date.After(asOf) {
			asOf = s.date
		}
	}
	var prices, per []float64
	byBeds := map[string][]float64{}
	sum := 0.0
	for _, s := range want {
		if !s.date.After(asOf.AddDate(-1, 0, 0)) {
			continue
		}
		prices = append(prices, s.price)
		per = append(per, s.price/s.sqft)
		sum += s.price
		k := strconv.Itoa(min(s.beds, 5))
		if s.beds >= 5 {
			k = "5+"
		}
		byBeds[k] = append(byBeds[k], s.price)
	}
	sales := m.Sales
	if m.AsOf != asOf.Format("2006-01-02") || sales.Count != len(prices) || sales.Median != median(prices) ||
		sales.Mean != int64(math.Round(sum/float64(len(prices)))) || sales.Min != int64(slices.Min(prices)) ||
		sales.Max != int64(slices.Max(prices)) || sales.PerSqft == nil || int64(math.Round(*sales.PerSqft)) != median(per) {
		t.Errorf("98103: asOf %s, %d sales, median %d, mean %d, min %d, max %d, per sqft %v; the CSV says %s, %d, %d, %.0f, %.0f, %.0f, %d",
			m.AsOf, sales.Count, sales.Median, sales.Mean, sales.Min, sales.Max, sales.PerSqft, asOf.Format("2006-01-02"),
			len(prices), median(prices), sum/float64(len(prices)), slices.Min(prices), slices.Max(prices), median(per))
	}
	for _, g := range sales.ByBeds {
		if v := byBeds[g.Bedrooms]; g.Count != len(v) || g.Median != median(v) {
			t.Errorf("%s bedrooms: %d sales, median %d; the CSV says %d, %d", g.Bedrooms, g.Count, g.Median, len(v), median(v))
		}
	}
	t.Logf("King County 98103, the 12 months up to %s: %d sales, median $%d, mean $%d, min $%d, max $%d, median $%.0f/sqft",
		m.AsOf, sales.Count, sales.Median, sales.Mean, sales.Min, sales.Max, *sales.PerSqft)
	for _, g := range append(slices.Clone(sales.ByType), sales.ByBeds...) {
		name := g.PropertyType
		if name == "" {
			name = g.Bedrooms + " bedrooms"
		}
		t.Logf("  %-16s %4d sales, median $%d, mean $%d, min $%d, max $%d, %s", name, g.Count, g.Median, g.Mean, g.Min, g.Max,
			perSqftText(g.PerSqft))
	}
	for _, o := range sales.Omit {
		t.Logf("  omitted %s: %s", o.Group, o.Reason)
	}
	for _, h := range m.History {
		t.Logf("  %s: %d sales, median %s (%d-month window)", h.Month, h.SalesCount, perSqft(h.MedianSalePrice), m.HistoryWindow.Sales)
	}
}

func perSqft(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%d", *v)
}

func perSqftText(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("$%.0f", *v)
}
