package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"valuator/internal/backup"
)

const (
	backupUsage  = "usage: valuator backup FILE [--force] | valuator backup verify FILE"
	restoreUsage = "usage: valuator restore FILE [--force]"
)

// splitBackupArgs takes FILE and --force out of args and leaves the common flags (--database-url) to loadConfig.
func splitBackupArgs(args []string) (file string, force bool, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-force" || a == "--force":
			force = true
		case a == "-database-url" || a == "--database-url" || a == "-addr" || a == "--addr":
			rest = append(rest, a)
			if i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
		case strings.HasPrefix(a, "-") && a != "-":
			rest = append(rest, a)
		case file == "":
			file = a
		default:
			return "", false, nil, fmt.Errorf("unexpected argument %q", a)
		}
	}
	if file == "" {
		return "", false, nil, errors.New("no backup FILE named")
	}
	return file, force, rest, nil
}

// runBackup writes a backup of the configured database to FILE while servers run on it (`backup FILE`), or checks
// one by restoring it into a scratch database (`backup verify FILE`).
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	verify := len(args) > 0 && args[0] == "verify"
	if verify {
		args = args[1:]
	}
	file, force, rest, err := splitBackupArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, backupUsage)
		return fmt.Errorf("%w (%s)", err, backupUsage)
	}
	if verify && force {
		fmt.Fprintln(stderr, backupUsage)
		return errors.New("backup verify takes no --force")
	}
	name := "backup"
	if verify {
		name = "backup verify"
	}
	cfg, _, err := loadConfig(name, rest, getenv, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	if verify {
		r, err := backup.Verify(ctx, file, cfg.DatabaseURL)
		if err != nil {
			return err
		}
		return report(stdout, "verified", file, r, time.Since(start))
	}
	res, err := backup.Create(ctx, cfg.DatabaseURL, file, force)
	if err != nil {
		return err
	}
	m := res.Manifest
	fmt.Fprintf(stdout, "backup of the %s database written to %s (%s) in %s: schema version %d, %d accounts, %d ledger rows "+
		"(SHA-256 %s), balances summing to %d\n", m.Store, file, byteSize(res.Bytes), time.Since(start).Round(time.Millisecond),
		m.SchemaVersion, m.Ledger.Accounts, m.Ledger.Rows, m.Ledger.SHA256[:16], m.Ledger.BalanceSum)
	for _, p := range res.Problems {
		fmt.Fprintf(stdout, "warning: the database itself has a problem: %s\n", p)
	}
	return nil
}

// runRestore restores a backup into the configured database, which must be empty unless --force.
func runRestore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	file, force, rest, err := splitBackupArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, restoreUsage)
		return fmt.Errorf("%w (%s)", err, restoreUsage)
	}
	cfg, _, err := loadConfig("restore", rest, getenv, stderr)
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := backup.Restore(ctx, file, cfg.DatabaseURL, force)
	if err != nil {
		return err
	}
	return report(stdout, "restored", file, r, time.Since(start))
}

// report prints what a restore or verification found; any problem makes it an error (exit status 1).
func report(w io.Writer, verb, file string, r backup.Report, took time.Duration) error {
	m := r.Manifest
	fmt.Fprintf(w, "%s %s in %s: %s backup of %s, schema version %d\n", verb, file, took.Round(time.Millisecond),
		m.Store, m.CreatedAt.Format(time.RFC3339), m.SchemaVersion)
	tables := make([]string, 0, len(r.Tables))
	for t := range r.Tables {
		tables = append(tables, t)
	}
	slices.Sort(tables)
	var parts []string
	for _, t := range tables {
		parts = append(parts, fmt.Sprintf("%s %d", t, r.Tables[t]))
	}
	fmt.Fprintf(w, "  rows: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "  ledger: %d rows, SHA-256 %s; %d accounts, balances summing to %d\n", m.Ledger.Rows, m.Ledger.SHA256,
		m.Ledger.Accounts, m.Ledger.BalanceSum)
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "  OK: matches the manifest; every account's ledger chain and balance check out")
		return nil
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  MISMATCH: %s\n", p)
	}
	return fmt.Errorf("%s: %d problems: %s", file, len(r.Problems), strings.Join(r.Problems, "; "))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
