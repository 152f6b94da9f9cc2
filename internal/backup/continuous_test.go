package backup

import (
	"strings"
	"testing"
	"time"
)

// The configuration the documentation shows, and a path that needs quoting for the shell.
func TestContinuousConfig(t *testing.T) {
	got := ConfLines(ArchiveSettings("/mnt/backup/wal", time.Minute))
	want := "wal_level = 'replica'\narchive_mode = 'on'\n" +
		"archive_command = 'test ! -f /mnt/backup/wal/%f && cp %p /mnt/backup/wal/%f'\narchive_timeout = '60s'\n"
	if got != want {
		t.Errorf("ArchiveSettings:\n%s\nwant\n%s", got, want)
	}
	if got := RestoreCommand("/tmp/it's here"); got != `cp '/tmp/it'\''s here'/%f %p` {
		t.Errorf("RestoreCommand: %s", got)
	}
	if got := ConfLines([][2]string{{"restore_command", RestoreCommand("/a b")}}); got != "restore_command = 'cp ''/a b''/%f %p'\n" {
		t.Errorf("ConfLines: %s", got)
	}
	if y := LitestreamConfig("/var/lib/valuator/valuator.db", "/mnt/r", time.Second); !strings.Contains(y,
		"  - path: /var/lib/valuator/valuator.db\n") || !strings.Contains(y, "        sync-interval: 1s\n") {
		t.Errorf("LitestreamConfig:\n%s", y)
	}
}
