package server

import (
	"bytes"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"golang.org/x/mod/module"

	"valuator/internal/apperr"
	"valuator/internal/sdks"
)

// The server hosts its own clients (issue 37): GET /api/sdks says what they are and how to install them from here,
// and these routes hand them out in each language's own protocol, so that a self-hosted installation gives its
// customers the SDKs without any public registry. They are files for tools, not part of the API contract (like
// robots.txt): bad paths and unknown versions are plain-text 404s, which the go command and pip read as "not here".
const (
	goProxyPath  = "/goproxy"     // GOPROXY protocol: /goproxy/<module>/@v/list, .info, .mod, .zip, /@latest
	npmPath      = "/sdk/npm/"    // the npm tarball: /sdk/npm/<file>.tgz
	pySimplePath = "/pypi/simple" // PEP 503: /pypi/simple/, /pypi/simple/<project>/
	pyFilesPath  = "/pypi/files/" // the wheel and sdist the index links to
	// publicGoProxy is the proxy the install line falls back on for the Go SDK's own dependencies.
	publicGoProxy = "https://proxy.golang.org"
)

func (s *Server) sdkRoutes() []route {
	rs := []route{
		{"GET", goProxyPath + "/{path...}", s.goProxy},
		{"GET", npmPath + "{file}", s.npmTarball},
		{"GET", pySimplePath + "/{$}", s.pyIndex},
		{"GET", pySimplePath + "/{project}/{$}", s.pyProject},
		{"GET", pySimplePath + "/{project}", s.pyProjectSlash},
		{"GET", pyFilesPath + "{file}", s.pyFile},
		// Anything else under these folders is no page of the app.
		{"GET", "/sdk/", s.sdkNotFound},
		{"GET", "/pypi/", s.sdkNotFound},
	}
	// The go-get page of the module's own path (valuator.dev/sdk/go is /sdk/go here), which is where a public
	// release's `go get` looks: it names this server's module proxy.
	if s.sdks != nil {
		if _, p, ok := strings.Cut(s.sdks.Go.Path, "/"); ok {
			rs = append(rs, route{"GET", "/" + p, s.goImport}, route{"GET", "/" + p + "/{sub...}", s.goImport})
		}
	}
	return rs
}

// clientBase is the address clients reach this server at: VALUATOR_BASE_URL when it is set; else the request's own
// scheme and host, since the default (http://localhost:<port>) is no address for another machine.
func (s *Server) clientBase(r *http.Request) string {
	if s.cfg.BaseURLSet || r.Host == "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host}
	if _, err := url.Parse(u.String()); err != nil {
		return s.cfg.BaseURL
	}
	return u.String()
}

// sdkInfo is GET /api/sdks's answer (schema SdkCatalog).
type sdkInfo struct {
	Go struct {
		Module  string `json:"module"`
		Version string `json:"version"`
		GoProxy string `json:"goproxy"`
		Install string `json:"install"`
	} `json:"go"`
	TypeScript struct {
		Package string `json:"package"`
		Version string `json:"version"`
		Tarball string `json:"tarball"`
		Install string `json:"install"`
	} `json:"typescript"`
	Python *pyInfo `json:"python"`
}

type pyInfo struct {
	Package string `json:"package"`
	Version string `json:"version"`
	Index   string `json:"index"`
	Install string `json:"install"`
}

