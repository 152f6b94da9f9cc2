package geo

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// ZIP is one US ZIP code (including Puerto Rico and the other territories USPS serves) with the
// centroid of its area and its primary city and county.
type ZIP struct {
	Code string // five digits, leading zeros kept: "02134"
	// Lat and Lon are the centroid in degrees, from GeoNames where it has the ZIP. Most carry four
	// decimals (about 30 feet); about 1,900 carry two or fewer (half a mile), 420 of them one or none
	// (a few miles).
	Lat, Lon float64
	City     string // the USPS primary city, title case: "Saint Louis", "Mc Lean"
	State    string // USPS two-letter code: "MO", "PR"
	// County is the Census name of the ZIP's primary county ("St. Louis city", "King County",
	// "San Juan Municipio") and CountyFIPS its five-digit code. A ZIP that spans counties is given the
	// one chosen by the generator (see gen/README.md). Both are empty for the 27 ZIPs it could place
	// in no county: 8 in the freely associated states (Palau, Micronesia, Marshall Islands), which have
	// none, and 19 remote ones in Alaska and Maine that the county crosswalk misses.
	County     string
	CountyFIPS string
}

// zips.csv.gz is written by gen/generate.mjs from pinned npm packages; see gen/README.md.
//
//go:embed zips.csv.gz
var zipsCSVGz []byte

const zipsHeader = "zip,lat,lon,city,state,county_fips,county"

// zipTable is the decoded ZIP data with the lookups built over it. Nothing in it changes after its
// sync.Once has run, so any number of goroutines may read it.
type zipTable struct {
	zips []ZIP // sorted by Code
	// byCode maps the numeric ZIP to its index in zips plus one (0 = no such ZIP). A flat array of
	// 100,000 entries (400 KB) answers LookupZIP without hashing or comparing strings.
	byCode []int32

	// The city and county indexes are built on first use: most callers only look up ZIPs, and the
	// indexes cost as much again as decoding.
	cityOnce   sync.Once
	byCity     map[string][]int32 // cityKey(City)+"|"+State -> indexes, ascending
	countyOnce sync.Once
	byCounty   map[string][]int32 // CountyFIPS -> indexes, ascending
}

var (
	zipTableOnce sync.Once
	zipTableData *zipTable
)

// zipData decodes the embedded table on first use, so that programs that never look up a ZIP pay
// nothing. The data is generated and checked by the tests, so a decoding failure is a broken build, not
// a runtime condition to handle.
func zipData() *zipTable {
	zipTableOnce.Do(func() {
		t, err := decodeZIPs(zipsCSVGz)
		if err != nil {
			panic("geo: embedded zips.csv.gz: " + err.Error())
		}
		zipTableData = t
	})
	return zipTableData
}

// decodeZIPs parses the generated file. All string fields are substrings of one decompressed string,
// so the whole table costs one allocation for the text, one for the ZIPs and one for byCode.
func decodeZIPs(gz []byte) (*zipTable, error) {
	if len(gz) < 18 {
		return nil, fmt.Errorf("too short for gzip")
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	// The gzip trailer records the uncompressed size, which lets the buffer be sized once; the cap
	// only guards against a corrupt trailer.
	var text strings.Builder
	text.Grow(min(int(binary.LittleEndian.Uint32(gz[len(gz)-4:])), 64<<20))
	if _, err := io.Copy(&text, r); err != nil {
		return nil, err
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	s := text.String()

	header, rest, _ := strings.Cut(s, "\n")
	if header != zipsHeader {
		return nil, fmt.Errorf("header %q, want %q", header, zipsHeader)
	}
	t := &zipTable{
		zips:   make([]ZIP, 0, strings.Count(rest, "\n")),
		byCode: make([]int32, 100000),
	}
	for lineNo := 2; rest != ""; lineNo++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		z, err := parseZIPLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		i := int32(len(t.zips))
		if i > 0 && z.Code <= t.zips[i-1].Code {
			return nil, fmt.Errorf("line %d: ZIP %s is out of order", lineNo, z.Code)
		}
		n, _ := strconv.Atoi(z.Code) // parseZIPLine checked the five digits
		t.byCode[n] = i + 1
		t.zips = append(t.zips, z)
	}
	return t, nil
}

func (t *zipTable) cityIndex() map[string][]int32 {
	t.cityOnce.Do(func() {
		// Neighbouring ZIPs mostly share a city (10001 to 10282 are all New York), so the key of the
		// previous row is reused rather than rebuilt.
		keys := make([]string, len(t.zips))
		var prevCity, prevState, key string
		for i, z := range t.zips {
			if z.City != prevCity || z.State != prevState {
				prevCity, prevState = z.City, z.State
				key = cityKey(z.City) + "|" + z.State
			}
			keys[i] = key
		}
		t.byCity = groupIndexes(keys)
	})
	return t.byCity
}

func (t *zipTable) countyIndex() map[string][]int32 {
	t.countyOnce.Do(func() {
		keys := make([]string, len(t.zips))
		for i, z := range t.zips {
			keys[i] = z.CountyFIPS
		}
		t.byCounty = groupIndexes(keys)
		delete(t.byCounty, "")
	})
	return t.byCounty
}

// groupIndexes maps each distinct key to the ascending indexes where it occurs. Keys come in runs
// (ZIPs in code order share cities and counties), so the map is consulted once per run, and all the
// lists share one backing array instead of growing tens of thousands of small slices.
func groupIndexes(keys []string) map[string][]int32 {
	groupOf := make(map[string]int32, len(keys)/2)
	group := make([]int32, len(keys))
	var names []string
	var counts []int32
	g := int32(-1)
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			var ok bool
			if g, ok = groupOf[k]; !ok {
				g = int32(len(names))
				groupOf[k] = g
				names = append(names, k)
				counts = append(counts, 0)
			}
		}
		group[i] = g
		counts[g]++
	}
	// Lay the groups out one after another, then fill each in index order.
	next := make([]int32, len(names))
	for j := 1; j < len(names); j++ {
		next[j] = next[j-1] + counts[j-1]
	}
	backing := make([]int32, len(keys))
	out := make(map[string][]int32, len(names))
	for j, name := range names {
		out[name] = backing[next[j] : next[j]+counts[j] : next[j]+counts[j]]
	}
	for i, g := range group {
		backing[next[g]] = int32(i)
		next[g]++
	}
	return out
}

