package support

import (
	"strings"
	"testing"
	"time"

	"valuator/internal/apperr"
)

// TestOverLimit: the two windows of the per-account limit, from the times of the stored messages (newest first).
func TestOverLimit(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// every returns n message times, the newest gap before now and each older by gap.
	every := func(n int, gap time.Duration) []time.Time {
		out := make([]time.Time, n)
		for i := range out {
			out[i] = now.Add(-time.Duration(i+1) * gap)
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		recent []time.Time
		wait   int    // 0: allowed
		says   string // part of the message
	}{
		{"none", nil, 0, ""},
		{"9 in a minute", every(9, time.Second), 0, ""},
		{"10 in a minute", every(10, time.Second), 50, "10 messages in the last minute"},
		{"10, the oldest a minute old", every(10, 6*time.Second), 0, ""},
		{"10, the oldest 59.5 s old", every(10, 5950*time.Millisecond), 1, "in 1 second."},
		{"199 in a day", every(199, 6*time.Second), 0, ""},
		{"200 in a day", every(200, 6*time.Second), 85200, "200 messages in the last 24 hours"},
		{"200 in a day, and 10 in the minute: the later", every(200, time.Second), 86200, "in 23 hours 57 minutes."},
		{"200, the oldest a day old", every(200, Day/200), 0, ""},
	} {
		err := overLimit(tt.recent, now)
		e, _ := apperr.As(err)
		switch {
		case tt.wait == 0 && err != nil:
			t.Errorf("%s: %v, want allowed", tt.name, err)
		case tt.wait != 0 && (e == nil || e.Kind != apperr.KindRateLimited || e.RetryAfterSeconds != tt.wait ||
			!strings.Contains(e.Message, tt.says)):
			t.Errorf("%s: %#v, want 429 after %d s saying %q", tt.name, e, tt.wait, tt.says)
		}
	}
}

func TestWaitText(t *testing.T) {
	for secs, want := range map[int]string{1: "1 second", 42: "42 seconds", 119: "119 seconds", 120: "2 minutes",
		121: "3 minutes", 7080: "118 minutes", 7081: "119 minutes", 7199: "2 hours", 7200: "2 hours", 85200: "23 hours 40 minutes", 86399: "24 hours"} {
		if got := waitText(secs); got != want {
			t.Errorf("waitText(%d) = %q, want %q", secs, got, want)
		}
	}
}

// TestConversationFull: the cap on a conversation's size, in messages and in characters.
func TestConversationFull(t *testing.T) {
	for _, tt := range []struct {
		name  string
		w     Written
		chars int
		says  string // "": room
	}{
		{"empty", Written{}, MaxBody, ""},
		{"499 messages", Written{Messages: MaxConversationMessages - 1, Chars: 1000}, 1, ""},
		{"500 messages", Written{Messages: MaxConversationMessages, Chars: 1000}, 1, "This conversation is full"},
		{"exactly fills it", Written{Messages: 30, Chars: MaxConversationChars - 10}, 10, ""},
		{"one character too many", Written{Messages: 30, Chars: MaxConversationChars - 10}, 11,
			"body is 11 characters, and this conversation has room for 10 more"},
		{"full", Written{Messages: 30, Chars: MaxConversationChars}, 1, "This conversation is full"},
		{"past full (the team's replies)", Written{Messages: 30, Chars: MaxConversationChars + 500}, 1, "This conversation is full"},
	} {
		err := conversationFull(tt.w, tt.chars)
		e, _ := apperr.As(err)
		switch {
		case tt.says == "" && err != nil:
			t.Errorf("%s: %v, want room", tt.name, err)
		case tt.says != "" && (e == nil || e.Kind != apperr.KindConflict || e.Code != "conversation_full" ||
			e.Field != "body" || !strings.Contains(e.Message, tt.says)):
			t.Errorf("%s: %#v, want 409 conversation_full naming body saying %q", tt.name, e, tt.says)
		}
	}
}
