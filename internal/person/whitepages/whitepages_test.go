package whitepages

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/person"
)

// testKey looks like a real key so that a leak is easy to spot in any error text or log line.
const testKey = "wp-test-key-7f3a9c1e5b"

var testQuery = person.Query{Name: "Jane Q Doe", StreetLine1: "1600 Main St", City: "Seattle", StateCode: "WA", PostalCode: "98101"}

// fake is a stand-in for the Whitepages API: it answers with one scripted response per request and records
// what it was sent.
type fake struct {
	t       *testing.T
	mu      sync.Mutex
	steps   []func(w http.ResponseWriter, r *http.Request)
	reqs    []*http.Request
	srv     *httptest.Server
	release chan struct{}
}

func newFake(t *testing.T, steps ...func(w http.ResponseWriter, r *http.Request)) *fake {
	t.Helper()
	f := &fake{t: t, steps: steps, release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, r.Clone(context.Background()))
	var step func(http.ResponseWriter, *http.Request)
	if n < len(f.steps) {
		step = f.steps[n]
	}
	f.mu.Unlock()
	if step == nil {
		http.Error(w, "unexpected extra request", http.StatusTeapot)
		return
	}
	step(w, r)
}

func (f *fake) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

// fixture answers with testdata/name, the placeholder key in it replaced by the real one (as a provider that
// echoes the request would).
func fixture(t *testing.T, status int, name string) func(http.ResponseWriter, *http.Request) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("KEY-PLACEHOLDER"), []byte(testKey))
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(b)
	}
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(`{"error":{"message":"failure for api_key=` + testKey + `"}}`))
	}
}

// hang never answers until the client gives up (or the test ends).
func (f *fake) hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.release:
	}
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
}

// newProvider returns a provider pointed at f with instant sleeps, and a buffer holding its log.
func newProvider(t *testing.T, f *fake, mod func(*Config)) (*Provider, *sleeps, *bytes.Buffer) {
	t.Helper()
	s := &sleeps{}
	logs := &bytes.Buffer{}
	cfg := Config{APIKey: testKey, BaseURL: f.srv.URL, Sleep: s.sleep, Timeout: 2 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p, s, logs
}

// assertNoKey fails when the key appears in text.
func assertNoKey(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, testKey) || strings.Contains(text, url.QueryEscape(testKey)) {
		t.Errorf("%s holds the api key: %s", what, text)
	}
}

func TestFindHitMapsAllFields(t *testing.T) {
	f := newFake(t, fixture(t, 200, "hit.json"))
	p, _, _ := newProvider(t, f, nil)

	got, err := p.Find(context.Background(), testQuery)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	seattle := person.Address{StreetLine1: "1600 Main St", StreetLine2: "Apt 4", City: "Seattle", StateCode: "WA",
		PostalCode: "98101", LatLong: &person.LatLong{Latitude: 47.6097, Longitude: -122.3331}}
	want := person.Result{
		ID:               "Person.9f8e7d6c-5b4a-4c3d-8e2f-1a2b3c4d5e6f.Durable",
		Name:             "Jane Q Doe",
		AlternateNames:   []string{"Jane Doe-Smith"},
		AgeRange:         "30-34",
		Gender:           "Female",
		FoundAtAddress:   &seattle,
		CurrentAddresses: []person.Address{seattle},
		HistoricalAddrs: []person.Address{{StreetLine1: "42 Elm Ave", City: "Portland", StateCode: "OR",
			PostalCode: "97201"}},
		Phones: []person.Phone{{PhoneNumber: "+12065550123", LineType: "Mobile"},
			{PhoneNumber: "2065550188", LineType: "Landline"}},
		Emails: []string{"jane.doe@example.com"},
		AssociatedPeople: []person.Associate{
			{Name: "John Doe", Firstname: "John", Lastname: "Doe", Relation: "Spouse"},
			{Name: "Mary Doe", Firstname: "Mary", Lastname: "Doe", Relation: "Household"},
		},
		MatchScore: 1,
		Ambiguous:  false,
		Source:     "whitepages",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find result\n got %+v\nwant %+v", got, want)
	}
}

