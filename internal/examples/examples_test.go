package examples

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"valuator/internal/address"
	"valuator/internal/batch"
	"valuator/internal/contract"
	"valuator/internal/demo"
	"valuator/internal/testclock"
)

// root is the repository's root, seen from this package.
const root = "../.."

const update = "run `" + Command + "` to update"

// checkedIn reads the checked-in example as written (its bytes) and decoded.
func checkedIn(t *testing.T) ([]byte, *File) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, WebFile))
	if err != nil {
		t.Fatalf("%v: %s", err, update)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || f.Response.Data == nil {
		t.Fatalf("%s does not decode as an example (%v): %s", WebFile, err, update)
	}
	return raw, &f
}

// TestExampleFitsTheContract checks the checked-in example, request and answer, against api/openapi.yaml with the
// validator the server's tests use, and that the contract's own request examples value the same home.
func TestExampleFitsTheContract(t *testing.T) {
	ctx := context.Background()
	_, f := checkedIn(t)
	c, err := contract.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/api/v1/property/valuation?" + f.Request.Query().Encode(); f.Path != want {
		t.Errorf("path = %q, want %q (the request's address)", f.Path, want)
	}
	r := httptest.NewRequest(http.MethodGet, f.Path, nil)
	r.Header.Set("x-api-key", "vk_live_example")
	in, err := c.Operation(r)
	if err != nil {
		t.Fatalf("GET %s is not in api/openapi.yaml: %v", f.Path, err)
	}
	if err := contract.CheckRequest(ctx, in); err != nil {
		t.Errorf("the example request does not match api/openapi.yaml: %v", err)
	}
	body, err := json.Marshal(f.Response)
	if err != nil {
		t.Fatal(err)
	}
	// Every answer carries its request id in X-Request-Id (required by the contract), the same as meta.requestId.
	header := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {f.Response.Data.Meta.RequestID}}
	if err := contract.CheckResponse(ctx, in, http.StatusOK, header, body); err != nil {
		t.Errorf("the example answer does not match api/openapi.yaml: %v", err)
	}

	// The contract's request examples: the public endpoint's query parameters and the dashboard lookup's body.
	doc := c.Doc()
	op := doc.Paths.Find("/api/v1/property/valuation").Get
	want := map[string]string{"address": f.Request.Address, "city": f.Request.City, "state": f.Request.State,
		"zip": f.Request.ZIP}
	for name, w := range want {
		p := op.Parameters.GetByInAndName("query", name)
		if p == nil {
			t.Errorf("the public endpoint has no query parameter %q", name)
			continue
		}
		if p.Example != w {
			t.Errorf("api/openapi.yaml: the example of the query parameter %s is %v, want %q (the example home)",
				name, p.Example, w)
		}
	}
	lookup := doc.Paths.Find("/api/property/lookup").Post.RequestBody.Value.Content.Get("application/json")
	got := map[string]string{}
	if m, ok := lookup.Example.(map[string]any); ok {
		for k, v := range m {
			got[k] = fmt.Sprint(v)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("api/openapi.yaml: the example body of POST /api/property/lookup is %v, want %v (the example home)",
			got, want)
	}
}

// TestREADMEValuesTheExampleHome: the README's curl example and its "try a lookup" name the example home.
func TestREADMEValuesTheExampleHome(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`--data-urlencode "address=` + Home.Address + `" --data-urlencode city=` + Home.City +
			` --data-urlencode state=` + Home.State + ` --data-urlencode zip=` + Home.ZIP,
		"Try a lookup of `" + Home.Line() + "`",
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("README.md does not say %q", want)
		}
	}
}

