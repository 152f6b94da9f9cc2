package loadbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// batchRows is the size of the benchmark's upload: the Enterprise plan's limit.
const batchRows = 50_000

// batchFile is a CSV of n addresses in the benchmark's markets: 60% recorded demo homes, 40% addresses not on
// record in King County ZIP codes (valued at the ZIP centre from their property type and square feet), in a
// shuffled order.
func (t *target) batchFile(n int) []byte {
	rng := rand.New(rand.NewPCG(5, 5))
	var b bytes.Buffer
	b.WriteString("Street Address,City,State,ZIP,Property Type,Square Feet\n")
	for i := 0; i < n; i++ {
		if rng.Float64() < 0.6 {
			q := t.exact[rng.IntN(len(t.exact))]
			fmt.Fprintf(&b, "%q,%s,%s,%s,,\n", q.Get("address"), q.Get("city"), q.Get("state"), q.Get("zip"))
		} else {
			fmt.Fprintf(&b, "%d %s Ave NE,Seattle,WA,%s,Single Family,%d\n", 100+rng.IntN(20000),
				[]string{"Oak", "Pine", "Elm", "Cedar"}[rng.IntN(4)], t.kcZIPs[rng.IntN(len(t.kcZIPs))], 900+100*rng.IntN(25))
		}
	}
	return b.Bytes()
}

// peakRSS reads the process's peak resident memory (VmHWM) in MB; resetPeak starts a new peak (Linux).
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// BenchmarkLoadBatch uploads a 50,000-row CSV through the public API and measures how long until every row is
// valued, the process's peak memory meanwhile, and the latency of single lookups sent during the batch (100 a
// second, from the same customer's other keys; a 429 is not counted as a latency).
func BenchmarkLoadBatch(b *testing.B) {
	for _, db := range databases {
		b.Run(db.name, func(b *testing.B) {
			t := setup(b, db.url(b), false)
			file := t.batchFile(batchRows)
			c := client()
			for _, cached := range []bool{true, false} {
				t.service.SetCacheSize(map[bool]int{true: 20_000, false: 0}[cached])
				t.batchRun(b, db.name, c, file, cached)
			}
		})
	}
}

// batchRun uploads the file, waits for the job and prints the figures.
func (t *target) batchRun(b *testing.B, name string, c *http.Client, file []byte, cached bool) {

	// Single lookups during the batch.
	var mu sync.Mutex
	var lat []time.Duration
	codes := map[int]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		zipf := rand.NewZipf(rng, 1.1, 4, 1<<20)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			u, _ := t.request(rng, zipf)
			t0 := time.Now()
			code, err := do(c, u, t.keys[1+rng.IntN(len(t.keys)-1)])
			if err != nil {
				code = -1
			}
			mu.Lock()
			if code == http.StatusOK {
				lat = append(lat, time.Since(t0))
			}
			codes[code]++
			mu.Unlock()
		}
	}()

	resetPeak()
	start := time.Now()
	var st struct {
		JobID    int64
		Status   string
		Progress struct{ Total, Processed, Successful, Failed int }
	}
	st.JobID = t.upload(b, c, t.keys[0], file)
	accepted := time.Since(start)
	for st.Status != "completed" && st.Status != "failed" {
		time.Sleep(100 * time.Millisecond)
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/batch/status/%d?limit=1", t.url, st.JobID), nil)
		req.Header.Set("x-api-key", t.keys[0])
		res, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_ = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("batch not done after 10 minutes: %+v", st)
		}
	}
	total := time.Since(start)
	close(stop)
	wg.Wait()
	r := result{lat: lat, duration: total}
	cache := "cache on "
	if !cached {
		cache = "cache off"
	}
	fmt.Printf("%-8s %s batch of %d rows: accepted in %.1f s, done in %.1f s (%.0f rows/s), %s: %d valued, %d failed; peak RSS %.0f MB; lookups meanwhile p50 %.1f ms p99 %.1f ms (%d calls, %v)\n",
		name, cache, batchRows, accepted.Seconds(), total.Seconds(), float64(batchRows)/total.Seconds(), st.Status,
		st.Progress.Successful, st.Progress.Failed, peakRSS(), ms(r.pct(0.5)), ms(r.pct(0.99)), len(lat), codes)
}
