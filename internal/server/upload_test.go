package server

// Tests of the bounds on batch uploads and downloads (DESIGN.md section 5, "Abuse limits"): spreadsheet reads wait
// for one of a few slots, each user's stored batch data is bounded by the plan, a preview keeps only its table
// until its job is created, and downloads stream. Also the checks of the batch routes' text, page numbers and
// webhook addresses.

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/gate"
	"valuator/internal/testdb"
)

// batchFileCount is how many previews the store keeps (for every user).
func (a *testApp) batchFileCount() int {
	a.t.Helper()
	var n int
	if err := a.db.SQL().QueryRow(`SELECT COUNT(*) FROM batch_files`).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// preview uploads a file for preview and returns its uploadId.
func (a *testApp) preview(token, name string, content []byte) (int64, resp) {
	a.t.Helper()
	r := a.do(multipartReq(a.t, "POST", "/api/jobs/preview", token, name, content, nil))
	var pv struct{ UploadID int64 }
	if r.status == http.StatusOK {
		r.json(a.t, &pv)
	}
	return pv.UploadID, r
}

// TestUploadsWaitForAReadSlot: every route that reads a spreadsheet takes a slot of the one gate before it reads
// the body; when none frees within the wait it answers 429 with Retry-After (the public upload with its rate-limit
// headers too), and nothing is stored.
func TestUploadsWaitForAReadSlot(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		g := gate.New(1)
		a := newTestApp(t, dbURL, func(o *appOptions) {
			o.holdJobs = true
			o.readGate, o.readWait = g, 30*time.Millisecond
		})
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		uploadID, r := a.preview(token, "homes.csv", batchCSV(3))
		expectStatus(t, r, http.StatusOK)

		// The test holds the only slot: a read of a large file in progress.
		release, err := g.Enter(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		public := withKey(multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(3), nil), k.Value)
		for _, tt := range []struct {
			name string
			rq   req
		}{
			{"preview", multipartReq(t, "POST", "/api/jobs/preview", token, "homes.csv", batchCSV(3), nil)},
			{"job from a file", multipartReq(t, "POST", "/api/jobs", token, "homes.csv", batchCSV(3), nil)},
			{"job from a preview", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"uploadId": uploadID, "mapping": map[string]string{"Property Address": "address",
					"City": "city", "State": "state", "Zip Code": "zip"}}}},
			{"public upload", public},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(tt.rq)
				if e := expectField(t, r, http.StatusTooManyRequests, ""); e.Code != "rate_limited" || e.RetryAfter < 1 {
					t.Errorf("busy answer %s, want code rate_limited with retryAfter", r.body)
				}
				if r.header.Get("Retry-After") == "" {
					t.Errorf("429 without Retry-After: %v", r.header)
				}
				if tt.name == "public upload" {
					rateHeaders(t, r)
				}
			})
		}
		if n := a.batchFileCount(); n != 1 {
			t.Errorf("%d previews stored, want the 1 made before the gate was full", n)
		}
		if n := a.jobCount(token); n != 0 {
			t.Errorf("%d jobs created while every read slot was taken", n)
		}

		// Once the slot is free, the same uploads go through.
		release()
		expectStatus(t, a.do(public), http.StatusAccepted)
		if g.InUse() != 0 {
			t.Errorf("%d read slots still taken after the uploads answered", g.InUse())
		}
	})
}

