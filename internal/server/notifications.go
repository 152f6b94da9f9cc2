package server

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/notify"
	"valuator/internal/ratelimit"
)

// unsubscribeLimit bounds unsubscribe posts per client address: a person clicks a few links; a script trying
// tokens is cut short (it could not forge one anyway).
var unsubscribeLimit = ratelimit.Per(60, time.Hour)

// unsubscribeSigner is the signer of Deps.Unsubscribe, or one derived from the server secret. Without a usable
// secret (a test's server) it makes a random key: its tokens then hold for this process only.
func unsubscribeSigner(d Deps) *notify.Signer {
	if d.Unsubscribe != nil {
		return d.Unsubscribe
	}
	if s, err := notify.NewSigner(d.Config.Secret); err == nil {
		return s
	}
	buf := make([]byte, 32)
	_, _ = rand.Read(buf)
	s, _ := notify.NewSigner(hex.EncodeToString(buf))
	return s
}

// site is what the public pages need to know about this installation: the support address the Contact page
// gives (VALUATOR_SUPPORT_EMAIL), so that it names only a channel that reaches someone, and the support team's
// office hours (VALUATOR_SUPPORT_HOURS, the chat's; see officeHours), so that the page states them as configured.
func (s *Server) site(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, map[string]string{"supportEmail": s.cfg.SupportEmail, "supportHours": s.hours.Text()})
}

// Unsubscribe answers.
const (
	msgUnsubscribeTokenRequired = "token is required: open the unsubscribe link from the email"
	msgUnsubscribeTokenInvalid  = "This unsubscribe link is not valid. Open the link from the email as it is, or turn the emails off in Settings."
)

// unsubscribe turns off the switch an email's unsubscribe link names, without signing in. The token comes in a
// JSON body ({"token": ...}, the /unsubscribe page's button) or in the URL with a form body
// "List-Unsubscribe=One-Click" (RFC 8058: a mail client's one-click unsubscribe posts to the List-Unsubscribe URL).
// Using a link twice is harmless.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("token")
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/x-www-form-urlencoded", "multipart/form-data":
		// The body says only "List-Unsubscribe=One-Click"; the URL's token decides. It is read (and bounded) so
		// that the connection can be reused.
		if _, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, 4<<10)); err != nil {
			s.writeError(w, r, jsonError(err))
			return
		}
	default:
		var in struct {
			Token *string `json:"token"`
		}
		if err := decodeJSON(w, r, &in); err != nil {
			s.writeError(w, r, err)
			return
		}
		if in.Token != nil {
			token = *in.Token
		}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		s.writeError(w, r, apperr.Invalid("token", msgUnsubscribeTokenRequired))
		return
	}
	userID, topic, err := s.unsub.Parse(token)
	if err != nil {
		s.writeError(w, r, apperr.Invalid("token", msgUnsubscribeTokenInvalid))
		return
	}
	if err := s.accounts.Unsubscribe(r.Context(), userID, topic); err != nil {
		s.writeError(w, r, err)
		return
	}
	logAttrsFrom(r.Context()).add(slog.Int64("user_id", userID))
	s.log.Info("unsubscribed by link", "user_id", userID, "switch", topic)
	writeJSON(w, http.StatusOK, map[string]string{"switch": topic, "label": notify.TopicLabel(topic),
		"message": "Done: these emails are off. You can turn them on again in Settings."})
}

// unsubscribeLink sends a browser that opens an email's List-Unsubscribe URL (a mail client without one-click
// unsubscribe may) to the unsubscribe page, which asks before it turns anything off: a GET changes nothing, since
// mail scanners open links on their own.
func (s *Server) unsubscribeLink(w http.ResponseWriter, r *http.Request) {
	target := "/unsubscribe"
	if tok := r.URL.Query().Get("token"); tok != "" && len(tok) <= 200 {
		target += "?token=" + url.QueryEscape(tok)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusSeeOther)
}
