// Package day is a date as a day number: 4 bytes where a time.Time takes 24, for the markets held in memory (the
// engine's sales and rents, the market statistics' records; issue 39).
package day

import "time"

// Day is a date as the days from 1970-01-01 (UTC). The market's dates are days (the store and the importers make
// every date midnight UTC), so Of and Time give them back exactly.
type Day int32

const seconds = 24 * 60 * 60

// Of is the day of t (in UTC).
func Of(t time.Time) Day {
	s := t.Unix()
	d := s / seconds
	if s%seconds < 0 {
		d--
	}
	return Day(d)
}

// Time is midnight UTC of day d.
func (d Day) Time() time.Time { return time.Unix(int64(d)*seconds, 0).UTC() }
