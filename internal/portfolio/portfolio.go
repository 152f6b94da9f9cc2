// Package portfolio is an account's named lists of homes (issue 40): each home is valued when it is added (1 credit,
// as a lookup) and revalued once a month by a periodic job (1 credit a home, never twice in a month however many
// instances run it), with an alert (an email and a signed webhook) when a home's value moves past the portfolio's
// threshold. This file holds the types and the pure rules; service.go joins them to the store and the engine.
package portfolio

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/credit"
	"valuator/internal/text"
)

// Statuses of a portfolio. A paused portfolio is not revalued: its account could not pay for a month's revaluation.
const (
	StatusActive = "active"
	StatusPaused = "paused"
)

// HomeCost is what valuing a home costs, when it is added and each month: a property valuation's price.
const HomeCost = credit.ValuationCost

// MaxPerAccount bounds an account's portfolios (an abuse limit, as API keys have one); each portfolio's homes are
// bounded by the plan's batch size (MaxHomes).
const MaxPerAccount = 100

// maxNameLen is a portfolio name's length in characters, as an API key's.
const maxNameLen = 100

// MaxHomes is the most homes a portfolio of an account on plan may hold: the plan's batch size (billing.Plan.BatchRows),
// the one figure that bounds how many properties an account values at once.
func MaxHomes(plan string) int { return billing.Get(plan).BatchRows }

// ErrNotFound is a portfolio (or home) that does not exist or is another account's: the same 404 for both, so that
// ids of other accounts' portfolios cannot be probed.
var ErrNotFound = apperr.NotFound("portfolio_not_found", "Portfolio not found")

// ErrTooMany is the account's portfolio count at MaxPerAccount.
var ErrTooMany = apperr.Conflict("too_many_portfolios", "",
	fmt.Sprintf("An account may have up to %d portfolios; delete one to create another", MaxPerAccount))

// HomeInput is a home as a caller gives it: the lookup's fields (api/openapi.yaml PropertyLookupRequest), kept with
// the home so that each month values the same home from the same facts.
type HomeInput struct {
	Address      string   `json:"address"`
	City         string   `json:"city,omitempty"`
	State        string   `json:"state,omitempty"`
	ZIP          string   `json:"zip,omitempty"`
	Bedrooms     *float64 `json:"bedrooms,omitempty"`
	Bathrooms    *float64 `json:"bathrooms,omitempty"`
	SquareFeet   *float64 `json:"squareFeet,omitempty"`
	YearBuilt    *float64 `json:"yearBuilt,omitempty"`
	LotSize      *float64 `json:"lotSize,omitempty"`
	PropertyType *string  `json:"propertyType,omitempty"`
}

// Appraisal is the engine's answer for a home: its address as the lookup normalised it and the value.
type Appraisal struct {
	FormattedAddress string
	Address          string
	Unit             string
	City, State, ZIP string
	Value, Low, High int64
	Confidence, FSD  float64
}

// Portfolio is one portfolio as stored.
type Portfolio struct {
	ID             int64
	UserID         int64
	Name           string
	AlertThreshold *float64 // percent; nil: no alerts
	WebhookURL     string
	WebhookSecret  string
	Status         string
	PausedReason   string
	PausedAt       *time.Time
	CreatedAt      time.Time
	HomeCount      int
}

// Home is a home of a portfolio.
type Home struct {
	ID               int64
	PortfolioID      int64
	Input            HomeInput
	FormattedAddress string
	Address          string
	Unit             string
	City, State, ZIP string
	AddedAt          time.Time
}

// Valuation is a home's value in a month.
type Valuation struct {
	HomeID           int64
	Month            string // "2026-03"
	Value, Low, High int64
	Confidence, FSD  float64
	CreatedAt        time.Time
}

// Month is the business month of t ("2026-03"): the clock's, never the wall clock's.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// prevMonth is the month before m.
func prevMonth(m string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return ""
	}
	return t.AddDate(0, -1, 0).Format("2006-01")
}

