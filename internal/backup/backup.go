package backup

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	_ "modernc.org/sqlite"             // the "sqlite" driver
)

// Kind of a database URL: "sqlite" with its file's path, or "postgres".
func kindOf(dbURL string) (kind, path string, err error) {
	switch {
	case strings.HasPrefix(dbURL, "postgres://"), strings.HasPrefix(dbURL, "postgresql://"):
		return "postgres", "", nil
	case strings.HasPrefix(dbURL, "sqlite:"):
		return "sqlite", strings.TrimPrefix(strings.TrimPrefix(dbURL, "sqlite://"), "sqlite:"), nil
	}
	return "", "", fmt.Errorf("unsupported database URL %q: want sqlite://PATH or postgres://", dbURL)
}

func openSQLite(path string, readOnly bool) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)"
	if readOnly {
		dsn += "&mode=ro"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// pgTool finds a PostgreSQL client program (pg_dump, pg_restore): on PATH, else in the newest of Debian's
// /usr/lib/postgresql/VERSION/bin.
func pgTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { // newest first
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in /usr/lib/postgresql/*/bin: install the PostgreSQL client "+
		"programs of the server's version or newer (Debian: apt-get install postgresql-client)", name)
}

// Result is what Create wrote.
type Result struct {
	Manifest Manifest
	Bytes    int64 // the backup file's size
	Problems []string
}

// Create writes a backup of the database at dbURL to file, which must not exist unless force. The database may be
// in use: the backup is one consistent snapshot, and the manifest is counted in that same snapshot. Problems lists
// breaks of the ledger's rules found in the snapshot (the backup is written all the same).
func Create(ctx context.Context, dbURL, file string, force bool) (Result, error) {
	if file == "" {
		return Result{}, errors.New("no backup file named")
	}
	if !force {
		if _, err := os.Lstat(file); err == nil {
			return Result{}, fmt.Errorf("%s exists: pass --force to overwrite it", file)
		}
	}
	kind, path, err := kindOf(dbURL)
	if err != nil {
		return Result{}, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(file), ".valuator-backup-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	m := Manifest{Format: Format, CreatedAt: time.Now().UTC(), Store: kind}
	var in inspection
	var dump string
	if kind == "sqlite" {
		m.Database, dump = sqliteName, filepath.Join(tmp, sqliteName)
		in, err = snapshotSQLite(ctx, path, dump)
	} else {
		m.Database, dump = pgDumpName, filepath.Join(tmp, pgDumpName)
		in, m.Tool, err = dumpPostgres(ctx, dbURL, dump)
	}
	if err != nil {
		return Result{}, err
	}
	m.SchemaVersion, m.Tables, m.Ledger = in.SchemaVersion, in.Tables, in.Ledger
	if m.DatabaseSHA256, m.DatabaseBytes, err = fileSHA256(dump); err != nil {
		return Result{}, err
	}
	archive := filepath.Join(tmp, "backup")
	if err := writeArchive(archive, m, dump); err != nil {
		return Result{}, err
	}
	if force {
		err = os.Rename(archive, file)
	} else {
		err = os.Link(archive, file) // fails if file appeared meanwhile
	}
	if err != nil {
		return Result{}, fmt.Errorf("write %s: %w", file, err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return Result{}, err
	}
	return Result{Manifest: m, Bytes: fi.Size(), Problems: in.Problems}, nil
}

// snapshotSQLite copies the live database into dst with VACUUM INTO (one read transaction: a consistent
// snapshot, taken beside the server's writes in WAL mode), then inspects the copy.
func snapshotSQLite(ctx context.Context, path, dst string) (inspection, error) {
	if _, err := os.Stat(path); err != nil {
		return inspection{}, fmt.Errorf("no database to back up: %w", err)
	}
	src, err := openSQLite(path, false)
	if err != nil {
		return inspection{}, err
	}
	_, err = src.ExecContext(ctx, `VACUUM INTO '`+strings.ReplaceAll(dst, "'", "''")+`'`)
	src.Close()
	if err != nil {
		return inspection{}, fmt.Errorf("VACUUM INTO: %w", err)
	}
	snap, err := openSQLite(dst, true)
	if err != nil {
		return inspection{}, err
	}
	defer snap.Close()
	return inspect(ctx, snap)
}

// dumpPostgres counts the manifest in a repeatable-read transaction and has pg_dump dump the snapshot of that
// transaction (--snapshot), so that the dump and the manifest are of the same instant.
func dumpPostgres(ctx context.Context, dbURL, dst string) (inspection, string, error) {
	pgDump, err := pgTool("pg_dump")
	if err != nil {
		return inspection{}, "", err
	}
	version, _ := exec.CommandContext(ctx, pgDump, "--version").Output()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return inspection{}, "", err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return inspection{}, "", fmt.Errorf("connect to postgres: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read only
	var snapshot string
	if err := tx.QueryRowContext(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
		return inspection{}, "", fmt.Errorf("export snapshot: %w", err)
	}
	in, err := inspect(ctx, tx)
	if err != nil {
		return in, "", err
	}
	cmd := exec.CommandContext(ctx, pgDump, "--format=custom", "--snapshot="+snapshot, "--file="+dst, "--dbname="+dbURL)
	if out, err := cmd.CombinedOutput(); err != nil {
		return in, "", fmt.Errorf("%s: %w\n%s", pgDump, err, out)
	}
	return in, strings.TrimSpace(string(version)), nil
}

func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// writeArchive writes a gzip-compressed tar of manifest.json and the database file.
func writeArchive(path string, m Manifest, dbFile string) (err error) {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // it holds every customer's data
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	zw, _ := gzip.NewWriterLevel(out, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	mj = append(mj, '\n')
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o600, Size: int64(len(mj)), ModTime: m.CreatedAt,
		Format: tar.FormatPAX}); err != nil {
		return err
	}
	if _, err := tw.Write(mj); err != nil {
		return err
	}
	f, err := os.Open(dbFile)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := tw.WriteHeader(&tar.Header{Name: m.Database, Mode: 0o600, Size: m.DatabaseBytes, ModTime: m.CreatedAt,
		Format: tar.FormatPAX}); err != nil {
		return err
	}
	if _, err := io.Copy(tw, f); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return out.Sync()
}

// open reads a backup's manifest and extracts its database into dir, checking the member's size and SHA-256
// against the manifest. It returns the extracted file's path.
func open(file, dir string) (Manifest, string, error) {
	var m Manifest
	f, err := os.Open(file)
	if err != nil {
		return m, "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return m, "", fmt.Errorf("%s is not a Valuator backup: %w", file, err)
	}
	tr := tar.NewReader(zr)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != manifestName {
		return m, "", fmt.Errorf("%s is not a Valuator backup: no %s first", file, manifestName)
	}
	mj, err := io.ReadAll(io.LimitReader(tr, 1<<20))
	if err != nil {
		return m, "", err
	}
	if err := json.Unmarshal(mj, &m); err != nil {
		return m, "", fmt.Errorf("%s: bad manifest: %w", file, err)
	}
	if m.Format != Format {
		return m, "", fmt.Errorf("%s: format %q, this valuator reads %q", file, m.Format, Format)
	}
	if m.Database != sqliteName && m.Database != pgDumpName {
		return m, "", fmt.Errorf("%s: unknown database member %q", file, m.Database)
	}
	hdr, err = tr.Next()
	if err != nil || hdr.Name != m.Database {
		return m, "", fmt.Errorf("%s: the database %s is missing", file, m.Database)
	}
	dst := filepath.Join(dir, m.Database)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return m, "", err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), tr)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return m, "", fmt.Errorf("%s: extract %s: %w", file, m.Database, err)
	}
	if n != m.DatabaseBytes || hex.EncodeToString(h.Sum(nil)) != m.DatabaseSHA256 {
		return m, "", fmt.Errorf("%s: the database member (%d bytes) does not match the manifest's size %d and SHA-256",
			file, n, m.DatabaseBytes)
	}
	return m, dst, nil
}

// ReadManifest returns a backup's manifest, checking the database member against it.
func ReadManifest(file string) (Manifest, error) {
	dir, err := os.MkdirTemp("", "valuator-manifest-")
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(dir)
	m, _, err := open(file, dir)
	return m, err
}

// Report is what a restore or a verification found: the manifest, and every difference from it and break of the
// ledger's rules (none: all is well).
type Report struct {
	Manifest Manifest
	Tables   map[string]int64
	Problems []string
}

// ErrNotEmpty is returned by Restore for a target database that holds something, without force.
var ErrNotEmpty = errors.New("the target database is not empty")

// Restore restores a backup into the database at dbURL, which must be empty unless force (then what it holds is
// deleted first: the SQLite file, or PostgreSQL's public schema). No server may be running on it. The restored
// database is checked against the manifest.
func Restore(ctx context.Context, file, dbURL string, force bool) (Report, error) {
	kind, path, err := kindOf(dbURL)
	if err != nil {
		return Report{}, err
	}
	if kind == "sqlite" {
		// Extracted beside the target, so that it is moved into place by a rename.
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return Report{}, err
		}
	}
	tmpParent := ""
	if kind == "sqlite" {
		tmpParent = filepath.Dir(path)
	}
	tmp, err := os.MkdirTemp(tmpParent, ".valuator-restore-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(tmp)
	m, dump, err := open(file, tmp)
	if err != nil {
		return Report{}, err
	}
	if m.Store != kind {
		return Report{}, fmt.Errorf("%s is a backup of a %s database; the target is %s", file, m.Store, kind)
	}
	found, err := contents(ctx, kind, path, dbURL)
	if err != nil {
		return Report{}, err
	}
	if found != "" && !force {
		return Report{}, fmt.Errorf("%w: it holds %s; stop the servers and pass --force to replace it", ErrNotEmpty, found)
	}
	if kind == "sqlite" {
		for _, suffix := range []string{"-wal", "-shm", ""} {
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return Report{}, err
			}
		}
		if err := os.Rename(dump, path); err != nil {
			return Report{}, err
		}
	} else {
		if found != "" {
			if err := execPostgres(ctx, dbURL, `DROP SCHEMA public CASCADE`, `CREATE SCHEMA public`); err != nil {
				return Report{}, fmt.Errorf("clear the target: %w", err)
			}
		}
		if err := pgRestore(ctx, dump, dbURL); err != nil {
			return Report{}, err
		}
	}
	return check(ctx, m, kind, path, dbURL)
}

// Verify restores a backup into a scratch database (a temporary SQLite file; for PostgreSQL a temporary database
// made on the server of pgURL, and dropped after) and checks it: the manifest, every account's ledger chain, and
// every balance against its ledger.
func Verify(ctx context.Context, file, pgURL string) (Report, error) {
	tmp, err := os.MkdirTemp("", "valuator-verify-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(tmp)
	m, dump, err := open(file, tmp)
	if err != nil {
		return Report{}, err
	}
	if m.Store == "sqlite" {
		return check(ctx, m, "sqlite", dump, "")
	}
	if k, _, _ := kindOf(pgURL); k != "postgres" {
		return Report{}, errors.New("verifying a PostgreSQL backup needs a PostgreSQL server to restore it on: set " +
			"VALUATOR_DATABASE_URL (or --database-url) to one where this user may create databases")
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		return Report{}, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "valuator_verify_" + hex.EncodeToString(b[:])
	if err := execPostgres(ctx, pgURL, `CREATE DATABASE `+name); err != nil {
		return Report{}, fmt.Errorf("create the scratch database %s: %w", name, err)
	}
	defer execPostgres(context.WithoutCancel(ctx), pgURL, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`) //nolint:errcheck
	u.Path = "/" + name
	scratch := u.String()
	if err := pgRestore(ctx, dump, scratch); err != nil {
		return Report{}, err
	}
	return check(ctx, m, "postgres", "", scratch)
}

// check inspects a restored database and compares it with the manifest.
func check(ctx context.Context, m Manifest, kind, path, dbURL string) (Report, error) {
	in, err := inspectDatabase(ctx, kind, path, dbURL)
	if err != nil {
		return Report{}, err
	}
	return Report{Manifest: m, Tables: in.Tables, Problems: append(compare(m, in), in.Problems...)}, nil
}

// inspectDatabase opens a database (a SQLite file read-only) and inspects it.
func inspectDatabase(ctx context.Context, kind, path, dbURL string) (inspection, error) {
	var db *sql.DB
	var err error
	if kind == "sqlite" {
		if _, err := os.Stat(path); err != nil {
			return inspection{}, err // SQLite would create an empty file
		}
		db, err = openSQLite(path, true)
	} else {
		db, err = sql.Open("pgx", dbURL)
	}
	if err != nil {
		return inspection{}, err
	}
	defer db.Close()
	return inspect(ctx, db)
}

// contents says what a database holds ("" when empty).
func contents(ctx context.Context, kind, path, dbURL string) (string, error) {
	var db *sql.DB
	var err error
	query := `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`
	if kind == "sqlite" {
		fi, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) || (err == nil && fi.Size() == 0) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		db, err = openSQLite(path, true)
		if err != nil {
			return "", err
		}
		query = `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	} else if db, err = sql.Open("pgx", dbURL); err != nil {
		return "", err
	}
	defer db.Close()
	var tables int64
	if err := db.QueryRowContext(ctx, query).Scan(&tables); err != nil {
		return "", fmt.Errorf("look into the target database: %w", err)
	}
	if tables == 0 {
		return "", nil
	}
	found := fmt.Sprintf("%d tables", tables)
	var users, ledger int64
	if db.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM credit_ledger)`).Scan(&users, &ledger) == nil {
		found += fmt.Sprintf(", %d accounts and %d ledger rows", users, ledger)
	}
	return found, nil
}

func execPostgres(ctx context.Context, dbURL string, stmts ...string) error {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// pgRestore restores a custom-format dump into dbURL in one transaction, owners and grants left out (the target's
// user owns what it restores).
func pgRestore(ctx context.Context, dump, dbURL string) error {
	bin, err := pgTool("pg_restore")
	if err != nil {
		return err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--exit-on-error", "--single-transaction", "--no-owner", "--no-privileges",
		"--dbname="+dbURL, dump)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s", bin, err, out.String())
	}
	return nil
}

// CheckLive checks the database at dbURL as it is, servers running on it or not, by the rules verify checks a
// backup by: every account's ledger chain, and every balance against its ledger. It is the check of a database
// that came back without a backup file (Litestream's replica, PostgreSQL's base backup and archived WAL) or from
// one (the drill). It reads in one transaction
// (PostgreSQL: repeatable read; SQLite: one read transaction in WAL mode), so that charges written meanwhile do not
// show as breaks. The report has no manifest; Problems lists the breaks (none: all is well).
func CheckLive(ctx context.Context, dbURL string) (Report, error) {
	kind, path, err := kindOf(dbURL)
	if err != nil {
		return Report{}, err
	}
	var db *sql.DB
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	if kind == "sqlite" {
		if _, err := os.Stat(path); err != nil {
			return Report{}, fmt.Errorf("no database to check: %w", err)
		}
		db, err = openSQLite(path, false)
		opts = nil // a deferred transaction: its first read fixes the snapshot
	} else {
		db, err = sql.Open("pgx", dbURL)
	}
	if err != nil {
		return Report{}, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return Report{}, err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	in, err := inspect(ctx, tx)
	if err != nil {
		return Report{}, err
	}
	return Report{Tables: in.Tables, Problems: in.Problems}, nil
}
