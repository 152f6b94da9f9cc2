// Package whitepages is a person.Provider backed by the Whitepages Find Person API (v3).
//
// The endpoint path, the query parameter names and the answer's field names below follow Whitepages' published
// v3 Find Person documentation as best known offline (this was written without access to the live docs or a
// test key). They are kept together in the constants and in buildURL so they are easy to correct in one place
// once checked against the real service.
package whitepages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/person"
)

// The Find Person endpoint and its parameters (Whitepages v3, as best known offline; see the package comment).
const (
	DefaultBaseURL = "https://proapi.whitepages.com"

	findPersonPath    = "/3.0/person"
	paramName         = "name"
	paramStreetLine1  = "address.street_line_1"
	paramCity         = "address.city"
	paramStateCode    = "address.state_code"
	paramPostalCode   = "address.postal_code"
	paramAPIKey       = "api_key"
	headerAPIKey      = "X-Api-Key"
	redactedPlacehold = "REDACTED"
)

// Defaults for Config's zero values.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultMaxRetries = 2
	// MaxBodyBytes bounds how much of an answer we read; a real answer is a few kilobytes.
	MaxBodyBytes = 2 << 20
	// defaultRetryAfter is used when a 429 carries no usable Retry-After header.
	defaultRetryAfter = 60
	baseBackoff       = 200 * time.Millisecond
	maxBackoff        = 3 * time.Second
)

// SourceName is the Result.Source and the provider's Name.
const SourceName = "whitepages"

// Config configures a Provider. Only APIKey is required.
type Config struct {
	APIKey string
	// BaseURL is the scheme and host of the API (default DefaultBaseURL); tests point it at a fake server.
	BaseURL string
	// HTTPClient sends the requests (default a client without its own timeout; each attempt has Timeout).
	HTTPClient *http.Client
	// Timeout bounds one attempt, from sending the request to reading the whole body (default 10 s).
	Timeout time.Duration
	// MaxRetries is how many times a failed attempt (5xx or network error) is repeated (default 2; negative
	// means no retries).
	MaxRetries int
	// Sleep waits between attempts (default a timer that also stops when the context ends); tests pass a
	// recorder so they run instantly.
	Sleep func(time.Duration)
	// KeyInHeader sends the key in the X-Api-Key header instead of the api_key query parameter, which keeps it
	// out of URLs (and so out of any proxy or access log on the way).
	KeyInHeader bool
	// Logger receives the provider's own failures (default slog.Default()).
	Logger *slog.Logger
}

// Provider finds people through Whitepages. It is safe for concurrent use.
type Provider struct {
	key         string
	base        *url.URL
	client      *http.Client
	timeout     time.Duration
	maxRetries  int
	sleep       func(time.Duration)
	keyInHeader bool
	log         *slog.Logger
}

var _ person.Provider = (*Provider)(nil)

