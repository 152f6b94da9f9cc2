package notify

import (
	"fmt"
	"time"
)

// ReportHour is when, on Monday (UTC), the weekly report of the week that just ended is due.
const ReportHour = 8

// weekStart is the Monday 00:00 UTC that starts the ISO week of t.
func weekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	offset := (int(day.Weekday()) + 6) % 7 // Monday 0 ... Sunday 6
	return day.AddDate(0, 0, -offset)
}

// NextReportTime is the first Monday 08:00 UTC strictly after t: when the weekly report job runs next.
func NextReportTime(t time.Time) time.Time {
	next := weekStart(t).Add(ReportHour * time.Hour)
	for !next.After(t) {
		next = next.AddDate(0, 0, 7)
	}
	return next
}

// ReportWeek is the latest ISO week whose report is due at now: [start, end), Monday 00:00 UTC to the next Monday
// 00:00 UTC, due at end + 8 hours. Before Monday 08:00 that is the week before last: its report went out last
// Monday (or goes out now, if that run was missed), never the week that just ended, early.
func ReportWeek(now time.Time) (start, end time.Time) {
	end = weekStart(now)
	if now.UTC().Before(end.Add(ReportHour * time.Hour)) {
		end = end.AddDate(0, 0, -7)
	}
	return end.AddDate(0, 0, -7), end
}

// WeekLabel is the ISO week of start, such as "2026-W09": part of the report's unique key.
func WeekLabel(start time.Time) string {
	y, w := start.UTC().ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}