// fillStorage makes the user keep bytes of batch data: an old preview, stored directly.
func fillStorage(t *testing.T, a *testApp, userID int64, bytes int) {
	t.Helper()
	content := make([]byte, bytes)
	_, _ = rand.Read(content)
	if _, err := a.db.SaveBatchFile(context.Background(), userID, "old.csv", "sha-of-old", content, a.clock.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestBatchStorageQuota: a user whose previews and pending jobs fill the plan's storage quota can store no more:
// previews, dashboard jobs and public uploads are answered 413 storage_quota_exceeded with what is in use and what
// to do, and nothing is stored; once the old data is deleted, uploads work again.
func TestBatchStorageQuota(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		// The Free plan keeps 10 MB; Jane keeps all but 100 bytes of it.
		fillStorage(t, a, u.ID, 10<<20-100)

		refused := func(t *testing.T, r resp) {
			t.Helper()
			e := expectField(t, r, http.StatusRequestEntityTooLarge, "")
			if e.Code != "storage_quota_exceeded" {
				t.Errorf("code %q, want storage_quota_exceeded: %s", e.Code, r.body)
			}
			for _, want := range []string{"10.0 MB", "Free plan", "24 hours"} {
				if !strings.Contains(e.Error, want) {
					t.Errorf("message %q does not say %q", e.Error, want)
				}
			}
		}
		_, r := a.preview(token, "homes.csv", batchCSV(60))
		refused(t, r)
		refused(t, a.do(req{method: "POST", path: "/api/jobs", token: token, body: rowsJob(60)}))
		refused(t, a.do(multipartReq(t, "POST", "/api/jobs", token, "homes.csv", batchCSV(60), nil)))
		refused(t, a.do(withKey(multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(60), nil), k.Value)))
		if n := a.batchFileCount(); n != 1 {
			t.Errorf("%d previews stored, want only the old one", n)
		}
		if n := a.jobCount(token); n != 0 {
			t.Errorf("%d jobs created past the quota", n)
		}

		// Another user's quota is their own.
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		_, r = a.preview(john, "homes.csv", batchCSV(60))
		expectStatus(t, r, http.StatusOK)

		// A day later the old preview is deleted, and Jane can upload again.
		a.clock.Advance(25 * time.Hour)
		if _, _, err := a.db.PurgeBatches(context.Background(), a.clock.Now().Add(-24*time.Hour), a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		_, r = a.preview(token, "homes.csv", batchCSV(60))
		expectStatus(t, r, http.StatusOK)
		a.createRowsJob(token, 60)
	})
}

// TestBatchStorageQuotaHoldsUnderParallelUploads: the quota is checked in the transaction that stores, so uploads
// of one user at once cannot together store past it.
func TestBatchStorageQuotaHoldsUnderParallelUploads(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		ctx := context.Background()
		file := batchCSV(90)
		_, r := a.preview(token, "homes.csv", file)
		expectStatus(t, r, http.StatusOK)
		one, err := a.db.BatchStoredBytes(ctx, u.ID)
		if err != nil || one <= 0 {
			t.Fatalf("stored bytes after one preview = %d, %v", one, err)
		}
		// Room for two more previews of the file, not three.
		fillStorage(t, a, u.ID, int(10<<20-one*3-one/2))

		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		form := multipartReq(t, "POST", "/api/jobs/preview", token, "homes.csv", file, nil)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// An account has at most two uploads in flight; the others are told to retry (429), and do,
				// so that every upload is finally weighed against the quota.
				var res *http.Response
				for try := 0; ; try++ {
					rq, _ := http.NewRequest("POST", a.srv.URL+"/api/jobs/preview", strings.NewReader(form.raw))
					rq.Header.Set("Content-Type", form.contentType)
					rq.Header.Set("Authorization", "Bearer "+token)
					var err error
					if res, err = a.srv.Client().Do(rq); err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode != http.StatusTooManyRequests || try == 200 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				mu.Lock()
				codes[res.StatusCode]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes[http.StatusOK] != 2 || codes[http.StatusRequestEntityTooLarge] != n-2 {
			t.Errorf("statuses %v, want 2 × 200 and %d × 413", codes, n-2)
		}
		if used, _ := a.db.BatchStoredBytes(ctx, u.ID); used > 10<<20 {
			t.Errorf("Jane keeps %d bytes, over the Free plan's %d", used, 10<<20)
		}
	})
}

