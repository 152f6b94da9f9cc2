package demo

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"testing"
	"time"
)

// kcSalesPath is the King County file, relative to this package: the data lives beside the repository
// (../shared/data from its root) and is never copied into it.
const kcSalesPath = "../../../shared/data/kc_house_sales.csv"

// kcRow is one King County sale as the hedonic model sees it.
type kcRow struct {
	logPrice float64
	x        [numHedonicVars]float64
	zip      string
	cell     string // the half-mile square of the sale's location
}

// readKCSales reads the sales whose every regressor is usable (positive price, living area and lot).
func readKCSales(path string) ([]kcRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"date", "price", "bedrooms", "bathrooms", "sqft_living", "sqft_lot", "floors", "condition",
		"grade", "yr_built", "zipcode"}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, n)
		}
	}
	var rows []kcRow
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		d, err := time.Parse("20060102", rec[col["date"]][:8])
		if err != nil {
			return nil, fmt.Errorf("line %d: date: %v", line, err)
		}
		price, sqft, lot := num("price"), num("sqft_living"), num("sqft_lot")
		if !(price > 0 && sqft > 0 && lot > 0) {
			continue
		}
		age := float64(d.Year()) - num("yr_built")
		x := hedonicVars(sqft, num("bedrooms"), num("bathrooms"), lot, age, num("grade"), num("condition"), num("floors"))
		ok := true
		for _, v := range x {
			ok = ok && !math.IsNaN(v)
		}
		if !ok {
			continue
		}
		// Half-mile squares: 0.0075 degrees of latitude, 0.011 of longitude at 47.5 degrees north.
		cell := fmt.Sprintf("%.0f,%.0f", math.Floor(num("lat")/0.0075), math.Floor(num("long")/0.011))
		rows = append(rows, kcRow{logPrice: math.Log(price), x: x, zip: rec[col["zipcode"]], cell: cell})
	}
	return rows, nil
}

// olsFit is the result of an ordinary least-squares fit.
type olsFit struct {
	coef  []float64
	r2    float64
	sigma float64 // residual standard deviation, sqrt(SSE / (n - p))
	n, p  int
}

// fitOLS regresses y on the columns of x by solving the normal equations X'X b = X'y. The columns are centred
// first (the intercept is recovered afterwards), which keeps X'X well conditioned enough for a Cholesky
// factorisation in float64 with a handful of regressors.
func fitOLS(x [][]float64, y []float64) (olsFit, error) {
	n := len(y)
	if n == 0 {
		return olsFit{}, errors.New("no rows")
	}
	k := len(x[0])
	mean := make([]float64, k)
	var ymean float64
	for i := range n {
		for j := range k {
			mean[j] += x[i][j]
		}
		ymean += y[i]
	}
	for j := range k {
		mean[j] /= float64(n)
	}
	ymean /= float64(n)
	xtx := make([][]float64, k)
	for j := range xtx {
		xtx[j] = make([]float64, k)
	}
	xty := make([]float64, k)
	for i := range n {
		for a := range k {
			da := x[i][a] - mean[a]
			xty[a] += da * (y[i] - ymean)
			for b := 0; b <= a; b++ {
				xtx[a][b] += da * (x[i][b] - mean[b])
			}
		}
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			xtx[a][b] = xtx[b][a]
		}
	}
	beta, err := solveSPD(xtx, xty)
	if err != nil {
		return olsFit{}, err
	}
	coef := make([]float64, k+1)
	coef[0] = ymean
	for j := range k {
		coef[j+1] = beta[j]
		coef[0] -= beta[j] * mean[j]
	}
	var sse, sst float64
	for i := range n {
		pred := coef[0]
		for j := range k {
			pred += coef[j+1] * x[i][j]
		}
		sse += (y[i] - pred) * (y[i] - pred)
		sst += (y[i] - ymean) * (y[i] - ymean)
	}
	p := k + 1
	return olsFit{coef: coef, r2: 1 - sse/sst, sigma: math.Sqrt(sse / float64(n-p)), n: n, p: p}, nil
}

