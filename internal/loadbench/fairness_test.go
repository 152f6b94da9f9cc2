package loadbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"valuator/internal/testdb"
)

// databases are the stores every load benchmark runs on.
var databases = []struct {
	name string
	url  func(testing.TB) string
}{{"sqlite", testdb.SQLiteURL}, {"postgres", testdb.PostgresURL}}

// No customer can slow down another (issue 24). Customer A (the first of setup's customers) is the noisy one,
// customer B (the second) the quiet one; each has its own keysEach keys.

func (t *target) customerKeys(c int) []string { return t.keys[c*keysEach : (c+1)*keysEach] }

// BenchmarkFairness measures, on SQLite and PostgreSQL:
//   - valuations: B's latency (20 requests a second of the realistic mix) alone, then while A sends uncached
//     lookups (addresses not on record, each new) at A's rate cap, every key at its 1,000 a minute: B's p99 during
//     A's burst against B's quiet p99 (the target is at most 2x);
//   - the batch queue: with one worker process, A's two 50,000-row jobs running (both of the queue's workers
//     busy), how long B's 10-row job takes from its upload to its end (the target is 15 s).
func BenchmarkFairness(b *testing.B) {
	for _, db := range databases {
		b.Run(db.name, func(b *testing.B) {
			t := setup(b, db.url(b), false)
			t.valuationFairness(db.name)
			t.queueFairness(b, db.name)
		})
	}
}

func (t *target) valuationFairness(name string) {
	a, bKeys := t.customerKeys(0), t.customerKeys(1)
	quiet := func(rng *rand.Rand, zipf *rand.Zipf) (string, string) {
		u, _ := t.request(rng, zipf)
		return u, bKeys[rng.IntN(len(bKeys))]
	}
	var next int
	var mu sync.Mutex
	noisy := func(rng *rand.Rand, _ *rand.Zipf) (string, string) {
		mu.Lock()
		next++
		n := next
		mu.Unlock()
		// A new address each time: never in the cache, always a full valuation by the engine.
		q := url.Values{"address": {fmt.Sprintf("%d Burst Ave", 100000+n)}, "city": {"Seattle"}, "state": {"WA"},
			"zip": {t.kcZIPs[n%len(t.kcZIPs)]}, "propertyType": {"Single Family"},
			"squareFeet": {strconv.Itoa(900 + 100*rng.IntN(25))}}
		return t.url + "/api/v1/property/valuation?" + q.Encode(), a[n%len(a)]
	}
	openLoop(quiet, 20, runFor) // fills the cache with B's popular homes
	alone := openLoop(quiet, 20, runFor)
	aCap := keysEach * 1000 / 60
	var burst, during result
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); burst = openLoop(noisy, aCap, runFor) }()
	during = openLoop(quiet, 20, runFor)
	wg.Wait()
	report(name+": B alone, 20 req/s", alone)
	report(name+": A's uncached burst", burst)
	report(name+": B during A's burst", during)
	fmt.Printf("%-8s valuation fairness: B's p99 %.2f ms alone, %.2f ms during A's burst of %d uncached/s: %.2fx (target <= 2x)\n",
		name, ms(alone.pct(0.99)), ms(during.pct(0.99)), aCap, float64(during.pct(0.99))/float64(alone.pct(0.99)))
}

// upload sends a CSV to the public batch endpoint with key and returns the job's id.
func (t *target) upload(b *testing.B, c *http.Client, key string, file []byte) int64 {
	b.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "homes.csv")
	fw.Write(file)
	mw.Close()
	req, _ := http.NewRequest("POST", t.url+"/api/batch/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("x-api-key", key)
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var st struct{ JobID int64 }
	_ = json.NewDecoder(res.Body).Decode(&st)
	if res.StatusCode != http.StatusAccepted {
		b.Fatalf("upload: %d", res.StatusCode)
	}
	return st.JobID
}

// status is a job's status through the public API.
func (t *target) status(b *testing.B, c *http.Client, key string, id int64) string {
	b.Helper()
	req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/batch/status/%d?limit=1", t.url, id), nil)
	req.Header.Set("x-api-key", key)
	res, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var st struct{ Status string }
	_ = json.NewDecoder(res.Body).Decode(&st)
	return st.Status
}

func (t *target) queueFairness(b *testing.B, name string) {
	c := client()
	a, bKey := t.customerKeys(0), t.customerKeys(1)[0]
	t.service.SetCacheSize(0) // every row a full valuation: the big jobs run long
	defer t.service.SetCacheSize(20_000)
	big := t.batchFile(batchRows)
	jobs := []int64{t.upload(b, c, a[0], big), t.upload(b, c, a[1], big)}
	deadline := time.Now().Add(time.Minute)
	for t.status(b, c, a[0], jobs[0]) != "processing" || t.status(b, c, a[1], jobs[1]) != "processing" {
		if time.Now().After(deadline) {
			b.Fatal("A's jobs did not start within a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	start := time.Now()
	small := t.upload(b, c, bKey, t.batchFile(10))
	st := ""
	for st != "completed" && st != "failed" {
		time.Sleep(50 * time.Millisecond)
		st = t.status(b, c, bKey, small)
		if time.Since(start) > 5*time.Minute {
			b.Fatalf("B's job not done after 5 minutes")
		}
	}
	took := time.Since(start)
	fmt.Printf("%-8s batch fairness: B's 10-row job %s in %.1f s from its upload, while A's two %d-row jobs were %s and %s (target <= 15 s)\n",
		name, st, took.Seconds(), batchRows, t.status(b, c, a[0], jobs[0]), t.status(b, c, a[1], jobs[1]))
}
