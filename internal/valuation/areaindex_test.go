package valuation

import (
	"math"
	"testing"

	"valuator/internal/avm"
	"valuator/internal/demo"
)

func TestDemoMetroIndexes(t *testing.T) {
	s, now := demoService(t)
	e := s.snap.Load().engine
	{
		ix := e.PriceIndex()
		a, _ := ix.Month(now)
		b, _ := ix.Month(now.AddDate(-1, 0, 0))
		c, _ := ix.Month(now.AddDate(-5, 0, 0))
		t.Logf("market 12m %+.2f%%  5y %+.2f%%/yr slope %.4f", 100*(math.Exp(a-b)-1), 100*(math.Exp((a-c)/5)-1), ix.Slope)
		for k := 0; k < 6; k++ {
			a, _ := ix.Month(now.AddDate(0, -k, 0))
			b, _ := ix.Month(now.AddDate(-1, -k, 0))
			t.Logf("market 12m to %d months ago %+.2f%%", k, 100*(math.Exp(a-b)-1))
		}
	}
	for _, m := range demo.Metros() {
		for _, z := range m.ZIPs[:2] {
			h := avm.Unknown()
			h.ZIP = z
			ix, level, key := e.AreaIndex(h)
			a, _ := ix.Month(now)
			b, _ := ix.Month(now.AddDate(-1, 0, 0))
			c, _ := ix.Month(now.AddDate(-5, 0, 0))
			t.Logf("%-9s %s %-6s %-6s 12m %+.2f%%  5y %+.2f%%/yr  true %+.2f%%", m.Name, z, level, key,
				100*(math.Exp(a-b)-1), 100*(math.Exp((a-c)/5)-1), 100*m.Growth)
		}
	}
}
