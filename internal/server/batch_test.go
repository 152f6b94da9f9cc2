package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"valuator/internal/jobs"
	"valuator/internal/testdb"
)

// multipartReq builds a multipart upload: the file (when name is not empty) and other fields.
func multipartReq(t *testing.T, method, path, token string, fileName string, content []byte, fields map[string]string) req {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if fileName != "" {
		fw, err := mw.CreateFormFile("file", fileName)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(content)
	}
	mw.Close()
	return req{method: method, path: path, token: token, raw: buf.String(), contentType: mw.FormDataContentType()}
}

// batchCSV is a file of n homes of the test market, plus one address with no market data.
func batchCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("Property Address,City,State,Zip Code,List Price\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d Test Ave N,Seattle,WA,98103,%d\n", 3000+i*2, 500000+i)
	}
	b.WriteString("1 Main St,Topeka,KS,66603,1\n")
	return []byte(b.String())
}

type jobAnswer struct {
	ID                                                         int64
	Status, FileName, Source                                   string
	TotalProperties, ProcessedProperties, SuccessfulProperties int
	FailedProperties, DroppedRows                              int
	CreditsUsed                                                int64
	StatusMessage                                              *string
	ResultsAvailable                                           bool
}

type resultAnswer struct {
	Line           int
	Address        string
	FullAddress    string
	Status         string
	EstimatedValue *int64
	MatchCode      *string
	Reason         *string
	Error          *string
}

func (a *testApp) job(token string, id int64) jobAnswer {
	a.t.Helper()
	r := a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d", id), token: token})
	expectStatus(a.t, r, http.StatusOK)
	var j jobAnswer
	r.json(a.t, &j)
	return j
}

