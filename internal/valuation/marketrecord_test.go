package valuation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"valuator/internal/usage"
)

// TestMarketRecordIsBounded: a market call's usage record keeps what was sent, up to one ZIP code past the limit and
// a few bytes of each field, whatever the size of the query.
func TestMarketRecordIsBounded(t *testing.T) {
	in := MarketInput{HistoryMonths: strings.Repeat("9", 5000), PropertyType: strings.Repeat("x", 5000)}
	for i := 0; i < 3000; i++ {
		in.ZIP = append(in.ZIP, "98103"+strings.Repeat("0", 100))
	}
	rec := marketRecord(usage.Call{RequestID: "r"}, in, 400, time.Now())
	var got MarketInput
	if err := json.Unmarshal([]byte(rec.RequestData), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.ZIP) != MaxCompareZIPs+1 || len(got.ZIP[0]) != 16 || len(got.HistoryMonths) != 16 || len(got.PropertyType) != 32 {
		t.Errorf("recorded %d ZIPs (first %d bytes), historyMonths %d bytes, propertyType %d bytes", len(got.ZIP),
			len(got.ZIP[0]), len(got.HistoryMonths), len(got.PropertyType))
	}
	if len(rec.RequestData) > 400 {
		t.Errorf("request data %d bytes", len(rec.RequestData))
	}
	one := marketRecord(usage.Call{}, MarketInput{ZIP: []string{"98103"}}, 200, time.Now())
	if one.RequestData != `{"zip":["98103"]}` {
		t.Errorf("a plain call recorded as %s", one.RequestData)
	}
}
