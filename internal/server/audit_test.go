package server

// The audit tests close two gaps of the other tests, route by route (routes.go):
//
//  (a) every route that takes input answers bad input with a 4xx in the one error shape, naming the field, and
//      never with a 500 (on SQLite and on PostgreSQL, which refuses text SQLite stores);
//  (b) every route that reads or changes a user's own data keeps another user's data out of reach.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/testdb"
)

// expectField fails unless the answer has the status, carries the one error shape and, when field is not empty,
// names field as the first bad field and in fields.
func expectField(t *testing.T, r resp, status int, field string) errorBody {
	t.Helper()
	expectStatus(t, r, status)
	e := r.errBody(t)
	if field != "" && (e.Field != field || e.Fields[field] == "") {
		t.Errorf("error %s names field %q (fields %v), want %q", r.body, e.Field, e.Fields, field)
	}
	return e
}

// withKey adds an x-api-key header to a request.
func withKey(rq req, key string) req {
	if rq.header == nil {
		rq.header = map[string]string{}
	}
	rq.header["x-api-key"] = key
	return rq
}

// rowsJob is the JSON form of POST /api/jobs with rows already mapped (api/openapi.yaml CreateJobFromRows).
func rowsJob(n int) map[string]any {
	props := []map[string]string{}
	for i := 0; i < n; i++ {
		props = append(props, map[string]string{"address": fmt.Sprintf("%d Test Ave N", 3000+i*2), "city": "Seattle",
			"state": "WA", "zip": "98103"})
	}
	return map[string]any{"type": "batch", "fileName": "list.csv", "inputData": map[string]any{"properties": props}}
}

// createRowsJob creates a job of n rows through the dashboard and returns it.
func (a *testApp) createRowsJob(token string, n int) jobAnswer {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: rowsJob(n)})
	expectStatus(a.t, r, http.StatusCreated)
	var j jobAnswer
	r.json(a.t, &j)
	return j
}

// jobCount is how many jobs a user has.
func (a *testApp) jobCount(token string) int {
	a.t.Helper()
	var list []jobAnswer
	r := a.do(req{method: "GET", path: "/api/jobs", token: token})
	expectStatus(a.t, r, http.StatusOK)
	r.json(a.t, &list)
	return len(list)
}

// TestAuditJSONBodiesAreChecked sends every JSON route (register has its own test) bodies that are not JSON, not
// one object, too large, or have a field of the wrong type.
func TestAuditJSONBodiesAreChecked(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		for _, rt := range []struct {
			method, path string
			token        string
			wrongType    string // a body with one field of the wrong type
			field        string // the field it must name
			tooLarge     bool   // whether a 1 MB body is refused (the rows form of /api/jobs takes 16 MB)
		}{
			{"POST", "/api/auth/login", "", `{"email": 5, "password": "correct-horse"}`, "email", true},
			{"POST", "/api/auth/change-password", token, `{"currentPassword": true, "newPassword": "battery-staple"}`, "currentPassword", true},
			{"POST", "/api/auth/request-password-reset", "", `{"email": ["jane@example.com"]}`, "email", true},
			{"POST", "/api/auth/reset-password", "", `{"token": 1, "password": "battery-staple"}`, "token", true},
			{"PUT", "/api/user/profile", token, `{"fullName": {}, "email": "jane@example.com"}`, "fullName", true},
			{"PUT", "/api/user/notifications", token, `{"emailNotifications": true, "usageAlerts": "yes", "weeklyReports": true, "marketingEmails": true}`, "usageAlerts", true},
			{"DELETE", "/api/user", token, `{"password": 123}`, "password", true},
			{"POST", "/api/property/lookup", token, `{"address": 12, "city": "Seattle", "state": "WA", "zip": "98103"}`, "address", true},
			{"POST", "/api/properties/download-report", token, `{"propertyData": {"address": "1 Main St", "valuation": "a lot"}}`, "propertyData.valuation", true},
			{"POST", "/api/api-keys", token, `{"name": false}`, "name", true},
			{"POST", "/api/jobs", token, `{"uploadId": "seven", "mapping": {}}`, "uploadId", false},
			{"POST", "/api/contact", "", `{"firstName": 1, "lastName": "Lovelace", "email": "ada@example.com", "subject": "general", "message": "Hi"}`, "firstName", true},
		} {
			t.Run(rt.method+" "+rt.path, func(t *testing.T) {
				send := func(raw, contentType string) resp {
					t.Helper()
					return a.do(req{method: rt.method, path: rt.path, token: rt.token, raw: raw, contentType: contentType,
						badRequest: true})
				}
				e := expectField(t, send(`{"a":1}`, "text/plain"), http.StatusUnsupportedMediaType, "")
				if e.Code != "unsupported_media_type" {
					t.Errorf("not JSON: code %q", e.Code)
				}
				expectField(t, send(`{"email": `, ""), http.StatusBadRequest, "body")
				expectField(t, send(" ", ""), http.StatusBadRequest, "body")
				expectField(t, send(`[{}]`, ""), http.StatusBadRequest, "body")
				expectField(t, send(`{} {}`, ""), http.StatusBadRequest, "body")
				expectField(t, send(rt.wrongType, ""), http.StatusBadRequest, rt.field)
				if rt.tooLarge {
					e := expectField(t, send(`{"x":"`+strings.Repeat("x", 1<<20)+`"}`, ""), http.StatusRequestEntityTooLarge, "")
					if e.Code != "body_too_large" {
						t.Errorf("too large: code %q", e.Code)
					}
				}
			})
		}
		// None of it changed Jane's account.
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusOK)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusOK)
	})
}