func TestFindSendsQueryParameters(t *testing.T) {
	tests := []struct {
		name        string
		keyInHeader bool
		query       person.Query
		wantQuery   url.Values
		wantHeader  string
	}{
		{
			name:  "key as api_key parameter",
			query: testQuery,
			wantQuery: url.Values{"name": {"Jane Q Doe"}, "address.street_line_1": {"1600 Main St"},
				"address.city": {"Seattle"}, "address.state_code": {"WA"}, "address.postal_code": {"98101"},
				"api_key": {testKey}},
		},
		{
			name:        "key in X-Api-Key header, empty fields left out",
			keyInHeader: true,
			query:       person.Query{Name: " Jane Doe ", PostalCode: "98101"},
			wantQuery:   url.Values{"name": {"Jane Doe"}, "address.postal_code": {"98101"}},
			wantHeader:  testKey,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, fixture(t, 200, "hit.json"))
			p, _, _ := newProvider(t, f, func(c *Config) { c.KeyInHeader = tt.keyInHeader })
			if _, err := p.Find(context.Background(), tt.query); err != nil {
				t.Fatalf("Find: %v", err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodGet || r.URL.Path != "/3.0/person" {
				t.Errorf("request = %s %s, want GET /3.0/person", r.Method, r.URL.Path)
			}
			if got := r.URL.Query(); !reflect.DeepEqual(got, tt.wantQuery) {
				t.Errorf("query = %v, want %v", got, tt.wantQuery)
			}
			if got := r.Header.Get("X-Api-Key"); got != tt.wantHeader {
				t.Errorf("X-Api-Key = %q, want %q", got, tt.wantHeader)
			}
		})
	}
}

func TestFindTwoCandidatesTakesFirstAndIsAmbiguous(t *testing.T) {
	f := newFake(t, fixture(t, 200, "two.json"))
	p, _, _ := newProvider(t, f, nil)
	got, err := p.Find(context.Background(), person.Query{Name: "Robert Smith", City: "Austin", StateCode: "TX"})
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if got.ID != "Person.first.Durable" || got.AgeRange != "45-49" || !got.Ambiguous || got.MatchScore >= 1 {
		t.Errorf("got id %q age %q ambiguous %v score %v, want the first person, 45-49, ambiguous, score < 1",
			got.ID, got.AgeRange, got.Ambiguous, got.MatchScore)
	}
	if got.FoundAtAddress == nil || got.FoundAtAddress.City != "Austin" {
		t.Errorf("found_at_address = %+v, want Austin", got.FoundAtAddress)
	}
	if got.Phones == nil || got.Emails == nil || got.CurrentAddresses == nil {
		t.Errorf("empty lists should be [] not null: %+v", got)
	}
}

