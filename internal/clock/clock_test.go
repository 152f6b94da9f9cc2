package clock

import (
	"testing"
	"time"
)

func TestStartingRunsFromItsStart(t *testing.T) {
	start := time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC)
	c := Starting(start)
	if got := c.Now(); got.Before(start) || got.Sub(start) > time.Minute {
		t.Fatalf("Now() = %v, want just after %v", got, start)
	}
	if err := c.Advance(48 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := c.Now(); got.Year() != 2027 || got.YearDay() != 2 {
		t.Errorf("after two days Now() = %v, want 2027-01-02", got)
	}
	if err := c.Advance(-time.Second); err == nil {
		t.Error("Advance(-1s) = nil, want a refusal: a clock never goes back")
	}
}

func TestWallCannotBeMoved(t *testing.T) {
	c := Wall()
	if c.Settable() {
		t.Error("the wall clock says it is settable")
	}
	if err := c.Advance(time.Hour); err == nil {
		t.Error("Advance on the wall clock = nil, want a refusal")
	}
	if d := time.Since(c.Now()); d.Abs() > time.Second {
		t.Errorf("Wall().Now() is %v off the wall clock", d)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"2026-11-28", "2026-11-28T12:00:00Z", true},
		{" 2027-02-28 ", "2027-02-28T12:00:00Z", true},
		{"2026-11-28T09:30:00Z", "2026-11-28T09:30:00Z", true},
		{"2026-11-28T09:30:00+02:00", "2026-11-28T07:30:00Z", true},
		{"28/11/2026", "", false},
		{"", "", false},
		{"2026-02-30", "", false},
	} {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("Parse(%q) error = %v, want ok %v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && got.Format(time.RFC3339) != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got.Format(time.RFC3339), tt.want)
		}
	}
}
