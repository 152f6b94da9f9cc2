package usage

import (
	"testing"
	"time"
)

func TestParseFilter(t *testing.T) {
	q := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	f, err := ParseFilter(q(nil))
	if err != nil || f.Page != 1 || f.Limit != 50 {
		t.Errorf("defaults = %+v, %v", f, err)
	}
	f, err = ParseFilter(q(map[string]string{"page": "3", "limit": "10", "search": " main ", "status": "error", "apiKey": "prod"}))
	if err != nil || f.Page != 3 || f.Limit != 10 || f.Search != "main" || f.Status != "error" || f.APIKey != "prod" {
		t.Errorf("filter = %+v, %v", f, err)
	}
	for _, bad := range []map[string]string{{"page": "0"}, {"page": "x"}, {"limit": "201"}, {"limit": "0"}, {"status": "ok"},
		{"page": "9223372036854775807"}, {"page": "1000001"}, {"search": "a\x00b"}, {"search": "\xff"}, {"apiKey": "k\x00"}} {
		if _, err := ParseFilter(q(bad)); err == nil {
			t.Errorf("ParseFilter(%v) accepted", bad)
		}
	}
}

func TestPaginate(t *testing.T) {
	p := Paginate(2, 50, 120)
	if p.TotalPages != 3 || !p.HasPreviousPage || !p.HasNextPage {
		t.Errorf("page 2 of 120 = %+v", p)
	}
	if p := Paginate(1, 50, 0); p.TotalPages != 0 || p.HasNextPage || p.HasPreviousPage {
		t.Errorf("empty = %+v", p)
	}
	if p := Paginate(3, 50, 120); p.HasNextPage {
		t.Errorf("last page has a next page: %+v", p)
	}
}

func TestStatsHelpers(t *testing.T) {
	from, to := Window(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC), 7)
	if from.Format("2006-01-02") != "2026-03-04" || to.Format("2006-01-02") != "2026-03-11" {
		t.Errorf("window = %v - %v", from, to)
	}
	days := FillDays(from, 7, map[string]DayCount{"2026-03-06": {Requests: 4, Successful: 3}})
	if len(days) != 7 || days[2].Requests != 4 || days[0].Requests != 0 || days[6].Date != "2026-03-10" {
		t.Errorf("days = %+v", days)
	}
	hist := []TimeCount{{Ms: 400, Count: 5}, {Ms: 100, Count: 90}, {Ms: 900, Count: 5}}
	if p := Percentile(hist, 0.5); p != 100 {
		t.Errorf("p50 = %d", p)
	}
	if p := Percentile(hist, 0.95); p != 400 {
		t.Errorf("p95 = %d", p)
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("p50 of nothing")
	}
	if c := Change(112, 100); c == nil || *c != 0.12 {
		t.Errorf("change = %v", c)
	}
	if Change(5, 0) != nil {
		t.Error("change over an empty month")
	}
	if _, err := ParseDays("14"); err == nil {
		t.Error("days=14 accepted")
	}
}
