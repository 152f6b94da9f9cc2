package officehours

import (
	"testing"
	"time"
)

func TestHours(t *testing.T) {
	h, err := Parse(DefaultHours)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Text(); got != "Mon–Fri 9 AM–6 PM PT" {
		t.Errorf("Text() = %q", got)
	}
	la, _ := time.LoadLocation("America/Los_Angeles")
	for _, tt := range []struct {
		name string
		at   time.Time
		open bool
		next time.Time // zero: nil
	}{
		{"Monday 9:00 opens", time.Date(2026, 3, 2, 9, 0, 0, 0, la), true, time.Time{}},
		{"Monday 8:59", time.Date(2026, 3, 2, 8, 59, 0, 0, la), false, time.Date(2026, 3, 2, 9, 0, 0, 0, la)},
		{"Friday 18:00 closes", time.Date(2026, 3, 6, 18, 0, 0, 0, la), false, time.Date(2026, 3, 9, 9, 0, 0, 0, la)},
		{"Saturday", time.Date(2026, 3, 7, 12, 0, 0, 0, la), false, time.Date(2026, 3, 9, 9, 0, 0, 0, la)},
		// Daylight saving time starts on Sunday 2026-03-08: Monday's 9 AM is 16:00 UTC, not 17:00.
		{"across the clock change", time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC), false, time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := h.StatusAt(tt.at)
			if s.Open != tt.open {
				t.Errorf("open = %v, want %v", s.Open, tt.open)
			}
			switch {
			case tt.next.IsZero() && s.NextOpen != nil:
				t.Errorf("nextOpen = %v, want nil", s.NextOpen)
			case !tt.next.IsZero() && (s.NextOpen == nil || !s.NextOpen.Equal(tt.next)):
				t.Errorf("nextOpen = %v, want %v", s.NextOpen, tt.next.UTC())
			}
		})
	}
	for spec, text := range map[string]string{
		"Mon-Sun 00:00-23:59 UTC":                  "Every day 12 AM–11:59 PM UTC",
		"Mon,Wed,Fri 08:30-17:00 America/New_York": "Mon, Wed, Fri 8:30 AM–5 PM ET",
		"Sat-Sun 10:00-14:00 Europe/London":        "Sat, Sun 10 AM–2 PM Europe/London",
	} {
		h, err := Parse(spec)
		if err != nil || h.Text() != text {
			t.Errorf("Parse(%q): %q, %v; want %q", spec, h.Text(), err, text)
		}
	}
	for _, bad := range []string{"", "Mon-Fri 09:00-18:00", "Mon-Xyz 09:00-18:00 UTC", "Mon-Fri 18:00-09:00 UTC",
		"Mon-Fri 9-18 UTC", "Mon-Fri 09:00-18:00 Mars/Olympus"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