// TestAuditDashboardInputNamesTheField covers the dashboard routes' bad values, path ids and query parameters
// that the other tests check only by status, or not at all.
func TestAuditDashboardInputNamesTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		job := a.createRowsJob(token, 3)

		// A preview upload of Jane's, for the uploadId form of POST /api/jobs.
		r := a.do(multipartReq(t, "POST", "/api/jobs/preview", token, "homes.csv", batchCSV(3), nil))
		expectStatus(t, r, http.StatusOK)
		var pv struct{ UploadID int64 }
		r.json(t, &pv)

		multipart := func(path, file string, content []byte, fields map[string]string) req {
			rq := multipartReq(t, "POST", path, token, file, content, fields)
			rq.badRequest = true
			return rq
		}
		jobPath := func(suffix string) string { return fmt.Sprintf("/api/jobs/%d%s", job.ID, suffix) }
		for _, tt := range []struct {
			name   string
			rq     req
			status int
			field  string
		}{
			// Accounts.
			{"reset-password short password", req{method: "POST", path: "/api/auth/reset-password",
				body: map[string]string{"token": "vr_whatever", "password": "short"}}, 400, "password"},
			{"close account without a password", req{method: "DELETE", path: "/api/user", token: token,
				body: map[string]string{}}, 400, "password"},
			{"request reset with a malformed email", req{method: "POST", path: "/api/auth/request-password-reset",
				body: map[string]string{"email": "jane@"}}, 400, "email"},
			{"profile name too long", req{method: "PUT", path: "/api/user/profile", token: token,
				body: map[string]any{"fullName": strings.Repeat("n", 201), "email": "jane@example.com"}}, 400, "fullName"},
			{"change password too long", req{method: "POST", path: "/api/auth/change-password", token: token,
				body: map[string]string{"currentPassword": "correct-horse", "newPassword": strings.Repeat("p", 1025)}}, 400, "newPassword"},

			// Reports.
			{"report without propertyData", req{method: "POST", path: "/api/properties/download-report", token: token,
				body: map[string]any{}}, 400, "propertyData"},
			{"report with empty propertyData", req{method: "POST", path: "/api/properties/download-report", token: token,
				body: map[string]any{"propertyData": map[string]any{}}}, 400, "propertyData"},
			{"report comparables not a list", req{method: "POST", path: "/api/properties/download-report", token: token,
				body: map[string]any{"propertyData": map[string]any{"address": "1 Main St", "comparables": "none"}}}, 400, "propertyData.comparables"},

			// API keys.
			{"key name too long", req{method: "POST", path: "/api/api-keys", token: token,
				body: map[string]any{"name": strings.Repeat("k", 101)}}, 400, "name"},
			{"key id not a number", req{method: "DELETE", path: "/api/api-keys/abc", token: token}, 400, "id"},
			{"key id zero", req{method: "DELETE", path: "/api/api-keys/0", token: token}, 400, "id"},
			{"key id negative", req{method: "DELETE", path: "/api/api-keys/-4", token: token}, 400, "id"},
			{"key id overflows", req{method: "DELETE", path: "/api/api-keys/99999999999999999999", token: token}, 400, "id"},

			// Usage.
			{"history page 0", req{method: "GET", path: "/api/usage/history?page=0", token: token}, 400, "page"},
			{"history page not a number", req{method: "GET", path: "/api/usage/history?page=x", token: token}, 400, "page"},
			{"history limit too big", req{method: "GET", path: "/api/usage/history?limit=500", token: token}, 400, "limit"},
			{"history unknown status", req{method: "GET", path: "/api/usage/history?status=fine", token: token}, 400, "status"},
			{"history search too long", req{method: "GET", path: "/api/usage/history?search=" + strings.Repeat("s", 201), token: token}, 400, "search"},
			{"history apiKey too long", req{method: "GET", path: "/api/usage/history?apiKey=" + strings.Repeat("k", 101), token: token}, 400, "apiKey"},
			{"stats days not a number", req{method: "GET", path: "/api/usage/stats?days=week", token: token}, 400, "days"},
			{"stats days 0", req{method: "GET", path: "/api/usage/stats?days=0", token: token}, 400, "days"},

			// Batch: the JSON forms of POST /api/jobs.
			{"job without uploadId or rows", req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{}}, 400, "uploadId"},
			{"job of an upload without a mapping", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"uploadId": pv.UploadID}}, 400, "mapping"},
			{"job of an unknown type", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "single", "inputData": rowsJob(2)["inputData"]}}, 400, "type"},
			{"job with a bad webhookUrl", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "batch", "inputData": rowsJob(2)["inputData"], "webhookUrl": "ftp://example.com/hook"}}, 400, "webhookUrl"},
			{"job rows not a list", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "batch", "inputData": map[string]any{"properties": "1 Main St"}}}, 400, "inputData.properties"},

			// Batch: multipart forms.
			{"preview without a file", multipart("/api/jobs/preview", "", nil, map[string]string{"mapping": "{}"}), 400, "file"},
			{"job upload without a file", multipart("/api/jobs", "", nil, map[string]string{"mapping": "{}"}), 400, "file"},
			{"job upload of a pdf", multipart("/api/jobs", "homes.pdf", []byte("%PDF-1.4"), nil), 415, "file"},
			{"job upload with a mapping that is not JSON", multipart("/api/jobs", "homes.csv", batchCSV(2), map[string]string{"mapping": "{"}), 400, "mapping"},
			{"job upload mapping a missing column", multipart("/api/jobs", "homes.csv", batchCSV(2),
				map[string]string{"mapping": `{"Nope": "address"}`}), 400, "mapping"},
			{"job upload with a bad webhookUrl", multipart("/api/jobs", "homes.csv", batchCSV(2), map[string]string{"webhookUrl": "not a url"}), 400, "webhookUrl"},

			// Batch: path ids and query parameters.
			{"job id not a number", req{method: "GET", path: "/api/jobs/abc", token: token}, 400, "id"},
			{"job id zero", req{method: "GET", path: "/api/jobs/0", token: token}, 400, "id"},
			{"results of job abc", req{method: "GET", path: "/api/jobs/abc/results", token: token}, 400, "id"},
			{"results page 0", req{method: "GET", path: jobPath("/results?page=0"), token: token}, 400, "page"},
			{"results limit 5000", req{method: "GET", path: jobPath("/results?limit=5000"), token: token}, 400, "limit"},
			{"results unknown status", req{method: "GET", path: jobPath("/results?status=done"), token: token}, 400, "status"},
			{"download of job abc", req{method: "GET", path: "/api/jobs/abc/download", token: token}, 400, "id"},
			{"download as pdf", req{method: "GET", path: jobPath("/download?format=pdf"), token: token}, 400, "format"},
			{"cancel job abc", req{method: "POST", path: "/api/jobs/abc/cancel", token: token}, 400, "id"},
			{"cancel job -1", req{method: "POST", path: "/api/jobs/-1/cancel", token: token}, 400, "id"},
			{"retry job abc", req{method: "POST", path: "/api/jobs/abc/retry", token: token}, 400, "id"},
			{"retry job 0", req{method: "POST", path: "/api/jobs/0/retry", token: token}, 400, "id"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				expectField(t, a.do(tt.rq), tt.status, tt.field)
			})
		}
		// Of all this, only the first job was created.
		if n := a.jobCount(token); n != 1 {
			t.Errorf("Jane has %d jobs after bad requests, want 1", n)
		}

		// api/openapi.yaml CreateJobFromRows gives fileName a maxLength of 255.
		t.Run("job fileName too long", func(t *testing.T) {
			r := a.do(req{method: "POST", path: "/api/jobs", token: token, badRequest: true,
				body: map[string]any{"type": "batch", "fileName": strings.Repeat("f", 300) + ".csv", "inputData": rowsJob(2)["inputData"]}})
			expectField(t, r, http.StatusBadRequest, "fileName")
		})

		// An empty list of rows is refused with a 400 that names a field. (It names "mapping", which the rows form
		// has no part in; see the audit report.)
		r = a.do(req{method: "POST", path: "/api/jobs", token: token, badRequest: true,
			body: map[string]any{"type": "batch", "inputData": map[string]any{"properties": []any{}}}})
		if e := expectField(t, r, http.StatusBadRequest, ""); e.Field == "" {
			t.Errorf("empty rows: no field named: %s", r.body)
		}
	})
}

