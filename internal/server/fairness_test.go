package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"valuator/internal/batch"
	"valuator/internal/testdb"
)

// No customer can slow down another (issue: fair shares of uploads, downloads, batch workers and the engine).

// slowUpload opens a connection and sends a preview's headers and the start of its body, then nothing more: a
// client trickling a large file, or an attacker holding the server's attention. The caller reads its answer.
func slowUpload(t *testing.T, a *testApp, token string) net.Conn {
	t.Helper()
	u, err := url.Parse(a.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	head := "--slowboundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.csv\"\r\n" +
		"Content-Type: text/csv\r\n\r\nProperty Address,City,State,Zip Code\r\n3000 Test Ave N,Seattle,WA,98103\r\n"
	if _, err := fmt.Fprintf(c, "POST /api/jobs/preview HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=slowboundary\r\nContent-Length: %d\r\n\r\n%s", u.Host, token,
		1<<20, head); err != nil {
		t.Fatal(err)
	}
	return c
}

func filesIn(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestSlowUploadsDoNotLockOthersOut: two uploads of account A that send their bodies slowly held both of the
// process's spreadsheet-read slots, and every other customer's upload waited 10 s for a 429. Now a body arrives
// before it takes a slot: B's preview answers at once, A's third upload is refused (2 per account), the slow bodies
// are cut off with 408 and their temporary files are gone. On both databases.
func TestSlowUploadsDoNotLockOthersOut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) {
			o.holdJobs = true
			o.uploadPace = Pace{Rate: 10 << 10, Grace: 2 * time.Second}
		})
		tokenA, _ := a.register("slow@example.com", "correct-horse", "Sam Slow")
		tokenB, _ := a.register("busy@example.com", "correct-horse", "Bea Busy")
		slow := []net.Conn{slowUpload(t, a, tokenA), slowUpload(t, a, tokenA)}
		deadline := time.Now().Add(5 * time.Second)
		for filesIn(t, a.uploadDir) < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := filesIn(t, a.uploadDir); n != 2 {
			t.Fatalf("%d uploads receiving, want A's 2", n)
		}

		// A third upload of A: refused at once, with Retry-After.
		_, r := a.preview(tokenA, "homes.csv", batchCSV(3))
		expectStatus(t, r, http.StatusTooManyRequests)
		if r.header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After: %v", r.header)
		}
		// B is not held up by A.
		start := time.Now()
		_, r = a.preview(tokenB, "homes.csv", batchCSV(3))
		expectStatus(t, r, http.StatusOK)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("B's preview took %s while A's uploads trickled", took)
		}

		// The slow bodies are cut off once they fall behind the pace, and their temporary files removed.
		for _, c := range slow {
			_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer to a slow upload: %v", err)
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestTimeout {
				t.Errorf("slow upload: %d %s, want 408", res.StatusCode, body)
			}
		}
		if n := filesIn(t, a.uploadDir); n != 0 {
			t.Errorf("%d temporary files left", n)
		}
		// A may upload again.
		_, r = a.preview(tokenA, "homes.csv", batchCSV(3))
		expectStatus(t, r, http.StatusOK)
	})
}

// TestStaleUploadFilesAreRemovedAtStart: a temporary file left by a process that died mid-upload is removed when
// the server starts; one still being written (by another process) is left alone.
func TestStaleUploadFilesAreRemovedAtStart(t *testing.T) {
	dir := t.TempDir()
	stale, fresh := filepath.Join(dir, "upload-stale"), filepath.Join(dir, "upload-fresh")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("Property Address\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleUpload)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	s := &Server{uploadDir: dir, log: slog.New(slog.DiscardHandler)}
	s.removeStaleUploads()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale upload is still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh upload was removed: %v", err)
	}
}

