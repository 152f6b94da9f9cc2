package property

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func readAll(t *testing.T, data string, opt Options) ([]Record, []RowError, error) {
	t.Helper()
	var recs []Record
	var bad []RowError
	err := Read(strings.NewReader(data), opt, func(r Record) error { recs = append(recs, r); return nil },
		func(e RowError) { bad = append(bad, e) })
	return recs, bad, err
}

func readFile(t *testing.T, path string, opt Options) ([]Record, []RowError) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	defer f.Close()
	var recs []Record
	var bad []RowError
	if err := Read(f, opt, func(r Record) error { recs = append(recs, r); return nil },
		func(e RowError) { bad = append(bad, e) }); err != nil {
		t.Fatal(err)
	}
	return recs, bad
}

func TestReadKingCountyFileAsItIs(t *testing.T) {
	recs, bad := readFile(t, "../../../shared/data/kc_house_sales.csv", Options{Format: FormatKingCounty})
	if len(recs) != 21612 || len(bad) != 0 {
		t.Fatalf("read %d records and %d bad rows, want 21612 and 0 (first bad: %v)", len(recs), len(bad), bad)
	}
	r := recs[0]
	if r.Home.ExternalID != "7129300520" || r.Price != 221900 || !r.SaleDate.Equal(time.Date(2014, 10, 13, 0, 0, 0, 0, time.UTC)) ||
		r.Home.Sqft != 1180 || r.Home.ZIP != "98178" || r.Home.City != "SEATTLE" || r.Home.County != "King County" ||
		r.Home.Grade != 7 || !math.IsNaN(r.Home.YearRenov) || r.Line != 2 {
		t.Errorf("first record = %+v", r)
	}
}

func TestReadSacramentoFileAsItIs(t *testing.T) {
	recs, bad := readFile(t, "../../../shared/data/sacramento_sales_2008.csv", Options{Format: FormatSacramento})
	if len(recs)+len(bad) != 985 {
		t.Fatalf("read %d records and %d bad rows, want 985 rows in all", len(recs), len(bad))
	}
	if len(bad) > 5 {
		t.Errorf("%d rows rejected, want at most a handful: %v", len(bad), bad)
	}
	r := recs[0]
	if r.Home.Street != "3526 HIGH ST" || r.Home.City != "SACRAMENTO" || r.Home.ZIP != "95838" || r.Price != 59222 ||
		r.Home.Sqft != 836 || r.Home.Type != "Single Family" || r.Home.StreetKey == "" ||
		!r.SaleDate.Equal(time.Date(2008, 5, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("first record = %+v", r)
	}
	unknownSize := 0
	for _, r := range recs {
		if math.IsNaN(r.Home.Sqft) {
			unknownSize++
		}
	}
	if unknownSize != 171 {
		t.Errorf("%d records with unknown living area, want the file's 171 zeros", unknownSize)
	}
}

func TestReadGenericCSV(t *testing.T) {
	data := "\ufeffParcel,Situs Address,City,ST,Zip Code,Beds,Baths,Living Area,Sold Date,Sold Price\r\n" +
		"A1,123 N Main St Apt 4,Springfield,IL,62704,3,2,\"1,850\",2024-03-31,\"$312,500\"\r\n" +
		"\r\n" +
		"A2,PO Box 12,Springfield,IL,62704,3,2,1200,2024-04-01,200000\r\n" +
		"A3,9 Elm St,Springfield,IL,62704,3,2,1200,yesterday,200000\r\n" +
		"A4,9 Elm St,Springfield,IL,62704,three,2,1200,04/02/2024,200000\r\n" +
		"A5,9 Elm St,Springfield,IL,62704,3,2,1200,04/02/2024,-5\r\n" +
		"A6,10 Elm St,Springfield,IL,62704,,,,20240403,199000\r\n"
	recs, bad, err := readAll(t, data, Options{Format: FormatCSV,
		Mapping: map[string]string{"street": "Situs Address", "zip": "Zip Code", "sqft": "Living Area",
			"sale_date": "Sold Date", "price": "Sold Price"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("records = %d, want 2 (bad: %v)", len(recs), bad)
	}
	r := recs[0]
	if r.Home.Street != "123 N MAIN ST" || r.Home.Unit != "4" || r.Home.ExternalID != "A1" || r.Home.Sqft != 1850 ||
		r.Price != 312500 || r.Home.Beds != 3 || r.Home.County == "" || math.IsNaN(r.Home.Lat) {
		t.Errorf("first record = %+v", r)
	}
	wantBad := map[int]string{4: "address", 5: "sale_date", 6: "beds", 7: "price"}
	if len(bad) != len(wantBad) {
		t.Fatalf("bad rows = %v, want lines 4-7", bad)
	}
	for _, b := range bad {
		if want, ok := wantBad[b.Line]; !ok || !strings.Contains(b.Err, want) {
			t.Errorf("bad row %v, want line %d to mention %q", b, b.Line, want)
		}
	}
}

func TestReadRejectsUnusableFiles(t *testing.T) {
	for name, tt := range map[string]struct {
		data string
		opt  Options
		want string
	}{
		"empty":          {"", Options{Format: FormatCSV}, "empty"},
		"kc columns":     {"id,date\n1,2\n", Options{Format: FormatKingCounty}, "lacks the column"},
		"no price":       {"street,sale_date\n1 A St,2024-01-01\n", Options{Format: FormatCSV}, "no price"},
		"bad mapping":    {"a,b\n", Options{Format: FormatCSV, Mapping: map[string]string{"price": "nope"}}, "no such column"},
		"unknown field":  {"a,b\n", Options{Format: FormatCSV, Mapping: map[string]string{"colour": "a"}}, "unknown field"},
		"unknown format": {"a\n", Options{Format: "xml"}, "unknown format"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := readAll(t, tt.data, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