// TestAuditPublicAPIInputNamesTheField covers the x-api-key routes' bad input.
func TestAuditPublicAPIInputNamesTheField(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)

		// One job of Jane's through the public API.
		up := func(file string, content []byte, fields map[string]string, header map[string]string, query string) resp {
			t.Helper()
			rq := withKey(multipartReq(t, "POST", "/api/batch/upload"+query, "", file, content, fields), k.Value)
			for h, v := range header {
				rq.header[h] = v
			}
			rq.badRequest = true
			return a.do(rq)
		}
		r := up("homes.csv", batchCSV(2), nil, nil, "")
		expectStatus(t, r, http.StatusAccepted)
		var st struct{ JobID int64 }
		r.json(t, &st)

		valuation := func(q string) req {
			return withKey(req{method: "GET", path: "/api/v1/property/valuation?address=1000+N+40th+St&city=Seattle&state=WA&zip=98103&" + q}, k.Value)
		}
		get := func(path string) req { return withKey(req{method: "GET", path: path}, k.Value) }
		for _, tt := range []struct {
			name   string
			rq     req
			status int
			field  string
		}{
			{"valuation yearBuilt NaN", valuation("yearBuilt=NaN"), 400, "yearBuilt"},
			{"valuation squareFeet Inf", valuation("squareFeet=Inf"), 400, "squareFeet"},
			{"valuation bedrooms out of float range", valuation("bedrooms=1e999"), 400, "bedrooms"},
			{"valuation negative lotSize", valuation("lotSize=-1"), 400, "lotSize"},
			{"valuation bathrooms not a number", valuation("bathrooms=two"), 400, "bathrooms"},
			{"valuation unknown propertyType", valuation("propertyType=Castle"), 400, "propertyType"},
			{"valuation one line without a place", withKey(req{method: "GET", path: "/api/v1/property/valuation?address=1+Main+St"}, k.Value), 400, "address"},

			{"status of job abc", get("/api/batch/status/abc"), 400, "jobId"},
			{"status of job 0", get("/api/batch/status/0"), 400, "jobId"},
			{"status page 0", get(fmt.Sprintf("/api/batch/status/%d?page=0", st.JobID)), 400, "page"},
			{"status limit 0", get(fmt.Sprintf("/api/batch/status/%d?limit=0", st.JobID)), 400, "limit"},
			{"download of job abc", get("/api/batch/download/abc"), 400, "jobId"},
			{"download of job -2", get("/api/batch/download/-2"), 400, "jobId"},
			{"download as pdf", get(fmt.Sprintf("/api/batch/download/%d?format=pdf", st.JobID)), 400, "format"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				r := a.do(tt.rq)
				expectField(t, r, tt.status, tt.field)
				rateHeaders(t, r)
			})
		}

		for _, tt := range []struct {
			name    string
			file    string
			content []byte
			fields  map[string]string
			header  map[string]string
			status  int
			field   string
		}{
			{"upload without a file", "", nil, map[string]string{"webhookUrl": "https://example.com/hook"}, nil, 400, "file"},
			{"upload of a pdf", "homes.pdf", []byte("%PDF-1.4"), nil, nil, 415, "file"},
			{"upload of a header only", "homes.csv", []byte("Address,City,State,Zip\n"), nil, nil, 400, "file"},
			{"upload with a mapping that is not JSON", "homes.csv", batchCSV(2), map[string]string{"mapping": "{"}, nil, 400, "mapping"},
			{"upload mapping a missing column", "homes.csv", batchCSV(2), map[string]string{"mapping": `{"Nope": "fullAddress"}`}, nil, 400, "mapping"},
			{"upload with a bad webhookUrl", "homes.csv", batchCSV(2), map[string]string{"webhookUrl": "ftp://example.com/hook"}, nil, 400, "webhookUrl"},
			{"upload with a long Idempotency-Key", "homes.csv", batchCSV(2), nil, map[string]string{"Idempotency-Key": strings.Repeat("i", 201)}, 400, "Idempotency-Key"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := up(tt.file, tt.content, tt.fields, tt.header, "")
				expectField(t, r, tt.status, tt.field)
				rateHeaders(t, r)
			})
		}
		t.Run("upload not multipart", func(t *testing.T) {
			r := a.do(withKey(req{method: "POST", path: "/api/batch/upload", raw: "Address\n1 Main St\n", contentType: "text/csv",
				badRequest: true}, k.Value))
			expectField(t, r, http.StatusUnsupportedMediaType, "")
		})
		// Only the first upload made a job.
		if n := a.jobCount(token); n != 1 {
			t.Errorf("Jane has %d jobs after refused uploads, want 1", n)
		}

		// A refused request must not have done anything: an upload answered 4xx leaves no job behind (a client
		// that is told its upload failed uploads again). page and limit are not parameters of the upload.
		for _, q := range []string{"?limit=0", "?page=x"} {
			t.Run("upload"+q, func(t *testing.T) {
				before := a.jobCount(token)
				r := up("homes.csv", batchCSV(3), nil, nil, q)
				if r.status >= 500 {
					t.Fatalf("upload%s: %d %s", q, r.status, r.body)
				}
				if after := a.jobCount(token); r.status >= 400 && after != before {
					t.Errorf("upload%s answered %d %s, yet created a job (%d jobs before, %d after)", q, r.status, r.body, before, after)
				}
			})
		}
	})
}

