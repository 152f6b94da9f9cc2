// Package usage is the record of calls that cost or could cost credits: what was asked, how it went, what it
// cost. The dashboard's history and statistics are read from it.
package usage

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/text"
)

// Services a call can belong to.
const (
	ServiceValuation    = "property_valuation"
	ServicePersonLookup = "person_lookup"
	ServiceBatch        = "batch"
	ServiceMarket       = "market_statistics"
)

// Record is one call, as stored.
type Record struct {
	UserID          int64
	APIKeyID        int64  // 0: a dashboard call
	APIKeyName      string // kept even after the key is deleted
	Endpoint        string // "GET /api/v1/property/valuation"
	Service         string
	PropertyAddress string
	Status          int
	ResponseTimeMs  int64
	CreditsUsed     int64
	Valuation       int64  // dollars; 0: none
	RequestData     string // JSON of the call's parameters
	RequestID       string // the server's id of the request
	// ClientRequestID is the X-Request-Id the caller sent, kept as their label only ("" for none).
	ClientRequestID string
	CreatedAt       time.Time
}

// Entry is a record as the history shows it (api/openapi.yaml UsageEntry).
type Entry struct {
	ID              int64     `json:"id"`
	CreatedAt       time.Time `json:"createdAt"`
	PropertyAddress *string   `json:"propertyAddress"`
	Valuation       *int64    `json:"valuation"`
	ResponseStatus  int       `json:"responseStatus"`
	ResponseTimeMs  int64     `json:"responseTimeMs"`
	APIKeyName      *string   `json:"apiKeyName"`
	Endpoint        string    `json:"endpoint"`
	Service         string    `json:"apiService"`
	CreditsUsed     int64     `json:"creditsUsed"`
	RequestData     any       `json:"requestData"`
	RequestID       string    `json:"requestId"`
	ClientRequestID *string   `json:"clientRequestId"`
}

// Filter selects history entries.
type Filter struct {
	Page, Limit int
	Search      string // text in the address
	APIKey      string // a key's name; "dashboard" for calls made in the dashboard
	Status      string // "success" (2xx) or "error"
}

// Limits of a history page.
const (
	DefaultLimit = 50
	MaxLimit     = 200
	// MaxPage bounds a page number, so that the offset it makes, (page-1)*limit, is far from overflowing in any
	// database (a page of 9223372036854775807 made PostgreSQL fail). No history comes near 200 million entries.
	MaxPage = 1_000_000
)

// ParseFilter reads the history query parameters, naming the first bad one.
func ParseFilter(get func(string) string) (Filter, error) {
	f := Filter{Page: 1, Limit: DefaultLimit, Search: strings.TrimSpace(get("search")),
		APIKey: strings.TrimSpace(get("apiKey")), Status: strings.TrimSpace(get("status"))}
	var v apperr.Validation
	if s := get("page"); s != "" {
		n, err := strconv.Atoi(s)
		v.Check(err == nil && n >= 1 && n <= MaxPage, "page", "page must be a whole number from 1 to 1000000")
		f.Page = min(max(1, n), MaxPage)
	}
	if s := get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		v.Check(err == nil && n >= 1 && n <= MaxLimit, "limit", "limit must be a whole number from 1 to 200")
		if err == nil && n >= 1 && n <= MaxLimit {
			f.Limit = n
		}
	}
	v.Check(f.Status == "" || f.Status == "success" || f.Status == "error", "status", "status must be success or error")
	v.Check(len(f.Search) <= 200, "search", "search must be at most 200 characters")
	v.Check(len(f.APIKey) <= 100, "apiKey", "apiKey must be at most 100 characters")
	if p := text.Problem(f.Search); p != "" {
		v.Add("search", "search "+p)
	}
	if p := text.Problem(f.APIKey); p != "" {
		v.Add("apiKey", "apiKey "+p)
	}
	return f, v.Err()
}