func TestAgeRange(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"from": 30, "to": 34}`, "30-34"},
		{`{"from": 70, "to": null}`, "70+"},
		{`{"from": 70}`, "70+"},
		{`"25-29"`, "25-29"},
		{`null`, ""},
		{`{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var p wpPerson
			if err := jsonUnmarshal(`{"age_range": `+tt.in+`}`, &p); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if got := string(p.AgeRange); got != tt.want {
				t.Errorf("age_range %s = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFindEmptyIsNotFound(t *testing.T) {
	f := newFake(t, fixture(t, 200, "empty.json"))
	p, _, _ := newProvider(t, f, nil)
	_, err := p.Find(context.Background(), testQuery)
	if !errors.Is(err, person.ErrNotFound) {
		t.Errorf("err = %v, want person.ErrNotFound", err)
	}
}

func TestFindRetriesServerErrorThenSucceeds(t *testing.T) {
	f := newFake(t, status(500), status(503), fixture(t, 200, "hit.json"))
	p, s, _ := newProvider(t, f, nil)
	got, err := p.Find(context.Background(), testQuery)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	if got.Name != "Jane Q Doe" {
		t.Errorf("name = %q, want Jane Q Doe", got.Name)
	}
	if n := len(f.requests()); n != 3 {
		t.Errorf("requests = %d, want 3", n)
	}
	if want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}; !reflect.DeepEqual(s.d, want) {
		t.Errorf("sleeps = %v, want %v", s.d, want)
	}
}

func TestFindServerErrorsExhaustRetries(t *testing.T) {
	f := newFake(t, status(500), status(502), status(500), status(500))
	p, _, logs := newProvider(t, f, nil)
	_, err := p.Find(context.Background(), testQuery)
	assertKind(t, err, apperr.KindUnavailable)
	if n := len(f.requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (1 + MaxRetries 2)", n)
	}
	assertNoKey(t, "error", err.Error())
	assertNoKey(t, "log", logs.String())
}

func TestFindRateLimited(t *testing.T) {
	tests := []struct {
		name   string
		header []string
		want   int
	}{
		{"retry-after seconds", []string{"Retry-After", "17"}, 17},
		{"no retry-after", nil, 60},
		{"retry-after date", []string{"Retry-After", time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}, 90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, status(429, tt.header...))
			p, _, _ := newProvider(t, f, nil)
			_, err := p.Find(context.Background(), testQuery)
			e := assertKind(t, err, apperr.KindRateLimited)
			if e != nil && (e.RetryAfterSeconds < tt.want-2 || e.RetryAfterSeconds > tt.want) {
				t.Errorf("RetryAfterSeconds = %d, want %d", e.RetryAfterSeconds, tt.want)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (a 429 is not retried)", n)
			}
			assertNoKey(t, "error", err.Error())
		})
	}
}

func TestFindClientErrorsAreNotRetriedNorPassedThrough(t *testing.T) {
	tests := []struct {
		name     string
		step     func(*testing.T) func(http.ResponseWriter, *http.Request)
		wantMsg  string
		wantCode string
	}{
		{"401", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			return fixture(t, 401, "unauthorized.json")
		},
			"The person data provider refused our credentials", "provider_credentials"},
		{"403", func(t *testing.T) func(http.ResponseWriter, *http.Request) { return status(403) },
			"The person data provider refused our credentials", "provider_credentials"},
		{"400", func(t *testing.T) func(http.ResponseWriter, *http.Request) { return status(400) },
			"The person data provider could not answer this request", "provider_unavailable"},
		{"404", func(t *testing.T) func(http.ResponseWriter, *http.Request) { return status(404) },
			"The person data provider could not answer this request", "provider_unavailable"},
		{"malformed JSON", func(t *testing.T) func(http.ResponseWriter, *http.Request) { return fixture(t, 200, "malformed.json") },
			"The person data provider sent an answer we could not read", "provider_unavailable"},
		{"error object in a 200", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			return fixture(t, 200, "error_object.json")
		}, "The person data provider could not answer this request", "provider_unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.step(t))
			p, _, logs := newProvider(t, f, nil)
			_, err := p.Find(context.Background(), testQuery)
			e := assertKind(t, err, apperr.KindUnavailable)
			if e != nil && (e.Message != tt.wantMsg || e.Code != tt.wantCode) {
				t.Errorf("error = %q (%s), want %q (%s)", e.Message, e.Code, tt.wantMsg, tt.wantCode)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
			assertNoKey(t, "error", err.Error())
			assertNoKey(t, "log", logs.String())
			if strings.Contains(err.Error(), "failure for") || strings.Contains(err.Error(), "Invalid api key") {
				t.Errorf("provider's error text passed through: %s", err)
			}
		})
	}
}

func TestFindTimeoutRetriesThenFails(t *testing.T) {
	f := newFake(t)
	f.steps = []func(http.ResponseWriter, *http.Request){f.hang, f.hang}
	p, s, logs := newProvider(t, f, func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = 1 })
	_, err := p.Find(context.Background(), testQuery)
	assertKind(t, err, apperr.KindUnavailable)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
	if len(s.d) != 1 {
		t.Errorf("sleeps = %v, want one", s.d)
	}
	// The network error names the URL: it must be there redacted, never with the key.
	if !strings.Contains(err.Error(), "api_key=REDACTED") {
		t.Errorf("err = %v, want the redacted URL", err)
	}
	assertNoKey(t, "error", err.Error())
	assertNoKey(t, "log", logs.String())
}

