package market

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"valuator/internal/day"
	"valuator/internal/property"
)

// fixture: ZIP 98103 with 9 sales in the last 12 months (6 Single Family, 3 Condo), 2 older sales, 3 rents, and a
// second ZIP; 98103's newest record is a sale on 2026-11-20.
func fixture() ([]property.Home, []property.Sale, []property.Rental) {
	var homes []property.Home
	home := func(zip, typ string, beds, sqft float64) int64 {
		id := int64(len(homes) + 1)
		homes = append(homes, property.Home{ID: id, ZIP: zip, City: "SEATTLE", State: "WA", Type: typ, Beds: beds, Sqft: sqft})
		return id
	}
	d := func(y, m, day int) time.Time { return time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC) }
	var sales []property.Sale
	sale := func(id int64, t time.Time, price int64) {
		sales = append(sales, property.Sale{ID: int64(len(sales) + 1), PropertyID: id, Date: t, Price: price})
	}
	sf := []struct {
		beds, sqft float64
		price      int64
		date       time.Time
	}{
		{3, 1500, 700001, d(2026, 11, 20)}, {3, 2000, 900000, d(2026, 10, 2)}, {4, 2500, 1200003, d(2026, 6, 1)},
		{2, 1000, 500000, d(2026, 1, 15)}, {3, 1800, 800000, d(2025, 11, 21)}, {5, 3000, 1500000, d(2026, 11, 1)},
	}
	for _, s := range sf {
		sale(home("98103", "Single Family", s.beds, s.sqft), s.date, s.price)
	}
	for i, p := range []int64{400000, 450001, 380000} {
		sale(home("98103", "Condo", 1, 700), d(2026, 9+i, 10), p)
	}
	old := home("98103", "Single Family", 3, 1600)
	sale(old, d(2025, 11, 20), 650000) // exactly 12 months before asOf: outside the window
	sale(old, d(2024, 5, 1), 600000)
	var rents []property.Rental
	for i, r := range []int64{2500, 2700, 3100} {
		rents = append(rents, property.Rental{ID: int64(i + 1), PropertyID: int64(i + 1), Date: d(2026, 8, 1), Rent: r})
	}
	sale(home("98115", "Single Family", 3, 1500), d(2026, 11, 25), 990000)
	return homes, sales, rents
}

// medianOf is the test's own median: the middle of the sorted values, or the rounded mean of the middle two.
func medianOf(v ...int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return int64(math.Round(float64(s[len(s)/2-1]+s[len(s)/2]) / 2))
}

type fixedIndex struct{ start time.Time }

// Month is 1% a month from start; nothing before it.
func (f fixedIndex) Month(t time.Time) (float64, bool) {
	m := (t.Year()-f.start.Year())*12 + int(t.Month()) - int(f.start.Month())
	return 0.01 * float64(max(m, 0)), m >= 0
}

