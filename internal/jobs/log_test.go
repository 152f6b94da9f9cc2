package jobs

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestRiverLoggerLowersKnownNotices: River's known notices are logged at DEBUG, so they are gone from an INFO log
// and still there in a DEBUG one; River's other messages keep their level.
func TestRiverLoggerLowersKnownNotices(t *testing.T) {
	for notice := range riverDebug {
		t.Run(notice, func(t *testing.T) { testRiverNotice(t, notice) })
	}
}

func testRiverNotice(t *testing.T, notice string) {
	for _, tt := range []struct {
		level      slog.Level
		wantNotice bool
	}{{slog.LevelInfo, false}, {slog.LevelDebug, true}} {
		t.Run(tt.level.String(), func(t *testing.T) {
			var buf bytes.Buffer
			log := riverLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: tt.level})))
			log.Info(notice)
			log.With("client_id", "c1").Info("River client started")
			log.Warn("job kind should match regex")
			out := buf.String()
			if got := strings.Contains(out, notice); got != tt.wantNotice {
				t.Errorf("notice logged = %v, want %v:\n%s", got, tt.wantNotice, out)
			}
			if tt.wantNotice && !strings.Contains(out, `level=DEBUG msg="`+notice) {
				t.Errorf("notice not at DEBUG:\n%s", out)
			}
			for _, want := range []string{`level=INFO msg="River client started" component=jobs client_id=c1`,
				`level=WARN msg="job kind should match regex" component=jobs`} {
				if !strings.Contains(out, want) {
					t.Errorf("log lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
