package portfolio

import (
	"testing"

	"valuator/internal/apperr"
	"valuator/internal/batch"
)

// FromSheet reads the mapped columns into homes with their facts and lines, drops a row without a street, and
// refuses a fact that is not a number naming its line.
func TestFromSheet(t *testing.T) {
	tbl := &batch.Table{Headers: []string{"Street", "Town", "ST", "Zip", "Sq Ft", "Beds"}, Line: []int{2, 3, 4},
		Rows: [][]string{{"3000 Test Ave N", "Seattle", "WA", "98103", "1,850 sq ft", "3"},
			{"", "Seattle", "WA", "98103", "1200", ""}, {"3002 Test Ave N", "Seattle", "WA", "98103", "", "2"}}}
	m := batch.Mapping{"Street": batch.TypeAddress, "Town": batch.TypeCity, "ST": batch.TypeState, "Zip": batch.TypeZIP,
		"Sq Ft": batch.TypeSquareFeet, "Beds": batch.TypeBedrooms}
	homes, lines, err := FromSheet(tbl, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(homes) != 2 || lines[0] != 2 || lines[1] != 4 {
		t.Fatalf("homes %+v lines %v", homes, lines)
	}
	if h := homes[0]; h.Address != "3000 Test Ave N" || h.ZIP != "98103" || h.SquareFeet == nil || *h.SquareFeet != 1850 ||
		h.Bedrooms == nil || *h.Bedrooms != 3 {
		t.Errorf("first home = %+v", h)
	}
	if homes[1].SquareFeet != nil {
		t.Errorf("an empty cell is no fact: %+v", homes[1])
	}

	tbl.Rows[2][4] = "large"
	_, _, err = FromSheet(tbl, m)
	if e, ok := apperr.As(err); !ok || e.Field != "uploadId" || e.Message != `Line 4 of the file: squareFeet must be a number, not "large"` {
		t.Errorf("a fact that is not a number: %v", err)
	}
	if _, _, err := FromSheet(tbl, batch.Mapping{"Town": batch.TypeCity}); !apperr.IsKind(err, apperr.KindInvalid) {
		t.Errorf("no address column: %v", err)
	}
}