func TestComputeSales(t *testing.T) {
	homes, sales, rents := fixture()
	zips := ByZIP(homes, sales, rents)
	z := zips["98103"]
	if z == nil || len(z.Sales) != 11 || len(z.Rents) != 3 || len(z.Homes) != 10 {
		t.Fatalf("grouped: %+v", z)
	}
	m := Compute(z, Options{HistoryMonths: 24}, nil, nil)
	if m.AsOf != "2026-11-20" || m.City != "SEATTLE" || m.PropertyType != nil {
		t.Fatalf("head: %+v", m)
	}
	all := []int64{700001, 900000, 1200003, 500000, 800000, 1500000, 400000, 450001, 380000}
	if m.Sales.Count != 9 || m.Sales.Thin != "" {
		t.Fatalf("sales count %d thin %q", m.Sales.Count, m.Sales.Thin)
	}
	sum := int64(0)
	for _, p := range all {
		sum += p
	}
	if f := m.Sales.Figures; f.Median != medianOf(all...) || f.Mean != int64(math.Round(float64(sum)/9)) ||
		f.Min != 380000 || f.Max != 1500000 {
		t.Errorf("figures %+v, want median %d", f, medianOf(all...))
	}
	// Per square foot: 700001/1500 = 466.67, 450, 480.0012, 500, 444.44, 500, 571.43, 642.86, 542.86 -> 500.
	if f := m.Sales.Figures; f.PerSqft == nil || *f.PerSqft != 500 {
		t.Errorf("per sqft %v", f.PerSqft)
	}
	if len(m.Sales.ByType) != 1 || m.Sales.ByType[0].PropertyType != "Single Family" || m.Sales.ByType[0].Count != 6 ||
		m.Sales.ByType[0].Median != medianOf(700001, 900000, 1200003, 500000, 800000, 1500000) {
		t.Errorf("by type %+v", m.Sales.ByType)
	}
	// Condo (3), 1 bedroom (3), 3 bedrooms (3) and the single 2, 4 and 5+ are thin: omitted with a reason.
	var omitted []string
	for _, o := range m.Sales.Omit {
		omitted = append(omitted, o.Group)
		if o.Reason != "Fewer than 5 sales in the last 12 months." {
			t.Errorf("reason %q", o.Reason)
		}
	}
	if strings.Join(omitted, ",") != "Condo,1 bedrooms,2 bedrooms,3 bedrooms,4 bedrooms,5+ bedrooms" || len(m.Sales.ByBeds) != 0 {
		t.Errorf("omitted %v, by beds %+v", omitted, m.Sales.ByBeds)
	}
	if m.Rents.Count != 3 || m.Rents.Thin != "Fewer than 5 rents in the last 12 months." {
		t.Errorf("rents %+v", m.Rents)
	}
	b, err := json.Marshal(m.Rents)
	if err != nil || string(b) != `{"count":3,"omitted":"Fewer than 5 rents in the last 12 months."}` {
		t.Errorf("thin block json %s %v", b, err)
	}
	b, _ = json.Marshal(m.Sales)
	for _, want := range []string{`"medianPricePerSqft":500`, `"byBedrooms":[]`, `"propertyType":"Single Family"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("sales json %s lacks %s", b, want)
		}
	}
}

func TestComputeFilterValuesHistoryIndex(t *testing.T) {
	homes, sales, rents := fixture()
	z := ByZIP(homes, sales, rents)["98103"]
	values := []float64{710000, 905000, 1190000, 520000, 810000, 1490000, 410000, 440000, 390000, 655000}
	m := Compute(z, Options{PropertyType: "Condo", HistoryMonths: 3}, values, fixedIndex{time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)})
	if m.AsOf != "2026-11-10" || *m.PropertyType != "Condo" || m.Sales.Count != 3 || m.Sales.Thin == "" {
		t.Errorf("condo: %+v", m)
	}
	if m.Values.Thin != "Fewer than 5 homes on record." || m.Values.Count != 3 {
		t.Errorf("condo values %+v", m.Values)
	}
	m = Compute(z, Options{HistoryMonths: 3}, values, fixedIndex{time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)})
	v := m.Values
	// Sorted: 390 410 440 520 655 710 810 905 1190 1490 (thousands); p25 at rank 2.25, p75 at rank 6.75.
	if v.Count != 10 || v.Median != medianOf(390000, 410000, 440000, 520000, 655000, 710000, 810000, 905000, 1190000, 1490000) ||
		v.P25 != 440000+int64(0.25*80000) || v.P75 != 810000+int64(0.75*95000) || v.Min != 390000 || v.Max != 1490000 {
		t.Errorf("values %+v", v)
	}
	if len(m.History) != 3 || m.History[0].Month != "2026-09" || m.History[2].Month != "2026-11" {
		t.Fatalf("history %+v", m.History)
	}
	// No month has 5 sales of its own: the medians are rolling 3-month ones. November's window (September to
	// November) holds 6 sales; September's (July to September) only one.
	if m.HistoryWindow != (HistoryWindow{Sales: 3, Rents: 3}) {
		t.Errorf("window %+v, want 3 months", m.HistoryWindow)
	}
	if h := m.History[2]; h.SalesCount != 3 || h.MedianSalePrice == nil ||
		*h.MedianSalePrice != medianOf(400000, 900000, 450001, 700001, 1500000, 380000) ||
		m.History[1].SalesCount != 2 || m.History[0].MedianSalePrice != nil {
		t.Errorf("history %+v", m.History)
	}
	ix := m.PriceIndex
	if len(ix) != 3 || ix[0].Month != "2026-09" || ix[0].Index != 1 || ix[0].Change1m != nil || ix[1].Change1m != nil ||
		ix[2].Index != round4(math.Exp(0.01)) || *ix[2].Change1m != round4(math.Exp(0.01)-1) || ix[2].Change12m != nil {
		t.Errorf("index %+v", ix)
	}
}

func TestHistoryMedians(t *testing.T) {
	var homes []property.Home
	var sales []property.Sale
	prices := []int64{500000, 510001, 520000, 530000, 540003, 560000}
	for i, p := range prices {
		homes = append(homes, property.Home{ID: int64(i + 1), ZIP: "98107", Type: "Condo", Beds: 2, Sqft: 1000})
		sales = append(sales, property.Sale{ID: int64(i + 1), PropertyID: int64(i + 1), Date: time.Date(2026, 5, 1+i, 0, 0, 0, 0, time.UTC), Price: p})
	}
	m := Compute(ByZIP(homes, sales, nil)["98107"], Options{HistoryMonths: 1}, nil, nil)
	if len(m.History) != 1 || m.History[0].MedianSalePrice == nil || *m.History[0].MedianSalePrice != medianOf(prices...) {
		t.Errorf("history %+v", m.History)
	}
	if len(m.Sales.ByBeds) != 1 || m.Sales.ByBeds[0].Bedrooms != "2" || m.Sales.ByBeds[0].Median != medianOf(prices...) ||
		*m.Sales.ByBeds[0].PerSqft != float64(medianOf(prices...))/1000 {
		t.Errorf("by beds %+v", m.Sales.ByBeds)
	}
	if len(m.PriceIndex) != 0 {
		t.Errorf("no engine, index %+v", m.PriceIndex)
	}
}

func TestHistoryWindow(t *testing.T) {
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// perMonth[i] sales in month i of a 4-month history (and one sale in each of the two months before it).
	at := func(perMonth []int) []Record {
		var rs []Record
		for i, n := range append([]int{1, 1}, perMonth...) {
			for k := 0; k < n; k++ {
				rs = append(rs, Record{day: day.Of(first.AddDate(0, i-2, k+1)), Amount: int64(100*(i+1) + k)})
			}
		}
		return rs
	}
	tests := []struct {
		name     string
		perMonth []int
		window   int
		medians  []int64 // 0 for none
	}{
		// Half the months with 5 sales: each month's own median.
		{"busy", []int{5, 5, 1, 2}, 1, []int64{302, 402, 0, 0}},
		// One month in four: the month and the two before. February holds December's 200, January's 300 and its own
		// 400-404 (median 401); March January's 300, February's five and its own 500, 501 (402.5, rounded 403).
		{"thin", []int{1, 5, 2, 0}, 3, []int64{0, 401, 403, 403}},
		{"empty", []int{0, 0, 0, 0}, 3, []int64{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, w := history(at(tt.perMonth), nil, first, 4)
			if w.Sales != tt.window || w.Rents != 3 {
				t.Errorf("window %+v, want sales %d, rents 3", w, tt.window)
			}
			for i, want := range tt.medians {
				got := int64(0)
				if h[i].MedianSalePrice != nil {
					got = *h[i].MedianSalePrice
				}
				if got != want || h[i].SalesCount != tt.perMonth[i] {
					t.Errorf("%s: %d sales, median %d; want %d, %d", h[i].Month, h[i].SalesCount, got, tt.perMonth[i], want)
				}
			}
		})
	}
}

func TestRentPerSqftCentsAndDemo(t *testing.T) {
	var homes []property.Home
	var rents []property.Rental
	for i, r := range []int64{2400, 2413, 2500, 2300, 2450} {
		homes = append(homes, property.Home{ID: int64(i + 1), ZIP: "90001", Type: "Condo", Beds: 2, Sqft: 1000, Source: property.SourceDemo})
		rents = append(rents, property.Rental{ID: int64(i + 1), PropertyID: int64(i + 1), Date: time.Date(2026, 5, 1+i, 0, 0, 0, 0, time.UTC), Rent: r})
	}
	z := ByZIP(homes, nil, rents)["90001"]
	if !z.IsDemo {
		t.Fatalf("demo homes: IsDemo false")
	}
	m := Compute(z, Options{HistoryMonths: 1}, nil, nil)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// Rent per square foot in cents (2413/1000 = 2.413, the median), the whole block and each group.
	for _, want := range []string{`"isDemo":true`, `"medianRentPerSqft":2.41`, `"bedrooms":"2","count":5,"max":2500,"mean":2413,"median":2413,"medianRentPerSqft":2.41`, `"historyWindow":{"sales":3,"rents":1}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json %s lacks %s", b, want)
		}
	}
	homes[0].Source = "kingcounty"
	if z := ByZIP(homes[:1], nil, rents[:1])["90001"]; z.IsDemo {
		t.Errorf("county home: IsDemo true")
	}
}