func TestFindTimeoutThenSuccess(t *testing.T) {
	f := newFake(t)
	f.steps = []func(http.ResponseWriter, *http.Request){f.hang, fixture(t, 200, "hit.json")}
	p, _, _ := newProvider(t, f, func(c *Config) { c.Timeout = 50 * time.Millisecond })
	if _, err := p.Find(context.Background(), testQuery); err != nil {
		t.Fatalf("Find: %v", err)
	}
}

func TestFindNetworkErrorIsRedacted(t *testing.T) {
	f := newFake(t)
	base := f.srv.URL
	f.srv.Close() // nothing listens there any more: every attempt is a connection error
	p, err := New(Config{APIKey: testKey, BaseURL: base, Sleep: func(time.Duration) {}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Find(context.Background(), testQuery)
	assertKind(t, err, apperr.KindUnavailable)
	assertNoKey(t, "error", err.Error())
}

func TestFindBodyTooLarge(t *testing.T) {
	big := func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"person": [], "warnings": ["`))
		w.Write(bytes.Repeat([]byte("x"), MaxBodyBytes))
		w.Write([]byte(`"]}`))
	}
	f := newFake(t, big)
	p, _, _ := newProvider(t, f, nil)
	_, err := p.Find(context.Background(), testQuery)
	assertKind(t, err, apperr.KindUnavailable)
}

func TestFindCallerCancelStopsRetrying(t *testing.T) {
	f := newFake(t, status(500), status(500), status(500))
	ctx, cancel := context.WithCancel(context.Background())
	p, _, _ := newProvider(t, f, func(c *Config) { c.Sleep = func(time.Duration) { cancel() } })
	_, err := p.Find(ctx, testQuery)
	assertKind(t, err, apperr.KindUnavailable)
	if n := len(f.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func TestFindRequiresName(t *testing.T) {
	f := newFake(t)
	p, _, _ := newProvider(t, f, nil)
	_, err := p.Find(context.Background(), person.Query{Name: "  "})
	assertKind(t, err, apperr.KindInvalid)
	if n := len(f.requests()); n != 0 {
		t.Errorf("requests = %d, want 0", n)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without a key: want an error")
	}
	if _, err := New(Config{APIKey: "k", BaseURL: "ftp://x"}); err == nil {
		t.Error("New with an ftp base: want an error")
	}
	p, err := New(Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if p.base.String() != DefaultBaseURL || p.timeout != 10*time.Second || p.maxRetries != 2 || p.Name() != "whitepages" {
		t.Errorf("defaults: base %s timeout %v retries %d name %s", p.base, p.timeout, p.maxRetries, p.Name())
	}
}

func TestBackoff(t *testing.T) {
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
		1600 * time.Millisecond, 3 * time.Second, 3 * time.Second}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func assertKind(t *testing.T, err error, k apperr.Kind) *apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want kind %d", k)
	}
	e, ok := apperr.As(err)
	if !ok || e.Kind != k {
		t.Errorf("err = %v, want an *apperr.Error of kind %d", err, k)
		return nil
	}
	return e
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// The default sleep must end as soon as the caller's context does, not after the backoff.
func TestFindDefaultSleepStopsOnCancel(t *testing.T) {
	f := newFake(t, status(500), status(500), status(500))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	p, _, _ := newProvider(t, f, func(c *Config) { c.Sleep = nil; c.MaxRetries = 5 })
	_, err := p.Find(ctx, testQuery)
	assertKind(t, err, apperr.KindUnavailable)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap context.DeadlineExceeded", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("requests = %d, want 1 (the 200 ms backoff outlasts the 20 ms context)", n)
	}
}
