// Package mail sends the product's emails: by SMTP when configured, otherwise into the log so that a development
// install works without a mail server.
package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"mime"
	"net"
	netmail "net/mail"
	"net/smtp"
	"strconv"
	"strings"
	"sync"
	"time"

	"valuator/internal/config"
)

// Message is a plain-text email.
type Message struct {
	To      string
	Subject string
	Text    string
	// ReplyTo, when set, is where replies go (the sender of a contact message, say): a bare address.
	ReplyTo string
	// Headers are further header fields, written in their order after the standard ones (List-Unsubscribe, say).
	// A field whose name is not a plain token, or names a field the message writes itself, is left out.
	Headers []Header
}

// Header is one header field of a message.
type Header struct{ Name, Value string }

// Sender delivers one message.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Log writes messages to the log instead of sending them (development, or no SMTP configured).
type Log struct {
	Logger *slog.Logger
	// Body logs the message's text too, so that a developer can follow a reset link from the terminal. Only in
	// development: the text of a reset email is a live link to the account, and a production log is read by more
	// people (and kept by more systems) than the account's owner.
	Body bool
}

// Send logs the message: its text only when Body is set.
func (l Log) Send(_ context.Context, m Message) error {
	if l.Body {
		l.Logger.Info("email (not sent: SMTP is not configured)", "to", m.To, "subject", m.Subject, "body", m.Text)
		return nil
	}
	l.Logger.Warn("email not sent: SMTP is not configured (set VALUATOR_SMTP_HOST); its text is not logged because it may hold a link to the account",
		"to", m.To, "subject", m.Subject)
	return nil
}

// ForConfig is the sender the configuration asks for: SMTP when VALUATOR_SMTP_HOST is set, otherwise the log,
// with the messages' text only in development.
func ForConfig(cfg config.Config, logger *slog.Logger) Sender {
	if cfg.SMTP.Enabled() {
		return SMTP{Config: cfg.SMTP}
	}
	return Log{Logger: logger, Body: cfg.Dev()}
}

// Undeliverable reports whether the configuration cannot deliver email at all: production without SMTP, where
// password reset links and account notices reach nobody (the server warns about it at start).
func Undeliverable(cfg config.Config) bool {
	return !cfg.SMTP.Enabled() && !cfg.Dev()
}

// SMTP sends through a mail server, upgrading to TLS with STARTTLS when the server offers it (port 465 uses TLS
// from the start).
type SMTP struct {
	Config config.SMTP
	// Timeout bounds one delivery; 30 s when zero.
	Timeout time.Duration
}

// Send delivers m.
func (s SMTP) Send(ctx context.Context, m Message) error {
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	addr := net.JoinHostPort(s.Config.Host, strconv.Itoa(s.Config.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", addr, err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	tlsConfig := &tls.Config{ServerName: s.Config.Host, MinVersion: tls.VersionTLS12}
	if s.Config.Port == 465 {
		conn = tls.Client(conn, tlsConfig)
	}
	c, err := smtp.NewClient(conn, s.Config.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp hello: %w", err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && s.Config.Port != 465 {
		if err := c.StartTLS(tlsConfig); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.Config.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", s.Config.Username, s.Config.Password, s.Config.Host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	// The envelope takes the bare address; the From header keeps the display name.
	from, err := netmail.ParseAddress(s.Config.From)
	if err != nil {
		return fmt.Errorf("smtp from address %q: %w", s.Config.From, err)
	}
	if err := c.Mail(from.Address); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(m.To); err != nil {
		return fmt.Errorf("smtp RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(Render(s.Config.From, m, time.Now())); err != nil {
		return fmt.Errorf("smtp write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end of data: %w", err)
	}
	return c.Quit()
}

// Render formats m as an RFC 5322 message. Header values are stripped of line breaks (and NUL) so a subject or
// address taken from user input cannot inject headers.
func Render(from string, m Message, now time.Time) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\n", cleanHeader(from))
	fmt.Fprintf(&b, "To: %s\r\n", cleanHeader(m.To))
	// A subject with non-ASCII text (a name from a contact message, say) is encoded (RFC 2047); ASCII stays as is.
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", cleanHeader(m.Subject)))
	fmt.Fprintf(&b, "Date: %s\r\n", now.UTC().Format(time.RFC1123Z))
	if m.ReplyTo != "" {
		fmt.Fprintf(&b, "Reply-To: %s\r\n", cleanHeader(m.ReplyTo))
	}
	for _, h := range m.Headers {
		if validHeaderName(h.Name) {
			fmt.Fprintf(&b, "%s: %s\r\n", h.Name, cleanHeader(h.Value))
		}
	}
	b.WriteString("MIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\n")
	b.WriteString("Content-Transfer-Encoding: 8bit\r\n\r\n")
	// SMTP's DATA writer (net/smtp) turns line ends into CRLF and escapes lines that start with a dot.
	b.WriteString(m.Text)
	return []byte(b.String())
}

// cleanHeader makes a header value one line: CR and LF become spaces and NUL is dropped, so no value can end the
// field and start another.
func cleanHeader(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ", "\x00", "").Replace(s)
}

// ownHeaders are the fields Render writes itself; Message.Headers cannot add a second one.
var ownHeaders = map[string]bool{"from": true, "to": true, "subject": true, "date": true, "reply-to": true,
	"mime-version": true, "content-type": true, "content-transfer-encoding": true, "cc": true, "bcc": true,
	"sender": true}

// validHeaderName reports whether name is a field name (RFC 5322: printable ASCII but the colon; here letters,
// digits and hyphens) that the message does not write itself.
func validHeaderName(name string) bool {
	if name == "" || len(name) > 76 || ownHeaders[strings.ToLower(name)] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Async sends in the background so a request never waits on a mail server (and its timing never tells whether a
// message was sent). Close waits for messages still in flight.
type Async struct {
	Sender Sender
	Logger *slog.Logger
	wg     sync.WaitGroup
}

// Send queues m and returns at once; a delivery failure is logged.
func (a *Async) Send(_ context.Context, m Message) error {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if err := a.Sender.Send(context.Background(), m); err != nil {
			a.Logger.Error("email delivery failed", "to", m.To, "subject", m.Subject, "err", err)
		}
	}()
	return nil
}

// Close waits for queued messages, up to ctx's deadline.
func (a *Async) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
