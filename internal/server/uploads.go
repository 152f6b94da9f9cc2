package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/gate"
)

// No customer may slow down another (DESIGN.md section 5, abuse limits). An upload takes one of the process's
// spreadsheet-read slots only once its body has arrived, so a client that sends slowly holds no slot; the body
// must arrive at a minimum pace or it is cut off; each account has at most UploadsPerAccount uploads and
// DownloadsPerAccount downloads in flight, so that one account cannot take the capacity that all share; and a
// download whose client stops taking the file is cut off after the stall period (Deps.DownloadStall), which frees
// its slot.

// UploadsPerAccount and DownloadsPerAccount bound what one account has in flight.
const (
	UploadsPerAccount   = 2
	DownloadsPerAccount = 2
)

// DownloadsPerProcess bounds the downloads the process sends at once: each holds a page of rows and, for XLSX, the
// stream writer's buffers, and keeps a database read going. It is always more than two accounts' shares, so that
// two accounts cannot lock a third out (issue 36, M-1: with 4 slots on a machine of 1 or 2 cores, two Enterprise
// accounts' stalled downloads held them all and every other customer's download was answered 429).
func DownloadsPerProcess() int { return max(2*DownloadsPerAccount+1, 2*runtime.GOMAXPROCS(0)) }

// DefaultDownloadStall is how long a download may go without its client taking any of the file before it is cut
// off (Deps.DownloadStall): far longer than any working connection pauses, and short enough that a client that
// stops reading gives its slot back within a minute rather than at the server's 5-minute write timeout.
const DefaultDownloadStall = 30 * time.Second

// busyRetryAfter is what a request refused for the account's in-flight bound is told to wait.
const busyRetryAfter = 5

// Pace is the slowest a request body may arrive: Rate bytes a second on average, after a first Grace.
type Pace struct {
	Rate  float64
	Grace time.Duration
}

// DefaultUploadPace lets a phone on a poor network send a few megabytes a minute, and cuts off a client that
// trickles a body to hold a connection (10 KB/s averaged over 30 s).
var DefaultUploadPace = Pace{Rate: 10 << 10, Grace: 30 * time.Second}

// deadline is when n bytes must have arrived, for a body that started at start.
func (p Pace) deadline(start time.Time, n int64) time.Time {
	return start.Add(p.Grace + time.Duration(float64(n)/p.Rate*float64(time.Second)))
}

// errSlowBody is a body that fell behind the pace.
var errSlowBody = &apperr.Error{Kind: apperr.KindTimeout, Code: "upload_too_slow", Field: "file",
	Message: "The upload arrived too slowly and was cut off. Upload the file again on a steadier connection."}

// pacedBody moves the connection's read deadline along with the bytes that arrived, so that a body falling behind
// the pace ends in a read timeout, answered 408. The server's ReadTimeout alone would let a slow client hold the
// request (and, before, a read slot) for five minutes.
type pacedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	pace  Pace
	start time.Time
	n     int64
}

func (b *pacedBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(b.pace.deadline(b.start, b.n+int64(len(p))))
	n, err := b.body.Read(p)
	b.n += int64(n)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, errSlowBody
	}
	return n, err
}

func (b *pacedBody) Close() error { return b.body.Close() }

// pace makes r's body arrive at the server's upload pace; done lifts the deadline once the body is in.
func (s *Server) pace(w http.ResponseWriter, r *http.Request) (done func()) {
	rc := http.NewResponseController(w)
	r.Body = &pacedBody{body: r.Body, rc: rc, pace: s.uploadPace, start: time.Now()}
	return func() { _ = rc.SetReadDeadline(time.Time{}) }
}

// takeUpload admits one upload of the account, or answers why not (429 with Retry-After).
func (s *Server) takeUpload(userID int64) (release func(), err error) {
	release, refused := s.uploads.Take(userID)
	if refused != gate.Admitted {
		e := apperr.RateLimited(fmt.Sprintf("You have %d uploads in progress. Wait for one to finish, then upload "+
			"again (in about %d seconds).", UploadsPerAccount, busyRetryAfter), busyRetryAfter)
		e.Extra = map[string]any{"title": "Uploads In Progress"}
		return nil, e
	}
	return release, nil
}