// A home's type is kept as a code (issue 39): a home with no type is grouped with "Other" but not found by a filter
// on "Other", and a type outside Types is in no group and no filter, as when the type was kept as text.
func TestTypesOutsideTheList(t *testing.T) {
	var homes []property.Home
	var sales []property.Sale
	add := func(typ string, n int) {
		for range n {
			id := int64(len(homes) + 1)
			homes = append(homes, property.Home{ID: id, ZIP: "98103", Type: typ, Beds: 2, Sqft: 1000})
			sales = append(sales, property.Sale{ID: id, PropertyID: id, Date: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Price: 500000 + id})
		}
	}
	add("", 3)
	add("Other", 3)
	add("Castle", 5)
	add("Condo", 5)
	z := ByZIP(homes, sales, nil)["98103"]
	values := make([]float64, len(homes))
	for i := range values {
		values[i] = 400000
	}
	all := Compute(z, Options{}, values, nil)
	groups := map[string]int{}
	for _, g := range all.Sales.ByType {
		groups[g.PropertyType] = g.Count
	}
	if all.Sales.Count != 16 || len(groups) != 2 || groups["Other"] != 6 || groups["Condo"] != 5 {
		t.Errorf("sales %d, groups %v: want 16 sales, Other 6 (3 with no type) and Condo 5, Castle in none", all.Sales.Count, groups)
	}
	if other := Compute(z, Options{PropertyType: "Other"}, values, nil); other.Sales.Count != 3 || other.Values.Count != 3 {
		t.Errorf("filtered on Other: %d sales, %d values, want 3 and 3 (the homes typed Other)", other.Sales.Count, other.Values.Count)
	}
	if condo := Compute(z, Options{PropertyType: "Condo"}, values, nil); condo.Sales.Count != 5 || condo.Values.Count != 5 {
		t.Errorf("filtered on Condo: %d sales, %d values, want 5 and 5", condo.Sales.Count, condo.Values.Count)
	}
}
