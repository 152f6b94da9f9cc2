//go:build race

package batch

// raceFactor is 1 when the race detector is on, for tests that time themselves.
const raceFactor = 1