// TestExampleIsUpToDate generates the example again and compares it with the checked-in one: the same structure,
// the same texts (address, match code, every field present) and numbers within a small tolerance, since training
// may differ in the last bits on another CPU. The example in api/openapi.yaml must be exactly the one generated
// from the checked-in file.
func TestExampleIsUpToDate(t *testing.T) {
	raw, f := checkedIn(t)
	if f.Request != Home {
		t.Errorf("the checked-in example values %q, but examples.Home is %q: %s", f.Request.Line(), Home.Line(), update)
	}

	spec, err := os.ReadFile(filepath.Join(root, OpenAPIFile))
	if err != nil {
		t.Fatal(err)
	}
	if want, err := WithOpenAPIExample(spec, f); err != nil {
		t.Error(err)
	} else if !bytes.Equal(want, spec) {
		t.Errorf("the example in %s is not the one in %s: %s", OpenAPIFile, WebFile, update)
	}

	started := time.Now()
	fresh, err := Generate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated the example in %v", time.Since(started).Round(time.Millisecond))
	freshRaw, err := fresh.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(freshRaw, &b); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	compare("", a, b, &diffs)
	if len(diffs) > 0 {
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("... and %d more", len(diffs)-20))
		}
		t.Errorf("%s is out of date (checked in -> generated now):\n  %s\n%s", WebFile, strings.Join(diffs, "\n  "),
			update)
	}
}

// Numbers are the same when they differ by at most 1% of the larger, or by 0.01 (confidence, similarity).
const (
	relTolerance = 0.01
	absTolerance = 0.01
)

// compare records where b differs from a: a missing or extra field, another type, text or length, or a number
// beyond the tolerance.
func compare(path string, a, b any, diffs *[]string) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: an object, now %s", path, kind(b)))
			return
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			va, ina := x[k]
			vb, inb := y[k]
			switch {
			case !ina:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: new field", path, k))
			case !inb:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: field gone", path, k))
			default:
				compare(path+"."+k, va, vb, diffs)
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s, now %s", path, kind(a), kind(b)))
			return
		}
		for i := range x {
			compare(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], diffs)
		}
	case float64:
		y, ok := b.(float64)
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s, now %s", path, show(x), kind(b)))
			return
		}
		if d := math.Abs(x - y); d > absTolerance && d > relTolerance*math.Max(math.Abs(x), math.Abs(y)) {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s, now %s", path, show(x), show(y)))
		}
	default: // strings, booleans, null
		if a != b {
			*diffs = append(*diffs, fmt.Sprintf("%s: %s, now %s", path, show(a), show(b)))
		}
	}
}

func kind(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return fmt.Sprintf("a list of %d", len(x))
	default:
		return show(v)
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAddressesDoNotDependOnTheDay: the development server generates its demo market ending on the day it first
// starts, and the example was generated on MarketDay; the homes at their addresses must be the same either way, or
// an example address could be missing from a user's demo market. Checked on the tests' day and on days across a
// month's end, a year's end and a leap day.
func TestAddressesDoNotDependOnTheDay(t *testing.T) {
	a := demo.GenerateN(MarketSeed, MarketDay, MarketHomes)
	for _, day := range []time.Time{testclock.Now(), time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 30, 0, 0, time.UTC), time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC)} {
		b := demo.GenerateN(MarketSeed, day, MarketHomes)
		if len(a.Homes) != len(b.Homes) {
			t.Fatalf("%d homes on %s, %d on %s", len(a.Homes), MarketDay.Format(time.DateOnly), len(b.Homes), day.Format(time.DateOnly))
		}
		for i := range a.Homes {
			ha, hb := a.Homes[i], b.Homes[i]
			if ha.StreetKey != hb.StreetKey || ha.UnitKey != hb.UnitKey || ha.ZIP != hb.ZIP {
				t.Fatalf("home %d is %s %s %s on %s but %s %s %s on %s", i, ha.Street, ha.Unit, ha.ZIP,
					MarketDay.Format(time.DateOnly), hb.Street, hb.Unit, hb.ZIP, day.Format(time.DateOnly))
			}
		}
	}
}