// TestPreviewKeepsTheTableUntilItsJob: a preview keeps the parsed table, compressed, not the uploaded file; the
// job is made from it; a job made deletes it (a second confirmation finds it gone), while a refused one (402)
// keeps it for a retry; and the storage it took is freed for the job's inputs.
func TestPreviewKeepsTheTableUntilItsJob(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		ctx := context.Background()
		file := batchCSV(80)
		id, r := a.preview(token, "homes.csv", file)
		expectStatus(t, r, http.StatusOK)
		_, sha, stored, err := a.db.BatchFile(ctx, u.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if string(stored) == string(file) || sha == "" {
			t.Errorf("the preview kept the uploaded file (%d bytes) instead of its table", len(stored))
		}
		if len(stored) < 2 || stored[0] != 0x1f || stored[1] != 0x8b {
			t.Errorf("the kept table is not gzip-compressed: % x", stored[:min(len(stored), 8)])
		}

		confirm := func() resp {
			t.Helper()
			return a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"uploadId": id,
				"mapping": map[string]string{"Property Address": "address", "City": "city", "State": "state",
					"Zip Code": "zip", "List Price": "ignore"}}})
		}
		// Out of credits: refused, and the preview stays for a retry.
		spendTo(t, a, u.ID, 0)
		expectStatus(t, confirm(), http.StatusPaymentRequired)
		if n := a.batchFileCount(); n != 1 {
			t.Fatalf("a refused job left %d previews, want 1", n)
		}
		spendTo(t, a, u.ID, 100)
		r = confirm()
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		if j.TotalProperties != 81 || j.FileName != "homes.csv" {
			t.Errorf("job from the kept table = %+v, want 81 rows of homes.csv", j)
		}
		if n := a.batchFileCount(); n != 0 {
			t.Errorf("%d previews kept after the job was made from it, want 0", n)
		}
		// One preview makes one job.
		r = confirm()
		if e := expectField(t, r, http.StatusNotFound, ""); e.Code != "upload_not_found" {
			t.Errorf("second confirmation: %s", r.body)
		}
		if n := a.jobCount(token); n != 1 {
			t.Errorf("%d jobs from one preview", n)
		}
		// What Jane keeps now is the job's inputs, the preview's table no longer.
		used, err := a.db.BatchStoredBytes(ctx, u.ID)
		if err != nil || used <= 0 || used > 81*200 {
			t.Errorf("stored after the job = %d bytes (%v), want the inputs of 81 rows", used, err)
		}
	})
}

// TestPreviewsOfAnOlderVersionAreUploadedAgain: a preview stored before previews kept their table holds the file,
// which is no longer read: confirming it asks for the file again instead of failing.
func TestPreviewsOfAnOlderVersionAreUploadedAgain(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.holdJobs = true })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	id, r := a.preview(token, "homes.csv", batchCSV(3))
	expectStatus(t, r, http.StatusOK)
	if _, err := a.db.SQL().Exec(`UPDATE batch_files SET content_format = 'upload'`); err != nil {
		t.Fatal(err)
	}
	r = a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"uploadId": id,
		"mapping": map[string]string{"Property Address": "address", "City": "city", "State": "state", "Zip Code": "zip"}}})
	if e := expectField(t, r, http.StatusNotFound, ""); e.Code != "upload_not_found" {
		t.Errorf("old preview: %s", r.body)
	}
}

// TestBatchPagesAreBounded: a page number past 1,000,000 is a 400 naming page on both databases (it made
// PostgreSQL's offset overflow into a 500, and SQLite answer page 1).
func TestBatchPagesAreBounded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		job := a.createRowsJob(token, 3)
		for _, tt := range []struct {
			query  string
			status int
			field  string
		}{
			{"page=9223372036854775807", 400, "page"},
			{"page=9223372036854775808", 400, "page"},
			{"page=1000001", 400, "page"},
			{"page=1000000&limit=1000", 200, ""},
			{"limit=9223372036854775807", 400, "limit"},
		} {
			for _, rq := range []req{
				{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?%s", job.ID, tt.query), token: token},
				withKey(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d?%s", job.ID, tt.query)}, k.Value),
			} {
				t.Run(rq.path, func(t *testing.T) {
					rq.badRequest = tt.status != 200
					r := a.do(rq)
					if tt.status == 200 {
						expectStatus(t, r, http.StatusOK)
						var page struct {
							Data, Results []resultAnswer
						}
						r.json(t, &page)
						if len(page.Data)+len(page.Results) != 0 {
							t.Errorf("page 1,000,000 of 3 rows has rows: %s", r.body)
						}
						return
					}
					expectField(t, r, tt.status, tt.field)
				})
			}
		}
	})
}

