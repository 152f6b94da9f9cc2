package avm

import (
	"fmt"
	"math"
	"os"
	"sort"
	"testing"
	"time"

	"valuator/internal/avm/gbm"
)

// TestKCTune compares model settings on the King County protocol, reporting MdAPE as is and after removing the
// median level error (the model's own quality, apart from the market trend).
func TestKCTune(t *testing.T) {
	if os.Getenv("VALUATOR_KC") == "" {
		t.Skip("set VALUATOR_KC=1")
	}
	cut := time.Date(2015, 2, 1, 0, 0, 0, 0, time.UTC)
	m, tests := loadKCMarket(t, cut)
	fillNeighbourhood(m)
	base := DefaultOptions()
	variants := map[string]func(*Options){
		"default":       func(o *Options) {},
		"huber":         func(o *Options) { o.Model.Loss = gbm.Huber; o.Model.Delta = 0.15 },
		"leaves24-3000": func(o *Options) { o.Model.NumLeaves = 24; o.Model.Trees = 3000 },
		"ff0.4":         func(o *Options) { o.Model.FeatureFraction = 0.4 },
	}
	names := os.Getenv("VARIANTS")
	for _, name := range []string{"default", "huber", "leaves24-3000", "ff0.4"} {
		if names != "" && !contains(names, name) {
			continue
		}
		o := base
		variants[name](&o)
		start := time.Now()
		e, err := trainCore(m, o, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var logErr []float64
		var price []float64
		var est []float64
		for _, ts := range tests {
			v := e.value(&ts.Home, ts.Property, ts.Date, -1)
			est = append(est, v.Value)
			price = append(price, ts.Price)
			logErr = append(logErr, math.Log(v.Value/ts.Price))
		}
		md, p10 := metrics(est, price)
		shift := median(logErr)
		for i := range est {
			est[i] *= math.Exp(-shift)
		}
		md2, p102 := metrics(est, price)
		fmt.Printf("%-14s MdAPE %.2f%% PPE10 %.1f%% | level-corrected MdAPE %.2f%% PPE10 %.1f%% (bias %+.2f%%) [%v]\n",
			name, md*100, p10*100, md2*100, p102*100, shift*100, time.Since(start).Round(time.Second))
	}
}

func contains(list, s string) bool {
	for _, x := range splitComma(list) {
		if x == s {
			return true
		}
	}
	return false
}

func splitComma(s string) []string {
	var out []string
	cur := ""
	for _, c := range s {
		if c == ',' {
			out = append(out, cur)
			cur = ""
		} else {
			cur += string(c)
		}
	}
	return append(out, cur)
}

func metrics(est, price []float64) (mdape, ppe10 float64) {
	ape := make([]float64, len(est))
	in10 := 0
	for i := range est {
		ape[i] = math.Abs(est[i]-price[i]) / price[i]
		if ape[i] <= 0.10 {
			in10++
		}
	}
	sort.Float64s(ape)
	return ape[len(ape)/2], float64(in10) / float64(len(ape))
}