// New checks cfg and fills in its defaults.
func New(cfg Config) (*Provider, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("whitepages: APIKey is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("whitepages: BaseURL %q is not an http(s) URL", cfg.BaseURL)
	}
	p := &Provider{
		key:         cfg.APIKey,
		base:        base,
		client:      cfg.HTTPClient,
		timeout:     cfg.Timeout,
		maxRetries:  cfg.MaxRetries,
		sleep:       cfg.Sleep,
		keyInHeader: cfg.KeyInHeader,
		log:         cfg.Logger,
	}
	if p.client == nil {
		p.client = &http.Client{}
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	if p.maxRetries == 0 {
		p.maxRetries = DefaultMaxRetries
	} else if p.maxRetries < 0 {
		p.maxRetries = 0
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	return p, nil
}

// Name is the provider's name ("whitepages").
func (p *Provider) Name() string { return SourceName }

// Find asks Whitepages for the person and maps the best (first) answer. No one found is person.ErrNotFound;
// every provider failure is an *apperr.Error (KindUnavailable or KindRateLimited) whose text never holds the key.
func (p *Provider) Find(ctx context.Context, q person.Query) (person.Result, error) {
	if strings.TrimSpace(q.Name) == "" {
		return person.Result{}, apperr.Invalid("name", "Enter the person's name")
	}
	u := p.buildURL(q)
	var lastErr error
	for attempt := 0; attempt <= p.maxRetries; attempt++ {
		if attempt > 0 {
			if err := p.wait(ctx, backoff(attempt)); err != nil {
				// The caller gave up (cancelled or out of time) while we waited to retry.
				return person.Result{}, unavailable("The person data provider is unavailable; try again later",
					errors.Join(err, lastErr))
			}
		}
		body, err := p.attempt(ctx, u)
		if err == nil {
			return p.decode(ctx, body)
		}
		var r retryable
		if !errors.As(err, &r) {
			return person.Result{}, err
		}
		lastErr = r.err
		p.log.WarnContext(ctx, "whitepages attempt failed", "attempt", attempt+1, "url", p.redactURL(u), "err", lastErr)
		if ctx.Err() != nil {
			break
		}
	}
	return person.Result{}, unavailable("The person data provider is unavailable; try again later", lastErr)
}

// buildURL is the one place that knows the request's path and parameters.
func (p *Provider) buildURL(q person.Query) *url.URL {
	u := *p.base
	u.Path = strings.TrimRight(u.Path, "/") + findPersonPath
	v := url.Values{}
	set := func(k, s string) {
		if s = strings.TrimSpace(s); s != "" {
			v.Set(k, s)
		}
	}
	set(paramName, q.Name)
	set(paramStreetLine1, q.StreetLine1)
	set(paramCity, q.City)
	set(paramStateCode, q.StateCode)
	set(paramPostalCode, q.PostalCode)
	if !p.keyInHeader {
		v.Set(paramAPIKey, p.key)
	}
	u.RawQuery = v.Encode()
	return &u
}

// retryable marks an attempt's failure that another attempt may fix (5xx, network error, attempt timeout).
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }

// attempt sends one request under its own timeout and returns the body of a 200 answer.
func (p *Provider) attempt(ctx context.Context, u *url.URL) ([]byte, error) {
	actx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, unavailable("The person data provider is unavailable", p.scrub(err))
	}
	req.Header.Set("Accept", "application/json")
	if p.keyInHeader {
		req.Header.Set(headerAPIKey, p.key)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, retryable{p.scrub(err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, retryable{p.scrub(fmt.Errorf("reading the answer (status %d): %w", resp.StatusCode, err))}
	}
	switch s := resp.StatusCode; {
	case s == http.StatusOK:
		if len(body) > MaxBodyBytes {
			p.log.ErrorContext(ctx, "whitepages answer too large", "url", p.redactURL(u), "limit", MaxBodyBytes)
			return nil, unavailable("The person data provider sent an answer we could not read",
				fmt.Errorf("answer larger than %d bytes", MaxBodyBytes))
		}
		return body, nil
	case s == http.StatusTooManyRequests:
		secs := retryAfterSeconds(resp.Header.Get("Retry-After"), time.Now())
		p.log.WarnContext(ctx, "whitepages rate limited us", "url", p.redactURL(u), "retry_after", secs)
		return nil, apperr.RateLimited("The person data provider is busy; try again later", secs)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		// Our key is wrong, expired or out of quota: our fault, not the caller's, so it is logged loudly and
		// shown as the provider being unavailable (never as a 401/403, which would blame the caller).
		p.log.ErrorContext(ctx, "whitepages refused our credentials", "status", s, "url", p.redactURL(u))
		return nil, &apperr.Error{Kind: apperr.KindUnavailable, Code: "provider_credentials",
			Message: "The person data provider refused our credentials", Err: fmt.Errorf("status %d", s)}
	case s >= 500:
		return nil, retryable{fmt.Errorf("status %d", s)}
	default:
		// The provider's error text is not passed on: it may echo the request, key included.
		p.log.ErrorContext(ctx, "whitepages rejected the request", "status", s, "url", p.redactURL(u))
		return nil, unavailable("The person data provider could not answer this request", fmt.Errorf("status %d", s))
	}
}

func (p *Provider) wait(ctx context.Context, d time.Duration) error {
	if p.sleep != nil {
		p.sleep(d)
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before the given retry (1-based): 200 ms, 400 ms, 800 ms, ... up to maxBackoff.
func backoff(retry int) time.Duration {
	d := baseBackoff
	for i := 1; i < retry && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// retryAfterSeconds reads a Retry-After header, either seconds or an HTTP date.
func retryAfterSeconds(h string, now time.Time) int {
	h = strings.TrimSpace(h)
	if h == "" {
		return defaultRetryAfter
	}
	if n, err := strconv.Atoi(h); err == nil {
		if n < 1 {
			return 1
		}
		return n
	}
	if t, err := http.ParseTime(h); err == nil {
		secs := int(t.Sub(now).Round(time.Second) / time.Second)
		if secs < 1 {
			return 1
		}
		return secs
	}
	return defaultRetryAfter
}

func unavailable(message string, cause error) *apperr.Error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "provider_unavailable", Message: message, Err: cause}
}

// redactURL is u as it may be logged: the key's value replaced.
func (p *Provider) redactURL(u *url.URL) string {
	c := *u
	v := c.Query()
	if v.Has(paramAPIKey) {
		v.Set(paramAPIKey, redactedPlacehold)
		c.RawQuery = v.Encode()
	}
	return c.String()
}

// scrub returns err with the key removed from its text. A *url.Error (what http.Client.Do returns) is rebuilt
// with the redacted URL so the cause chain (errors.Is context.DeadlineExceeded) still works.
func (p *Provider) scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		redacted := ue.URL
		if parsed, perr := url.Parse(ue.URL); perr == nil {
			redacted = p.redactURL(parsed)
		}
		err = &url.Error{Op: ue.Op, URL: redacted, Err: ue.Err}
	}
	msg := err.Error()
	if strings.Contains(msg, p.key) || strings.Contains(msg, url.QueryEscape(p.key)) {
		// Last resort: the text still holds the key somewhere; keep only a scrubbed copy of the text.
		msg = strings.ReplaceAll(msg, p.key, redactedPlacehold)
		msg = strings.ReplaceAll(msg, url.QueryEscape(p.key), redactedPlacehold)
		return errors.New(msg)
	}
	return err
}
