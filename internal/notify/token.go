package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"valuator/internal/mail"
)

// tokenVersion starts every unsubscribe token, so a later format can be told apart.
const tokenVersion = "u1"

// maxTokenLength bounds a token before any work is done on it (a real one is about 80 characters).
const maxTokenLength = 200

// Signer makes and checks unsubscribe tokens: "u1.<account id>.<switch>.<signature>", the signature an HMAC-SHA256
// (base64url) of the rest with a key derived from the server secret. The account and the switch are readable
// (the unsubscribe page says which emails will stop) but cannot be changed without the secret. A token does not
// expire: an email read a year later must still be able to stop the next one; it only ever turns a switch off,
// which the account's owner can turn on again in Settings.
type Signer struct{ key []byte }

// NewSigner derives the token key from the server secret, apart from the other keys derived from it.
func NewSigner(secret string) (*Signer, error) {
	if len(secret) < 32 {
		return nil, errors.New("notify: the server secret is too short")
	}
	k := sha256.Sum256([]byte("valuator:unsubscribe:" + secret))
	return &Signer{key: k[:]}, nil
}

// Token is the unsubscribe token of one account's switch.
func (s *Signer) Token(userID int64, topic string) string {
	body := tokenVersion + "." + strconv.FormatInt(userID, 10) + "." + topic
	return body + "." + s.sign(body)
}

func (s *Signer) sign(body string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Parse checks a token and returns its account and switch; ErrBadToken for anything but a token this server made.
func (s *Signer) Parse(token string) (userID int64, topic string, err error) {
	token = strings.TrimSpace(token)
	if token == "" || len(token) > maxTokenLength {
		return 0, "", ErrBadToken
	}
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != tokenVersion {
		return 0, "", ErrBadToken
	}
	id, err := strconv.ParseInt(parts[1], 10, 64)
	// The canonical form only, so one account and switch has exactly one token.
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != parts[1] || !ValidTopic(parts[2]) {
		return 0, "", ErrBadToken
	}
	want := s.sign(strings.Join(parts[:3], "."))
	if !hmac.Equal([]byte(want), []byte(parts[3])) {
		return 0, "", ErrBadToken
	}
	return id, parts[2], nil
}

// Links makes the links of emails: absolute, on BaseURL.
type Links struct {
	BaseURL string // without a trailing slash
	// Signer makes the unsubscribe links (nil: none; only tools and tests that send no account email leave it out).
	Signer *Signer
}

// URL is the absolute link to a path of the app.
func (l Links) URL(path string) string { return strings.TrimRight(l.BaseURL, "/") + path }

// Unsubscribe is the unsubscribe page a person opens (the web app's /unsubscribe, which says which emails stop
// and asks to confirm) and the one-click URL a mail client posts to (RFC 8058). Both "" without a Signer.
func (l Links) Unsubscribe(userID int64, topic string) (page, oneClick string) {
	if l.Signer == nil || userID == 0 || !ValidTopic(topic) {
		return "", ""
	}
	tok := url.QueryEscape(l.Signer.Token(userID, topic))
	return l.URL("/unsubscribe?token=" + tok), l.URL("/api/unsubscribe?token=" + tok)
}

// Footer is the end of an email governed by topic: why it was sent and how to stop it.
func (l Links) Footer(userID int64, topic string) string {
	page, _ := l.Unsubscribe(userID, topic)
	out := "\n--\nYou get this email because \"" + TopicLabel(topic) + "\" is on in your settings (" + l.URL("/settings") + ").\n"
	if page != "" {
		out += "To stop these emails, open: " + page + "\n"
	}
	return out
}

// Headers are the List-Unsubscribe headers of an email governed by topic. The one-click header (RFC 8058), which
// lets a mail client unsubscribe with a POST and no page, is only sent with an https link, as the RFC requires.
func (l Links) Headers(userID int64, topic string) []mail.Header {
	_, oneClick := l.Unsubscribe(userID, topic)
	if oneClick == "" {
		return nil
	}
	h := []mail.Header{{Name: "List-Unsubscribe", Value: "<" + oneClick + ">"}}
	if strings.HasPrefix(oneClick, "https://") {
		h = append(h, mail.Header{Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click"})
	}
	return h
}
