package mail

import (
	"context"
	"strings"
	"testing"
	"time"

	"valuator/internal/testsmtp"
)

// TestSMTPWritesReplyToAndExtraHeaders: a real SMTP server receives Reply-To and the List-Unsubscribe headers of
// a message, each exactly once and on one line, and no header can be injected through a value or a name.
func TestSMTPWritesReplyToAndExtraHeaders(t *testing.T) {
	srv := testsmtp.Start(t)
	s := SMTP{Config: srv.Config("Valuator <no-reply@valuator.test>"), Timeout: 5 * time.Second}
	msg := Message{To: "jane@example.com", Subject: "Weekly report\r\nBcc: evil@example.com",
		Text: "Hello Jane,\n.\nYour week.", ReplyTo: "sender@example.com\nBcc: evil@example.com",
		Headers: []Header{
			{Name: "List-Unsubscribe", Value: "<https://valuator.test/api/unsubscribe?token=u1.1.weeklyReports.x>"},
			{Name: "List-Unsubscribe-Post", Value: "List-Unsubscribe=One-Click"},
			{Name: "X-Evil\r\nBcc", Value: "evil@example.com"}, // not a field name: left out
			{Name: "Bcc", Value: "evil@example.com"},           // a field the message must not carry: left out
			{Name: "X-Note", Value: "a\r\nBcc: evil@example.com\x00"},
		}}
	if err := s.Send(context.Background(), msg); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := srv.Wait(t, 1, 5*time.Second)[0]
	if len(got.To) != 1 || got.To[0] != "jane@example.com" || got.From != "no-reply@valuator.test" {
		t.Errorf("envelope from %q to %v, want no-reply@valuator.test to [jane@example.com]", got.From, got.To)
	}
	for name, want := range map[string]string{
		"Reply-To":              "sender@example.com Bcc: evil@example.com",
		"List-Unsubscribe":      "<https://valuator.test/api/unsubscribe?token=u1.1.weeklyReports.x>",
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"X-Note":                "a  Bcc: evil@example.com",
		"Subject":               "Weekly report  Bcc: evil@example.com",
	} {
		if vals := got.Header[name]; len(vals) != 1 || vals[0] != want {
			t.Errorf("header %s = %q, want once %q", name, vals, want)
		}
	}
	if _, ok := got.Header["Bcc"]; ok {
		t.Errorf("a Bcc header was injected: %q", got.Header["Bcc"])
	}
	if strings.Contains(string(got.Raw), "X-Evil") {
		t.Errorf("a header with a bad name was written:\n%s", got.Raw)
	}
	if strings.TrimSuffix(got.Body, "\n") != "Hello Jane,\n.\nYour week." {
		t.Errorf("body = %q", got.Body)
	}
}

// TestRenderWithoutOptionalHeaders: a message with neither Reply-To nor extra headers renders as before.
func TestRenderWithoutOptionalHeaders(t *testing.T) {
	out := string(Render("a@b.co", Message{To: "c@d.co", Subject: "S", Text: "T"}, time.Unix(0, 0)))
	if strings.Contains(out, "Reply-To") || strings.Count(out, "\r\n") != 8 {
		t.Errorf("Render =\n%s", out)
	}
}

// TestRenderEncodesANonASCIISubject: a subject with accents (a name from the contact form) is RFC 2047-encoded, so
// that a mail server that does not take 8-bit headers still reads it.
func TestRenderEncodesANonASCIISubject(t *testing.T) {
	out := string(Render("a@b.co", Message{To: "c@d.co", Subject: "Contact from Zoë", Text: "T"}, time.Unix(0, 0)))
	if !strings.Contains(out, "Subject: =?utf-8?q?Contact_from_Zo=C3=AB?=\r\n") {
		t.Errorf("Render =\n%s", out)
	}
}