// TestBatchNamesAreText: names the batch routes store (an uploaded file's, a job's fileName) and the
// Idempotency-Key are one line of text that displays as what it is; otherwise a 400 names the field.
func TestBatchNamesAreText(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		rows := rowsJob(2)
		named := func(field, name string) map[string]any {
			body := map[string]any{"type": "batch", "inputData": map[string]any{"properties": rows["inputData"].(map[string]any)["properties"]}}
			if field == "fileName" {
				body["fileName"] = name
			} else {
				body["inputData"].(map[string]any)["originalFileName"] = name
			}
			return body
		}
		public := func(header map[string]string) req {
			rq := withKey(multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(2), nil), k.Value)
			for h, v := range header {
				rq.header[h] = v
			}
			return rq
		}
		for _, tt := range []struct {
			name  string
			rq    req
			field string
		}{
			{"preview file name with a text-direction override", multipartReq(t, "POST", "/api/jobs/preview", token,
				"invoice\u202ecsv.exe.csv", batchCSV(2), nil), "file"},
			{"preview file name with a line break", multipartReq(t, "POST", "/api/jobs/preview", token,
				"homes\u2028.csv", batchCSV(2), nil), "file"},
			{"preview file name too long", multipartReq(t, "POST", "/api/jobs/preview", token,
				strings.Repeat("h", 300)+".csv", batchCSV(2), nil), "file"},
			{"job upload file name with NUL", multipartReq(t, "POST", "/api/jobs", token, "homes\x00.csv", batchCSV(2), nil), "file"},
			{"job fileName with a line break", req{method: "POST", path: "/api/jobs", token: token,
				body: named("fileName", "list\n.csv")}, "fileName"},
			{"job fileName of 256 characters", req{method: "POST", path: "/api/jobs", token: token,
				body: named("fileName", strings.Repeat("f", 252)+".csv")}, "fileName"},
			{"job originalFileName with an isolate", req{method: "POST", path: "/api/jobs", token: token,
				body: named("originalFileName", "list\u2067.csv")}, "inputData.originalFileName"},
			{"public Idempotency-Key with a tab", public(map[string]string{"Idempotency-Key": "order\t42"}), "Idempotency-Key"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				expectField(t, a.do(tt.rq), http.StatusBadRequest, tt.field)
			})
		}
		if n := a.jobCount(token); n != 0 {
			t.Errorf("%d jobs created from refused names", n)
		}
		if n := a.batchFileCount(); n != 0 {
			t.Errorf("%d previews stored from refused names", n)
		}
		// A name of 255 characters, and one in another script with a right-to-left mark, are fine.
		for _, name := range []string{strings.Repeat("f", 251) + ".csv", "\u05d3\u05d9\u05e8\u05d5\u05ea\u200f.csv"} {
			r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: named("fileName", name)})
			expectStatus(t, r, http.StatusCreated)
		}
	})
}