// TestAuditTextPostgreSQLCannotStore sends strings with a NUL character or bytes that are not UTF-8. SQLite stores
// them; PostgreSQL refuses them in a text column, so on PostgreSQL a route that passes them to the database
// unchecked answers 500. Each must be refused with a 400 naming the field, or accepted.
func TestAuditTextPostgreSQLCannotStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		nul := "Jane\x00Doe"
		upload := func(path, file string, fields map[string]string, header map[string]string) req {
			rq := multipartReq(t, "POST", path, token, file, batchCSV(2), fields)
			if header != nil {
				rq.header = header
				rq.token = ""
			}
			return rq
		}
		for _, tt := range []struct {
			name  string
			rq    req
			field string // the field a 400 must name
		}{
			{"register name with NUL", req{method: "POST", path: "/api/auth/register",
				body: map[string]string{"email": "nul@example.com", "password": "correct-horse", "fullName": nul}}, "fullName"},
			{"register email with NUL", req{method: "POST", path: "/api/auth/register",
				body: map[string]string{"email": "nul\x00@example.com", "password": "correct-horse", "fullName": "Nul User"}}, "email"},
			{"login email with NUL", req{method: "POST", path: "/api/auth/login",
				body: map[string]string{"email": "jane\x00@example.com", "password": "correct-horse"}}, "email"},
			{"reset request email with NUL", req{method: "POST", path: "/api/auth/request-password-reset",
				body: map[string]string{"email": "jane\x00@example.com"}}, "email"},
			{"reset with a token with NUL", req{method: "POST", path: "/api/auth/reset-password",
				body: map[string]string{"token": "vr_\x00", "password": "battery-staple"}}, "token"},
			{"profile company with NUL", req{method: "PUT", path: "/api/user/profile", token: token,
				body: map[string]any{"fullName": "Jane Doe", "email": "jane@example.com", "company": "Acme\x00"}}, "company"},
			{"key name with NUL", req{method: "POST", path: "/api/api-keys", token: token,
				body: map[string]any{"name": "Key\x00"}}, "name"},
			{"contact message with NUL", req{method: "POST", path: "/api/contact",
				body: map[string]string{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
					"subject": "general", "message": "Hello\x00"}}, "message"},
			{"lookup address with NUL", req{method: "POST", path: "/api/property/lookup", token: token,
				body: map[string]string{"address": "1 Main\x00 St", "city": "Seattle", "state": "WA", "zip": "98103"}}, "address"},
			{"job fileName with NUL", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "batch", "fileName": "list\x00.csv", "inputData": rowsJob(2)["inputData"]}}, "fileName"},
			{"job rows with NUL", req{method: "POST", path: "/api/jobs", token: token,
				body: map[string]any{"type": "batch", "fileName": "list.csv", "inputData": map[string]any{"properties": []map[string]string{
					{"address": "1 Main\x00 St", "city": "Seattle", "state": "WA", "zip": "98103"}}}}}, "inputData.properties"},
			{"history search with NUL", req{method: "GET", path: "/api/usage/history?search=%00", token: token}, "search"},
			{"history search not UTF-8", req{method: "GET", path: "/api/usage/history?search=%FF", token: token}, "search"},
			{"history apiKey with NUL", req{method: "GET", path: "/api/usage/history?apiKey=a%00", token: token}, "apiKey"},
			{"preview file name not UTF-8", upload("/api/jobs/preview", "homes\xff.csv", nil, nil), "file"},
			{"job upload file name not UTF-8", upload("/api/jobs", "homes\xff.csv", nil, nil), "file"},
			{"job upload webhookUrl not UTF-8", upload("/api/jobs", "homes.csv", map[string]string{"webhookUrl": "https://example.com/\xff"}, nil), "webhookUrl"},
			{"public upload file name not UTF-8", upload("/api/batch/upload", "homes\xff.csv", nil, map[string]string{"x-api-key": k.Value}), "file"},
			{"public upload Idempotency-Key not UTF-8", upload("/api/batch/upload", "homes.csv", nil,
				map[string]string{"x-api-key": k.Value, "Idempotency-Key": "key-\xff"}), "Idempotency-Key"},
			{"public valuation address not UTF-8", withKey(req{method: "GET",
				path: "/api/v1/property/valuation?address=1+Main+St%FF&city=Seattle&state=WA&zip=98103"}, k.Value), "address"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				r := a.do(tt.rq)
				switch {
				case r.status >= 500:
					t.Errorf("%s %s answered %d: %s", tt.rq.method, tt.rq.path, r.status, r.body)
				case r.status == http.StatusBadRequest:
					expectField(t, r, http.StatusBadRequest, tt.field)
				}
			})
		}
		// A failed call is still recorded in the request history (it is how a user sees their errors).
		r := a.do(withKey(req{method: "GET", path: "/api/v1/property/valuation?address=1+Main+St%00&city=Seattle&state=WA&zip=98103",
			badRequest: true}, k.Value))
		if r.status >= 500 {
			t.Fatalf("valuation with NUL: %d %s", r.status, r.body)
		}
		var h historyAnswer
		a.do(req{method: "GET", path: "/api/usage/history?apiKey=Production", token: token}).json(t, &h)
		found := false
		for _, e := range h.Data {
			if e.RequestData["city"] == "Seattle" && strings.HasPrefix(fmt.Sprint(e.RequestData["address"]), "1 Main St") {
				found = true
			}
		}
		if !found {
			t.Errorf("the refused call with a NUL in its address is missing from the history: %+v", h.Data)
		}
	})
}