// solveSPD solves a x = b for a symmetric positive definite a by Cholesky factorisation (a = L L').
func solveSPD(a [][]float64, b []float64) ([]float64, error) {
	k := len(b)
	l := make([][]float64, k)
	for i := range l {
		l[i] = make([]float64, k)
	}
	for i := range k {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for m := range j {
				s -= l[i][m] * l[j][m]
			}
			if i == j {
				if s <= 0 {
					return nil, fmt.Errorf("matrix not positive definite at column %d (collinear regressors?)", i)
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	z := make([]float64, k)
	for i := range k {
		s := b[i]
		for m := range i {
			s -= l[i][m] * z[m]
		}
		z[i] = s / l[i][i]
	}
	x := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := z[i]
		for m := i + 1; m < k; m++ {
			s -= l[m][i] * x[m]
		}
		x[i] = s / l[i][i]
	}
	return x, nil
}

func TestSolveSPD(t *testing.T) {
	// y = 2 + 3 a - b exactly: the fit must recover the coefficients and R² = 1.
	var x [][]float64
	var y []float64
	for i := range 50 {
		a, b := float64(i%7), float64((i*i)%11)
		x = append(x, []float64{a, b})
		y = append(y, 2+3*a-b)
	}
	f, err := fitOLS(x, y)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{2, 3, -1} {
		if math.Abs(f.coef[i]-want) > 1e-9 {
			t.Errorf("coef[%d] = %v, want %v", i, f.coef[i], want)
		}
	}
	if math.Abs(f.r2-1) > 1e-12 {
		t.Errorf("R² = %v, want 1", f.r2)
	}
}

// TestFitHedonic fits the hedonic model on the King County sales and checks that hedonic.go carries the fitted
// coefficients. Run it with -v to see the fit; it is skipped when the data file is not beside the repository.
func TestFitHedonic(t *testing.T) {
	rows, err := readKCSales(kcSalesPath)
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no King County data at " + kcSalesPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	x := make([][]float64, len(rows))
	y := make([]float64, len(rows))
	for i := range rows {
		x[i] = rows[i].x[:]
		y[i] = rows[i].logPrice
	}
	fit, err := fitOLS(x, y)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("OLS of log(price) on %d sales, %d parameters: R² = %.4f, residual sd = %.4f", fit.n, fit.p, fit.r2, fit.sigma)
	t.Logf("  %-16s %12.6f", "intercept", fit.coef[0])
	for j, name := range hedonicNames {
		t.Logf("  %-16s %12.6f", name, fit.coef[j+1])
	}

	// The same regressors with a fixed effect per ZIP code: the coefficients compare homes within one
	// neighbourhood, and the residual sd is the spread of prices among comparable homes of one ZIP code.
	zips := make([]string, len(rows))
	cells := make([]string, len(rows))
	for i, r := range rows {
		zips[i], cells[i] = r.zip, r.cell
	}
	fe, feSigma, nZIP, err := fitWithin(x, y, zips)
	if err != nil {
		t.Fatal(err)
	}
	// The intercept is King County's sales-weighted mean ZIP effect: the value the fixed effects average to, so
	// that an average King County home is priced at King County's average log price.
	intercept := fit.coef[0] + dot(fit.coef[1:], meanX(x)) - dot(fe.coef[1:], meanX(x))
	sst := fit.sigma * fit.sigma * float64(fit.n-fit.p) / (1 - fit.r2)
	sseFE := fe.sigma * fe.sigma * float64(fe.n-fe.p)
	t.Logf("with %d ZIP fixed effects: within-ZIP R² = %.4f, R² with the ZIP effects = %.4f, residual sd = %.4f",
		nZIP, fe.r2, 1-sseFE/sst, feSigma)
	t.Logf("  %-16s %12.6f", "intercept", intercept)
	for j, name := range hedonicNames {
		t.Logf("  %-16s %12.6f", name, fe.coef[j+1])
	}
	// With a fixed effect per half-mile square instead, the residual is what location cannot explain: the
	// home itself and the sale. The generator gives its homes this much noise, since it adds its own location
	// effects within the ZIP.
	_, cellSigma, nCell, err := fitWithin(x, y, cells)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with %d half-mile-square fixed effects: residual sd = %.4f", nCell, cellSigma)

	// hedonic.go rounds to 4 decimals; the check allows that rounding and nothing more.
	check := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 0.00005+1e-12 {
			t.Errorf("hedonic.go %s = %.4f, fit gives %.6f", name, want, got)
		}
	}
	check("hedonicIntercept", intercept, hedonicIntercept)
	for j, name := range hedonicNames {
		check(name, fe.coef[j+1], hedonicCoef[j])
	}
	check("withinZIPSigma", feSigma, withinZIPSigma)
	check("hedonicSigma", cellSigma, hedonicSigma)
	check("pooledR2", fit.r2, pooledR2)
	check("pooledSigma", fit.sigma, pooledSigma)
	check("withinR2", fe.r2, withinR2)
}

// fitWithin fits y on x with a fixed effect per group, by removing each group's means from y and x. It returns
// the fit, the residual sd counting the group means as parameters, and the number of groups.
func fitWithin(x [][]float64, y []float64, group []string) (olsFit, float64, int, error) {
	byGroup := map[string][]int{}
	for i, g := range group {
		byGroup[g] = append(byGroup[g], i)
	}
	k := len(x[0])
	xw := make([][]float64, len(y))
	yw := make([]float64, len(y))
	for _, idx := range byGroup {
		var my float64
		mx := make([]float64, k)
		for _, i := range idx {
			my += y[i]
			for j := range mx {
				mx[j] += x[i][j]
			}
		}
		nz := float64(len(idx))
		for _, i := range idx {
			yw[i] = y[i] - my/nz
			xw[i] = make([]float64, k)
			for j := range mx {
				xw[i][j] = x[i][j] - mx[j]/nz
			}
		}
	}
	f, err := fitOLS(xw, yw)
	if err != nil {
		return olsFit{}, 0, 0, err
	}
	// fitOLS counted one parameter for the intercept; the group means are len(byGroup) of them.
	sigma := f.sigma * math.Sqrt(float64(f.n-f.p)/float64(f.n-f.p-len(byGroup)+1))
	return f, sigma, len(byGroup), nil
}

func meanX(x [][]float64) []float64 {
	m := make([]float64, len(x[0]))
	for _, row := range x {
		for j, v := range row {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(len(x))
	}
	return m
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