// notDemoHomes are the addresses in the product that are deliberately not homes of the demo market, each with
// the reason. Everything else that looks like a US street address must be a demo home.
var notDemoHomes = map[string]string{
	"535 Mission Street":    "the company's office (components/company-info.ts), not a property example",
	"250 Park Avenue South": "the company's office (components/company-info.ts), not a property example",
	"1 Nowhere Ln":          "README's example of a home not on record, valued only from the facts given",
}

// streetAddress finds "<number> <name> <suffix> [<directional>]" street lines: "5873 River Dr N", "7006 MAPLE RD".
// The name's words begin with a capital or a digit, so prose ("5 minutes the way") does not match.
var streetAddress = regexp.MustCompile(`\b\d{1,6}[A-Za-z]?(?:[ \t]+(?:N|S|E|W|NE|NW|SE|SW)\.?)?` +
	`(?:[ \t]+[A-Z0-9][A-Za-z0-9']*){1,4}?[ \t]+` +
	`(?:St|ST|Street|STREET|Ave|AVE|Avenue|AVENUE|Rd|RD|Road|ROAD|Dr|DR|Drive|DRIVE|Ln|LN|Lane|LANE|Blvd|BLVD|` +
	`Boulevard|Way|WAY|Ct|CT|Court|Pl|PL|Place|Pkwy|PKWY|Parkway|Ter|TER|Terrace|Cir|CIR|Circle|Trl|TRL|Trail|` +
	`Hwy|HWY|Highway|Loop|LOOP|Sq|SQ|Square|Plz|Plaza|Pike|Row)\b\.?` +
	`(?:[ \t]+(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\b)?`)

// zipAfter finds the ZIP code that follows a street line on the same line: "…, Seattle, WA 98103",
// "…,Seattle,WA,98103" (CSV) or "…&zip=98103" (a query string).
var zipAfter = regexp.MustCompile(`^[^"'\x60<>()\n]{0,60}?(?:\b[A-Z]{2}[ \t]*,?[ \t]*|zip=)(\d{5})\b`)

// foundAddress is one address in a source file.
type foundAddress struct {
	where  string // file:line
	street string
	zip    string // empty when none follows
}

// scanAddresses finds the street addresses in a text.
func scanAddresses(name, text string) []foundAddress {
	var out []foundAddress
	for i, line := range strings.Split(text, "\n") {
		line = strings.ReplaceAll(line, "%20", " ") // URL-encoded query strings
		for _, m := range streetAddress.FindAllStringIndex(line, -1) {
			a := foundAddress{where: fmt.Sprintf("%s:%d", name, i+1), street: line[m[0]:m[1]]}
			if z := zipAfter.FindStringSubmatch(line[m[1]:]); z != nil {
				a.zip = z[1]
			}
			out = append(out, a)
		}
	}
	return out
}

