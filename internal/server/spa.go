package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

// spa serves the embedded single-page app: files by name, hashed assets cached for a year (their names change
// with their content), and index.html for every other path so the app's router can show the page (or its
// not-found screen). Text files are gzipped once and kept in memory. Hidden names (a segment starting with a dot,
// like the build manifest .vite/manifest.json, which only the bundle-budget test reads) are not served.
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
	index := s.load("index.html")
	if index == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("The web app is not built into this binary. Run `make build` (or `cd web && npm run build`) and rebuild.\n"))
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	s.write(w, r, index)
}

func (s *spa) write(w http.ResponseWriter, r *http.Request, f *spaFile) {
	h := w.Header()
	h.Set("Content-Type", f.ct)
	h.Set("ETag", f.etag)
	h.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && match == f.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if f.gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
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
