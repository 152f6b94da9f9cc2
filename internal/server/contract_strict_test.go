package server

// The contract's promises that strict tools check (issue 26): an X-Request-Id on every response, the server's own
// address in the served document, and every bound the contract declares on a request input enforced by the server
// with a 400 naming the field.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// requestIDPattern is the contract's X-Request-Id (components.headers.X-Request-Id): a ULID.
var requestIDPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// TestEveryResponseCarriesARequestID: answers, errors of every kind, redirects and the web app's files all carry the
// server's X-Request-Id, and a JSON error's requestId is the same id. The harness checks the header on every call
// the other tests make to the API (the contract declares it required on every response); this covers what the
// contract does not describe: the web app, unknown paths and methods, and a panic.
func TestEveryResponseCarriesARequestID(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	for _, tt := range []struct {
		name   string
		rq     req
		status int
	}{
		{"an answer", req{method: "GET", path: "/healthz"}, http.StatusOK},
		{"the contract", req{method: "GET", path: "/api/openapi.json"}, http.StatusOK},
		{"a signed-in answer", req{method: "GET", path: "/api/user/profile", token: token}, http.StatusOK},
		{"no session", req{method: "GET", path: "/api/user/profile"}, http.StatusUnauthorized},
		{"bad input", req{method: "GET", path: "/api/usage/history?page=0", token: token, badRequest: true}, http.StatusBadRequest},
		{"not JSON", req{method: "POST", path: "/api/auth/login", raw: "x", contentType: "text/plain", badRequest: true},
			http.StatusUnsupportedMediaType},
		{"HEAD on a metered endpoint", req{method: "HEAD", path: "/api/v1/property/valuation?address=x", noContract: true},
			http.StatusMethodNotAllowed},
		{"an unknown API path", req{method: "GET", path: "/api/no-such-thing", noContract: true}, http.StatusNotFound},
		{"a method the path does not have", req{method: "DELETE", path: "/api/jobs", noContract: true},
			http.StatusMethodNotAllowed},
		{"a page of the web app", req{method: "GET", path: "/", noContract: true}, http.StatusOK},
		{"an asset of the web app", req{method: "GET", path: "/assets/index-abc.js", noContract: true}, http.StatusOK},
		{"a missing asset", req{method: "GET", path: "/assets/missing.js", noContract: true}, http.StatusNotFound},
		{"a POST outside the API", req{method: "POST", path: "/pricing", noContract: true}, http.StatusMethodNotAllowed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(tt.rq)
			expectStatus(t, r, tt.status)
			id := r.header.Get("X-Request-Id")
			if !requestIDPattern.MatchString(id) {
				t.Fatalf("X-Request-Id = %q, want a ULID", id)
			}
			if strings.HasPrefix(r.header.Get("Content-Type"), "application/json") && r.status >= 400 {
				if e := r.errBody(t); e.RequestID != id {
					t.Errorf("error requestId %q, header %q", e.RequestID, id)
				}
			}
		})
	}

	t.Run("a panic", func(t *testing.T) {
		s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
		h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/anything", nil))
		id := w.Header().Get("X-Request-Id")
		var e errorBody
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusInternalServerError {
			t.Fatalf("answer %d %s (%v)", w.Code, w.Body, err)
		}
		if !requestIDPattern.MatchString(id) || e.RequestID != id || e.Code != "internal" {
			t.Errorf("X-Request-Id %q, body %+v", id, e)
		}
	})
}

// TestServedContractNamesThisServer: the document's addresses are the development server's; the one a server answers
// names its own VALUATOR_BASE_URL, so /docs and code generators call the server that answered.
func TestServedContractNamesThisServer(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), production)
	r := a.do(req{method: "GET", path: "/api/openapi.json"})
	expectStatus(t, r, http.StatusOK)
	var doc struct {
		Info struct {
			TermsOfService string `json:"termsOfService"`
			Contact        struct{ URL string }
			License        struct{ URL string }
		}
		Servers []struct{ URL string }
	}
	r.json(t, &doc)
	const base = "https://valuator.example.com"
	if len(doc.Servers) != 1 || doc.Servers[0].URL != base {
		t.Errorf("servers = %+v, want only %s", doc.Servers, base)
	}
	if doc.Info.Contact.URL != base+"/contact-us" || doc.Info.License.URL != base+"/terms" ||
		doc.Info.TermsOfService != base+"/terms" {
		t.Errorf("info = %+v, want every link on %s", doc.Info, base)
	}
	if bytes.Contains(r.body, []byte("localhost")) {
		t.Errorf("the served contract still names localhost")
	}
}