// sdkInstall describes the catalog with this server's addresses and the lines that install each package.
func sdkInstall(c *sdks.Catalog, base string) sdkInfo {
	var out sdkInfo
	goproxy := base + goProxyPath
	out.Go.Module, out.Go.Version, out.Go.GoProxy = c.Go.Path, c.Go.Latest(), goproxy
	// The checksum database cannot know a module only this server has: GONOSUMDB skips it for this module alone
	// (its dependencies are still checked); the public proxy after this one serves those dependencies.
	out.Go.Install = "GOPROXY=" + goproxy + "," + publicGoProxy + " GONOSUMDB=" + c.Go.Path + " go get " +
		c.Go.Path + "@" + c.Go.Latest()
	ts := c.TypeScript
	out.TypeScript.Package, out.TypeScript.Version = ts.Name, ts.Version
	out.TypeScript.Tarball = base + npmPath + url.PathEscape(ts.Tarball.Name)
	out.TypeScript.Install = "npm install " + out.TypeScript.Tarball
	if p := c.Python; p != nil {
		root := base + pySimplePath + "/"
		line := "pip install --index-url " + root
		if p.Dependencies {
			// Its dependencies are on PyPI, which this index does not mirror.
			line += " --extra-index-url https://pypi.org/simple/"
		}
		// pip refuses a plain-HTTP index except on the loopback unless told to trust its host.
		if u, err := url.Parse(base); err == nil && u.Scheme == "http" && !isLoopback(u.Hostname()) {
			line += " --trusted-host " + u.Host
		}
		out.Python = &pyInfo{Package: p.Name, Version: p.Version, Index: root + p.Name + "/",
			Install: line + " " + p.Name + "==" + p.Version}
	}
	return out
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) sdkCatalog(w http.ResponseWriter, r *http.Request) {
	if s.sdks == nil {
		s.writeError(w, r, &apperr.Error{Kind: apperr.KindUnavailable, Code: "sdks_not_built",
			Message: "The client packages are not built into this binary: build it with make build, which packages the SDKs into it."})
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	writeJSON(w, http.StatusOK, sdkInstall(s.sdks, s.clientBase(r)))
}

func (s *Server) sdkNotFound(w http.ResponseWriter, r *http.Request) {
	protocolNotFound(w, "not found: "+r.URL.Path)
}

// protocolNotFound is the 404 of the package protocols: plain text, which the go command prints after the URL.
func protocolNotFound(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(msg + "\n"))
}

// serveFile answers a package file with its SHA-256 as the ETag (conditional and range requests, HEAD).
func serveFile(w http.ResponseWriter, r *http.Request, f sdks.File, contentType, cacheControl string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", cacheControl)
	w.Header().Set("ETag", `"`+f.SHA256+`"`)
	http.ServeContent(w, r, f.Name, time.Time{}, bytes.NewReader(f.Data))
}

// A version's files never change (the go command checks them against go.sum); the list and @latest do.
const (
	cacheVersioned = "public, max-age=86400"
	cacheListing   = "no-cache"
)

// goProxy answers the GOPROXY protocol (https://go.dev/ref/mod#goproxy-protocol) for the Go SDK's module:
// $module/@v/list, $module/@v/$version.info, .mod, .zip and $module/@latest, with module paths and versions in
// their case-escaped form. Every other path (another module, an unknown version, the checksum database's
// /sumdb/...) is a 404, on which the go command tries the next proxy of GOPROXY.
func (s *Server) goProxy(w http.ResponseWriter, r *http.Request) {
	if s.sdks == nil {
		protocolNotFound(w, "not found: this binary was built without the client packages")
		return
	}
	m := s.sdks.Go
	p := r.PathValue("path")
	var escMod, file string
	if before, ok := strings.CutSuffix(p, "/@latest"); ok {
		escMod, file = before, "@latest"
	} else if before, after, ok := strings.Cut(p, "/@v/"); ok {
		escMod, file = before, after
	} else {
		protocolNotFound(w, "not found: "+p)
		return
	}
	modPath, err := module.UnescapePath(escMod)
	if err != nil || modPath != m.Path {
		protocolNotFound(w, "not found: module "+escMod+" is not served here (only "+m.Path+")")
		return
	}
	switch file {
	case "@latest":
		f, _ := m.File(m.Latest(), ".info")
		serveFile(w, r, f, "application/json", cacheListing)
		return
	case "list":
		list := strings.Join(m.Versions, "\n") + "\n"
		serveFile(w, r, sdks.NewFile("list", []byte(list)), "text/plain; charset=utf-8", cacheListing)
		return
	}
	ext := path.Ext(file)
	types := map[string]string{".info": "application/json", ".mod": "text/plain; charset=utf-8", ".zip": "application/zip"}
	ct, ok := types[ext]
	if !ok {
		protocolNotFound(w, "not found: "+file)
		return
	}
	version, err := module.UnescapeVersion(strings.TrimSuffix(file, ext))
	if err != nil {
		protocolNotFound(w, "not found: "+file)
		return
	}
	f, ok := m.File(version, ext)
	if !ok {
		protocolNotFound(w, "not found: "+m.Path+"@"+version+": unknown revision "+version)
		return
	}
	serveFile(w, r, f, ct, cacheVersioned)
}

