package valuation

import (
	"math"
	"strings"
	"testing"
	"time"

	"valuator/internal/property"
	"valuator/internal/store"
)

func TestConfidenceLevel(t *testing.T) {
	for _, tt := range []struct {
		c    float64
		want string
	}{{0.85, "High"}, {0.849, "Medium"}, {0.7, "Medium"}, {0.699, "Low"}, {0.1, "Low"}} {
		if got := ConfidenceLevel(tt.c); got != tt.want {
			t.Errorf("ConfidenceLevel(%.2f) = %s, want %s", tt.c, got, tt.want)
		}
	}
}

func TestSplitLinksRepeatSales(t *testing.T) {
	d := func(y int, m time.Month) time.Time { return time.Date(y, m, 10, 0, 0, 0, 0, time.UTC) }
	h := func(id string) property.Home {
		x := property.NewHome()
		x.ExternalID, x.Lat, x.Lon, x.Sqft = id, 47.6, -122.3, 1000
		return x
	}
	recs := []property.Record{
		{Home: h("A"), SaleDate: d(2014, 6), Price: 100},
		{Home: h("B"), SaleDate: d(2014, 7), Price: 200},
		{Home: h("A"), SaleDate: d(2015, 3), Price: 120},
		{Home: h("C"), SaleDate: d(2015, 4), Price: 300},
		{Home: h("A"), SaleDate: d(2014, 9), Price: 110},
	}
	m, tests := Split(recs, d(2015, 1))
	if m.NumProperties() != 2 || len(m.Sales) != 3 || len(tests) != 2 {
		t.Fatalf("market %d homes %d sales, %d tests", m.NumProperties(), len(m.Sales), len(tests))
	}
	if tests[0].Property < 0 || m.PropertyID(tests[0].Property) != 1 {
		t.Errorf("the repeat sale of A is not linked to its market record: %+v", tests[0])
	}
	if tests[1].Property != -1 {
		t.Errorf("C, never sold before the cut, is linked to %d", tests[1].Property)
	}
}

func TestFingerprintChangesWithTheData(t *testing.T) {
	h := property.NewHome()
	h.ID, h.Sqft = 1, 1000
	md := store.MarketData{Homes: []property.Home{h},
		Sales: []property.Sale{{ID: 1, PropertyID: 1, Date: time.Unix(0, 0), Price: 100}}}
	a := fingerprint(md)
	if a != fingerprint(md) {
		t.Error("fingerprint is not stable")
	}
	md.Sales[0].Price = 101
	b := fingerprint(md)
	md.Sales[0].Price = 100
	md.Homes[0].Sqft = math.NaN()
	c := fingerprint(md)
	if a == b || a == c || b == c {
		t.Error("fingerprint did not change with a price or an attribute")
	}
}

func TestReportRefusesEmptyData(t *testing.T) {
	if _, err := Report(ReportData{}); err == nil {
		t.Error("an empty report was produced")
	}
	v := 500000.0
	out, err := Report(ReportData{Valuation: &v})
	if err != nil || len(out) == 0 {
		t.Errorf("a report with only a value failed: %v", err)
	}
}

func TestResultCacheEvictsTheOldest(t *testing.T) {
	c := newResultCache(2)
	c.put("a", &Result{Meta: ResultMeta{DataSource: "a"}})
	c.put("b", &Result{Meta: ResultMeta{DataSource: "b"}})
	if c.get("a") == nil {
		t.Fatal("a missing")
	}
	c.put("c", &Result{Meta: ResultMeta{DataSource: "c"}}) // b is now the least recent
	if c.get("b") != nil || c.get("a") == nil || c.get("c") == nil {
		t.Error("the least recently used entry was not the one evicted")
	}
	// Callers get copies: filling one's meta does not touch the cache.
	r := c.get("a")
	r.Meta.RequestID = "mine"
	if c.get("a").Meta.RequestID != "" {
		t.Error("a caller's change reached the cached result")
	}
}

// TestReportLevelFollowsTheConfidence: the report's level comes from the one mapping (ConfidenceLevel), whatever
// level the caller sends beside a confidence, so a 58% estimate is never reported High.
func TestReportLevelFollowsTheConfidence(t *testing.T) {
	for _, tt := range []struct {
		conf float64
		sent string
		want string
	}{
		{0.58, "High", "Confidence Level,Low"},
		{0.7, "High", "Confidence Level,Medium"},
		{0.86, "Low", "Confidence Level,High"},
		{0.84, "High", "Confidence Level,Medium"},
		{0.69, "High", "Confidence Level,Low"},
	} {
		addr, conf, sent := "1 Main St", tt.conf, tt.sent
		out, err := Report(ReportData{Address: &addr, Confidence: &conf, ConfidenceLevel: &sent})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("confidence %v sent as %s: report %q lacks %q", tt.conf, tt.sent, out, tt.want)
		}
	}
}