// TestAuditAccountChangesStayWithTheirUser: changing one user's password, preferences, sessions or profile leaves
// every other user's untouched.
func TestAuditAccountChangesStayWithTheirUser(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		jane, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		profile := func(token string) account.User {
			t.Helper()
			r := a.do(req{method: "GET", path: "/api/user/profile", token: token})
			expectStatus(t, r, http.StatusOK)
			var u account.User
			r.json(t, &u)
			return u
		}
		johnBefore := profile(john)

		// Notifications.
		off := account.Notifications{}
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/notifications", token: jane, body: off}), http.StatusOK)
		if got := profile(jane).Notifications; got != off {
			t.Errorf("Jane's notifications = %+v, want all off", got)
		}
		// Password change: Jane's other sessions end, John's do not, and John's password is unchanged.
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/change-password", token: jane,
			body: map[string]string{"currentPassword": "correct-horse", "newPassword": "battery-staple"}}), http.StatusOK)
		// Logout of Jane's session.
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/logout", token: jane}), http.StatusNoContent)
		// A password reset of Jane's account signs every Jane session out, and only Jane's.
		r := a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "jane@example.com"}})
		expectStatus(t, r, http.StatusOK)
		var reset account.ResetRequested
		r.json(t, &reset)
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/reset-password",
			body: map[string]string{"token": reset.ResetToken, "password": "another-staple"}}), http.StatusOK)

		if after := profile(john); !reflect.DeepEqual(after, johnBefore) {
			t.Errorf("John's account changed with Jane's: %+v -> %+v", johnBefore, after)
		}
		expectStatus(t, a.login("john@example.com", "correct-horse"), http.StatusOK)
		expectStatus(t, a.login("jane@example.com", "another-staple"), http.StatusOK)

		// A reset token is good for its own account only: Jane's sets nobody else's password.
		r = a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "jane@example.com"}})
		r.json(t, &reset)
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/reset-password",
			body: map[string]string{"token": reset.ResetToken, "password": "john-is-mine"}}), http.StatusOK)
		expectStatus(t, a.login("john@example.com", "john-is-mine"), http.StatusUnauthorized)
		expectStatus(t, a.login("jane@example.com", "john-is-mine"), http.StatusOK)
	})
}