// takeDownload admits one download of the account, or answers why not (429 with Retry-After).
func (s *Server) takeDownload(userID int64) (release func(), err error) {
	release, refused := s.downloads.Take(userID)
	switch refused {
	case gate.Admitted:
		return release, nil
	case gate.AccountFull:
		return nil, apperr.RateLimited(fmt.Sprintf("You have %d downloads in progress. Wait for one to finish, then "+
			"download again (in about %d seconds).", DownloadsPerAccount, busyRetryAfter), busyRetryAfter)
	default:
		return nil, apperr.RateLimited(fmt.Sprintf("The server is sending many downloads right now. Try again in %d "+
			"seconds.", busyRetryAfter), busyRetryAfter)
	}
}

// stallChunk is the most of a download written under one deadline, however large the writes of the file's writer
// are: the connection must take each chunk within the stall period. (A write blocked on a full send buffer resumes
// only once the client has taken about a third of it, so on a fast link, where the kernel grows the buffer to
// 4 MB, a client must read some 50 KB a second on average to keep a download going at the default stall.)
const stallChunk = 32 << 10

// progressWriter gives each chunk written to a download's connection a deadline of the stall period from when it
// is written, so that a client that stops reading ends the download with a write timeout (the handler then aborts
// the connection and gives its slot back) instead of holding the slot until the server's WriteTimeout. The
// deadlines never pass limit, the server's own WriteTimeout for the request, which stays the bound of a whole
// download.
type progressWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	stall time.Duration
	limit time.Time // zero: the server has no WriteTimeout
}

// newProgressWriter is the progress deadline of s's stall period for the response w of r.
func (s *Server) newProgressWriter(w http.ResponseWriter, r *http.Request) *progressWriter {
	p := &progressWriter{w: w, rc: http.NewResponseController(w), stall: s.stall}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 {
		p.limit = time.Now().Add(srv.WriteTimeout)
	}
	return p
}

// extend sets the connection's write deadline to the stall period from now (at most limit).
func (p *progressWriter) extend() error {
	d := time.Now().Add(p.stall)
	if !p.limit.IsZero() && d.After(p.limit) {
		d = p.limit
	}
	return p.rc.SetWriteDeadline(d)
}

func (p *progressWriter) Write(b []byte) (n int, err error) {
	for len(b) > 0 {
		chunk := b[:min(len(b), stallChunk)]
		if err := p.extend(); err != nil {
			return n, err // no deadline can be set: better no download than one that can hold a slot for good
		}
		m, err := p.w.Write(chunk)
		n += m
		if err != nil {
			return n, err
		}
		b = b[m:]
	}
	return n, nil
}

// finish sends what the response's buffers still hold under a last progress deadline, then gives the connection
// back the server's own deadline for the end of the response (and, on a server without WriteTimeout, for the
// requests that follow on the connection, which must not inherit a deadline of this download's).
func (p *progressWriter) finish() error {
	if err := p.extend(); err != nil {
		return err
	}
	if err := p.rc.Flush(); err != nil {
		return err
	}
	return p.rc.SetWriteDeadline(p.limit)
}

// uploadFile creates the temporary file an upload's file part is received into.
func (s *Server) uploadFile() (*os.File, error) {
	if err := os.MkdirAll(s.uploadDir, 0o700); err != nil {
		return nil, err
	}
	return os.CreateTemp(s.uploadDir, "upload-*")
}

// staleUpload is how long an upload's temporary file may go unwritten before a starting server removes it: a live
// upload writes to it at least at the upload pace, so an older file was left by a process that died.
const staleUpload = time.Minute

// removeStaleUploads removes the temporary files of uploads a previous process left behind (it was killed, or the
// machine lost power, mid-upload). Each request removes its own file on every other path.
func (s *Server) removeStaleUploads() {
	entries, err := os.ReadDir(s.uploadDir)
	if err != nil {
		return // no folder yet: nothing was ever left
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() || time.Since(info.ModTime()) < staleUpload {
			continue
		}
		if err := os.Remove(filepath.Join(s.uploadDir, e.Name())); err != nil {
			s.log.Warn("removing a stale upload", "file", e.Name(), "err", err)
		}
	}
}
