package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// spa serves the embedded single-page app: files by name, hashed assets cached for a year (their names change
// with their content), and index.html for the paths of the app's pages (appPages) so its router can show them.
// Any other path answers 404 with index.html too, whose router then shows its not-found screen, so crawlers and
// monitors see a missing page as missing; a path a person would type for a page (pageAliases), or a page's path
// with a trailing slash or in capitals, is redirected to the page. Text files are gzipped once and kept in memory.
// Hidden names (a segment starting with a dot, like the build manifest .vite/manifest.json, which only the
// bundle-budget test reads) are not served.
type spa struct {
	files fs.FS

	mu    sync.Mutex
	cache map[string]*spaFile
}

type spaFile struct {
	body []byte
	gz   []byte // nil when compression does not pay
	etag string
	ct   string
}

func newSPA(files fs.FS) *spa {
	return &spa{files: files, cache: map[string]*spaFile{}}
}

func (s *spa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name != "" && name != "index.html" && !hidden(name) {
		if f := s.load(name); f != nil {
			if strings.HasPrefix(name, "assets/") {
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			} else {
				w.Header().Set("Cache-Control", "public, max-age=3600")
			}
			s.write(w, r, f)
			return
		}
		// A missing hashed asset is an old or wrong URL, not a page: answering index.html would hand the browser
		// HTML where it expects a script.
		if strings.HasPrefix(name, "assets/") {
			http.NotFound(w, r)
			return
		}
	}
	status := http.StatusOK
	if !isAppPage(r.URL.Path) {
		if to := pageRedirect(r.URL.Path); to != "" {
			if r.URL.RawQuery != "" {
				to += "?" + r.URL.RawQuery
			}
			// Permanent, but cached for a day only, so a redirect can still be changed.
			w.Header().Set("Cache-Control", "public, max-age=86400")
			http.Redirect(w, r, to, http.StatusMovedPermanently)
			return
		}
		status = http.StatusNotFound
	}
	index := s.load("index.html")
	if index == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("The web app is not built into this binary. Run `make build` (or `cd web && npm run build`) and rebuild.\n"))
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	s.writeStatus(w, r, index, status)
}

func (s *spa) write(w http.ResponseWriter, r *http.Request, f *spaFile) {
	s.writeStatus(w, r, f, http.StatusOK)
}

// writeStatus answers the file with the status; only a 200 can be answered 304 Not Modified.
func (s *spa) writeStatus(w http.ResponseWriter, r *http.Request, f *spaFile, status int) {
	h := w.Header()
	h.Set("Content-Type", f.ct)
	h.Add("Vary", "Accept-Encoding")
	if status == http.StatusOK {
		h.Set("ETag", f.etag)
		if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body := f.body
	if f.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// load returns the file, read and compressed once; nil when it does not exist or is a folder.
func (s *spa) load(name string) *spaFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.cache[name]; ok {
		return f
	}
	body, err := fs.ReadFile(s.files, name)
	if err != nil {
		// Missing names are not cached, so the cache cannot be grown by requests for random paths.
		return nil
	}
	sum := sha256.Sum256(body)
	f := &spaFile{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ct: contentType(name)}
	if compressible(f.ct) && len(body) > 1024 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(body)
		_ = zw.Close()
		if buf.Len() < len(body) {
			f.gz = buf.Bytes()
		}
	}
	s.cache[name] = f
	return f
}

// hidden reports whether a path has a segment starting with a dot.
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.Contains(name, "/.")
}