// fakeResolver answers DNS lookups of webhook hosts from a table, so tests need no DNS.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if len(addrs) == 1 && addrs[0] == "timeout" {
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true, IsTemporary: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// TestWebhookURLMustReachAPublicAddress: in production a job's webhook URL whose host is, or resolves only to, a
// special-purpose address (private, loopback, shared, link-local, translated) is refused with a 400 naming
// webhookUrl when the job is created; development still allows local receivers.
func TestWebhookURLMustReachAPublicAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, production, func(o *appOptions) {
			o.holdJobs = true
			o.resolver = fakeResolver{
				"hooks.example.com":    {"93.184.216.34"},
				"mixed.example.com":    {"10.0.0.5", "2606:4700:4700::1111"},
				"internal.example.com": {"10.0.0.5", "100.64.0.1", "fd00::1"},
				"cgnat.example.com":    {"100.100.100.200"},
				"nat64.example.com":    {"64:ff9b::a9fe:a9fe"},
				"flaky.example.com":    {"timeout"},
			}
		})
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		for _, tt := range []struct {
			url string
			ok  bool
		}{
			{"https://hooks.example.com/valuator", true},
			{"https://mixed.example.com/valuator", true},
			{"https://flaky.example.com/valuator", true}, // checked again when it is sent
			{"https://93.184.216.34/hook", true},
			{"https://internal.example.com/valuator", false},
			{"https://cgnat.example.com/valuator", false},
			{"https://nat64.example.com/valuator", false},
			{"https://nowhere.example.com/valuator", false},
			{"https://localhost/hook", false},
			{"https://169.254.169.254/latest/meta-data", false},
			{"https://100.64.0.1/hook", false},
			{"https://[::ffff:127.0.0.1]/hook", false},
			{"https://[fe80::1]/hook", false},
		} {
			t.Run(tt.url, func(t *testing.T) {
				body := rowsJob(2)
				body["webhookUrl"] = tt.url
				r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: body, badRequest: !tt.ok})
				if tt.ok {
					expectStatus(t, r, http.StatusCreated)
					return
				}
				expectField(t, r, http.StatusBadRequest, "webhookUrl")
				// The public upload checks it as well.
				rq := withKey(multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(2),
					map[string]string{"webhookUrl": tt.url}), k.Value)
				rq.badRequest = true
				expectField(t, a.do(rq), http.StatusBadRequest, "webhookUrl")
			})
		}
		if n := a.jobCount(token); n != 4 {
			t.Errorf("%d jobs, want the 4 with a public webhook", n)
		}
	})

	// Development: a local receiver is fine, as before.
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.holdJobs = true })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	body := rowsJob(2)
	body["webhookUrl"] = "http://127.0.0.1:9/hook"
	expectStatus(t, a.do(req{method: "POST", path: "/api/jobs", token: token, body: body}), http.StatusCreated)
}

// TestOwnerSeesTheWebhookSecret: the job's owner sees its webhook signing secret in the dashboard (the create
// answer, the job, the list), to check the X-Valuator-Signature of its webhooks; a job without a webhook has
// none, and other users still get 404.
func TestOwnerSeesTheWebhookSecret(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		type secretAnswer struct {
			ID            int64
			WebhookSecret *string
		}
		body := rowsJob(2)
		body["webhookUrl"] = "https://hooks.example.com/valuator"
		r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: body})
		expectStatus(t, r, http.StatusCreated)
		var created secretAnswer
		r.json(t, &created)
		if created.WebhookSecret == nil || !strings.HasPrefix(*created.WebhookSecret, "whsec_") {
			t.Fatalf("create answer %s has no webhookSecret", r.body)
		}
		secret := *created.WebhookSecret
		plain := a.createRowsJob(token, 2)

		var got secretAnswer
		a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d", created.ID), token: token}).json(t, &got)
		if got.WebhookSecret == nil || *got.WebhookSecret != secret {
			t.Errorf("GET job: webhookSecret %v, want %q", got.WebhookSecret, secret)
		}
		var list []secretAnswer
		a.do(req{method: "GET", path: "/api/jobs", token: token}).json(t, &list)
		for _, j := range list {
			switch {
			case j.ID == created.ID && (j.WebhookSecret == nil || *j.WebhookSecret != secret):
				t.Errorf("list: job %d webhookSecret %v, want %q", j.ID, j.WebhookSecret, secret)
			case j.ID == plain.ID && j.WebhookSecret != nil:
				t.Errorf("list: job %d without a webhook has webhookSecret %q", j.ID, *j.WebhookSecret)
			}
		}
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d", created.ID), token: john})
		expectStatus(t, r, http.StatusNotFound)
		if strings.Contains(string(r.body), secret) {
			t.Errorf("John sees Jane's secret: %s", r.body)
		}
	})
}