// productSources are the files whose examples users see: the web app's sources (not its tests, test fixtures or
// generated types), the README, the SDKs' READMEs, the documentation and the API contract.
func productSources(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", OpenAPIFile, "web/index.html", "sdk/typescript/README.md", "sdk/go/README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, rel)
	}
	err = filepath.WalkDir(filepath.Join(root, "web", "src"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		switch {
		case d.IsDir() && (name == "test" || name == "node_modules"):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case !strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".tsx"),
			strings.Contains(name, ".test."), strings.HasPrefix(name, "test-fixtures"),
			rel == "web/src/lib/api-types.ts": // generated from api/openapi.yaml, which is scanned
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// demoStreets maps a demo home's street key to its ZIP codes.
func demoStreets() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, h := range demo.GenerateN(MarketSeed, MarketDay, MarketHomes).Homes {
		if out[h.StreetKey] == nil {
			out[h.StreetKey] = map[string]bool{}
		}
		out[h.StreetKey][h.ZIP] = true
	}
	return out
}

// checkDemoHome fails the test unless the street (with the ZIP code, when given) is a home of the demo market.
func checkDemoHome(t *testing.T, streets map[string]map[string]bool, where, street, zip string) {
	t.Helper()
	a, err := address.Parse(street)
	if err != nil || a.StreetKey() == "" {
		t.Errorf("%s: %q looks like an address but does not parse as one (%v); allow-list it in notDemoHomes "+
			"with the reason if it is not an address", where, street, err)
		return
	}
	zips := streets[a.StreetKey()]
	switch {
	case len(zips) == 0:
		t.Errorf("%s: %q is not a home of the demo market (seed %d, %d homes); use a demo home such as %q, or "+
			"allow-list it in notDemoHomes with the reason", where, street, MarketSeed, MarketHomes, Home.Line())
	case zip != "" && !zips[zip]:
		t.Errorf("%s: %q is a demo home only in ZIP %v, not %s", where, street, keys(zips), zip)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestExampleAddressesAreDemoHomes: a user who copies an example address from the product (a placeholder, a
// sample, the docs) gets an answer from the demo market's record of it, not a ZIP-level guess.
func TestExampleAddressesAreDemoHomes(t *testing.T) {
	streets := demoStreets()
	checkDemoHome(t, streets, "examples.Home", Home.Address, Home.ZIP)

	seen, allowed := 0, map[string]bool{}
	for _, name := range productSources(t) {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range scanAddresses(name, string(b)) {
			if reason, ok := notDemoHomes[a.street]; ok && reason != "" {
				allowed[a.street] = true
				continue
			}
			seen++
			t.Logf("%s: %s %s", a.where, a.street, a.zip)
			checkDemoHome(t, streets, a.where, a.street, a.zip)
		}
	}
	for street := range notDemoHomes {
		if !allowed[street] {
			t.Errorf("notDemoHomes allows %q, which is no longer in the product: remove it", street)
		}
	}
	if seen < 5 {
		t.Errorf("found only %d example addresses in the product's sources; is the scan still looking?", seen)
	}

	// The sample file the Batch Upload screen offers, made in Go.
	rows, err := csv.NewReader(bytes.NewReader(batch.ExampleCSV())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows[1:] {
		where := fmt.Sprintf("batch.ExampleCSV row %d", i+2)
		var a address.Address
		if row[0] != "" {
			a, err = address.Parse(row[0])
		} else {
			a, err = address.FromParts(row[1], row[2], row[3], row[4])
		}
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		checkDemoHome(t, streets, where, a.Street(), a.ZIP)
	}
}

// TestScanAddresses shows what the scan finds, and what it must not.
func TestScanAddresses(t *testing.T) {
	for _, tc := range []struct {
		text, street, zip string
	}{
		{`placeholder="5873 River Dr N"`, "5873 River Dr N", ""},
		{"Try `7006 Maple Rd, Seattle, WA 98103`.", "7006 Maple Rd", "98103"},
		{"2114 Bigelow Ave N,Seattle,WA,98109", "2114 Bigelow Ave N", "98109"},
		{"valuation?address=2114%20Bigelow%20Ave%20N&city=Seattle&state=WA&zip=98109", "2114 Bigelow Ave N", "98109"},
		{`"address": "7024 MAPLE RD APT 1A",`, "7024 MAPLE RD", ""},
		{"e.g. 4154 NW Pecan St.", "4154 NW Pecan St.", ""},
		{"1679 15th Ave Apt 1A, Austin, TX 78701", "1679 15th Ave", "78701"},
		{"Batch files are deleted within 24 hours, the way we said.", "", ""},
		{"Free 100, Basic 1,000 Way", "", ""},
	} {
		got := scanAddresses("t", tc.text)
		switch {
		case tc.street == "" && len(got) != 0:
			t.Errorf("scan(%q) = %+v, want nothing", tc.text, got)
		case tc.street != "" && (len(got) != 1 || got[0].street != tc.street || got[0].zip != tc.zip):
			t.Errorf("scan(%q) = %+v, want %q %q", tc.text, got, tc.street, tc.zip)
		}
	}
}
