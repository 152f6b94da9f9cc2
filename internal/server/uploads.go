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
// must arrive at a minimum pace or it is cut off; and each account has at most UploadsPerAccount uploads and
// DownloadsPerAccount downloads in flight, so that one account cannot take the capacity that all share.

// UploadsPerAccount and DownloadsPerAccount bound what one account has in flight.
const (
	UploadsPerAccount   = 2
	DownloadsPerAccount = 2
)

// DownloadsPerProcess bounds the downloads the process sends at once: each holds a page of rows and, for XLSX, the
// stream writer's buffers, and keeps a database read going.
func DownloadsPerProcess() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

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
