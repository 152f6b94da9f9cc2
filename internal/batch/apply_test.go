package batch

import (
	"reflect"
	"testing"

	"valuator/internal/apperr"
)

func TestApplySplitColumns(t *testing.T) {
	tbl := table([]string{"Street", "Town", "ST", "Zip", "Price"},
		[]string{"7006 Maple Rd", "Seattle", "WA", "98103", "1"},
		[]string{"", "Seattle", "WA", "98103", "2"}, // no street: dropped
		[]string{"12  Beacon St\nApt 2", "Boston", "MA", "2134", "3"},
		[]string{"", "", "", "", "4"}, // dropped
	)
	m := Mapping{"Street": TypeStreet, "Town": TypeCity, "ST": TypeState, "Zip": TypeZIP, "Price": TypeIgnore}
	rows, dropped := Apply(tbl, m)
	want := []Row{
		{Line: 2, Address: "7006 Maple Rd", City: "Seattle", State: "WA", ZIP: "98103"},
		{Line: 4, Address: "12 Beacon St Apt 2", City: "Boston", State: "MA", ZIP: "2134"},
	}
	if !reflect.DeepEqual(rows, want) || dropped != 2 {
		t.Errorf("Apply = %+v, %d dropped; want %+v, 2", rows, dropped, want)
	}
}

func TestApplyFullAddress(t *testing.T) {
	tests := []struct {
		name string
		full string
		want Row
	}{
		{"commas", "7006 Maple Rd, Seattle, WA 98103",
			Row{Address: "7006 MAPLE RD", City: "SEATTLE", State: "WA", ZIP: "98103"}},
		{"unit and ZIP+4", "1 Main Street Apt 4B, Springfield, IL 62704-1234",
			Row{Address: "1 MAIN ST APT 4B", City: "SPRINGFIELD", State: "IL", ZIP: "62704-1234"}},
		{"no commas", "7006 Maple Rd Seattle WA 98103",
			Row{Address: "7006 MAPLE RD", City: "SEATTLE", State: "WA", ZIP: "98103"}},
		{"on two lines of a cell", "7006 Maple Rd\nSeattle, WA 98103",
			Row{Address: "7006 MAPLE RD", City: "SEATTLE", State: "WA", ZIP: "98103"}},
		{"state name", "12 Beacon St, Boston, Massachusetts 02134",
			Row{Address: "12 BEACON ST", City: "BOSTON", State: "MA", ZIP: "02134"}},
		// What the parser refuses is split by the comma rule, as written, for the valuation to report.
		{"PO box: comma rule", "PO Box 12, Springfield, IL 62704",
			Row{Address: "PO Box 12", City: "Springfield", State: "IL", ZIP: "62704"}},
		{"misspelt state: the second-to-last part", "12 Main St, Springfield, Illinoiz, 62704",
			Row{Address: "12 Main St", City: "Springfield", State: "Illinoiz", ZIP: "62704"}},
		{"bad ZIP kept for the valuation to report", "12 Main St, Springfield, IL 6270",
			Row{Address: "12 Main St", City: "Springfield", State: "IL", ZIP: "6270"}},
		{"street only", "7006 Maple Rd",
			Row{Address: "7006 MAPLE RD"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, dropped := Apply(table([]string{"Address"}, []string{tt.full}), Mapping{"Address": TypeFullAddress})
			tt.want.Line = 2
			if dropped != 0 || len(rows) != 1 || rows[0] != tt.want {
				t.Errorf("Apply(%q) = %+v (%d dropped), want %+v", tt.full, rows, dropped, tt.want)
			}
		})
	}
}

func TestApplyPrefersExplicitColumns(t *testing.T) {
	tbl := table([]string{"Full", "Street", "City", "State", "Zip"},
		[]string{"7006 Maple Rd, Seattle, WA 98103", "", "", "", ""},
		[]string{"", "1525 47th Ave", "Denver", "CO", "80202"},
		[]string{"7006 Maple Rd, Seattle, WA 98103", "7008 Maple Rd", "", "", "98107"},
		[]string{"", "", "Denver", "", ""},
	)
	m := Mapping{"Full": TypeFullAddress, "Street": TypeAddress, "City": TypeCity, "State": TypeState, "Zip": TypeZIP}
	if err := m.Validate(tbl.Headers); err != nil {
		t.Fatal(err)
	}
	rows, dropped := Apply(tbl, m)
	want := []Row{
		{Line: 2, Address: "7006 MAPLE RD", City: "SEATTLE", State: "WA", ZIP: "98103"},
		{Line: 3, Address: "1525 47th Ave", City: "Denver", State: "CO", ZIP: "80202"},
		{Line: 4, Address: "7008 Maple Rd", City: "SEATTLE", State: "WA", ZIP: "98107"},
	}
	if !reflect.DeepEqual(rows, want) || dropped != 1 {
		t.Errorf("Apply = %+v, %d dropped; want %+v, 1", rows, dropped, want)
	}
}