// TestContractBoundsAreEnforced: the bounds api/openapi.yaml declares on request inputs that no other test sends past
// are refused with a 400 naming the field, and a value inside them is not.
func TestContractBoundsAreEnforced(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		row := func(extra map[string]any) map[string]any {
			r := map[string]any{"address": "3000 Test Ave N", "city": "Seattle", "state": "WA", "zip": "98103"}
			for k, v := range extra {
				r[k] = v
			}
			return r
		}
		rows := func(rs ...map[string]any) map[string]any {
			return map[string]any{"type": "batch", "inputData": map[string]any{"properties": rs}}
		}
		manyRows := make([]map[string]any, 50_001)
		for i := range manyRows {
			manyRows[i] = map[string]any{"address": "1 A St"}
		}
		comparable := func(extra map[string]any) map[string]any {
			c := map[string]any{"address": "5720 RIVER DR N", "distanceMiles": 0.19, "saleDate": "2024-12-02",
				"salePrice": 937000, "similarity": 0.392, "adjustedPrice": 1161000}
			for k, v := range extra {
				c[k] = v
			}
			return c
		}
		report := func(data map[string]any) req {
			base := map[string]any{"address": "5873 River Dr N", "valuation": 1322000}
			for k, v := range data {
				base[k] = v
			}
			return req{method: "POST", path: "/api/properties/download-report", token: token, badRequest: true,
				body: map[string]any{"propertyData": base}}
		}
		comparables := func(n int) []map[string]any {
			cs := make([]map[string]any, n)
			for i := range cs {
				cs[i] = comparable(nil)
			}
			return cs
		}
		jobs := func(body any) req {
			return req{method: "POST", path: "/api/jobs", token: token, body: body, badRequest: true}
		}
		long := strings.Repeat("x", 1001)
		for _, tt := range []struct {
			name  string
			rq    req
			field string // "" for an answer that is not refused
		}{
			{"a report's address over 300 characters", report(map[string]any{"address": strings.Repeat("a", 301)}),
				"propertyData.address"},
			{"a report's confidence over 1", report(map[string]any{"confidence": 1.5}), "propertyData.confidence"},
			{"a report's negative value", report(map[string]any{"valuation": -1}), "propertyData.valuation"},
			{"a report of 51 comparables", report(map[string]any{"comparables": comparables(51)}), "propertyData.comparables"},
			{"a report's comparable with a negative price",
				report(map[string]any{"comparables": []any{comparable(map[string]any{"salePrice": -5})}}), "propertyData.comparables"},
			{"a report's comparable with a long city",
				report(map[string]any{"comparables": []any{comparable(map[string]any{"city": strings.Repeat("c", 101)})}}),
				"propertyData.comparables"},
			{"a report of 50 comparables", report(map[string]any{"comparables": comparables(50)}), ""},
			{"uploadId 0", jobs(map[string]any{"uploadId": 0, "mapping": map[string]string{"a": "address"}}), "uploadId"},
			{"a row's text over 1,000 characters", jobs(rows(row(map[string]any{"city": long}))), "inputData.properties"},
			{"a fact's text over 1,000 characters", jobs(rows(row(map[string]any{"propertyType": long}))), "inputData.properties"},
			{"a fact as a number out of range", jobs(rows(row(nil), row(map[string]any{"squareFeet": 99}))), "inputData.properties"},
			{"a year as a number out of range", jobs(rows(row(map[string]any{"yearBuilt": 2101}))), "inputData.properties"},
			// A fact's text is read by decodeJSON's check of every string, as the row's other texts are.
			{"a fact's text with a NUL", jobs(rows(row(map[string]any{"propertyType": "Con\x00do"}))), "inputData.properties"},
			{"more rows than any plan takes", jobs(rows(manyRows...)), "inputData.properties"},
			{"totalProperties below 0", jobs(map[string]any{"type": "batch", "totalProperties": -1,
				"inputData": map[string]any{"properties": []any{row(nil)}}}), "totalProperties"},
			{"totalProperties over 50,000", jobs(map[string]any{"type": "batch", "totalProperties": 50_001,
				"inputData": map[string]any{"properties": []any{row(nil)}}}), "totalProperties"},
			// Text is read as a spreadsheet cell is: out of range, it fails its row, not the request.
			{"a fact as text out of range", jobs(rows(row(map[string]any{"squareFeet": "99"}))), ""},
			{"facts as numbers in range", jobs(rows(row(map[string]any{"squareFeet": 1850, "bedrooms": 3, "yearBuilt": 1990}))), ""},
			{"the audit log in another format", req{method: "GET", path: "/api/person/audit?format=xml", token: token,
				badRequest: true}, "format"},
			{"an unsubscribe token over 200 characters", req{method: "POST", path: "/api/unsubscribe", badRequest: true,
				body: map[string]string{"token": "u1." + strings.Repeat("a", 200)}}, "token"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(tt.rq)
				if tt.field == "" {
					if r.status >= 400 {
						t.Fatalf("refused: %d %s", r.status, r.body)
					}
					return
				}
				expectField(t, r, http.StatusBadRequest, tt.field)
			})
		}
	})
}

// TestContractBoundsMatchTheRequests: the harness checks each request against the contract, so the bounds above are
// in the contract as well as in the server; this checks the other way round for the rows form, whose every value
// inside the bounds the server takes.
func TestContractBoundsMatchTheRequests(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.holdJobs = true })
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	props := []map[string]any{}
	for i, f := range []map[string]any{
		{"squareFeet": 100, "bedrooms": 0, "bathrooms": 50, "yearBuilt": 1700, "lotSize": 0},
		{"squareFeet": 100000, "bedrooms": 50, "bathrooms": 0, "yearBuilt": 2100, "lotSize": 1e8},
		{"squareFeet": strings.Repeat("9", 1000), "propertyType": strings.Repeat("p", 1000)},
	} {
		p := map[string]any{"address": fmt.Sprintf("%d Test Ave N", 3000+i*2), "city": "Seattle", "state": "WA", "zip": "98103"}
		for k, v := range f {
			p[k] = v
		}
		props = append(props, p)
	}
	r := a.do(req{method: "POST", path: "/api/jobs", token: token, body: map[string]any{"type": "batch",
		"totalProperties": 3, "inputData": map[string]any{"properties": props}}})
	expectStatus(t, r, http.StatusCreated)
}