// TestAuditClosedAccountLeavesNothingBehind: once an account is closed, its keys stop working, and a new account
// with the same email sees none of the old account's keys, jobs, history or statistics.
func TestAuditClosedAccountLeavesNothingBehind(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		old, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		k := a.createKey(old, "Production", 100)
		johnKey := a.createKey(john, "John's", 100)
		nowhere := url.Values{"address": {"1 Main St"}, "city": {"Topeka"}, "state": {"KS"}, "zip": {"66603"}}
		expectStatus(t, a.public(k.Value, nowhere), http.StatusNotFound) // a call in the history, not charged
		job := a.createRowsJob(old, 2)
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: old,
			body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)

		// The old key is refused, on the public valuation and the batch routes.
		r := a.public(k.Value, nowhere)
		expectStatus(t, r, http.StatusUnauthorized)
		expectStatus(t, a.do(withKey(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d", job.ID)}, k.Value)), http.StatusUnauthorized)

		// The same email, a new account: nothing of the old one.
		fresh, _ := a.register("jane@example.com", "correct-horse", "Jane Again")
		var keys []apikey.Key
		a.do(req{method: "GET", path: "/api/api-keys", token: fresh}).json(t, &keys)
		if len(keys) != 0 {
			t.Errorf("the new account sees keys %+v", keys)
		}
		if n := a.jobCount(fresh); n != 0 {
			t.Errorf("the new account sees %d jobs", n)
		}
		var h historyAnswer
		a.do(req{method: "GET", path: "/api/usage/history", token: fresh}).json(t, &h)
		if h.Pagination.Total != 0 {
			t.Errorf("the new account sees %d history entries", h.Pagination.Total)
		}
		var s statsAnswer
		a.do(req{method: "GET", path: "/api/usage/stats", token: fresh}).json(t, &s)
		if s.TotalRequests != 0 {
			t.Errorf("the new account's statistics count %d requests", s.TotalRequests)
		}
		for _, rq := range []req{
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d", job.ID)},
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results", job.ID)},
			{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download", job.ID)},
			{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", job.ID)},
			{method: "DELETE", path: fmt.Sprintf("/api/api-keys/%d", k.ID)},
		} {
			rq.token = fresh
			expectStatus(t, a.do(rq), http.StatusNotFound)
		}
		// John's key still works.
		expectStatus(t, a.public(johnKey.Value, nowhere), http.StatusNotFound)
	})
}

// TestAuditJobsOfAnotherUserInEveryState: a job that is pending or cancelled (the other tests use a completed one)
// cannot be read, cancelled or retried by another user, through the dashboard or with their API key; and an
// Idempotency-Key is the user's own.
func TestAuditJobsOfAnotherUserInEveryState(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		jane, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		johnKey := a.createKey(john, "John's", 1000)
		janeKey := a.createKey(jane, "Jane's", 1000)
		job := a.createRowsJob(jane, 3)
		if job.Status != "pending" {
			t.Fatalf("job = %+v, want pending", job)
		}

		reach := func(state string) {
			t.Helper()
			for _, rq := range []req{
				{method: "GET", path: fmt.Sprintf("/api/jobs/%d", job.ID), token: john},
				{method: "GET", path: fmt.Sprintf("/api/jobs/%d/results?status=pending&page=1&limit=10", job.ID), token: john},
				{method: "GET", path: fmt.Sprintf("/api/jobs/%d/download?format=xlsx", job.ID), token: john},
				{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", job.ID), token: john},
				{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", job.ID), token: john},
				withKey(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d", job.ID)}, johnKey.Value),
				withKey(req{method: "GET", path: fmt.Sprintf("/api/batch/download/%d?format=xlsx", job.ID)}, johnKey.Value),
			} {
				r := a.do(rq)
				if e := expectField(t, r, http.StatusNotFound, ""); e.Code != "job_not_found" {
					t.Errorf("%s: %s %s: code %q", state, rq.method, rq.path, e.Code)
				}
				if strings.Contains(string(r.body), "TEST AVE") {
					t.Errorf("%s: %s %s leaks Jane's rows: %s", state, rq.method, rq.path, r.body)
				}
			}
			if got := a.job(jane, job.ID); got.Status != state {
				t.Errorf("after John's calls Jane's job is %s, want %s", got.Status, state)
			}
		}
		reach("pending")
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/cancel", job.ID), token: jane}), http.StatusOK)
		reach("cancelled")

		// Jane's own key reaches her dashboard job (the same user), so the 404s above are about the owner.
		expectStatus(t, a.do(withKey(req{method: "GET", path: fmt.Sprintf("/api/batch/status/%d", job.ID)}, janeKey.Value)), http.StatusOK)

		// Idempotency-Keys are each user's own: John reusing Jane's key with another file gets a job of his own, not
		// a conflict that would tell him the key is in use; Jim reusing it with Jane's very file gets a new job, never
		// Jane's.
		jim, _ := a.register("jim@example.com", "correct-horse", "Jim Poe")
		jimKey := a.createKey(jim, "Jim's", 1000)
		upload := func(key string, content []byte) (int, int64) {
			t.Helper()
			rq := withKey(multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", content, nil), key)
			rq.header["Idempotency-Key"] = "order-42"
			r := a.do(rq)
			var st struct{ JobID int64 }
			if r.status < 300 {
				r.json(t, &st)
			}
			return r.status, st.JobID
		}
		status, janes := upload(janeKey.Value, batchCSV(4))
		if status != http.StatusAccepted {
			t.Fatalf("Jane's upload: %d", status)
		}
		if status, johns := upload(johnKey.Value, batchCSV(5)); status != http.StatusAccepted || johns == janes {
			t.Errorf("John's upload of another file with Jane's Idempotency-Key: status %d, job %d (Jane's is %d); "+
				"want 202 and a new job", status, johns, janes)
		}
		if status, jims := upload(jimKey.Value, batchCSV(4)); status != http.StatusAccepted || jims == janes {
			t.Errorf("Jim's upload of Jane's file with her Idempotency-Key: status %d, job %d (Jane's is %d); "+
				"want 202 and a new job", status, jims, janes)
		}
		if n := a.jobCount(jane); n != 2 {
			t.Errorf("Jane has %d jobs, want 2", n)
		}
	})
}

// TestAuditLookupsAnswerAndChargeOnlyTheCaller: a valuation another user's lookup put in the cache answers with the
// caller's own meta, charges the caller only, and is recorded in the caller's history only.
func TestAuditLookupsAnswerAndChargeOnlyTheCaller(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		jane, janeUser := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")
		spendTo(t, a, janeUser.ID, 10)
		lookup := func(token string, body map[string]any) (lookupAnswer, resp) {
			t.Helper()
			r := a.do(req{method: "POST", path: "/api/property/lookup", token: token, body: body})
			expectStatus(t, r, http.StatusOK)
			var ans lookupAnswer
			r.json(t, &ans)
			return ans, r
		}
		home := map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}
		janes, _ := lookup(jane, home)
		johns, r := lookup(john, home)
		if johns.Data.Valuation != janes.Data.Valuation {
			t.Errorf("one home, one day, two valuations: %+v / %+v", janes.Data.Valuation, johns.Data.Valuation)
		}
		if m := johns.Data.Meta; m.CreditsRemaining != 99 || m.RequestID != r.header.Get("X-Request-Id") ||
			m.RequestID == janes.Data.Meta.RequestID {
			t.Errorf("John's meta = %+v (Jane's %+v), want his own balance 99 and request id", m, janes.Data.Meta)
		}
		if c := a.credits(jane); c != 9 {
			t.Errorf("Jane's balance = %d, want 9", c)
		}

		// Attributes one caller gave for a home not on record do not reach another caller's answer.
		lookup(jane, map[string]any{"address": "4242 Nowhere Pl N", "city": "Seattle", "state": "WA", "zip": "98103",
			"propertyType": "Single Family", "squareFeet": 2610, "bedrooms": 5})
		ans, _ := lookup(john, map[string]any{"address": "4242 Nowhere Pl N", "city": "Seattle", "state": "WA", "zip": "98103",
			"propertyType": "Single Family", "squareFeet": 1500})
		if sq := ans.Data.Details.SquareFeet; sq == nil || *sq != 1500 {
			t.Errorf("John's answer carries square feet %v, not his 1,500", sq)
		}

		count := func(token string) int {
			t.Helper()
			var h historyAnswer
			a.do(req{method: "GET", path: "/api/usage/history", token: token}).json(t, &h)
			return h.Pagination.Total
		}
		// John's history holds his two lookups only. (Jane's also holds the test's spending, a record of a service
		// the contract does not list, so it is not read here.)
		if n := count(john); n != 2 {
			t.Errorf("John's history has %d entries, want 2", n)
		}
		var h historyAnswer
		a.do(req{method: "GET", path: "/api/usage/history?search=nowhere", token: john}).json(t, &h)
		for _, e := range h.Data {
			if e.RequestData["squareFeet"] == 2610.0 || e.RequestData["bedrooms"] != nil {
				t.Errorf("John's history shows Jane's request: %+v", e)
			}
		}
	})
}

// TestAuditRetriedUploadsAtOnceAreNot500: a client that retries an upload with its Idempotency-Key before the first
// attempt has answered gets the one job (or is told to wait), never a 500. Sixteen attempts at once, on one key.
func TestAuditRetriedUploadsAtOnceAreNot500(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Production", 1000)
		form := multipartReq(t, "POST", "/api/batch/upload", "", "homes.csv", batchCSV(50), nil)
		const n = 16
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rq, _ := http.NewRequest("POST", a.srv.URL+"/api/batch/upload", bytes.NewReader([]byte(form.raw)))
				rq.Header.Set("Content-Type", form.contentType)
				rq.Header.Set("x-api-key", k.Value)
				rq.Header.Set("Idempotency-Key", "order-7")
				res, err := a.srv.Client().Do(rq)
				if err != nil {
					t.Error(err)
					return
				}
				res.Body.Close()
				mu.Lock()
				codes[res.StatusCode]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		// An account has at most UploadsPerAccount uploads in flight (issue 24), so some attempts may be told to
		// wait (429 with Retry-After); none may fail, and exactly one creates the job.
		if codes[http.StatusAccepted] != 1 || codes[http.StatusOK]+codes[http.StatusTooManyRequests] != n-1 {
			t.Errorf("statuses %v, want one 202 and %d × 200 or 429", codes, n-1)
		}
		// The retry a 429 asks for answers the same job.
		rq, _ := http.NewRequest("POST", a.srv.URL+"/api/batch/upload", bytes.NewReader([]byte(form.raw)))
		rq.Header.Set("Content-Type", form.contentType)
		rq.Header.Set("x-api-key", k.Value)
		rq.Header.Set("Idempotency-Key", "order-7")
		res, err := a.srv.Client().Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("a later retry answered %d, want 200 (the job of the first)", res.StatusCode)
		}
		if got := a.jobCount(token); got != 1 {
			t.Errorf("%d jobs, want 1", got)
		}
	})
}
