package backup

import (
	"fmt"
	"strings"
	"time"
)

// Continuous protection (docs/operations.md, "Continuous protection"): Litestream for SQLite, base backups and
// WAL archiving for PostgreSQL. These write the configuration the documentation shows, so that the tests run the
// documented setup.

// LitestreamVersion is the Litestream that `make litestream` installs and the tests run. v0.3 is the long-stable
// line; v0.5 changed the replica format and commands (a v0.3 replica does not restore with v0.5).
const LitestreamVersion = "v0.3.13"

// LitestreamConfig is a litestream.yml (v0.3) that replicates the SQLite database at dbPath to the folder
// replicaDir, shipping new WAL pages every syncInterval (the bound on what a lost disk loses).
func LitestreamConfig(dbPath, replicaDir string, syncInterval time.Duration) string {
	return fmt.Sprintf(`dbs:
  - path: %s
    replicas:
      - type: file
        path: %s
        sync-interval: %s
`, dbPath, replicaDir, syncInterval)
}

// ArchiveSettings are the postgresql.conf settings that archive every finished WAL segment into archiveDir, and
// switch to a new segment at least every timeout while there are writes (the bound on what a lost server loses).
// archive_mode needs a restart; the `test ! -f` guard refuses to overwrite an archived segment.
func ArchiveSettings(archiveDir string, timeout time.Duration) [][2]string {
	return [][2]string{
		{"wal_level", "replica"},
		{"archive_mode", "on"},
		{"archive_command", fmt.Sprintf("test ! -f %[1]s/%%f && cp %%p %[1]s/%%f", shellQuote(archiveDir))},
		{"archive_timeout", fmt.Sprintf("%ds", int(timeout.Seconds()))},
	}
}

// RestoreCommand is the restore_command that recovery fetches archived segments with.
func RestoreCommand(archiveDir string) string {
	return fmt.Sprintf("cp %s/%%f %%p", shellQuote(archiveDir))
}

// ConfLines writes settings as postgresql.conf lines.
func ConfLines(settings [][2]string) string {
	var b strings.Builder
	for _, s := range settings {
		fmt.Fprintf(&b, "%s = '%s'\n", s[0], strings.ReplaceAll(s[1], "'", "''"))
	}
	return b.String()
}

// shellQuote quotes a path for /bin/sh (archive_command and restore_command run through it).
func shellQuote(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
