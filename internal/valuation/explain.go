package valuation

import (
	"fmt"
	"math"
	"strings"

	"valuator/internal/avm"
)

// What a valuation says about its evidence, in words: the comparables' adjustments, the warnings a professional
// must read before using the value, and the drivers of the model's value.

// adjustmentsOf is a comparable's adjustment lines, each rounded to $100.
func adjustmentsOf(c avm.Comparable) Adjustments {
	var a Adjustments
	lines := map[string]*int64{avm.AdjTime: &a.Time, avm.AdjLivingArea: &a.LivingArea, avm.AdjLot: &a.Lot,
		avm.AdjBedrooms: &a.Bedrooms, avm.AdjBathrooms: &a.Bathrooms, avm.AdjAge: &a.Age, avm.AdjQuality: &a.Quality,
		avm.AdjLocation: &a.Location}
	for _, adj := range c.Adjustments {
		if p, ok := lines[adj.Line]; ok {
			*p = int64(math.Round(adj.Amount/100) * 100)
		}
	}
	return a
}

// evidenceWarnings are the warnings of a valuation's evidence: the estimate far from what its comparables indicate
// (which evidence, by how much), and a path calibrated on too few held-out valuations of its own.
func evidenceWarnings(v avm.Valuation) []string {
	var out []string
	if v.Disagrees && v.ComparablesValue > 0 {
		pct := math.Round(100 * math.Abs(v.Value/v.ComparablesValue-1))
		dir := "below"
		if v.Value > v.ComparablesValue {
			dir = "above"
		}
		msg := fmt.Sprintf("The evidence disagrees: this estimate is %.0f%% %s what its comparable sales indicate (%s)",
			pct, dir, dollars(v.ComparablesValue))
		check := "the home's condition"
		for _, e := range v.Evidence {
			if e.Source == avm.EvidenceLastSale && e.Weight >= 0.5 {
				msg += fmt.Sprintf(", because it leans on the home's own sale of %s in %s", dollars(e.Price),
					e.Date.Format("January 2006"))
				check = "the home's condition and that sale"
			}
		}
		msg += fmt.Sprintf(", and the model alone says %s. The range is wider for it; check %s before relying on "+
			"the estimate.", dollars(v.ModelValue), check)
		out = append(out, msg)
	}
	if v.PathThin {
		out = append(out, "Few homes valued this way could be checked against their sale prices here, so the "+
			"confidence is held at Medium or below.")
	}
	return out
}

// dollars writes an amount as a customer reads it: "$837,000".
func dollars(v float64) string { return "$" + thousands(float64(round(v))) }

// maxDrivers is how many factors a valuation names; the rest are summed as other factors.
const maxDrivers = 5

// driversOf shows the drivers of a model value in whole dollars: the typical home's value, the five largest factors
// and the rest as one figure, adding up exactly to the model's value (rounding goes to the rest).
func driversOf(d avm.Drivers, modelValue float64) *DriversOut {
	if !(d.Typical > 0) || !(modelValue > 0) {
		return nil
	}
	out := &DriversOut{TypicalValue: int64(math.Round(d.Typical)), ModelValue: int64(math.Round(modelValue)),
		Factors: []DriverOut{}}
	named := int64(0)
	for i, it := range d.Items { // largest first (avm.Drivers orders them)
		if i >= maxDrivers || math.Round(it.Amount) == 0 {
			break
		}
		amount := int64(math.Round(it.Amount))
		named += amount
		out.Factors = append(out.Factors, DriverOut{Factor: it.Factor, Amount: amount, Description: describe(it)})
	}
	out.OtherFactors = out.ModelValue - out.TypicalValue - named
	return out
}

// describe says what a factor is, against the typical home nearby.
func describe(d avm.Driver) string {
	known := func(v float64) bool { return v == v && v > 0 }
	than := func(share float64) string {
		if share != share {
			return ""
		}
		if share >= 0.5 {
			return fmt.Sprintf(", larger than %.0f%% of homes nearby", math.Floor(100*share))
		}
		return fmt.Sprintf(", smaller than %.0f%% of homes nearby", math.Floor(100*(1-share)))
	}
	typical := func(v float64, f string) string {
		if !known(v) {
			return ""
		}
		return fmt.Sprintf(" (typical nearby: "+f+")", v)
	}
	switch d.Factor {
	case avm.AdjLivingArea:
		if known(d.Subject) {
			return thousands(d.Subject) + " sq ft of living area" + than(d.Share)
		}
	case avm.AdjLot:
		if known(d.Subject) {
			return "a lot of " + thousands(d.Subject) + " sq ft" + than(d.Share)
		}
	case avm.AdjBedrooms:
		if known(d.Subject) {
			return plural(d.Subject, "bedroom") + typical(d.Typical, "%.0f")
		}
	case avm.AdjBathrooms:
		if known(d.Subject) {
			return plural(d.Subject, "bathroom") + typical(d.Typical, "%.1f")
		}
	case avm.AdjAge:
		if known(d.Subject) {
			return fmt.Sprintf("built in %.0f", d.Subject) + typical(d.Typical, "%.0f")
		}
	case avm.AdjQuality:
		return "its type, construction quality and condition against the homes nearby"
	case avm.AdjLocation:
		return "its exact place within the area"
	}
	return strings.ReplaceAll(d.Factor, "_", " ")
}

// plural writes a count with its noun: "1 bedroom", "2.5 bathrooms".
func plural(n float64, noun string) string {
	s := strings.TrimSuffix(fmt.Sprintf("%.1f", n), ".0")
	if n == 1 {
		return s + " " + noun
	}
	return s + " " + noun + "s"
}
