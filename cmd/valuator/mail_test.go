package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeInProductionWithoutSMTP: the real binary in production with no mail server says at start that emails
// cannot be delivered, and a password reset request leaves no usable link in the log.
func TestServeInProductionWithoutSMTP(t *testing.T) {
	srv := startServe(t, map[string]string{"VALUATOR_ENV": "production", "VALUATOR_SECRET": strings.Repeat("s", 40),
		"VALUATOR_BASE_URL": "https://valuator.example.com", "VALUATOR_SUPPORT_EMAIL": "support@valuator.example.com"})
	if logs := srv.logs.String(); !strings.Contains(logs, "emails cannot be delivered") ||
		!strings.Contains(logs, "VALUATOR_SMTP_HOST") {
		t.Errorf("no warning at start that emails cannot be delivered:\n%s", logs)
	}
	post := func(path, body string) {
		t.Helper()
		res, err := http.Post(srv.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var answer map[string]any
		_ = json.NewDecoder(res.Body).Decode(&answer)
		if res.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v", path, res.StatusCode, answer)
		}
		if _, ok := answer["resetToken"]; ok {
			t.Errorf("POST %s answered with the token in production: %v", path, answer)
		}
	}
	post("/api/auth/register", `{"email": "jane@example.com", "password": "correct-horse", "fullName": "Jane Doe"}`)
	post("/api/auth/request-password-reset", `{"email": "jane@example.com"}`)
	// Mail is sent in the background: wait for its log line.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(srv.logs.String(), "Reset your Valuator password") {
		if time.Now().After(deadline) {
			t.Fatalf("the reset email never reached the log:\n%s", srv.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.stop(t)
	if logs := srv.logs.String(); strings.Contains(logs, "vr_") || strings.Contains(logs, "reset-password?token") {
		t.Errorf("the log holds a reset token:\n%s", logs)
	}
}
