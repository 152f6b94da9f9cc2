package address

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// sacramentoFile is the real 2008 Sacramento sales file kept outside the project (DESIGN.md section 6).
var sacramentoFile = filepath.Join("..", "..", "..", "shared", "data", "sacramento_sales_2008.csv")

// sacramentoRows returns the street, city, state and zip of every sale, or skips the test when the shared data
// is not there (a checkout without it still builds and tests).
func sacramentoRows(tb testing.TB) [][4]string {
	tb.Helper()
	f, err := os.Open(sacramentoFile)
	if err != nil {
		tb.Skipf("real data not available: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("reading %s: %v", sacramentoFile, err)
	}
	if len(recs) < 2 || recs[0][0] != "street" || recs[0][1] != "city" || recs[0][2] != "zip" || recs[0][3] != "state" {
		tb.Fatalf("unexpected header %v in %s", recs[0], sacramentoFile)
	}
	rows := make([][4]string, 0, len(recs)-1)
	for _, r := range recs[1:] {
		rows = append(rows, [4]string{r[0], r[1], r[3], r[2]})
	}
	return rows
}

// Every record of the real file must import, and must read back the same from its normalized line and from the
// one-line forms a user would type, with and without commas.
func TestSacramentoRecords(t *testing.T) {
	rows := sacramentoRows(t)
	for _, r := range rows {
		a, err := FromParts(r[0], r[1], r[2], r[3])
		if err != nil {
			t.Errorf("FromParts(%q, %q, %q, %q): %v", r[0], r[1], r[2], r[3], err)
			continue
		}
		if a.Street() == "" || a.City != r[1] || a.State != r[2] || a.ZIP != r[3] {
			t.Errorf("FromParts(%q, %q, %q, %q) = %s", r[0], r[1], r[2], r[3], fields(a))
		}
		for _, line := range []string{
			a.Line(),
			r[0] + ", " + r[1] + ", " + r[2] + " " + r[3],
			r[0] + " " + r[1] + " " + r[2] + " " + r[3],
		} {
			b, err := Parse(line)
			if err != nil {
				t.Errorf("Parse(%q): %v", line, err)
				continue
			}
			if fields(b) != fields(a) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", line, fields(b), fields(a))
			}
		}
	}
	t.Logf("%d records", len(rows))
}
