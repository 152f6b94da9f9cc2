package valuation

import (
	"testing"
	"time"

	"valuator/internal/avm"
)

// TestDisagreementWarningSaysWhichEvidence: the warning of a disagreeing valuation names the comparables' value, the
// home's own sale it leans on and the model's value, in the customer's dollars; an agreeing one says nothing.
func TestDisagreementWarningSaysWhichEvidence(t *testing.T) {
	v := avm.Valuation{Value: 553000, ModelValue: 743000, ComparablesValue: 837000, Disagrees: true,
		Evidence: []avm.Evidence{
			{Source: avm.EvidenceLastSale, Weight: 0.98, Value: 560000, Price: 567000,
				Date: time.Date(2026, 5, 12, 0, 0, 0, 0, time.UTC)},
			{Source: avm.EvidenceModel, Weight: 0.02, Value: 743000},
		}}
	got := evidenceWarnings(v)
	want := "The evidence disagrees: this estimate is 34% below what its comparable sales indicate ($837,000), " +
		"because it leans on the home's own sale of $567,000 in May 2026, and the model alone says $743,000. The " +
		"range is wider for it; check the home's condition and that sale before relying on the estimate."
	if len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q,\nwant [%q]", got, want)
	}
	v.Disagrees = false
	if got := evidenceWarnings(v); len(got) != 0 {
		t.Errorf("an agreeing valuation warns %q", got)
	}
	// Above its comparables, without a heavy own sale.
	v = avm.Valuation{Value: 900000, ModelValue: 900000, ComparablesValue: 750000, Disagrees: true}
	want = "The evidence disagrees: this estimate is 20% above what its comparable sales indicate ($750,000), and " +
		"the model alone says $900,000. The range is wider for it; check the home's condition before relying on " +
		"the estimate."
	if got := evidenceWarnings(v); len(got) != 1 || got[0] != want {
		t.Errorf("warnings %q,\nwant [%q]", got, want)
	}
}
