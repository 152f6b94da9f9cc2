// Package officehours is the support team's office hours (VALUATOR_SUPPORT_HOURS): parsed once at start, and
// asked whether the team is in now and when it next opens. It imports nothing of the product, so that config can
// validate the setting with it.
package officehours

import (
	"fmt"
	"strings"
	"time"
	// Office hours name an IANA time zone; the embedded database makes them work on a machine without one.
	_ "time/tzdata"
)

// DefaultHours is the office hours when VALUATOR_SUPPORT_HOURS is not set.
const DefaultHours = "Mon-Fri 09:00-18:00 America/Los_Angeles"

// Hours are the support team's office hours: the same opening and closing time on some days of the week, in one
// time zone.
type Hours struct {
	days        [7]bool // by time.Weekday
	open, close int     // minutes after midnight, open < close
	loc         *time.Location
	spec        string
}

var dayNames = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

func dayIndex(s string) (int, bool) {
	for i, n := range dayNames {
		if strings.EqualFold(n, s) {
			return i, true
		}
	}
	return 0, false
}

// ParseHours reads office hours written as "DAYS HH:MM-HH:MM ZONE": DAYS a range ("Mon-Fri") or a list
// ("Mon,Wed,Fri") of English three-letter days, times on a 24-hour clock, ZONE an IANA time zone
// ("America/Los_Angeles", "UTC").
func Parse(s string) (Hours, error) {
	h := Hours{spec: strings.TrimSpace(s)}
	parts := strings.Fields(s)
	if len(parts) != 3 {
		return h, fmt.Errorf("want DAYS HH:MM-HH:MM ZONE, such as %q; got %q", DefaultHours, s)
	}
	for _, item := range strings.Split(parts[0], ",") {
		from, to, isRange := strings.Cut(item, "-")
		a, ok := dayIndex(from)
		if !ok {
			return h, fmt.Errorf("unknown day %q (use Mon, Tue, Wed, Thu, Fri, Sat, Sun)", from)
		}
		b := a
		if isRange {
			if b, ok = dayIndex(to); !ok {
				return h, fmt.Errorf("unknown day %q (use Mon, Tue, Wed, Thu, Fri, Sat, Sun)", to)
			}
		}
		for d := a; ; d = (d + 1) % 7 {
			h.days[d] = true
			if d == b {
				break
			}
		}
	}
	from, to, ok := strings.Cut(parts[1], "-")
	if !ok {
		return h, fmt.Errorf("want the hours as HH:MM-HH:MM, got %q", parts[1])
	}
	var err error
	if h.open, err = clock(from); err != nil {
		return h, err
	}
	if h.close, err = clock(to); err != nil {
		return h, err
	}
	if h.open >= h.close {
		return h, fmt.Errorf("the opening time %s must come before the closing time %s", from, to)
	}
	if h.loc, err = time.LoadLocation(parts[2]); err != nil {
		return h, fmt.Errorf("unknown time zone %q (use an IANA name such as America/Los_Angeles)", parts[2])
	}
	return h, nil
}

func clock(s string) (int, error) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, fmt.Errorf("want a time as HH:MM (24-hour clock), got %q", s)
	}
	return t.Hour()*60 + t.Minute(), nil
}

// zoneNames are the usual short names of the US time zones, which stay the same in summer and winter.
var zoneNames = map[string]string{
	"America/Los_Angeles": "PT", "America/Denver": "MT", "America/Phoenix": "MST", "America/Chicago": "CT",
	"America/New_York": "ET", "America/Anchorage": "AKT", "Pacific/Honolulu": "HT", "UTC": "UTC", "Etc/UTC": "UTC",
}

// Text is the hours as people write them: "Mon–Fri 9 AM–6 PM PT".
func (h Hours) Text() string {
	zone := zoneNames[h.loc.String()]
	if zone == "" {
		zone = h.loc.String()
	}
	return h.dayText() + " " + clockText(h.open) + "–" + clockText(h.close) + " " + zone
}

// dayText names the open days, as a range when they follow each other from Monday's side ("Mon–Fri").
func (h Hours) dayText() string {
	var runs []string
	// Start from Monday so that Mon–Fri and Sat–Sun read as a person writes them.
	order := []int{1, 2, 3, 4, 5, 6, 0}
	for i := 0; i < len(order); {
		if !h.days[order[i]] {
			i++
			continue
		}
		j := i
		for j+1 < len(order) && h.days[order[j+1]] {
			j++
		}
		switch {
		case j == i:
			runs = append(runs, dayNames[order[i]])
		case j == i+1:
			runs = append(runs, dayNames[order[i]], dayNames[order[j]])
		default:
			runs = append(runs, dayNames[order[i]]+"–"+dayNames[order[j]])
		}
		i = j + 1
	}
	if len(runs) == 1 && runs[0] == "Mon–Sun" {
		return "Every day"
	}
	return strings.Join(runs, ", ")
}

func clockText(m int) string {
	hh, mm := m/60, m%60
	suffix := "AM"
	if hh >= 12 {
		suffix = "PM"
	}
	h12 := hh % 12
	if h12 == 0 {
		h12 = 12
	}
	if mm == 0 {
		return fmt.Sprintf("%d %s", h12, suffix)
	}
	return fmt.Sprintf("%d:%02d %s", h12, mm, suffix)
}

// OpenAt reports whether the team is in at t.
func (h Hours) OpenAt(t time.Time) bool {
	l := t.In(h.loc)
	m := l.Hour()*60 + l.Minute()
	return h.days[l.Weekday()] && m >= h.open && m < h.close
}

// NextOpen is the next opening after t (in UTC), or nil when the team is in at t (or never opens).
func (h Hours) NextOpen(t time.Time) *time.Time {
	if h.OpenAt(t) {
		return nil
	}
	l := t.In(h.loc)
	for i := 0; i <= 7; i++ {
		d := l.AddDate(0, 0, i)
		if !h.days[d.Weekday()] {
			continue
		}
		at := time.Date(d.Year(), d.Month(), d.Day(), h.open/60, h.open%60, 0, 0, h.loc)
		if at.After(t) {
			u := at.UTC()
			return &u
		}
	}
	return nil
}

// Status is the office hours as the support panel shows them.
type Status struct {
	Text     string     `json:"text"`
	Open     bool       `json:"open"`
	NextOpen *time.Time `json:"nextOpen"`
}

// StatusAt is the hours' status at t.
func (h Hours) StatusAt(t time.Time) Status {
	return Status{Text: h.Text(), Open: h.OpenAt(t), NextOpen: h.NextOpen(t)}
}