// waitJob polls a job until it is in one of the statuses.
func (a *testApp) waitJob(token string, id int64, statuses ...string) jobAnswer {
	a.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		j := a.job(token, id)
		for _, s := range statuses {
			if j.Status == s {
				return j
			}
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("job %d still %s (%d/%d) after 60 s\n%s", id, j.Status, j.ProcessedProperties, j.TotalProperties, a.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (a *testApp) credits(token string) int64 {
	a.t.Helper()
	var me struct{ Credits int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(a.t, &me)
	return me.Credits
}

func TestBatchJobFromTheDashboard(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, jane := a.register("jane@example.com", "correct-horse", "Jane Doe")
		janeID := jane.ID
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")

		// Preview: the columns are detected, the file is kept for the confirmation.
		r := a.do(multipartReq(t, "POST", "/api/jobs/preview", token, "homes.csv", batchCSV(20), nil))
		expectStatus(t, r, http.StatusOK)
		var pv struct {
			UploadID     int64
			Headers      []string
			SampleRows   [][]string
			RowCount     int
			Mapping      map[string]string
			MappingValid bool
			PlanLimit    int
		}
		r.json(t, &pv)
		if pv.RowCount != 21 || len(pv.SampleRows) != 5 || !pv.MappingValid || pv.PlanLimit != 100 ||
			pv.Mapping["Property Address"] != "address" || pv.Mapping["Zip Code"] != "zip" || pv.Mapping["List Price"] != "ignore" {
			t.Fatalf("preview = %+v", pv)
		}
		// Another user cannot use this upload.
		r = a.do(req{method: "POST", path: "/api/jobs", token: john, body: map[string]any{"uploadId": pv.UploadID, "mapping": pv.Mapping}})
		expectStatus(t, r, http.StatusNotFound)

		r = a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"uploadId": pv.UploadID, "mapping": pv.Mapping}})
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		if j.TotalProperties != 21 || j.FileName != "homes.csv" || j.Source != "dashboard" {
			t.Errorf("created job = %+v", j)
		}
		done := a.waitJob(token, j.ID, "completed")
		if done.SuccessfulProperties != 20 || done.FailedProperties != 1 || done.ProcessedProperties != 21 || done.CreditsUsed != 20 {
			t.Errorf("finished job = %+v", done)
		}
		// One credit per valued property, through the ledger.
		if c := a.credits(token); c != 80 {
			t.Errorf("credits = %d, want 80", c)
		}
		entries, err := a.db.Ledger(context.Background(), janeID, 100)
		var sum int64
		for _, e := range entries {
			if e.Kind == "batch" {
				sum += e.Amount
			}
		}
		if err != nil || sum != -20 {
			t.Errorf("ledger batch total = %d (%v), want -20", sum, err)
		}

		// Results, in file order, with the failure explained.
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?limit=25", j.ID), token: token})
		expectStatus(t, r, http.StatusOK)
		var page struct {
			Data       []resultAnswer
			Pagination struct{ Total int }
		}
		r.json(t, &page)
		if len(page.Data) != 21 || page.Pagination.Total != 21 || page.Data[0].Line != 2 || page.Data[0].Status != "success" ||
			page.Data[0].EstimatedValue == nil || page.Data[20].Status != "failed" || page.Data[20].Error == nil {
			t.Errorf("results = %+v", page)
		}
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?status=failed", j.ID), token: token})
		r.json(t, &page)
		if page.Pagination.Total != 1 || *page.Data[0].Error != "We have no sales near 66603" || page.Data[0].Reason == nil ||
			*page.Data[0].Reason != "area_not_covered" {
			t.Errorf("failed results = %+v", page)
		}

		// Downloads: CSV and XLSX with every row.
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download", j.ID), token: token})
		expectStatus(t, r, http.StatusOK)
		recs, err := csv.NewReader(bytes.NewReader(r.body)).ReadAll()
		if err != nil || len(recs) != 22 {
			t.Errorf("CSV: %d records, %v", len(recs), err)
		}
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download?format=xlsx", j.ID), token: token})
		expectStatus(t, r, http.StatusOK)
		f, err := excelize.OpenReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatalf("XLSX: %v", err)
		}
		rows, _ := f.GetRows(f.GetSheetName(0))
		if len(rows) != 22 {
			t.Errorf("XLSX rows = %d, want 22", len(rows))
		}

		// The list, and the request history's record of the batch.
		var list []jobAnswer
		a.do(req{method: "GET", path: "/api/jobs", token: token}).json(t, &list)
		if len(list) != 1 || list[0].ID != j.ID {
			t.Errorf("jobs = %+v", list)
		}
		var hist struct {
			Data []struct {
				APIService  string
				CreditsUsed int64
			}
		}
		a.do(req{method: "GET", path: "/api/usage/history", token: token}).json(t, &hist)
		if len(hist.Data) != 1 || hist.Data[0].APIService != "batch" || hist.Data[0].CreditsUsed != 20 {
			t.Errorf("history = %+v", hist)
		}

		// Another user's job is not found, whatever they try.
		for _, rq := range []req{
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d", j.ID)},
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results", j.ID)},
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download", j.ID)},
			{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", j.ID)},
			{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID)},
		} {
			rq.token = john
			expectStatus(t, a.do(rq), http.StatusNotFound)
		}
		var johns []jobAnswer
		a.do(req{method: "GET", path: "/api/jobs", token: john}).json(t, &johns)
		if len(johns) != 0 {
			t.Errorf("john sees %+v", johns)
		}
		// A completed job cannot be cancelled or retried.
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", j.ID), token: token}), http.StatusConflict)
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token}), http.StatusConflict)
	})
}

