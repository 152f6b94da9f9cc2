// Package example defines the example valuation the product shows: which home it values, how the answer is cut to
// an example's size and the shape it is shown in. Two things make one from a real answer: `make examples`
// (internal/examples) values the home on a demo market of a fixed day and writes the checked-in file, and every
// server answers GET /api/example live, valuing the home on its own market at its own clock, so the example a page
// shows is what a lookup of that address returns on that server that day. It imports nothing that serves HTTP, so
// both the generator (which drives the real handler) and the handler use it.
package example

import (
	"bytes"
	"encoding/json"
	"net/url"
	"time"

	"valuator/internal/demo"
	"valuator/internal/valuation"
)

// The demo market of the generated example: the one `valuator serve` seeds in development (seed 1, demo.DefaultHomes
// homes), generated as of a fixed day so that the example is reproducible. The homes and their addresses do not
// depend on the day, so the example home is in every day's demo market; its value moves with the market's price
// index, as any valuation does, which is why a running server shows its own answer (GET /api/example).
const (
	MarketSeed  = 1
	MarketHomes = demo.DefaultHomes
)

// MarketDay is the last day of the generated example market's history.
var MarketDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// Request is the address the example values, split as the public API's query parameters.
type Request struct {
	Address string `json:"address"`
	City    string `json:"city"`
	State   string `json:"state"`
	ZIP     string `json:"zip"`
}

// Home is the example home: a single-family house of the demo market in Seattle's 98103 with two recorded sales, so
// the answer is an exact match with a price history, comparables from its street and a rent estimate. (7006 Maple
// Rd, the home the end-to-end tests use, was passed over: two of its own past sales are its closest comparables,
// which makes a confusing showcase.)
var Home = Request{Address: "5873 River Dr N", City: "Seattle", State: "WA", ZIP: "98103"}

// Line is the address on one line, as a person writes it: "5873 River Dr N, Seattle, WA 98103".
func (r Request) Line() string { return r.Address + ", " + r.City + ", " + r.State + " " + r.ZIP }

// Query is the public API's query string for the address.
func (r Request) Query() url.Values {
	return url.Values{"address": {r.Address}, "city": {r.City}, "state": {r.State}, "zip": {r.ZIP}}
}

// Path is the public API request that values the address.
func (r Request) Path() string { return "/api/v1/property/valuation?" + r.Query().Encode() }

// Input is the lookup the public endpoint makes for that request (the same fields, nothing else given).
func (r Request) Input() valuation.Input {
	return valuation.Input{Address: r.Address, City: r.City, State: r.State, ZIP: r.ZIP}
}

// MaxComparables is how many comparable sales the example keeps. The engine returns more; the example is shown
// on the landing page, so only the first (most similar) few are kept. This is the one cut made to the answer's
// content (Trim), and the example says so in its "comparables" field.
const MaxComparables = 3

// File is the example as the screens read it: the checked-in web/src/generated/example-valuation.json, and the
// answer of GET /api/example (api/openapi.yaml ExampleValuation), which has no comment and names only the day of
// its market.
type File struct {
	Comment string `json:"$comment,omitempty"`
	// Market names the market the answer comes from.
	Market MarketInfo `json:"market"`
	// Request is the address valued, and Path the request as sent (GET with query parameters).
	Request Request `json:"request"`
	Path    string  `json:"path"`
	// Comparables says how many comparable sales the engine returned and how many the example keeps (the one
	// cut made to the answer).
	Comparables Comparables `json:"comparables"`
	// Response is the body of the answer: {"data": PropertyValuation}.
	Response Response `json:"response"`
}

// Comparables counts the comparable sales of the answer.
type Comparables struct {
	Returned int `json:"returned"`
	Kept     int `json:"kept"`
}

// MarketInfo describes the market of the example: for the generated one, the demo market's seed, size and last
// day; for a live one, the day of the latest sale the server's engine learned from (the seed and size of a
// server's market are not recorded, so they are left out).
type MarketInfo struct {
	Seed  uint64 `json:"seed,omitempty"`
	Homes int    `json:"homes,omitempty"`
	Day   string `json:"day"`
}

// Response is the public endpoint's answer. Data is the real valuation.Result, so the example has whatever shape
// the API has: a field added to or renamed in the result appears here on the next `make examples`.
type Response struct {
	Data *valuation.Result `json:"data"`
}

// Trim cuts a valuation of Home to the example's size, keeping the first MaxComparables comparables, and says how
// many there were and are. It reslices and never writes into the comparables, so a result that shares them with
// the valuation cache leaves the cached one whole.
func Trim(res *valuation.Result) Comparables {
	c := Comparables{Returned: len(res.MarketData.Comparables)}
	res.MarketData.Comparables = res.MarketData.Comparables[:min(MaxComparables, c.Returned)]
	c.Kept = len(res.MarketData.Comparables)
	return c
}

// Live makes the example from a server's own valuation of Home (a lookup as of its clock): trimmed as the
// generated example is, and dated by the latest sale its engine learned from (the day valuation.lastUpdated
// names). The caller fills the answer's meta.
func Live(res *valuation.Result) *File {
	comps := Trim(res)
	day := res.Valuation.ValuationDate
	if t, err := time.Parse(time.RFC3339, res.Valuation.LastUpdated); err == nil {
		day = t.UTC().Format("2006-01-02")
	}
	return &File{Market: MarketInfo{Day: day}, Request: Home, Path: Home.Path(), Comparables: comps,
		Response: Response{Data: res}}
}

// JSON is the file as checked in: indented, with a final newline.
func (f *File) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