// Settings are what a caller chooses of a portfolio.
type Settings struct {
	Name           string
	AlertThreshold *float64
	WebhookURL     string
}

// Validate checks a portfolio's settings, naming each bad field: a name as an API key's (text.NameProblem), a
// threshold from 0.1% to 100%.
func (s *Settings) Validate() error {
	var v apperr.Validation
	s.Name = strings.TrimSpace(s.Name)
	v.Check(s.Name != "", "name", "Portfolio name is required")
	v.Check(utf8.RuneCountInString(s.Name) <= maxNameLen, "name", fmt.Sprintf("Portfolio name must be at most %d characters", maxNameLen))
	if p := text.NameProblem(s.Name); p != "" {
		v.Add("name", "Portfolio name "+p)
	}
	if t := s.AlertThreshold; t != nil {
		v.Check(!math.IsNaN(*t) && *t >= 0.1 && *t <= 100, "alertThreshold", "alertThreshold must be a percentage from 0.1 to 100")
	}
	s.WebhookURL = strings.TrimSpace(s.WebhookURL)
	return v.Err()
}

// checkInput checks what a home needs before the engine sees it; the engine's own checks (a ZIP in another
// state, facts outside the records) are reported per home with its codes. field is the home's place in the
// request ("properties[2]").
func checkInput(in HomeInput, field string) error {
	var v apperr.Validation
	v.Check(strings.TrimSpace(in.Address) != "", field+".address", "Address is required")
	for _, f := range [][2]string{{"address", in.Address}, {"city", in.City}, {"state", in.State}, {"zip", in.ZIP}} {
		if p := text.NameProblem(f[1]); p != "" {
			v.Add(field+"."+f[0], f[0]+" "+p)
		}
	}
	return v.Err()
}

// HomeView is a home with what its valuations say.
type HomeView struct {
	Home
	Latest *Valuation
	// ChangeSinceLastMonth is the latest value less the previous month's (nil without one); ChangeSinceAdded the
	// latest less the first (the value when the home was added).
	ChangeSinceLastMonth *Change
	ChangeSinceAdded     *Change
}

// Change is a move in dollars and as a percentage of the earlier value (two decimals).
type Change struct {
	Amount  int64
	Percent float64
}

func change(from, to int64) *Change {
	c := &Change{Amount: to - from}
	if from != 0 {
		c.Percent = math.Round(float64(to-from)/float64(from)*10000) / 100
	}
	return c
}

// Totals are the portfolio's sums over its valued homes.
type Totals struct {
	Value                int64
	Low, High            int64
	ChangeSinceLastMonth int64
	ChangeSinceAdded     int64
	ValuedHomes          int
}

// MonthValue is the portfolio's value at the end of a month: each home's latest value up to that month.
type MonthValue struct {
	Month string
	Value int64
	Homes int
}

// Summarise computes each home's view, the totals and the value month by month from the portfolio's creation to
// month (the current business month). A home without a valuation in a month counts with its latest one before it
// (a paused month carries the last value); a home not yet valued does not count.
func Summarise(created time.Time, month string, homes []Home, vals []Valuation) ([]HomeView, Totals, []MonthValue) {
	byHome := map[int64][]Valuation{}
	for _, v := range vals {
		byHome[v.HomeID] = append(byHome[v.HomeID], v)
	}
	views := make([]HomeView, len(homes))
	var t Totals
	for i, h := range homes {
		hv := byHome[h.ID]
		sort.Slice(hv, func(a, b int) bool { return hv[a].Month < hv[b].Month })
		views[i].Home = h
		if len(hv) == 0 {
			continue
		}
		latest := hv[len(hv)-1]
		views[i].Latest = &latest
		views[i].ChangeSinceAdded = change(hv[0].Value, latest.Value)
		if len(hv) > 1 && hv[len(hv)-2].Month == prevMonth(latest.Month) {
			views[i].ChangeSinceLastMonth = change(hv[len(hv)-2].Value, latest.Value)
			t.ChangeSinceLastMonth += views[i].ChangeSinceLastMonth.Amount
		}
		t.Value += latest.Value
		t.Low += latest.Low
		t.High += latest.High
		t.ChangeSinceAdded += views[i].ChangeSinceAdded.Amount
		t.ValuedHomes++
	}
	var series []MonthValue
	for m := Month(created); m <= month && m != ""; m = nextMonth(m) {
		mv := MonthValue{Month: m}
		for _, h := range homes {
			hv := byHome[h.ID]
			// hv is sorted: the last valuation at or before m.
			j := sort.Search(len(hv), func(k int) bool { return hv[k].Month > m })
			if j > 0 {
				mv.Value += hv[j-1].Value
				mv.Homes++
			}
		}
		series = append(series, mv)
	}
	return views, t, series
}

