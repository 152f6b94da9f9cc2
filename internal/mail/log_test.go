package mail

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"valuator/internal/config"
)

// TestLogKeepsTheTextOutOfProductionLogs: the log mailer writes a message's text (a reset link, say) only when
// told to, which ForConfig does in development only.
func TestLogKeepsTheTextOutOfProductionLogs(t *testing.T) {
	msg := Message{To: "jane@example.com", Subject: "Reset your Valuator password",
		Text: "Open https://valuator.example.com/reset-password?token=vr_secret"}
	for _, tt := range []struct {
		name     string
		env      map[string]string
		wantText bool
	}{
		{"development", map[string]string{}, true},
		{"production", map[string]string{"VALUATOR_ENV": "production", "VALUATOR_SECRET": strings.Repeat("s", 40),
			"VALUATOR_SUPPORT_EMAIL": "support@example.com"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			sender := ForConfig(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
			if _, ok := sender.(Log); !ok {
				t.Fatalf("ForConfig without SMTP = %T, want Log", sender)
			}
			if got, want := Undeliverable(cfg), !tt.wantText; got != want {
				t.Errorf("Undeliverable = %v, want %v", got, want)
			}
			if err := sender.Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			out := logs.String()
			if got := strings.Contains(out, "vr_secret"); got != tt.wantText {
				t.Errorf("log holds the text: %v, want %v\n%s", got, tt.wantText, out)
			}
			if !strings.Contains(out, msg.To) || !strings.Contains(out, msg.Subject) {
				t.Errorf("log lacks the recipient or subject:\n%s", out)
			}
		})
	}
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"VALUATOR_SMTP_HOST": "smtp.example.com", "VALUATOR_SMTP_FROM": "a@example.com"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := ForConfig(cfg, slog.Default()).(SMTP); !ok || s.Config.Host != "smtp.example.com" || Undeliverable(cfg) {
		t.Errorf("with SMTP: ForConfig = %T, Undeliverable = %v; want SMTP and false", ForConfig(cfg, slog.Default()), Undeliverable(cfg))
	}
}
