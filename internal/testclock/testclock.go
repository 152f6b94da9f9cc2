// Package testclock is the day the tests run on, so that no test depends on the day it is run: the demo market's
// history, billing periods, token expiry and weekly reports all follow it. It is VALUATOR_TEST_TODAY when that is
// set (`make test-days` runs the whole suite on several days across a month's and a year's end), otherwise
// Default. Servers started by tests get it as VALUATOR_CLOCK.
package testclock

import (
	"os"
	"time"

	"valuator/internal/clock"
)

// Default is the day tests run on unless VALUATOR_TEST_TODAY says otherwise: the day a test that depended on the
// calendar first failed (issue 33).
const Default = "2026-11-28"

// Day is the test day as VALUATOR_CLOCK takes it: VALUATOR_TEST_TODAY, or Default.
func Day() string {
	if v := os.Getenv("VALUATOR_TEST_TODAY"); v != "" {
		return v
	}
	return Default
}

// Now is the instant the test day starts at in tests (noon UTC, as clock.Parse reads a day). A malformed
// VALUATOR_TEST_TODAY stops the tests with its reason rather than running them on some other day.
func Now() time.Time {
	t, err := clock.Parse(Day())
	if err != nil {
		panic("VALUATOR_TEST_TODAY " + err.Error())
	}
	return t
}