func contentType(name string) string {
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

func compressible(ct string) bool {
	return strings.HasPrefix(ct, "text/") || strings.Contains(ct, "javascript") || strings.Contains(ct, "json") ||
		strings.Contains(ct, "svg")
}

// appPage is a path the web app's router shows a page at.
type appPage struct {
	// path is the route's pattern as web/src/app/routes.tsx declares it: a ":name" segment matches any one
	// segment, a final "*" the rest of the path.
	path string
	// public: a page for everyone that sitemap.xml lists.
	public bool
	// private: the signed-in app or a page reached only by a one-time link (a token in the query), which
	// robots.txt asks crawlers to leave alone.
	private bool
}

// appPages are the pages of web/src/app/routes.tsx, every path its route table declares and no other
// (TestAppPagesAreTheRouteTable reads routes.tsx and fails when the two differ). Every other path outside /api/ is
// answered 404 with the app's not-found screen.
var appPages = []appPage{
	{path: "/", public: true},
	{path: "/login", public: true},
	{path: "/sign-in"}, // the same page as /login, so not listed twice
	{path: "/register", public: true},
	{path: "/forgot-password"},
	{path: "/reset-password", private: true},
	{path: "/docs", public: true},
	{path: "/pricing", public: true},
	{path: "/about", public: true},
	{path: "/privacy", public: true},
	{path: "/terms", public: true},
	{path: "/contact-us", public: true},
	{path: "/opt-out", public: true},
	{path: "/opt-out/confirm", private: true},
	{path: "/unsubscribe", private: true},
	{path: "/help-center", public: true},

	// The signed-in app.
	{path: "/dashboard", private: true},
	{path: "/property-lookup", private: true},
	{path: "/person-lookup", private: true},
	{path: "/batch-upload", private: true},
	{path: "/markets", private: true},
	{path: "/api-keys", private: true},
	{path: "/reporting", private: true},
	{path: "/history", private: true},
	{path: "/billing", private: true},
	{path: "/settings", private: true},
	// Portfolios (issue 40): the list and one portfolio.
	{path: "/portfolios", private: true},
	{path: "/portfolios/:id", private: true},

	// The operator console (issue 27): a customer who opens it sees its "operators only" page.
	{path: "/admin", private: true},
	{path: "/admin/accounts", private: true},
	{path: "/admin/accounts/:id", private: true},
	{path: "/admin/support", private: true},
	{path: "/admin/compliance", private: true},
	{path: "/admin/overview", private: true},
	{path: "/admin/audit", private: true},
}

// pageAliases are paths a person would type for a page that lives elsewhere, redirected to it (301).
var pageAliases = map[string]string{
	"/index.html":       "/",
	"/home":             "/",
	"/contact":          "/contact-us",
	"/help":             "/help-center",
	"/support":          "/help-center",
	"/faq":              "/help-center",
	"/signin":           "/login",
	"/log-in":           "/login",
	"/signup":           "/register",
	"/sign-up":          "/register",
	"/pricing-plans":    "/pricing",
	"/plans":            "/pricing",
	"/privacy-policy":   "/privacy",
	"/terms-of-service": "/terms",
	"/api-docs":         "/docs",
	"/documentation":    "/docs",
}

// isAppPage reports whether p is the path of one of the app's pages, exactly (no trailing slash).
func isAppPage(p string) bool {
	for _, pg := range appPages {
		if matchRoute(pg.path, p) {
			return true
		}
	}
	return false
}

// matchRoute matches a path against a react-router pattern ("/a/:id", "/files/*").
func matchRoute(pattern, p string) bool {
	if pattern == "/" || p == "/" {
		return pattern == p
	}
	want := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	got := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, seg := range want {
		switch {
		case seg == "*" && i == len(want)-1:
			return len(got) >= i
		case i >= len(got) || got[i] == "":
			return false
		case strings.HasPrefix(seg, ":"):
		case seg != got[i]:
			return false
		}
	}
	return len(got) == len(want)
}

// pageRedirect returns where a path that is not a page's should go, or "" when it is simply not found: an alias to
// its page, and a page's path written another way (a trailing slash, doubled slashes, capitals) to the page, whose
// address is then the only one crawlers see.
func pageRedirect(p string) string {
	clean := strings.ToLower(path.Clean("/" + p))
	if to, ok := pageAliases[clean]; ok {
		return to
	}
	for _, pg := range appPages {
		// Only a page's fixed path: a path with parameters keeps its case.
		if !strings.ContainsAny(pg.path, ":*") && pg.path == clean {
			return pg.path
		}
	}
	return ""
}

// robotsTxt answers /robots.txt: the public pages are for crawlers, the signed-in app, one-time links and the API
// are not; and where the sitemap is.
func (s *Server) robotsTxt(w http.ResponseWriter, _ *http.Request) {
	var b strings.Builder
	b.WriteString("# Valuator: the public pages are for everyone; the signed-in app, one-time links and the API are not pages.\n")
	b.WriteString("User-agent: *\n")
	b.WriteString("Allow: /\n")
	// The API reference page (/docs) reads the contract, so a crawler that renders it needs it.
	b.WriteString("Allow: /api/openapi.json\n")
	b.WriteString("Disallow: /api/\n")
	for _, pg := range appPages {
		if pg.private {
			b.WriteString("Disallow: " + pg.path + "\n")
		}
	}
	b.WriteString("\nSitemap: " + s.cfg.BaseURL + "/sitemap.xml\n")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write([]byte(b.String()))
}

// sitemapXML answers /sitemap.xml: the public pages, by their absolute URLs under the configured base URL
// (VALUATOR_BASE_URL).
func (s *Server) sitemapXML(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, pg := range appPages {
		if !pg.public {
			continue
		}
		b.WriteString("  <url><loc>")
		_ = xml.EscapeText(&b, []byte(s.cfg.BaseURL+pg.path))
		b.WriteString("</loc></url>\n")
	}
	b.WriteString("</urlset>\n")
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(b.Bytes())
}
