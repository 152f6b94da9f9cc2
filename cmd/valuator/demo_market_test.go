package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemoHomesRange: `valuator demo --homes` takes 100 to 10,000,000 homes and says so outside that range,
// before it opens a database.
func TestDemoHomesRange(t *testing.T) {
	getenv := func(string) string { return "" }
	for _, n := range []string{"99", "10000001"} {
		var out, errb bytes.Buffer
		err := runDemo(context.Background(), []string{"--homes", n}, getenv, &out, &errb)
		if err == nil || err.Error() != "--homes must be between 100 and 10000000" {
			t.Errorf("--homes %s: %v", n, err)
		}
	}
	var out, errb bytes.Buffer
	_ = runDemo(context.Background(), []string{"--help"}, getenv, &out, &errb)
	if !strings.Contains(errb.String(), "100 to 10000000") {
		t.Errorf("help does not give the range:\n%s", errb.String())
	}
}