var goImportPage = template.Must(template.New("go-import").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="go-import" content="{{.Module}} mod {{.GoProxy}}">
<title>{{.Module}}</title>
</head>
<body>
<h1>{{.Module}}</h1>
<p>The Go client of the Valuator API, version {{.Version}}. Install it from this server:</p>
<pre>{{.Install}}</pre>
<p><a href="/docs">API documentation</a></p>
</body>
</html>
`))

// goImport is the module path's go-get page: its go-import meta tag names this server's module proxy
// (`<module> mod <goproxy>`), as https://go.dev/ref/mod#vcs-find describes.
func (s *Server) goImport(w http.ResponseWriter, r *http.Request) {
	info := sdkInstall(s.sdks, s.clientBase(r))
	var b bytes.Buffer
	if err := goImportPage.Execute(&b, info.Go); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b.Bytes())
}

// npmTarball serves the TypeScript SDK's tarball, for `npm install <url>`.
func (s *Server) npmTarball(w http.ResponseWriter, r *http.Request) {
	if s.sdks == nil {
		protocolNotFound(w, "not found: this binary was built without the client packages")
		return
	}
	f, ok := s.sdks.TypeScript.File(r.PathValue("file"))
	if !ok {
		protocolNotFound(w, "not found: "+r.URL.Path)
		return
	}
	serveFile(w, r, f, "application/octet-stream", cacheVersioned)
}

var pyIndexPage = template.Must(template.New("simple").Parse(`<!DOCTYPE html>
<html>
<head>
<meta name="pypi:repository-version" content="1.0">
<title>{{.Title}}</title>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Links}}<a href="{{.Href}}">{{.Text}}</a><br>
{{end}}</body>
</html>
`))

type pyLink struct {
	Href template.URL
	Text string
}

func (s *Server) pyPage(w http.ResponseWriter, r *http.Request, title string, links []pyLink) {
	var b bytes.Buffer
	if err := pyIndexPage.Execute(&b, struct {
		Title string
		Links []pyLink
	}{title, links}); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", cacheListing)
	_, _ = w.Write(b.Bytes())
}

// pyIndex is PEP 503's root: one link per project (one, or none in a build without the Python SDK).
func (s *Server) pyIndex(w http.ResponseWriter, r *http.Request) {
	var links []pyLink
	if s.sdks != nil && s.sdks.Python != nil {
		p := s.sdks.Python.Name
		links = append(links, pyLink{Href: template.URL(s.clientBase(r) + pySimplePath + "/" + p + "/"), Text: p})
	}
	s.pyPage(w, r, "Simple index", links)
}

// pyProject is PEP 503's project page: a link to each file with its SHA-256 in the fragment. A name that is not
// in its normalized form is redirected to it, as PEP 503 allows.
func (s *Server) pyProject(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("project")
	p := s.pyProjectNamed(name)
	if p == nil {
		protocolNotFound(w, "not found: no project "+name+" on this index")
		return
	}
	if name != p.Name {
		http.Redirect(w, r, pySimplePath+"/"+p.Name+"/", http.StatusMovedPermanently)
		return
	}
	base := s.clientBase(r)
	links := make([]pyLink, 0, len(p.Files))
	for _, f := range p.Files {
		links = append(links, pyLink{Href: template.URL(base + pyFilesPath + url.PathEscape(f.Name) + "#sha256=" + f.SHA256),
			Text: f.Name})
	}
	s.pyPage(w, r, "Links for "+p.Name, links)
}

// pyProjectSlash redirects a project's URL without its trailing slash (PEP 503: the URL ends with one).
func (s *Server) pyProjectSlash(w http.ResponseWriter, r *http.Request) {
	p := s.pyProjectNamed(r.PathValue("project"))
	if p == nil {
		protocolNotFound(w, "not found: no project "+r.PathValue("project")+" on this index")
		return
	}
	http.Redirect(w, r, pySimplePath+"/"+p.Name+"/", http.StatusMovedPermanently)
}

func (s *Server) pyProjectNamed(name string) *sdks.PyProject {
	if s.sdks == nil || s.sdks.Python == nil || sdks.NormalizePyName(name) != s.sdks.Python.Name {
		return nil
	}
	return s.sdks.Python
}

// pyFile serves a wheel or sdist the index links to.
func (s *Server) pyFile(w http.ResponseWriter, r *http.Request) {
	if s.sdks == nil || s.sdks.Python == nil {
		protocolNotFound(w, "not found: this binary has no Python package")
		return
	}
	f, ok := s.sdks.Python.File(r.PathValue("file"))
	if !ok {
		protocolNotFound(w, "not found: "+r.URL.Path)
		return
	}
	serveFile(w, r, f, "application/octet-stream", cacheVersioned)
}
