// Package testsmtp gives tests a real SMTP server (github.com/emersion/go-smtp) on a loopback port, which records
// every message it accepts: the envelope (MAIL FROM, RCPT TO), the header fields and the body, parsed with
// net/mail. Our own mail.SMTP sender is pointed at it (Config), so a test sees exactly what a mail server would
// receive, line ends, dot-stuffing and headers included, with nothing of our mail code replaced.
package testsmtp

import (
	"bytes"
	"errors"
	"io"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"valuator/internal/config"
)

// Message is one accepted message.
type Message struct {
	From   string   // the envelope sender
	To     []string // the envelope recipients
	Header netmail.Header
	Body   string // with CRLF line ends turned back into LF
	Raw    []byte
}

// Server is a running SMTP server.
type Server struct {
	srv  *smtp.Server
	addr *net.TCPAddr

	mu   sync.Mutex
	msgs []Message
	// down makes the server refuse every message with a temporary failure (451), as a mail server that is
	// briefly unavailable does.
	down bool
	more chan struct{}
}

// Start starts a server on a free loopback port; it is closed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{addr: ln.Addr().(*net.TCPAddr), more: make(chan struct{}, 1)}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	s.srv.MaxMessageBytes = 10 << 20
	s.srv.MaxRecipients = 10
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = s.srv.Close()
		<-done
	})
	return s
}

// Config is the SMTP configuration that sends to this server, from from (an address, with a display name or not).
func (s *Server) Config(from string) config.SMTP {
	return config.SMTP{Host: "127.0.0.1", Port: s.addr.Port, From: from}
}

// SetDown makes the server refuse (true) or accept (false) messages.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Messages is every message accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// To is the messages accepted for one recipient.
func (s *Server) To(addr string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		for _, rcpt := range m.To {
			if strings.EqualFold(rcpt, addr) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// Wait waits until at least n messages were accepted, or fails the test after timeout.
func (s *Server) Wait(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if msgs := s.Messages(); len(msgs) >= n {
			return msgs
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("testsmtp: %d messages after %v, want %d", len(s.Messages()), timeout, n)
		}
	}
}

func (s *Server) add(m Message) {
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
}

func (s *Server) isDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

var errDown = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}

type session struct {
	s    *Server
	from string
	to   []string
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.isDown() {
		return errDown
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Malformed message: " + err.Error()}
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return errors.New("read body")
	}
	ss.s.add(Message{From: ss.from, To: append([]string(nil), ss.to...), Header: msg.Header,
		Body: strings.ReplaceAll(string(body), "\r\n", "\n"), Raw: raw})
	return nil
}
