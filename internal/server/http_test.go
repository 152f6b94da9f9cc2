package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"valuator/internal/testdb"
)

func TestEveryRouteIsInTheContract(t *testing.T) {
	c := loadContract(t)
	s := &Server{}
	for _, rt := range s.routeTable() {
		r := httptest.NewRequest(rt.method, rt.pattern, nil)
		if _, err := c.Operation(r); err != nil {
			t.Errorf("%s %s is served but not described in api/openapi.yaml: %v", rt.method, rt.pattern, err)
		}
	}
}

func TestProbesAndContract(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		r := a.do(req{method: "GET", path: "/healthz"})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "GET", path: "/readyz"})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "GET", path: "/api/openapi.json"})
		expectStatus(t, r, http.StatusOK)
		if !bytes.Contains(r.body, []byte(`"openapi":"3.1.0"`)) || !bytes.Contains(r.body, []byte("/api/auth/register")) {
			t.Errorf("openapi.json does not look like the contract: %.200s", r.body)
		}
		// Once the database is gone, the process is still alive but not ready.
		a.db.Close()
		expectStatus(t, a.do(req{method: "GET", path: "/healthz"}), http.StatusOK)
		r = a.do(req{method: "GET", path: "/readyz"})
		expectStatus(t, r, http.StatusServiceUnavailable)
	})
}

func TestHTTPConventions(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))

	t.Run("request ids", func(t *testing.T) {
		r := a.do(req{method: "GET", path: "/healthz"})
		id := r.header.Get("X-Request-Id")
		if len(id) != 26 {
			t.Errorf("generated X-Request-Id = %q, want a 26-character ULID", id)
		}
		// The caller's id is a label, answered apart; the server's id is always its own.
		r = a.do(req{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": "client-abc.123"}})
		if got := r.header.Get("X-Request-Id"); len(got) != 26 || r.header.Get("X-Client-Request-Id") != "client-abc.123" {
			t.Errorf("X-Request-Id = %q, X-Client-Request-Id = %q; want the server's and the caller's", got,
				r.header.Get("X-Client-Request-Id"))
		}
		r = a.do(req{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": "bad id\twith spaces"}})
		if got := r.header.Get("X-Request-Id"); len(got) != 26 || r.header.Get("X-Client-Request-Id") != "" {
			t.Errorf("malformed incoming id was kept: %q", got)
		}
		r = a.do(req{method: "GET", path: "/api/user/profile"})
		if e := r.errBody(t); e.RequestID != r.header.Get("X-Request-Id") {
			t.Errorf("error requestId %q != header %q", e.RequestID, r.header.Get("X-Request-Id"))
		}
		if !strings.Contains(a.logs.String(), "request_id="+r.header.Get("X-Request-Id")) {
			t.Error("the request's log line does not carry its id")
		}
	})

	t.Run("security headers", func(t *testing.T) {
		for _, path := range []string{"/", "/api/user/profile", "/healthz"} {
			r := a.do(req{method: "GET", path: path, noContract: true})
			csp := r.header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "script-src 'self'") ||
				strings.Contains(csp, "http") {
				t.Errorf("%s: CSP = %q, want self only and no external origin", path, csp)
			}
			for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"} {
				if got := r.header.Get(h); got != want {
					t.Errorf("%s: %s = %q, want %q", path, h, got, want)
				}
			}
		}
	})

	t.Run("unknown api paths answer json", func(t *testing.T) {
		r := a.do(req{method: "GET", path: "/api/nope", noContract: true})
		expectStatus(t, r, http.StatusNotFound)
		if e := r.errBody(t); e.Code != "not_found" {
			t.Errorf("code = %q", e.Code)
		}
		r = a.do(req{method: "DELETE", path: "/api/auth/login", noContract: true})
		expectStatus(t, r, http.StatusMethodNotAllowed)
		if e := r.errBody(t); e.Code != "method_not_allowed" || r.header.Get("Allow") != "POST" {
			t.Errorf("405 = %+v, Allow %q", e, r.header.Get("Allow"))
		}
		r = a.do(req{method: "POST", path: "/pricing", noContract: true})
		expectStatus(t, r, http.StatusMethodNotAllowed)
	})

	t.Run("panics become a json 500", func(t *testing.T) {
		var logs bytes.Buffer
		s := &Server{log: slog.New(slog.NewTextHandler(&logs, nil))}
		h := s.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/x", nil))
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"error":"Internal error"`) ||
			strings.Contains(rec.Body.String(), "boom") {
			t.Errorf("panic answered %d %s", rec.Code, rec.Body)
		}
		if !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "stack") {
			t.Errorf("panic not logged with its stack: %s", logs.String())
		}
	})
}

func TestSinglePageApp(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	get := func(path string, hdr map[string]string) resp {
		return a.do(req{method: "GET", path: path, header: hdr, noContract: true})
	}
	// The app's pages answer index.html; unknown paths, aliases and the build manifest are in spa_test.go.
	for _, path := range []string{"/", "/pricing", "/dashboard"} {
		r := get(path, nil)
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.body), "<div id=root>") || r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: want index.html with no-cache, got %q %s", path, r.header.Get("Cache-Control"), r.body)
		}
	}
	r := get("/assets/index-abc.js", map[string]string{"Accept-Encoding": "gzip"})
	expectStatus(t, r, http.StatusOK)
	if cc := r.header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
		t.Errorf("asset Cache-Control = %q, want immutable", cc)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/javascript") {
		t.Errorf("asset Content-Type = %q", r.header.Get("Content-Type"))
	}
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		if !strings.HasPrefix(string(plain), "console.log") {
			t.Errorf("gzipped asset decodes to %.40q", plain)
		}
	} else {
		t.Error("a 5 kB script was not gzipped for a client that accepts gzip")
	}
	// Missing assets are 404, not index.html.
	expectStatus(t, get("/assets/missing.js", nil), http.StatusNotFound)
	// ETags let the browser revalidate index.html cheaply.
	etag := get("/", nil).header.Get("ETag")
	expectStatus(t, get("/", map[string]string{"If-None-Match": etag}), http.StatusNotModified)
}

func TestUnbuiltWebAppSaysHowToBuildIt(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.web = fstest.MapFS{} })
	r := a.do(req{method: "GET", path: "/", noContract: true})
	expectStatus(t, r, http.StatusServiceUnavailable)
	if !strings.Contains(string(r.body), "make build") {
		t.Errorf("body = %s", r.body)
	}
}

func TestRequestLogLine(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
	a.do(req{method: "GET", path: "/api/user/profile", token: token})
	var line string
	for _, l := range strings.Split(a.logs.String(), "\n") {
		if strings.Contains(l, "path=/api/user/profile") {
			line = l
		}
	}
	for _, want := range []string{"msg=request", "method=GET", "status=200", "duration_ms=", "user_id=" + strconv.FormatInt(u.ID, 10)} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %q", line, want)
		}
	}
}
