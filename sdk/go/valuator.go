// Package valuator is a Go client of Valuator's public API (/api/v1/*, /api/batch/*).
//
// The request and response types and the low-level client are generated from api/openapi.yaml by oapi-codegen
// into the api subpackage (`make sdk`; do not edit api/api.gen.go). This package wraps them: it sends the API
// key, retries a 429 after its Retry-After (capped, and never past the context's deadline), turns every error
// answer into an *APIError, and waits for batch jobs.
package valuator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"valuator.dev/sdk/go/api"
)

// Version is this module's version, the API version it was generated from (info.version of the server's contract).
const Version = "1.0.0"

// Options tunes a Client; the zero value (or nil) is fine.
type Options struct {
	// HTTPClient sends the requests; http.DefaultClient when nil.
	HTTPClient *http.Client
	// MaxRetries is how many times a 429 is retried after waiting its Retry-After. 0 means the default, 3;
	// a negative value turns retries off.
	MaxRetries int
	// MaxRetryDelay caps each wait before a retry; 0 means 30 seconds. A Retry-After longer than the cap is
	// waited for only up to the cap.
	MaxRetryDelay time.Duration
	// UserAgent is sent as User-Agent when set.
	UserAgent string
}

// Client calls the public API with one API key. It is safe for concurrent use.
type Client struct {
	api *api.ClientWithResponses
}

// APIError is an answer other than 2xx. Code is the server's stable snake_case code (invalid_input,
// property_not_found, area_not_covered, rate_limited, ...); RetryAfter is set for 429.
type APIError struct {
	StatusCode int
	Code       string
	Message    string
	RequestID  string
	Field      string
	Fields     map[string]string
	RetryAfter time.Duration
	// Balance is, for 402, what the account has left: plan credits, overage used and its cost, the overage limit
	// left and a state (empty, limit_reached, ...), the same figures the dashboard shows. Nil otherwise.
	Balance *api.Balance
	// RecordRange is, for a 422 outside_records, what the records of the home's area and type hold for the fact
	// refused (Field). Nil otherwise.
	RecordRange *RecordRange
	// RateLimit holds the x-ratelimit-* headers (-1 when missing).
	RateLimit RateLimit
	// Body is the answer as sent.
	Body []byte
}

// RateLimit is the x-ratelimit-* headers of an answer; -1 when a header is missing.
type RateLimit struct {
	Limit, Remaining, Reset int
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("valuator: %d %s: %s", e.StatusCode, e.Code, e.Message)
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return msg
}

// IsNotFound reports whether err is an *APIError with status 404.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsAreaNotCovered reports whether err is an *APIError with status 404 and code area_not_covered: the address lies
// outside the markets loaded in the installation called (farther than 25 miles from every sale it holds); the
// message names the place ("We have no sales near 33131"). It was not valued, and not charged.
func IsAreaNotCovered(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && e.Code == "area_not_covered"
}

