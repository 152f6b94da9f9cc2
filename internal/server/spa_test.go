package server

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"valuator/internal/testdb"
)

// routesSource is the web app's route table, which appPages must list exactly.
var routesSource = filepath.Join("..", "..", "web", "src", "app", "routes.tsx")

// declaredRoutes reads the paths web/src/app/routes.tsx declares (path="/x" or path: "/x", as the page-title test
// and e2e/tests/screens.spec.ts read them), in order, the catch-all "*" left out, and the ones declared inside the
// signed-in layout (<ProtectedRoute>).
func declaredRoutes(t *testing.T) (all, signedIn []string) {
	t.Helper()
	src, err := os.ReadFile(routesSource)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	// A path that is not a string literal cannot be read here, nor by the server: routes.tsx must spell them out.
	if m := regexp.MustCompile(`\bpath(=\{|:\s*[^"\s])`).FindString(text); m != "" {
		t.Fatalf("routes.tsx declares a path that is not a string literal (%q): write it as path=\"/x\"", m)
	}
	protected := strings.Index(text, "<ProtectedRoute>")
	if protected < 0 {
		t.Fatal("routes.tsx has no <ProtectedRoute> layout: say here which routes are the signed-in app's")
	}
	for _, m := range regexp.MustCompile(`\bpath(?:=|:\s*)"([^"]+)"`).FindAllStringSubmatchIndex(text, -1) {
		p := text[m[2]:m[3]]
		if p == "*" || slices.Contains(all, p) {
			continue
		}
		all = append(all, p)
		if m[0] > protected {
			signedIn = append(signedIn, p)
		}
	}
	return all, signedIn
}

// TestAppPagesAreTheRouteTable keeps the server's list of pages equal to the app's route table, so a page the app
// gains is never answered 404, and one it loses is.
func TestAppPagesAreTheRouteTable(t *testing.T) {
	declared, signedIn := declaredRoutes(t)
	if len(declared) < 20 || !slices.Contains(declared, "/") || !slices.Contains(signedIn, "/billing") {
		t.Fatalf("read %d paths from routes.tsx (%v), signed in %v: the pattern no longer reads it", len(declared),
			declared, signedIn)
	}
	var served []string
	byPath := map[string]appPage{}
	for _, pg := range appPages {
		served = append(served, pg.path)
		byPath[pg.path] = pg
		if pg.public && pg.private {
			t.Errorf("%s is both listed in the sitemap and kept from crawlers", pg.path)
		}
	}
	for _, p := range declared {
		if _, ok := byPath[p]; !ok {
			t.Errorf("routes.tsx declares %s but appPages (spa.go) does not list it: the server would answer it 404", p)
		}
	}
	for _, p := range served {
		if !slices.Contains(declared, p) {
			t.Errorf("appPages (spa.go) lists %s but routes.tsx has no such route: the server would answer 200 a page the app does not have", p)
		}
	}
	if len(served) != len(byPath) {
		t.Errorf("appPages lists a path twice: %v", served)
	}
	// The signed-in app is kept from crawlers, and not listed.
	for _, p := range signedIn {
		if pg, ok := byPath[p]; ok && !pg.private {
			t.Errorf("%s is a signed-in screen (inside <ProtectedRoute>) but robots.txt does not disallow it", p)
		}
	}
	for alias, to := range pageAliases {
		if isAppPage(alias) {
			t.Errorf("alias %s is a page of its own", alias)
		}
		if !isAppPage(to) {
			t.Errorf("alias %s leads to %s, which is not a page", alias, to)
		}
		if alias != strings.ToLower(alias) {
			t.Errorf("alias %s must be lower case (paths are matched in lower case)", alias)
		}
	}
}

