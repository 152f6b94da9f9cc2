package server

import (
	"bufio"
	"bytes"
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

// rawDownload asks for a job's CSV on a connection of its own, with a receive buffer of rcvBuf bytes, and reads the
// answer's head. With a small buffer a client that stops reading the body (a stalled download) stops the server's
// writes as soon as the file fills the server's send buffer. It answers the connection and the answer, whose body is
// left unread.
func rawDownload(t *testing.T, a *testApp, path, header string, rcvBuf int) (net.Conn, *http.Response) {
	t.Helper()
	u, err := url.Parse(a.srv.URL)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Error(err)
		return nil, nil
	}
	t.Cleanup(func() { c.Close() })
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(rcvBuf)
	}
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n\r\n", path, u.Host, header); err != nil {
		t.Error(err)
		return nil, nil
	}
	_ = c.SetReadDeadline(time.Now().Add(15 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Errorf("no answer to a download: %v", err)
		return nil, nil
	}
	return c, res
}

// TestStalledDownloadsLoseTheirSlots (issue 36, M-1): two accounts whose downloads of large results stopped reading
// held every download slot (2 each of the 4 of a machine of 1 or 2 cores) until the 5-minute write timeout, and every
// other customer's download, on the dashboard and through the API, was answered 429. Now two accounts' shares leave a
// slot for a third, and a download that takes nothing for the stall period is cut off and its slot given back. On
// both databases.
func TestStalledDownloadsLoseTheirSlots(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		const stall = 500 * time.Millisecond
		a := newTestApp(t, dbURL, func(o *appOptions) {
			o.holdJobs = true
			o.downloadStall = stall
		})
		tokenA, userA := a.register("stall-a@example.com", "correct-horse", "Ada Stall")
		tokenB, userB := a.register("stall-b@example.com", "correct-horse", "Ben Stall")
		tokenC, userC := a.register("waits@example.com", "correct-horse", "Cy Waits")
		keyB := a.createKey(tokenB, "exports", 1000).Value
		// 30,000 rows are about 6 MB of CSV: more than the server's send buffer (at most 4 MB) and the client's
		// receive buffer hold, so the stalled downloads' writes block.
		const n = 30_000
		jobA, jobB := bigJob(t, a, userA.ID, n), bigJob(t, a, userB.ID, n)
		jobC := bigJob(t, a, userC.ID, 10)
		pathA := fmt.Sprintf("/api/jobs/%d/download", jobA)
		pathB := fmt.Sprintf("/api/batch/download/%d", jobB)
		asA := req{method: "GET", path: pathA, token: tokenA}
		asB := req{method: "GET", path: pathB, header: map[string]string{"x-api-key": keyB}}

		// A, on the dashboard, and B, through the API, each start as many downloads as their share allows, at once,
		// and stop reading.
		type stalled struct {
			c   net.Conn
			res *http.Response
		}
		var held []stalled
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 2 * DownloadsPerAccount {
			path, header := pathA, "Authorization: Bearer "+tokenA
			if i%2 == 1 {
				path, header = pathB, "x-api-key: "+keyB
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, res := rawDownload(t, a, path, header, 4<<10)
				if res == nil {
					return
				}
				mu.Lock()
				held = append(held, stalled{c, res})
				mu.Unlock()
				if res.StatusCode != http.StatusOK {
					t.Errorf("a download to stall: %d, want 200", res.StatusCode)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		stalledAt := time.Now()

		// Meanwhile C downloads the whole of its file.
		r := a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download", jobC), token: tokenC})
		expectStatus(t, r, http.StatusOK)
		if lines := bytes.Count(r.body, []byte("\r\n")); lines != 10+1 {
			t.Errorf("C's file has %d lines, want 11", lines)
		}
		// A and B still hold their shares after C's download was admitted (a slot once given back is not taken
		// again by them): C was not served from a slot of theirs that had freed.
		for _, rq := range []req{asA, asB} {
			r := a.do(rq)
			expectStatus(t, r, http.StatusTooManyRequests)
			if r.header.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After: %v", r.header)
			}
			if e := r.errBody(t); e.Code != "rate_limited" {
				t.Errorf("429 code %q, want rate_limited", e.Code)
			}
		}

		// After the stall period the stalled downloads are cut off and their slots free: A and B download again.
		for _, rq := range []req{asA, asB} {
			deadline := time.Now().Add(stall + 10*time.Second)
			for {
				r := a.do(rq)
				if r.status == http.StatusOK {
					t.Logf("%s answered 200, the whole file, %s after the downloads stalled", rq.path,
						time.Since(stalledAt).Round(time.Millisecond))
					if lines := bytes.Count(r.body, []byte("\r\n")); lines != n+1 {
						t.Errorf("%s: %d lines, want %d", rq.path, lines, n+1)
					}
					break
				}
				if r.status != http.StatusTooManyRequests || time.Now().After(deadline) {
					t.Fatalf("%s while the stalled downloads should be cut off: %d %s", rq.path, r.status, r.body)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		// The stalled connections were closed by the server in the middle of the file. A socket its server closed
		// answers what comes to it with a reset (what the server had sent before is not all delivered: the kernel
		// gives up on a client that takes nothing); one still open would send the rest of the file once read.
		for _, h := range held {
			_ = h.c.SetDeadline(time.Now().Add(10 * time.Second))
			_, _ = fmt.Fprintf(h.c, "GET /api/site HTTP/1.1\r\nHost: valuator.test\r\n\r\n")
			b, err := io.ReadAll(h.res.Body)
			if err == nil || os.IsTimeout(err) {
				t.Errorf("a stalled download: %d bytes then %v, want the connection cut off mid-file", len(b), err)
			}
		}

		// A client that takes the file a megabyte at a time, pausing for half the stall period between, is not cut
		// off, however long the whole file takes: the deadline is the stall period from each write, not from the
		// start. (Its receive buffer is larger than a loopback segment, 64 KB: a smaller one makes TCP itself wait
		// on its zero-window probes. It reads each part at once: a blocked write resumes only once the client has
		// taken a third of the server's send buffer, up to 4 MB on loopback.)
		_, res := rawDownload(t, a, pathA, "Authorization: Bearer "+tokenA, 256<<10)
		if res == nil || res.StatusCode != http.StatusOK {
			t.Fatalf("a paced download: %v", res)
		}
		start, buf, got := time.Now(), make([]byte, 1<<20), 0
		var err error
		for err == nil {
			var m int
			m, err = io.ReadFull(res.Body, buf)
			got += bytes.Count(buf[:m], []byte("\n")) // a CRLF may straddle two parts
			time.Sleep(stall / 2)
		}
		took := time.Since(start)
		if (err != io.EOF && err != io.ErrUnexpectedEOF) || got != n+1 {
			t.Errorf("a paced download: %d lines then %v, want %d lines", got, err, n+1)
		}
		if took < 2*stall {
			t.Errorf("the paced download took %s, too little to tell it from one that fits in the stall period", took)
		}
		t.Logf("a paced download took %s, %.0f stall periods", took.Round(time.Millisecond), float64(took)/float64(stall))
	})
}