func TestApplyIgnoresWhatIsNotMapped(t *testing.T) {
	tbl := table([]string{"A", "B", "C"}, []string{"1 Main St", "2 Oak Ave", "Springfield"})
	// Two columns of one type (Validate refuses it): the first is read. A missing column is ignored.
	rows, _ := Apply(tbl, Mapping{"A": TypeAddress, "B": TypeAddress})
	if len(rows) != 1 || rows[0].Address != "1 Main St" || rows[0].City != "" {
		t.Errorf("rows = %+v", rows)
	}
	// Address wins over street when both are given.
	rows, _ = Apply(tbl, Mapping{"A": TypeStreet, "B": TypeAddress, "C": TypeCity})
	if rows[0].Address != "2 Oak Ave" || rows[0].City != "Springfield" {
		t.Errorf("rows = %+v", rows)
	}
	// A table built by hand may have fewer cells and no line numbers.
	rows, dropped := Apply(&Table{Headers: []string{"A", "B"}, Rows: [][]string{{"1 Main St"}}},
		Mapping{"A": TypeAddress, "B": TypeCity})
	if dropped != 0 || rows[0] != (Row{Line: 1, Address: "1 Main St"}) {
		t.Errorf("rows = %+v", rows)
	}
}

// TestApplyReadsTheFacts: a sheet of homes not on record carries their facts, which Detect maps by name.
func TestApplyReadsTheFacts(t *testing.T) {
	tbl := table([]string{"Full Address", "Property Type", "Sq Ft", "Beds", "Baths", "Year Built", "Lot Sq Ft", "List Price"},
		[]string{"1 Nowhere Ln, Seattle, WA 98103", "Condo", "1,850 sq ft", "3", "2.5", "1994", "4,000", "500000"},
		[]string{"2 Nowhere Ln, Seattle, WA 98103", "", "", "", "", "", "", ""},
	)
	m, _ := Detect(tbl)
	want := Mapping{"Full Address": TypeFullAddress, "Property Type": TypePropertyType, "Sq Ft": TypeSquareFeet,
		"Beds": TypeBedrooms, "Baths": TypeBathrooms, "Year Built": TypeYearBuilt, "Lot Sq Ft": TypeLotSize,
		"List Price": TypeIgnore}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("Detect = %v, want %v", m, want)
	}
	rows, _ := Apply(tbl, m)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	f, err := rows[0].Facts()
	if err != nil || f.PropertyType == nil || *f.PropertyType != "Condo" || *f.SquareFeet != 1850 || *f.Bedrooms != 3 ||
		*f.Bathrooms != 2.5 || *f.YearBuilt != 1994 || *f.LotSize != 4000 {
		t.Errorf("facts = %+v, %v", f, err)
	}
	f, err = rows[1].Facts()
	if err != nil || f != (Facts{}) {
		t.Errorf("a row without facts: %+v, %v", f, err)
	}
}

func TestFactsThatAreNotNumbers(t *testing.T) {
	_, err := Row{SquareFeet: "big", Bedrooms: "three"}.Facts()
	e, ok := apperr.As(err)
	if !ok || e.Kind != apperr.KindInvalid || e.Field != "squareFeet" || e.Message != `squareFeet must be a number, not "big"` ||
		e.Fields["bedrooms"] == "" {
		t.Errorf("Facts = %v", err)
	}
	for _, s := range []string{"NaN", "Inf", "1.2.3", "12 acres"} {
		if _, err := (Row{LotSize: s}).Facts(); err == nil {
			t.Errorf("lot size %q read as a number", s)
		}
	}
	for s, want := range map[string]float64{"1850": 1850, " 1,850 ": 1850, "1850 SqFt": 1850, "2.5": 2.5, "1,850 ft²": 1850} {
		if f, err := (Row{SquareFeet: s}).Facts(); err != nil || *f.SquareFeet != want {
			t.Errorf("square feet %q = %v, %v; want %v", s, f.SquareFeet, err, want)
		}
	}
}