// RecordRange is what the records of an area and type hold for one fact (a 422 outside_records).
type RecordRange struct {
	Field string  `json:"field"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Homes int     `json:"homes"`
	Area  string  `json:"area"` // a ZIP code, a 3-digit ZIP area such as "981xx", or "our records"
}

// IsTooUncertain reports whether err is an *APIError with status 422 and code valuation_too_uncertain: the home's
// 80% range would be more than three times wide, so it was not valued, and not charged.
func IsTooUncertain(err error) bool { return unprocessable(err, "valuation_too_uncertain") }

// IsOutsideRecords reports whether err is an *APIError with status 422 and code outside_records: a fact given for a
// home not on record lies far outside what the records of its area and type hold (APIError.Field names it and
// APIError.RecordRange gives the range), so it was not valued, and not charged.
func IsOutsideRecords(err error) bool { return unprocessable(err, "outside_records") }

func unprocessable(err error, code string) bool {
	var e *APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusUnprocessableEntity && e.Code == code
}

// IsPaymentRequired reports whether err is an *APIError with status 402: out of credits, or past the overage limit
// (APIError.Balance says which).
func IsPaymentRequired(err error) bool { return statusOf(err) == http.StatusPaymentRequired }

// IsRateLimited reports whether err is an *APIError with status 429.
func IsRateLimited(err error) bool { return statusOf(err) == http.StatusTooManyRequests }

func statusOf(err error) int {
	var e *APIError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// NewClient returns a client of the server at baseURL (its root, e.g. "https://valuator.example.com") that
// authenticates with apiKey. opts may be nil.
func NewClient(baseURL, apiKey string, opts *Options) (*Client, error) {
	if opts == nil {
		opts = &Options{}
	}
	if _, err := url.Parse(baseURL); err != nil || baseURL == "" {
		return nil, fmt.Errorf("valuator: bad base URL %q", baseURL)
	}
	if apiKey == "" {
		return nil, errors.New("valuator: an API key is required")
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	doer := &retryDoer{client: hc, maxRetries: opts.MaxRetries, maxDelay: opts.MaxRetryDelay}
	if doer.maxRetries == 0 {
		doer.maxRetries = 3
	}
	if doer.maxRetries < 0 {
		doer.maxRetries = 0
	}
	if doer.maxDelay <= 0 {
		doer.maxDelay = 30 * time.Second
	}
	ua := opts.UserAgent
	c, err := api.NewClientWithResponses(strings.TrimRight(baseURL, "/"), api.WithHTTPClient(doer),
		api.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("x-api-key", apiKey)
			if ua != "" {
				req.Header.Set("User-Agent", ua)
			}
			return nil
		}))
	if err != nil {
		return nil, err
	}
	return &Client{api: c}, nil
}

// API is the generated client underneath (with the key and the retries), for calls the helpers do not cover.
func (c *Client) API() *api.ClientWithResponses { return c.api }

// Valuate values a home (1 credit). A home not on record and without propertyType and squareFeet is a 404
// (property_not_found); an address outside the markets the server has loaded is a free 404 (IsAreaNotCovered);
// input that is not an address is a 400 naming the field; a home whose value is too
// uncertain to sell is a free 422 (IsTooUncertain). The answer's Confidence is 1 − Fsd; Warnings says when the
// home is valued as of an earlier date than today.
func (c *Client) Valuate(ctx context.Context, params api.PublicValuationParams) (*api.PropertyValuation, error) {
	r, err := c.api.PublicValuationWithResponse(ctx, &params)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return &r.JSON200.Data, nil
}

// Market is a ZIP code's market statistics (1 credit): sales and rents of the last 12 months, the distribution of
// the engine's values, the price index and monthly history; blocks with fewer than 5 records carry the reason they
// are omitted instead of figures. A ZIP code with no records is a free 404 (IsNotFound, code market_not_found); a
// ZIP code that is not 5 digits, or a bad HistoryMonths or PropertyType, is a free 400 naming the field.
func (c *Client) Market(ctx context.Context, params api.PublicMarketParams) (*api.Market, error) {
	r, err := c.api.PublicMarketWithResponse(ctx, &params)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return &r.JSON200.Data, nil
}

// CompareMarkets is the statistics of up to 5 ZIP codes side by side (1 credit per ZIP code with records; those
// without are listed in NotFound, free); a 404 when none has records.
func (c *Client) CompareMarkets(ctx context.Context, params api.PublicMarketComparisonParams) (*api.MarketComparison, error) {
	r, err := c.api.PublicMarketComparisonWithResponse(ctx, &params)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return &r.JSON200.Data, nil
}

// FindPerson looks a person up by name and address (5 credits on a hit); 404 when no one matches.
func (c *Client) FindPerson(ctx context.Context, params api.PublicPersonParams) (*api.PersonLookup, error) {
	r, err := c.api.PublicPersonWithResponse(ctx, &params)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return r.JSON200, nil
}

// UploadOptions are the optional fields of a batch upload.
type UploadOptions struct {
	// Mapping is JSON text of a column mapping (column name to fullAddress, address, street, city, state, zip
	// or ignore); the columns are detected when it is empty.
	Mapping string
	// WebhookURL gets a signed POST when the job finishes.
	WebhookURL string
	// IdempotencyKey makes a retried upload return the first job instead of creating a second one.
	IdempotencyKey string
}

// UploadBatch uploads a CSV, XLSX or XLS file (the server picks the parser by fileName's extension) and returns
// the queued job; WaitBatch waits for it. opts may be nil.
func (c *Client) UploadBatch(ctx context.Context, fileName string, file io.Reader, opts *UploadOptions) (*api.BatchStatus, error) {
	if opts == nil {
		opts = &UploadOptions{}
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", fileName)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(fw, file); err != nil {
		return nil, fmt.Errorf("valuator: reading %s: %w", fileName, err)
	}
	for name, v := range map[string]string{"mapping": opts.Mapping, "webhookUrl": opts.WebhookURL} {
		if v != "" {
			if err := mw.WriteField(name, v); err != nil {
				return nil, err
			}
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var params api.PublicBatchUploadParams
	if opts.IdempotencyKey != "" {
		params.IdempotencyKey = &opts.IdempotencyKey
	}
	// A *bytes.Reader lets http.NewRequest set GetBody, so a 429 can be retried with the same body.
	r, err := c.api.PublicBatchUploadWithBodyWithResponse(ctx, &params, mw.FormDataContentType(), bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, err
	}
	switch {
	case r.JSON202 != nil:
		return r.JSON202, nil
	case r.JSON200 != nil:
		return r.JSON200, nil
	}
	return nil, apiError(r.HTTPResponse, r.Body)
}

// BatchStatus is a job's status and one page of its results; params may be nil (page 1, 100 rows).
func (c *Client) BatchStatus(ctx context.Context, jobID int64, params *api.PublicBatchStatusParams) (*api.BatchStatus, error) {
	if params == nil {
		params = &api.PublicBatchStatusParams{}
	}
	r, err := c.api.PublicBatchStatusWithResponse(ctx, jobID, params)
	if err != nil {
		return nil, err
	}
	if r.JSON200 == nil {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return r.JSON200, nil
}

// Done reports whether a job's status is final: completed, failed or cancelled.
func Done(s *api.BatchStatus) bool {
	switch s.Status {
	case api.BatchStatusStatusCompleted, api.BatchStatusStatusFailed, api.BatchStatusStatusCancelled:
		return true
	}
	return false
}

// WaitBatch polls a job every interval (1 second when 0) until it is completed, failed or cancelled, and returns
// its last status with the first 1000 results. It stops with the context's error when ctx ends: give ctx a
// deadline to bound the wait.
func (c *Client) WaitBatch(ctx context.Context, jobID int64, interval time.Duration) (*api.BatchStatus, error) {
	if interval <= 0 {
		interval = time.Second
	}
	limit := 1000
	for {
		s, err := c.BatchStatus(ctx, jobID, &api.PublicBatchStatusParams{Limit: &limit})
		if err != nil {
			return nil, err
		}
		if Done(s) {
			return s, nil
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return s, fmt.Errorf("valuator: batch job %d still %s: %w", jobID, s.Status, ctx.Err())
		case <-t.C:
		}
	}
}

// DownloadBatch returns a job's results file: format "csv" (the default when empty) or "xlsx".
func (c *Client) DownloadBatch(ctx context.Context, jobID int64, format string) ([]byte, error) {
	if format == "" {
		format = "csv"
	}
	f := api.PublicBatchDownloadParamsFormat(format)
	r, err := c.api.PublicBatchDownloadWithResponse(ctx, jobID, &api.PublicBatchDownloadParams{Format: &f})
	if err != nil {
		return nil, err
	}
	if r.StatusCode() != http.StatusOK {
		return nil, apiError(r.HTTPResponse, r.Body)
	}
	return r.Body, nil
}

// apiError builds the *APIError of a non-2xx answer from its body ({"error", "code", "requestId", ...}) and
// headers.
func apiError(res *http.Response, body []byte) *APIError {
	e := &APIError{StatusCode: res.StatusCode, Body: body}
	var b struct {
		Error      string            `json:"error"`
		Code       string            `json:"code"`
		RequestID  string            `json:"requestId"`
		Field      string            `json:"field"`
		Fields     map[string]string `json:"fields"`
		RetryAfter int               `json:"retryAfter"`
		Balance    *api.Balance      `json:"creditBalance"`
		Range      *RecordRange      `json:"recordRange"`
	}
	if json.Unmarshal(body, &b) == nil {
		e.Message, e.Code, e.RequestID, e.Field, e.Fields = b.Error, b.Code, b.RequestID, b.Field, b.Fields
		e.Balance, e.RecordRange = b.Balance, b.Range
	}
	if e.Code == "" {
		e.Code = "http_" + strconv.Itoa(res.StatusCode)
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
		if e.Message == "" || len(e.Message) > 200 {
			e.Message = http.StatusText(res.StatusCode)
		}
	}
	if e.RequestID == "" {
		e.RequestID = res.Header.Get("X-Request-Id")
	}
	if d, ok := retryAfter(res.Header, time.Now()); ok {
		e.RetryAfter = d
	} else if b.RetryAfter > 0 {
		e.RetryAfter = time.Duration(b.RetryAfter) * time.Second
	}
	e.RateLimit = RateLimit{headerInt(res.Header, "x-ratelimit-limit"), headerInt(res.Header, "x-ratelimit-remaining"),
		headerInt(res.Header, "x-ratelimit-reset")}
	return e
}

func headerInt(h http.Header, name string) int {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get(name)))
	if err != nil {
		return -1
	}
	return n
}

// retryAfter reads a Retry-After header: delta-seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(n)*time.Second, 0), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// retryDoer sends a request and, on 429, waits Retry-After (1 second when missing; at most maxDelay) and sends
// it again, up to maxRetries times. It gives up at once, returning the 429, when the request's context would end
// before the wait does or the body cannot be sent again.
type retryDoer struct {
	client     *http.Client
	maxRetries int
	maxDelay   time.Duration
	sleep      func(ctx context.Context, d time.Duration) error // tests replace it
}

func (d *retryDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		res, err := d.client.Do(req)
		if err != nil || res.StatusCode != http.StatusTooManyRequests || attempt >= d.maxRetries {
			return res, err
		}
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return res, nil
		}
		wait, ok := retryAfter(res.Header, time.Now())
		if !ok {
			wait = time.Second
		}
		wait = min(wait, d.maxDelay)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return res, nil
		}
		// Drain a little of the body so the connection can be reused.
		_, _ = io.CopyN(io.Discard, res.Body, 64<<10)
		_ = res.Body.Close()
		sleep := d.sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		next := req.Clone(ctx)
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			next.Body = body
		}
		req = next
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