func TestBatchUploadsAreChecked(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle)
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	for _, tt := range []struct {
		name, file string
		content    []byte
		status     int
		title      string
	}{
		{"wrong type", "homes.pdf", []byte("%PDF-1.4"), http.StatusUnsupportedMediaType, "Invalid File Type"},
		{"empty", "homes.csv", nil, http.StatusBadRequest, ""},
		{"header only", "homes.csv", []byte("Address,City,State,Zip\n"), http.StatusBadRequest, "Empty File"},
		{"junk", "homes.csv", []byte("\x00\x01\x02\x03PK\x00\x00junk"), http.StatusUnsupportedMediaType, "Invalid File Type"},
		{"damaged quote", "homes.csv", []byte("Address,City\n\"1 Main St,Seattle\n"), http.StatusBadRequest, "Parse Error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rq := multipartReq(t, "POST", "/api/jobs/preview", token, tt.file, tt.content, nil)
			rq.badRequest = true
			r := a.do(rq)
			expectStatus(t, r, tt.status)
			var e struct{ Title, Field string }
			r.json(t, &e)
			if e.Field != "file" || (tt.title != "" && e.Title != tt.title) {
				t.Errorf("error = %s", r.body)
			}
		})
	}
	// No file, not multipart.
	rq := multipartReq(t, "POST", "/api/jobs/preview", token, "", nil, map[string]string{"mapping": "{}"})
	rq.badRequest = true
	expectStatus(t, a.do(rq), http.StatusBadRequest)
	expectStatus(t, a.do(req{method: "POST", path: "/api/jobs/preview", token: token, raw: "x", contentType: "text/plain", badRequest: true}),
		http.StatusUnsupportedMediaType)
	// Over 50 MB.
	big := bytes.Repeat([]byte("1 Main St,Seattle,WA,98103\n"), 51<<20/27+1)
	rq = multipartReq(t, "POST", "/api/jobs/preview", token, "big.csv", big, nil)
	rq.badRequest = true
	r := a.do(rq)
	expectStatus(t, r, http.StatusRequestEntityTooLarge)
	if !strings.Contains(string(r.body), "File Too Large") {
		t.Errorf("too large: %s", r.body)
	}

	// More rows than the plan allows are refused with the plan's limit, by the preview already (reading stops at
	// the first row past it), and so is a job made from such a file; an invalid mapping names the field.
	for _, path := range []string{"/api/jobs/preview", "/api/jobs"} {
		rq = multipartReq(t, "POST", path, token, "homes.csv", batchCSV(150), nil)
		rq.badRequest = true
		r = a.do(rq)
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "file" || !strings.Contains(e.Error, "allows up to 100 properties") {
			t.Errorf("%s over the Free plan's 100: %s", path, r.body)
		}
	}
	r = a.do(multipartReq(t, "POST", "/api/jobs/preview", token, "homes.csv", batchCSV(20), nil))
	var pv struct {
		UploadID int64
		Mapping  map[string]string
	}
	r.json(t, &pv)
	r = a.do(req{method: "POST", path: "/api/jobs", token: token, badRequest: true,
		body: map[string]any{"uploadId": pv.UploadID, "mapping": map[string]string{"Property Address": "address"}}})
	expectStatus(t, r, http.StatusBadRequest)
	if e := r.errBody(t); e.Field != "mapping" {
		t.Errorf("bad mapping: %s", r.body)
	}
	// An upload that does not exist.
	expectStatus(t, a.do(req{method: "POST", path: "/api/jobs", token: token,
		body: map[string]any{"uploadId": 999999, "mapping": pv.Mapping}}), http.StatusNotFound)
	// Bad page parameters and job ids.
	for _, p := range []string{"/api/jobs/abc", "/api/jobs/0/results", "/api/jobs/1/results?limit=5000", "/api/jobs/1/download?format=pdf"} {
		expectStatus(t, a.do(req{method: "GET", path: p, token: token, badRequest: true}), http.StatusBadRequest)
	}
}