func parseZIPLine(line string) (ZIP, error) {
	var f [7]string
	rest := line
	for i := range f {
		var ok bool
		f[i], rest, ok = strings.Cut(rest, ",")
		if ok != (i < len(f)-1) {
			return ZIP{}, fmt.Errorf("want %d comma-separated fields in %q", len(f), line)
		}
	}
	if !isDigits(f[0], 5) {
		return ZIP{}, fmt.Errorf("bad ZIP %q", f[0])
	}
	lat, err := strconv.ParseFloat(f[1], 64)
	if err != nil || lat < -90 || lat > 90 {
		return ZIP{}, fmt.Errorf("ZIP %s: bad latitude %q", f[0], f[1])
	}
	lon, err := strconv.ParseFloat(f[2], 64)
	if err != nil || lon < -180 || lon > 180 {
		return ZIP{}, fmt.Errorf("ZIP %s: bad longitude %q", f[0], f[2])
	}
	if f[5] != "" && !isDigits(f[5], 5) {
		return ZIP{}, fmt.Errorf("ZIP %s: bad county FIPS %q", f[0], f[5])
	}
	return ZIP{Code: f[0], Lat: lat, Lon: lon, City: f[3], State: f[4], CountyFIPS: f[5], County: f[6]}, nil
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// LookupZIP returns the ZIP with the given code. It accepts the five digits, surrounding spaces and
// the ZIP+4 forms "02134-1234" and "021341234". It does not restore leading zeros that a spreadsheet
// dropped ("2134"): guessing belongs to address normalization, which knows where the value came from.
func LookupZIP(code string) (ZIP, bool) {
	code = strings.TrimSpace(code)
	switch {
	case len(code) == 10 && code[5] == '-' && isDigits(code[6:], 4):
		code = code[:5]
	case len(code) == 9 && isDigits(code, 9):
		code = code[:5]
	}
	if !isDigits(code, 5) {
		return ZIP{}, false
	}
	n, _ := strconv.Atoi(code)
	t := zipData()
	if i := t.byCode[n]; i > 0 {
		return t.zips[i-1], true
	}
	return ZIP{}, false
}

// ZIPsInCity returns the ZIPs whose primary city is city in state (a two-letter code), sorted by
// code, or nil. The match ignores case, punctuation and spacing and treats the usual USPS
// abbreviations as the full word, so "SAINT LOUIS", "St. Louis" and "st louis" are one city, as are
// "McLean" and "Mc Lean", "Ft Myers" and "Fort Myers", "N Little Rock" and "North Little Rock".
// Only the primary city counts: a ZIP whose mail also goes to other place names is listed under its
// primary one.
func ZIPsInCity(city, state string) []ZIP {
	t := zipData()
	return t.collect(t.cityIndex()[cityKey(city)+"|"+strings.ToUpper(strings.TrimSpace(state))])
}

// ZIPsInCounty returns the ZIPs whose primary county has the five-digit FIPS code fips ("06067"),
// sorted by code, or nil. A ZIP that spans several counties is listed under its primary county only,
// so the counties partition the ZIPs.
func ZIPsInCounty(fips string) []ZIP {
	t := zipData()
	return t.collect(t.countyIndex()[strings.TrimSpace(fips)])
}

// AllZIPs returns every ZIP, sorted by code. The slice is a fresh copy (about 4 MB) that the caller
// may keep or change.
func AllZIPs() []ZIP {
	t := zipData()
	out := make([]ZIP, len(t.zips))
	copy(out, t.zips)
	return out
}

// collect copies the indexed ZIPs out, so that callers can never change the shared table.
func (t *zipTable) collect(idx []int32) []ZIP {
	if len(idx) == 0 {
		return nil
	}
	out := make([]ZIP, len(idx))
	for j, i := range idx {
		out[j] = t.zips[i]
	}
	return out
}
