package valuator_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	valuator "valuator.dev/sdk/go"
)

// A stand-in server that answers 429 with retryAfter the first `limited` times, then 200.
func limitedServer(t *testing.T, limited int32, retryAfter string, check func(*http.Request)) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.Header.Get("x-api-key") != "k" {
			t.Errorf("x-api-key = %q", r.Header.Get("x-api-key"))
		}
		if check != nil {
			check(r)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-ratelimit-limit", "1")
		if n <= limited {
			w.Header().Set("x-ratelimit-remaining", "0")
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":"Rate limit exceeded","code":"rate_limited","requestId":"r1","retryAfter":7}`)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/batch/upload") {
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"jobId":42,"status":"pending","progress":{"total":1,"processed":0,"successful":0,"failed":0},"results":[],"pagination":{"page":1,"limit":100,"total":0,"totalPages":0},"downloadUrl":"/api/batch/download/42"}`)
			return
		}
		fmt.Fprint(w, `{"data":{"property":{"address":"5873 RIVER DR N","city":"SEATTLE","state":"WA","zip":"98103","formattedAddress":"x","matchCode":"exact","isDemo":true},"valuation":{"estimatedValue":123}}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	srv, calls := limitedServer(t, 1, "1", nil)
	c, _ := valuator.NewClient(srv.URL, "k", nil)
	start := time.Now()
	v, err := c.Valuate(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	if v.Valuation.EstimatedValue != 123 || calls.Load() != 2 {
		t.Errorf("value %d after %d calls", v.Valuation.EstimatedValue, calls.Load())
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("retried after %s, before Retry-After (1s)", d)
	}
}

func TestRetryHTTPDate(t *testing.T) {
	// An HTTP date in the past means "now": the retry comes at once.
	srv, calls := limitedServer(t, 2, time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), nil)
	c, _ := valuator.NewClient(srv.URL, "k", nil)
	start := time.Now()
	if _, err := c.Valuate(context.Background(), home); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || time.Since(start) > 500*time.Millisecond {
		t.Errorf("%d calls in %s", calls.Load(), time.Since(start))
	}
}

func TestRetryCappedAndExhausted(t *testing.T) {
	srv, calls := limitedServer(t, 100, "3600", nil)
	c, _ := valuator.NewClient(srv.URL, "k", &valuator.Options{MaxRetries: 2, MaxRetryDelay: 30 * time.Millisecond})
	start := time.Now()
	_, err := c.Valuate(context.Background(), home)
	e := apiErr(t, err)
	if e.StatusCode != 429 || e.Code != "rate_limited" || e.RetryAfter != time.Hour || e.RequestID != "r1" ||
		e.RateLimit != (valuator.RateLimit{Limit: 1, Remaining: 0, Reset: -1}) {
		t.Errorf("error = %+v", e)
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3 (1 + 2 retries)", calls.Load())
	}
	if d := time.Since(start); d < 60*time.Millisecond || d > 2*time.Second {
		t.Errorf("took %s: the waits are capped at 30ms", d)
	}
	if !strings.Contains(err.Error(), "429 rate_limited") {
		t.Errorf("Error() = %q", err)
	}
}

func TestRetryOff(t *testing.T) {
	srv, calls := limitedServer(t, 100, "", nil)
	c, _ := valuator.NewClient(srv.URL, "k", &valuator.Options{MaxRetries: -1})
	_, err := c.Valuate(context.Background(), home)
	if e := apiErr(t, err); e.StatusCode != 429 || e.RetryAfter != 7*time.Second || calls.Load() != 1 {
		t.Errorf("error = %+v after %d calls (the body's retryAfter stands in for a missing header)", e, calls.Load())
	}
}

func TestRetryStopsWithContext(t *testing.T) {
	srv, calls := limitedServer(t, 100, "10", nil)
	c, _ := valuator.NewClient(srv.URL, "k", nil)

	// A deadline before Retry-After: the 429 comes back at once.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := c.Valuate(ctx, home)
	if e := apiErr(t, err); e.StatusCode != 429 || calls.Load() != 1 || time.Since(start) > time.Second {
		t.Errorf("%+v after %d calls in %s", e, calls.Load(), time.Since(start))
	}

	// Cancelled while waiting: the context's error.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, err = c.Valuate(ctx, home)
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled: %v after %s", err, time.Since(start))
	}
}

func TestRetryResendsUploadBody(t *testing.T) {
	srv, calls := limitedServer(t, 1, "0", func(r *http.Request) {
		f, _, err := r.FormFile("file")
		if err != nil {
			t.Errorf("call %d: no file: %v", 0, err)
			return
		}
		b, _ := io.ReadAll(f)
		if string(b) != "address\n1 Main St, Seattle, WA 98103\n" {
			t.Errorf("file = %q", b)
		}
		if r.Header.Get("Idempotency-Key") != "once" {
			t.Errorf("Idempotency-Key = %q", r.Header.Get("Idempotency-Key"))
		}
	})
	c, _ := valuator.NewClient(srv.URL, "k", nil)
	job, err := c.UploadBatch(context.Background(), "a.csv", strings.NewReader("address\n1 Main St, Seattle, WA 98103\n"),
		&valuator.UploadOptions{IdempotencyKey: "once"})
	if err != nil {
		t.Fatal(err)
	}
	if job.JobId != 42 || calls.Load() != 2 {
		t.Errorf("job %d after %d calls", job.JobId, calls.Load())
	}
}
