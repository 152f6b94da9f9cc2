package notify

import (
	"strings"
	"testing"
	"time"
)

const secret = "0123456789abcdef0123456789abcdef"

func TestTokenNamesTheAccountAndSwitchAndCannotBeAltered(t *testing.T) {
	s, err := NewSigner(secret)
	if err != nil {
		t.Fatal(err)
	}
	tok := s.Token(42, TopicWeekly)
	id, topic, err := s.Parse(tok)
	if err != nil || id != 42 || topic != TopicWeekly {
		t.Fatalf("Parse(%q) = %d, %q, %v; want 42, weeklyReports", tok, id, topic, err)
	}
	other, _ := NewSigner(strings.Repeat("x", 32))
	sig := tok[strings.LastIndex(tok, ".")+1:]
	for name, bad := range map[string]string{
		"empty":               "",
		"garbage":             "not-a-token",
		"another account":     strings.Replace(tok, ".42.", ".43.", 1),
		"another switch":      strings.Replace(tok, TopicWeekly, TopicAccount, 1),
		"marketing":           "u1.42.marketingEmails." + sig,
		"another secret":      other.Token(42, TopicWeekly),
		"signature cut short": tok[:len(tok)-2],
		"leading zero":        strings.Replace(tok, ".42.", ".042.", 1),
		"negative":            strings.Replace(tok, ".42.", ".-42.", 1),
		"another version":     "u2" + tok[2:],
		"extra part":          tok + ".x",
		"NUL":                 tok + "\x00",
		"huge":                tok + strings.Repeat("A", 10000),
	} {
		if _, _, err := s.Parse(bad); err != ErrBadToken {
			t.Errorf("%s: Parse(%.60q) error = %v, want ErrBadToken", name, bad, err)
		}
	}
	if _, err := NewSigner("short"); err == nil {
		t.Error("NewSigner accepted a short secret")
	}
}

func TestDevicesAreCoarse(t *testing.T) {
	d, err := NewDevices(secret)
	if err != nil {
		t.Fatal(err)
	}
	chrome120 := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	chrome121 := strings.Replace(chrome120, "120.0.0.0", "121.0.6167.85", 1)
	firefox := "Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0"
	a, b := d.Of(chrome120, "203.0.113.7"), d.Of(chrome121, "203.0.113.200")
	if a.Hash != b.Hash || a.Family != "Chrome on Windows" || a.Network != "203.0.113.0/24" {
		t.Errorf("a browser update on the same /24 is a new device: %+v vs %+v", a, b)
	}
	for name, other := range map[string]Device{
		"another browser":    d.Of(firefox, "203.0.113.7"),
		"another network":    d.Of(chrome120, "198.51.100.7"),
		"another /48":        d.Of(chrome120, "2001:db8:2::1"),
		"unknown user agent": d.Of("", "203.0.113.7"),
	} {
		if other.Hash == a.Hash {
			t.Errorf("%s: same hash as %+v", name, a)
		}
	}
	if strings.Contains(a.Hash, "203.0.113") || len(a.Hash) != 64 {
		t.Errorf("hash %q is not an opaque HMAC", a.Hash)
	}
	for ip, want := range map[string]string{
		"2001:db8:1:2:3::4": "2001:db8:1::/48",
		"::ffff:192.0.2.33": "192.0.2.0/24",
		"fe80::1%eth0":      "fe80::/48",
		"not an ip":         "an unknown network",
		"192.0.2.255":       "192.0.2.0/24",
	} {
		if got := Network(ip); got != want {
			t.Errorf("Network(%q) = %q, want %q", ip, got, want)
		}
	}
	for ua, want := range map[string]string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1": "Safari on iOS",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0":     "Edge on macOS",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36":                   "Chrome on Android",
		firefox:      "Firefox on Linux",
		"curl/8.5.0": "curl",
		"":           "an unknown browser",
	} {
		if got := BrowserFamily(ua); got != want {
			t.Errorf("BrowserFamily(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestWeeklyReportTimes(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tt := range []struct{ now, next, start, end string }{
		// Monday 08:00 exactly: the week that just ended is due; the next run is a week later.
		{"2026-03-09T08:00:00Z", "2026-03-16T08:00:00Z", "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"},
		// Monday 07:59: not yet; the report due is the week before.
		{"2026-03-09T07:59:59Z", "2026-03-09T08:00:00Z", "2026-02-23T00:00:00Z", "2026-03-02T00:00:00Z"},
		// Sunday night.
		{"2026-03-15T23:59:00Z", "2026-03-16T08:00:00Z", "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"},
		// Across a year: ISO week 1 of 2026 starts on Monday, December 29, 2025.
		{"2026-01-05T09:00:00Z", "2026-01-12T08:00:00Z", "2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z"},
		// A time in another zone is read in UTC.
		{"2026-03-09T11:30:00+02:00", "2026-03-16T08:00:00Z", "2026-03-02T00:00:00Z", "2026-03-09T00:00:00Z"},
	} {
		now := at(tt.now)
		if got := NextReportTime(now); !got.Equal(at(tt.next)) {
			t.Errorf("NextReportTime(%s) = %s, want %s", tt.now, got, tt.next)
		}
		start, end := ReportWeek(now)
		if !start.Equal(at(tt.start)) || !end.Equal(at(tt.end)) {
			t.Errorf("ReportWeek(%s) = %s..%s, want %s..%s", tt.now, start, end, tt.start, tt.end)
		}
	}
	if got := WeekLabel(at("2025-12-29T00:00:00Z")); got != "2026-W01" {
		t.Errorf("WeekLabel = %q, want 2026-W01", got)
	}
}

func TestBackoffGrowsToAnHour(t *testing.T) {
	for attempts, want := range map[int]time.Duration{1: time.Minute, 2: 2 * time.Minute, 5: 16 * time.Minute,
		7: time.Hour, MaxAttempts: time.Hour} {
		if got := Backoff(attempts); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", attempts, got, want)
		}
	}
}

// TestRetriesOutlastAnOutage: the attempts span at least three days of a mail server that refuses everything.
func TestRetriesOutlastAnOutage(t *testing.T) {
	var total time.Duration
	for a := 1; a < MaxAttempts; a++ {
		total += Backoff(a)
	}
	if total < 72*time.Hour {
		t.Errorf("retries span %v, want at least 72h", total)
	}
}