// TestBatchStopsWhenCreditsRunOut: a job values what the balance pays for, stops with a clear status, and after a
// top-up a retry values the rest; every row is charged once.
func TestBatchStopsWhenCreditsRunOut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		spendTo(t, a, u.ID, 7)
		r := a.do(multipartReq(t, "POST", "/api/jobs", token, "homes.csv", batchCSV(30), nil))
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		stopped := a.waitJob(token, j.ID, "failed", "completed")
		if stopped.Status != "failed" || stopped.SuccessfulProperties != 7 || stopped.StatusMessage == nil ||
			!strings.HasPrefix(*stopped.StatusMessage, "Out of credits after valuing 7 of 31") {
			t.Fatalf("job = %+v", stopped)
		}
		if c := a.credits(token); c != 0 {
			t.Errorf("balance = %d, want 0 (the Free plan never goes below)", c)
		}
		// Retrying with no credits is refused; after a top-up it values the rest.
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token}), http.StatusPaymentRequired)
		if _, err := a.db.Grant(context.Background(), u.ID, 50, "test", "top-up", "", a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token})
		expectStatus(t, r, http.StatusOK)
		done := a.waitJob(token, j.ID, "completed", "failed")
		if done.Status != "completed" || done.SuccessfulProperties != 30 || done.FailedProperties != 1 || done.CreditsUsed != 30 {
			t.Errorf("after retry = %+v", done)
		}
		if c := a.credits(token); c != 27 {
			t.Errorf("balance = %d, want 27 (7 + 50 - 30)", c)
		}
	})
}

func TestBatchCancelAndRetry(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withSeattle, func(o *appOptions) { o.holdJobs = true })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	// The spec's payload: rows already mapped.
	props := []map[string]string{}
	for i := 0; i < 10; i++ {
		props = append(props, map[string]string{"address": fmt.Sprintf("%d Test Ave N", 3000+i*2), "city": "Seattle", "state": "WA", "zip": "98103"})
	}
	props = append(props, map[string]string{"fullAddress": "1000 N 40th St, Seattle, WA 98103"})
	r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"type": "batch", "fileName": "list.csv",
		"totalProperties": 11, "inputData": map[string]any{"properties": props, "mapping": map[string]string{}, "originalFileName": "list.csv"}}})
	expectStatus(t, r, http.StatusCreated)
	var j jobAnswer
	r.json(t, &j)
	if j.Status != "pending" || j.TotalProperties != 11 {
		t.Fatalf("job = %+v", j)
	}
	expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token}), http.StatusConflict)
	r = a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", j.ID), token: token})
	expectStatus(t, r, http.StatusOK)
	r.json(t, &j)
	if j.Status != "cancelled" {
		t.Fatalf("cancelled job = %+v", j)
	}
	a.startJobs()
	time.Sleep(200 * time.Millisecond) // the queued run starts and finds the job cancelled
	if got := a.job(token, j.ID); got.Status != "cancelled" || got.ProcessedProperties != 0 {
		t.Errorf("a cancelled job ran: %+v", got)
	}
	expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token}), http.StatusOK)
	done := a.waitJob(token, j.ID, "completed")
	if done.SuccessfulProperties != 11 {
		t.Errorf("after retry = %+v", done)
	}
}

func TestPublicBatchAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Batch", 100)

		// A webhook receiver that checks the signature.
		var mu sync.Mutex
		var got []jobs.WebhookEvent
		var sigs []string
		var bodies [][]byte
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var ev jobs.WebhookEvent
			_ = json.Unmarshal(b, &ev)
			mu.Lock()
			got, sigs, bodies = append(got, ev), append(sigs, r.Header.Get(jobs.SignatureHeader)), append(bodies, b)
			mu.Unlock()
		}))
		defer hook.Close()

		upload := func(key, idem string, content []byte) resp {
			rq := multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", content, map[string]string{"webhookUrl": hook.URL})
			rq.header = map[string]string{"x-api-key": key}
			if idem != "" {
				rq.header["Idempotency-Key"] = idem
			}
			return a.do(rq)
		}
		r := upload(k.Value, "upload-1", batchCSV(12))
		expectStatus(t, r, http.StatusAccepted)
		rateHeaders(t, r)
		var st struct {
			JobID         int64
			Status        string
			WebhookSecret string
			DownloadURL   string
			Progress      struct{ Total, Processed, Successful, Failed int }
		}
		r.json(t, &st)
		if st.Progress.Total != 13 || st.WebhookSecret == "" || st.DownloadURL != fmt.Sprintf("/api/batch/download/%d", st.JobID) {
			t.Errorf("upload = %s", r.body)
		}
		// The same Idempotency-Key again: the same job, not a second one; with another file: 409.
		r = upload(k.Value, "upload-1", batchCSV(12))
		expectStatus(t, r, http.StatusOK)
		var again struct{ JobID int64 }
		r.json(t, &again)
		if again.JobID != st.JobID {
			t.Errorf("second upload made job %d, first %d", again.JobID, st.JobID)
		}
		expectStatus(t, upload(k.Value, "upload-1", batchCSV(5)), http.StatusConflict)

		// Poll until done.
		deadline := time.Now().Add(60 * time.Second)
		for st.Status != "completed" {
			if time.Now().After(deadline) {
				t.Fatalf("job still %s", st.Status)
			}
			time.Sleep(50 * time.Millisecond)
			r = a.do(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d?limit=5", st.JobID), header: map[string]string{"x-api-key": k.Value}})
			expectStatus(t, r, http.StatusOK)
			rateHeaders(t, r)
			r.json(t, &st)
		}
		var full struct {
			Results    []resultAnswer
			Pagination struct{ Total, TotalPages int }
		}
		r.json(t, &full)
		if st.Progress.Successful != 12 || st.Progress.Failed != 1 || len(full.Results) != 5 || full.Pagination.Total != 13 || full.Pagination.TotalPages != 3 {
			t.Errorf("status = %s", r.body)
		}
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/batch/download/%d", st.JobID), header: map[string]string{"x-api-key": k.Value}})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.body), "TEST AVE N") || r.header.Get("x-ratelimit-limit") == "" {
			t.Errorf("download: %.200s", r.body)
		}

		// The webhook arrives, signed with the job's secret.
		deadline = time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			n := len(got)
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no webhook")
			}
			time.Sleep(50 * time.Millisecond)
		}
		mu.Lock()
		ev, sig, body := got[0], sigs[0], bodies[0]
		mu.Unlock()
		var ts int64
		fmt.Sscanf(sig, "t=%d,", &ts)
		if ev.Event != "batch.completed" || ev.JobID != st.JobID || ev.Progress.Successful != 12 ||
			sig != jobs.Sign(st.WebhookSecret, time.Unix(ts, 0), body) {
			t.Errorf("webhook %+v signed %q", ev, sig)
		}

		// Another user's key sees nothing of it.
		other, _ := a.register("john@example.com", "correct-horse", "John Roe")
		ok := a.createKey(other, "Other", 100)
		for _, p := range []string{"/api/batch/status/%d", "/api/batch/download/%d"} {
			expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf(p, st.JobID), header: map[string]string{"x-api-key": ok.Value}}), http.StatusNotFound)
		}
		// Without a key: 401.
		rq := multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(2), nil)
		expectStatus(t, a.do(rq), http.StatusUnauthorized)

		// After 24 hours the rows are deleted: the summary stays, the results are gone.
		a.clock.Advance(25 * time.Hour)
		if _, _, err := a.db.PurgeBatches(context.Background(), a.clock.Now().Add(-24*time.Hour), a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d", st.JobID), header: map[string]string{"x-api-key": k.Value}}), http.StatusGone)
		expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download", st.JobID), token: token}), http.StatusGone)
		if j := a.job(token, st.JobID); j.ResultsAvailable || j.SuccessfulProperties != 12 {
			t.Errorf("purged job = %+v", j)
		}
	})
}
