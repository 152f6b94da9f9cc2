package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"valuator/internal/metrics"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxClientRequestID
	ctxLogAttrs
	ctxUser
	ctxAPIKey
)

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// clientRequestIDFrom is the X-Request-Id the caller sent ("" for none or a malformed one): the caller's label, kept
// beside the server's id, never in its place.
func clientRequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxClientRequestID).(string)
	return id
}

func logAttrsFrom(ctx context.Context) *logAttrs {
	l, _ := ctx.Value(ctxLogAttrs).(*logAttrs)
	return l
}

// statusWriter remembers the status and size of a response for the log line.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer (flushing, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe gives every request the server's own id, answers with it, and writes exactly one structured log line when
// the request ends. A well-formed incoming X-Request-Id is kept as the caller's label (answered as
// X-Client-Request-Id, logged, and stored beside the server's id in usage records and the audit log), so a caller
// can follow one request through several services; it never replaces the server's id, which records are evidence
// by: a caller could otherwise give every request the same id, or someone else's. Panics are recovered here into a
// JSON 500, logged with the stack.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := newRequestID(start)
		clientID := r.Header.Get("X-Request-Id")
		if !validRequestID(clientID) {
			clientID = ""
		}
		w.Header().Set("X-Request-Id", id)
		attrs := &logAttrs{}
		if clientID != "" {
			w.Header().Set("X-Client-Request-Id", clientID)
			attrs.add(slog.String("client_request_id", clientID))
		}
		ctx := context.WithValue(context.WithValue(context.WithValue(r.Context(), ctxRequestID, id), ctxLogAttrs, attrs),
			ctxClientRequestID, clientID)
		r = r.WithContext(ctx)
		sw := &statusWriter{ResponseWriter: w}

		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "request_id", id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.writeError(sw, r, fmt.Errorf("panic: %v", p))
				}
			}
			// Our faults are errors; 503 (not ready yet, a dependency down) is a warning, since it is expected while
			// the server starts.
			elapsed := time.Since(start)
			level := slog.LevelInfo
			switch {
			case sw.status == http.StatusServiceUnavailable:
				level = slog.LevelWarn
			case sw.status >= 500:
				level = slog.LevelError
			}
			base := []slog.Attr{
				slog.String("request_id", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", sw.status),
				slog.Int64("bytes", sw.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.String("ip", s.clientIP(r)),
			}
			s.log.LogAttrs(r.Context(), level, "request", append(base, attrs.attrs...)...)
			s.metrics.ObserveRequest(metricsRoute(r), sw.status, elapsed)
		}()
		next.ServeHTTP(sw, r)
	})
}

// metricsRoute is the route label of a request: the pattern of the route it matched (the mux sets r.Pattern), never
// its path, which would make a series of every job id and every page of the app.
func metricsRoute(r *http.Request) string {
	switch {
	case r.Pattern != "":
		return r.Pattern
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && !isAPIPath(r.URL.Path):
		return metrics.RouteSPA
	}
	return metrics.RouteUnmatched
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// newRequestID returns a ULID: 48 bits of milliseconds and 80 random bits in Crockford base32, so ids sort by time.
func newRequestID(now time.Time) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	_, _ = rand.Read(b[6:])
	// 128 bits -> 26 base32 characters, most significant first.
	var out [26]byte
	var hi, lo uint64
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(b[i])
		lo = lo<<8 | uint64(b[i+8])
	}
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

// contentSecurityPolicy allows only this origin: the app, its styles (inline style attributes are used by the UI
// primitives and charts), data: images and fonts, and calls back to this server. When Stripe takes the payments,
// Stripe.js and its card frames are admitted too (the origins Stripe documents for its CSP); otherwise no external
// origin is needed, and none is allowed.
func contentSecurityPolicy(stripe bool) string {
	script, frame, connect := "'self'", "'none'", "'self'"
	if stripe {
		script += " https://js.stripe.com https://*.js.stripe.com"
		frame = "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com"
		connect += " https://api.stripe.com"
	}
	return "default-src 'self'; script-src " + script + "; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data: blob:; font-src 'self' data:; connect-src " + connect + "; frame-src " + frame + "; " +
		"worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
}

// secure sets the security headers on every response.
func (s *Server) secure(next http.Handler) http.Handler {
	hsts := strings.HasPrefix(s.cfg.BaseURL, "https://")
	csp := contentSecurityPolicy(s.cfg.Stripe.Enabled())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if hsts {
			h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		}
		next.ServeHTTP(w, r)
	})
}

// clientIP is the caller's address: the connection's peer, or the first X-Forwarded-For hop when the server is
// configured to sit behind a trusted proxy.
func (s *Server) clientIP(r *http.Request) string {
	if s.cfg.TrustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			if ip := net.ParseIP(strings.TrimSpace(first)); ip != nil {
				return ip.String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