func nextMonth(m string) string {
	t, err := time.Parse("2006-01", m)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 1, 0).Format("2006-01")
}

// Move is a home whose value moved past the threshold from one month to the next.
type Move struct {
	HomeID           int64   `json:"homeId"`
	FormattedAddress string  `json:"formattedAddress"`
	PreviousMonth    string  `json:"previousMonth"`
	PreviousValue    int64   `json:"previousValue"`
	Value            int64   `json:"value"`
	ChangePercent    float64 `json:"changePercent"`
}

// Alert is a portfolio's alert of a month: the homes that moved by more than the threshold.
type Alert struct {
	ID            int64     `json:"-"`
	PortfolioID   int64     `json:"portfolioId"`
	PortfolioName string    `json:"portfolioName"`
	Month         string    `json:"month"`
	Threshold     float64   `json:"threshold"`
	Homes         []Move    `json:"homes"`
	CreatedAt     time.Time `json:"createdAt"`
}

// Moves are the homes whose value of month moved by more than threshold percent from their previous valuation (the
// latest before month). A home first valued in month has nothing to move from.
func Moves(homes []Home, vals []Valuation, month string, threshold float64) []Move {
	addr := map[int64]string{}
	for _, h := range homes {
		addr[h.ID] = h.FormattedAddress
	}
	cur := map[int64]Valuation{}
	prev := map[int64]Valuation{}
	for _, v := range vals {
		switch {
		case v.Month == month:
			cur[v.HomeID] = v
		case v.Month < month && v.Month > prev[v.HomeID].Month:
			prev[v.HomeID] = v
		}
	}
	var out []Move
	for _, h := range homes {
		c, ok := cur[h.ID]
		p, okp := prev[h.ID]
		if !ok || !okp || p.Value == 0 {
			continue
		}
		ch := change(p.Value, c.Value)
		if math.Abs(float64(c.Value-p.Value))/float64(p.Value)*100 > threshold {
			out = append(out, Move{HomeID: h.ID, FormattedAddress: addr[h.ID], PreviousMonth: p.Month,
				PreviousValue: p.Value, Value: c.Value, ChangePercent: ch.Percent})
		}
	}
	return out
}

// errPerHome tells the engine's answers about one home (not found, not covered, bad address, too uncertain), which
// are reported on that home and cost nothing, from failures of the whole request (the engine loading, our fault).
func errPerHome(err error) (*apperr.Error, bool) {
	e, ok := apperr.As(err)
	if !ok {
		return nil, false
	}
	switch e.Kind {
	case apperr.KindInvalid, apperr.KindNotFound, apperr.KindUnprocessable:
		return e, true
	}
	return nil, false
}

// ErrHomeNotFound is a home id that is not one of the portfolio's.
var ErrHomeNotFound = apperr.NotFound("home_not_found", "Home not found in this portfolio")

// ErrDuplicate is a home added to the portfolio by another request while this one was valuing it.
func ErrDuplicate(addr string) error {
	return apperr.Conflict("duplicate_property", "properties", addr+" is already in the portfolio")
}