// TestDownloadsAreBoundedPerAccount: twenty parallel downloads of a 50,000-row job from one account. Two are
// served at a time (the others are told to retry), and the heap stays bounded: each download streams.
func TestDownloadsAreBoundedPerAccount(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where excelize spills a sheet past 16 MB
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.holdJobs = true })
	token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
	id := bigJob(t, a, u.ID, 50_000)
	get := func(format string) *http.Response {
		rq, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/jobs/%d/download?format=%s", a.srv.URL, id, format), nil)
		rq.Header.Set("Authorization", "Bearer "+token)
		res, err := a.srv.Client().Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var mu sync.Mutex
	codes := map[int]int{}
	peak := peakHeap(func() {
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				format := "csv"
				if i%2 == 1 {
					format = "xlsx"
				}
				res := get(format)
				defer res.Body.Close()
				if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
				_, _ = io.Copy(io.Discard, res.Body)
				mu.Lock()
				codes[res.StatusCode]++
				mu.Unlock()
			}()
		}
		wg.Wait()
	})
	t.Logf("20 parallel downloads of 50,000 rows: %v; peak heap %.1f MB above the idle server", codes, float64(peak)/(1<<20))
	if codes[http.StatusOK]+codes[http.StatusTooManyRequests] != 20 || codes[http.StatusTooManyRequests] == 0 {
		t.Errorf("answers %v, want 200s and 429s only, some of each", codes)
	}
	if peak > 100<<20 {
		t.Errorf("peak heap %.1f MB, want under 100 MB", float64(peak)/(1<<20))
	}

	// Two downloads in progress (their readers stopped reading) hold the account's share: a third is refused, and
	// once they end the account downloads again.
	held := []*http.Response{get("csv"), get("csv")}
	for _, res := range held {
		if res.StatusCode != http.StatusOK {
			t.Fatalf("a held download: %d", res.StatusCode)
		}
	}
	if res := get("csv"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a third download while two are in progress: %d, want 429", res.StatusCode)
	} else {
		res.Body.Close()
	}
	for _, res := range held {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	res := get("csv")
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("after the two ended: %d", res.StatusCode)
	}
}

// pendingJob stores a job of n rows waiting to be valued for the user and queues it, as an upload does (its rows
// are addresses of the test market).
func pendingJob(t *testing.T, a *testApp, userID int64, n int) int64 {
	t.Helper()
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i], _ = json.Marshal(batch.Row{Line: i + 2, Address: fmt.Sprintf("%d Test Ave N", 3000+(i%40)*2),
			City: "Seattle", State: "WA", ZIP: "98103"})
	}
	job, _, err := a.db.CreateBatchJob(context.Background(), batch.Job{UserID: userID, FileName: "big.csv",
		FileSHA256: fmt.Sprintf("big-%d-%d", userID, n), Mapping: "{}", CreatedAt: a.clock.Now()}, inputs, a.queue.EnqueueBatch)
	if err != nil {
		t.Fatal(err)
	}
	return job.ID
}

// TestAccountsTakeTurnsOnTheBatchWorkers: with both of the queue's workers on one account's large jobs, another
// account's small job waited for a run of a large one to end (10 s in production). A run now hands over within a
// second when another account's job waits. On both databases, with the production run length.
func TestAccountsTakeTurnsOnTheBatchWorkers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle, func(o *appOptions) { o.jobSlice = 10 * time.Second })
		tokenA, userA := a.register("large@example.com", "correct-horse", "Lars Large")
		tokenB, userB := a.register("small@example.com", "correct-horse", "Sue Small")
		for _, u := range []int64{userA.ID, userB.ID} {
			if err := a.db.SetPlan(context.Background(), u, "enterprise", nil, a.clock.Now()); err != nil {
				t.Fatal(err)
			}
			if _, err := a.db.Grant(context.Background(), u, 1_000_000, "test", "batch credits", "", a.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		large := []int64{pendingJob(t, a, userA.ID, 200_000), pendingJob(t, a, userA.ID, 200_000)}
		for _, id := range large {
			a.waitJob(tokenA, id, "processing")
		}
		start := time.Now()
		small := pendingJob(t, a, userB.ID, 10)
		done := a.waitJob(tokenB, small, "completed", "failed")
		took := time.Since(start)
		t.Logf("the small job %s in %.1f s beside two large ones", done.Status, took.Seconds())
		if took > 5*time.Second {
			t.Errorf("the small job took %s while the large ones ran, want a handover within seconds", took)
		}
		for _, id := range large {
			if j := a.job(tokenA, id); j.Status != "processing" {
				t.Errorf("large job %d is %s: the measurement needs it still running", id, j.Status)
			}
		}
	})
}