func TestMatchRoute(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/x", false},
		{"/pricing", "/pricing", true},
		{"/pricing", "/pricing/", false},
		{"/pricing", "/pricing/x", false},
		{"/pricing", "/Pricing", false},
		{"/opt-out/confirm", "/opt-out/confirm", true},
		{"/opt-out/confirm", "/opt-out", false},
		{"/jobs/:id", "/jobs/42", true},
		{"/jobs/:id", "/jobs/", false},
		{"/jobs/:id", "/jobs", false},
		{"/jobs/:id", "/jobs/42/x", false},
		{"/jobs/:id/rows", "/jobs/42/rows", true},
		{"/files/*", "/files", true},
		{"/files/*", "/files/a/b", true},
		{"/files/*", "/filesx", false},
	} {
		if got := matchRoute(tt.pattern, tt.path); got != tt.want {
			t.Errorf("matchRoute(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// TestPagesAndNotFound: the app's pages answer 200 and any other path 404, both with index.html (whose router shows
// the page or its not-found screen); API paths keep their JSON 404.
func TestPagesAndNotFound(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	get := func(method, path string, hdr map[string]string) resp {
		return a.do(req{method: method, path: path, header: hdr, noContract: true})
	}
	isIndex := func(r resp) bool {
		return strings.Contains(string(r.body), "<div id=root>") && strings.HasPrefix(r.header.Get("Content-Type"), "text/html")
	}

	for _, pg := range appPages {
		p := strings.NewReplacer(":", "x", "*", "x").Replace(pg.path)
		r := get("GET", p+"?token=abc", nil)
		expectStatus(t, r, http.StatusOK)
		if !isIndex(r) || r.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: want index.html with no-cache, got %s %q", p, r.header.Get("Cache-Control"), r.body)
		}
	}

	for _, p := range []string{"/no-such-page", "/pricing/extra", "/dashboard/history", "/.vite/manifest.json",
		"/contact-us-now", "/%E2%9C%93", "/apis", "/api-keys/3"} {
		r := get("GET", p, nil)
		expectStatus(t, r, http.StatusNotFound)
		if !isIndex(r) {
			t.Errorf("%s: want index.html (the not-found screen), got %q", p, r.body)
		}
		if r.header.Get("Cache-Control") != "no-cache" || r.header.Get("ETag") != "" {
			t.Errorf("%s: Cache-Control %q, ETag %q; want no-cache and no ETag", p, r.header.Get("Cache-Control"), r.header.Get("ETag"))
		}
		if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: the not-found page has no CSP: %q", p, csp)
		}
	}
	// HEAD says 404 too, with no body; and a 404 is never turned into a 304.
	if r := get("HEAD", "/no-such-page", nil); r.status != http.StatusNotFound || len(r.body) != 0 {
		t.Errorf("HEAD /no-such-page = %d with %d bytes, want 404 and none", r.status, len(r.body))
	}
	etag := get("GET", "/", nil).header.Get("ETag")
	expectStatus(t, get("GET", "/no-such-page", map[string]string{"If-None-Match": etag}), http.StatusNotFound)
	// The not-found page is gzipped like any other answer of index.html.
	if r := get("GET", "/no-such-page", map[string]string{"Accept-Encoding": "gzip"}); r.status != http.StatusNotFound {
		t.Errorf("gzip 404 = %d", r.status)
	}

	// Files and missing assets are as before.
	expectStatus(t, get("GET", "/favicon.svg", nil), http.StatusOK)
	expectStatus(t, get("GET", "/assets/missing.js", nil), http.StatusNotFound)

	// The API answers its own JSON 404, not the app.
	for _, p := range []string{"/api", "/api/nope", "/api/v1/nope"} {
		r := get("GET", p, nil)
		expectStatus(t, r, http.StatusNotFound)
		if e := r.errBody(t); e.Code != "not_found" {
			t.Errorf("%s: code %q", p, e.Code)
		}
	}
}

// TestPageRedirects: what a person would type for a page, and a page's path written another way, redirect to it.
func TestPageRedirects(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	client := *a.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tt := range []struct{ from, to string }{
		{"/contact", "/contact-us"},
		{"/help", "/help-center"},
		{"/signup", "/register"},
		{"/sign-up", "/register"},
		{"/signin", "/login"},
		{"/support", "/help-center"},
		{"/faq", "/help-center"},
		{"/home", "/"},
		{"/index.html", "/"},
		{"/privacy-policy", "/privacy"},
		{"/terms-of-service", "/terms"},
		{"/Contact", "/contact-us"},
		{"/contact/", "/contact-us"},
		{"/Pricing", "/pricing"},
		{"/pricing/", "/pricing"},
		{"/PRICING/", "/pricing"},
		{"//pricing", "/pricing"},
		{"/opt-out/confirm/", "/opt-out/confirm"},
		{"/help?topic=billing", "/help-center?topic=billing"},
		{"/Unsubscribe?token=u1.42", "/unsubscribe?token=u1.42"},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			rq, err := http.NewRequest(method, a.srv.URL+tt.from, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := client.Do(rq)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != tt.to {
				t.Errorf("%s %s = %d to %q, want 301 to %q", method, tt.from, res.StatusCode, res.Header.Get("Location"), tt.to)
			}
		}
	}
	// Followed, an alias lands on the page.
	r := a.do(req{method: "GET", path: "/contact", noContract: true})
	expectStatus(t, r, http.StatusOK)
	// Only a GET or HEAD is redirected.
	expectStatus(t, a.do(req{method: "POST", path: "/contact", noContract: true}), http.StatusMethodNotAllowed)
}

// TestRobotsAndSitemap: robots.txt keeps crawlers off the signed-in app, one-time links and the API and names the
// sitemap; the sitemap lists the public pages by absolute URL under the configured base URL.
func TestRobotsAndSitemap(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), production)
	const base = "https://valuator.example.com"

	r := a.do(req{method: "GET", path: "/robots.txt", noContract: true})
	expectStatus(t, r, http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("robots.txt Content-Type = %q", ct)
	}
	robots := string(r.body)
	var disallow []string
	for _, line := range strings.Split(robots, "\n") {
		if d, ok := strings.CutPrefix(line, "Disallow: "); ok {
			disallow = append(disallow, d)
		}
	}
	for _, want := range []string{"User-agent: *\n", "Disallow: /api/\n", "Disallow: /dashboard\n",
		"Disallow: /settings\n", "Disallow: /reset-password\n", "Sitemap: " + base + "/sitemap.xml\n"} {
		if !strings.Contains(robots, want) {
			t.Errorf("robots.txt lacks %q:\n%s", want, robots)
		}
	}
	for _, pg := range appPages {
		if pg.private && !slices.Contains(disallow, pg.path) {
			t.Errorf("robots.txt does not disallow %s", pg.path)
		}
	}

	r = a.do(req{method: "GET", path: "/sitemap.xml", noContract: true})
	expectStatus(t, r, http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != "application/xml; charset=utf-8" {
		t.Errorf("sitemap.xml Content-Type = %q", ct)
	}
	var sitemap struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		URLs    []struct {
			Loc string `xml:"loc"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal(r.body, &sitemap); err != nil {
		t.Fatalf("sitemap.xml: %v\n%s", err, r.body)
	}
	var paths []string
	for _, u := range sitemap.URLs {
		loc, err := url.Parse(u.Loc)
		if err != nil || !loc.IsAbs() || loc.Scheme+"://"+loc.Host != base {
			t.Errorf("sitemap <loc> %q is not an absolute URL under %s", u.Loc, base)
			continue
		}
		paths = append(paths, loc.Path)
		if !isAppPage(loc.Path) {
			t.Errorf("the sitemap lists %s, which is not a page", loc.Path)
		}
		// A crawler reads robots.txt rules as prefixes; none may keep it off a listed page.
		for _, d := range disallow {
			if strings.HasPrefix(loc.Path, d) {
				t.Errorf("robots.txt rule Disallow: %s keeps crawlers off %s, which the sitemap lists", d, loc.Path)
			}
		}
	}
	for _, want := range []string{"/", "/pricing", "/about", "/help-center", "/contact-us", "/docs", "/privacy", "/terms", "/login", "/register"} {
		if !slices.Contains(paths, want) {
			t.Errorf("the sitemap does not list %s: %v", want, paths)
		}
	}
	for _, not := range []string{"/dashboard", "/settings", "/reset-password", "/sign-in"} {
		if slices.Contains(paths, not) {
			t.Errorf("the sitemap lists %s", not)
		}
	}

	// Both answer HEAD, and refuse other methods as the rest of the site does.
	expectStatus(t, a.do(req{method: "HEAD", path: "/sitemap.xml", noContract: true}), http.StatusOK)
	expectStatus(t, a.do(req{method: "POST", path: "/robots.txt", noContract: true}), http.StatusMethodNotAllowed)
}

// TestSitemapFollowsTheBaseURL: the sitemap's URLs come from VALUATOR_BASE_URL, whatever it is.
func TestSitemapFollowsTheBaseURL(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) {
		o.env = map[string]string{"VALUATOR_BASE_URL": "http://localhost:9999/"}
	})
	body := string(a.do(req{method: "GET", path: "/sitemap.xml", noContract: true}).body)
	if !strings.Contains(body, "<loc>http://localhost:9999/pricing</loc>") || strings.Contains(body, "9999//") {
		t.Errorf("sitemap does not use the base URL:\n%s", body)
	}
	robots := string(a.do(req{method: "GET", path: "/robots.txt", noContract: true}).body)
	if !strings.Contains(robots, "Sitemap: http://localhost:9999/sitemap.xml\n") {
		t.Errorf("robots.txt:\n%s", robots)
	}
}
