package mail

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/config"
)

// smtpServer speaks just enough SMTP to receive one message, and records the conversation.
func smtpServer(t *testing.T) (port int, got <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	out := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		var transcript strings.Builder
		write := func(s string) { conn.Write([]byte(s + "\r\n")) }
		write("220 test ESMTP")
		inData := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				out <- transcript.String()
				return
			}
			transcript.WriteString(line)
			cmd := strings.ToUpper(strings.TrimSpace(line))
			switch {
			case inData:
				if cmd == "." {
					inData = false
					write("250 queued")
				}
			case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
				write("250 test")
			case strings.HasPrefix(cmd, "MAIL"), strings.HasPrefix(cmd, "RCPT"):
				write("250 ok")
			case cmd == "DATA":
				inData = true
				write("354 go ahead")
			case cmd == "QUIT":
				write("221 bye")
				out <- transcript.String()
				return
			default:
				write("250 ok")
			}
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, out
}

func TestSMTPDeliversTheMessage(t *testing.T) {
	port, got := smtpServer(t)
	s := SMTP{Config: config.SMTP{Host: "127.0.0.1", Port: port, From: "Valuator <no-reply@valuator.dev>"},
		Timeout: 5 * time.Second}
	err := s.Send(context.Background(), Message{To: "jane@example.com", Subject: "Reset your password",
		Text: "Hello Jane,\n.\nOpen the link."})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	transcript := <-got
	for _, want := range []string{
		"MAIL FROM:<no-reply@valuator.dev>", "RCPT TO:<jane@example.com>", "Subject: Reset your password\r\n",
		"Hello Jane,\r\n", "\r\n..\r\n", // a lone dot in the body is escaped
	} {
		if !strings.Contains(transcript, want) {
			t.Errorf("transcript lacks %q:\n%s", want, transcript)
		}
	}
}

func TestSMTPReportsAnUnreachableServer(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := SMTP{Config: config.SMTP{Host: "127.0.0.1", Port: port, From: "a@b.co"}, Timeout: time.Second}
	err := s.Send(context.Background(), Message{To: "x@y.co", Subject: "s", Text: "t"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:"+strconv.Itoa(port)) {
		t.Errorf("error = %v, want one naming the server", err)
	}
}

func TestRenderStripsHeaderInjection(t *testing.T) {
	b := string(Render("a@b.co", Message{To: "x@y.co\r\nBcc: victim@z.co", Subject: "Hi\nBcc: other@z.co", Text: "body"},
		time.Unix(0, 0)))
	headers, _, _ := strings.Cut(b, "\r\n\r\n")
	for _, line := range strings.Split(headers, "\r\n") {
		if strings.HasPrefix(line, "Bcc:") {
			t.Errorf("injected header line %q", line)
		}
	}
}

func TestAsyncSendsInTheBackgroundAndCloseWaits(t *testing.T) {
	var logs bytes.Buffer
	rec := &recorder{}
	a := &Async{Sender: rec, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	for i := 0; i < 3; i++ {
		if err := a.Send(context.Background(), Message{To: "x@y.co"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec.count() != 3 {
		t.Errorf("delivered %d, want 3", rec.count())
	}
}

type recorder struct {
	mu sync.Mutex
	n  int
}

func (r *recorder) Send(context.Context, Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}