// Pagination describes one page (api/openapi.yaml Pagination).
type Pagination struct {
	Page            int  `json:"page"`
	Limit           int  `json:"limit"`
	Total           int  `json:"total"`
	TotalPages      int  `json:"totalPages"`
	HasPreviousPage bool `json:"hasPreviousPage"`
	HasNextPage     bool `json:"hasNextPage"`
}

// Paginate describes page of a result of total entries.
func Paginate(page, limit, total int) Pagination {
	pages := (total + limit - 1) / limit
	return Pagination{Page: page, Limit: limit, Total: total, TotalPages: pages, HasPreviousPage: page > 1,
		HasNextPage: page < pages}
}

// Stats are the usage statistics of a period (api/openapi.yaml UsageStats).
type Stats struct {
	Days               int        `json:"days"`
	TotalRequests      int64      `json:"totalRequests"`
	SuccessfulRequests int64      `json:"successfulRequests"`
	AvgResponseTime    float64    `json:"avgResponseTime"`
	RequestsByDay      []DayCount `json:"requestsByDay"`
	ResponseTimes      Buckets    `json:"responseTimes"`
	P50                int64      `json:"p50"`
	P95                int64      `json:"p95"`
	CreditsUsed        int64      `json:"creditsUsed"`
	ThisMonth          int64      `json:"thisMonth"`
	LastMonth          int64      `json:"lastMonth"`
	MonthOverMonth     *float64   `json:"monthOverMonthChange"`
}

// DayCount is one day's requests.
type DayCount struct {
	Date       string `json:"date"`
	Requests   int64  `json:"requests"`
	Successful int64  `json:"successful"`
}

// Buckets count requests by response time (spec constants: fast under 300 ms, normal 300-500, slow over 500).
type Buckets struct {
	Fast   int64 `json:"fast"`
	Normal int64 `json:"normal"`
	Slow   int64 `json:"slow"`
}

// Periods the statistics may cover.
var Periods = []int{7, 30, 90}

// ParseDays reads the days parameter (30 when absent).
func ParseDays(s string) (int, error) {
	if s == "" {
		return 30, nil
	}
	n, err := strconv.Atoi(s)
	if err == nil {
		for _, p := range Periods {
			if n == p {
				return n, nil
			}
		}
	}
	return 0, apperr.Invalid("days", "days must be 7, 30 or 90")
}

// Window is the period of the statistics: the last `days` UTC days, today included.
func Window(now time.Time, days int) (from, to time.Time) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return today.AddDate(0, 0, -(days - 1)), today.AddDate(0, 0, 1)
}

// FillDays lists every day of the window, in order, taking the counts of the days that had requests.
func FillDays(from time.Time, days int, counts map[string]DayCount) []DayCount {
	out := make([]DayCount, 0, days)
	for i := 0; i < days; i++ {
		d := from.AddDate(0, 0, i).Format("2006-01-02")
		c := counts[d]
		c.Date = d
		out = append(out, c)
	}
	return out
}

// TimeCount is how many requests took a given number of milliseconds (rounded to a histogram bucket).
type TimeCount struct {
	Ms    int64
	Count int64
}

// Percentile returns the response time at quantile q of a histogram.
func Percentile(hist []TimeCount, q float64) int64 {
	sort.Slice(hist, func(a, b int) bool { return hist[a].Ms < hist[b].Ms })
	var total int64
	for _, h := range hist {
		total += h.Count
	}
	if total == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(total)))
	var acc int64
	for _, h := range hist {
		acc += h.Count
		if acc >= rank {
			return h.Ms
		}
	}
	return hist[len(hist)-1].Ms
}

// Change is this month over last month, minus one; nil when last month had none.
func Change(this, last int64) *float64 {
	if last == 0 {
		return nil
	}
	c := float64(this)/float64(last) - 1
	c = math.Round(c*1000) / 1000
	return &c
}
