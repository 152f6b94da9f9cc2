// Package backup writes, restores and verifies Valuator's backups: one file (a gzip-compressed tar) holding
// manifest.json and the database, a consistent snapshot of it taken while the server runs (SQLite: VACUUM INTO;
// PostgreSQL: pg_dump --format=custom on the snapshot the manifest was counted in).
package backup

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"time"
)

// Format names the layout of a backup file; a reader refuses another.
const Format = "valuator-backup/1"

// Members of the archive.
const (
	manifestName = "manifest.json"
	sqliteName   = "valuator.db"     // the SQLite database file
	pgDumpName   = "valuator.pgdump" // pg_dump --format=custom
)

// MainTables are the tables whose row counts the manifest records and a restore is checked against.
var MainTables = []string{
	"users", "credit_ledger", "usage_records", "api_keys", "subscriptions", "payments",
	"batch_jobs", "batch_rows", "properties", "sales", "rentals", "river_job",
}

// Manifest describes a backup: what it was taken from and what the restored database must hold.
type Manifest struct {
	Format    string    `json:"format"`
	CreatedAt time.Time `json:"createdAt"`
	// Store is "sqlite" or "postgres": a backup restores into a database of the same kind.
	Store string `json:"store"`
	// SchemaVersion is the latest migration applied (goose's version).
	SchemaVersion int64 `json:"schemaVersion"`
	// Database is the archive member holding the database, with its size and SHA-256.
	Database       string `json:"database"`
	DatabaseBytes  int64  `json:"databaseBytes"`
	DatabaseSHA256 string `json:"databaseSha256"`
	// Tool is the pg_dump that wrote a PostgreSQL dump ("pg_dump (PostgreSQL) 15.8").
	Tool   string           `json:"tool,omitempty"`
	Tables map[string]int64 `json:"tables"`
	Ledger Ledger           `json:"ledger"`
}

// Ledger sums up the credit ledger and the balances.
type Ledger struct {
	Rows int64 `json:"rows"`
	// SHA256 is over the ledger's rows in id order, each the JSON array [id, user_id, amount, balance_after, kind,
	// description, reference, created_at] and a newline, created_at as 2006-01-02T15:04:05.000000Z.
	SHA256 string `json:"sha256"`
	// Accounts is the number of users; BalanceSum the sum of their balances (users.credits), which equals the sum
	// of every account's last ledger balance in a sound database.
	Accounts   int64 `json:"accounts"`
	BalanceSum int64 `json:"balanceSum"`
}

// queryer is a *sql.DB, *sql.Conn or *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inspection is what inspect found in a database: the manifest's figures, and the breaks of the ledger's rules.
type inspection struct {
	SchemaVersion int64
	Tables        map[string]int64
	Ledger        Ledger
	Problems      []string
}

// maxProblems caps the problems listed (the count of the rest is given).
const maxProblems = 50

// inspect reads the schema version, the main tables' row counts and the ledger, and checks the ledger's rules:
// every account's rows, in id order, form a chain from 0 (each row's balance_after is the previous row's plus
// its amount: store.postCredit and the meter group write them so), and every account's balance (users.credits)
// is its last row's balance_after (0 without rows).
func inspect(ctx context.Context, q queryer) (inspection, error) {
	in := inspection{Tables: map[string]int64{}}
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied`).
		Scan(&in.SchemaVersion); err != nil {
		return in, fmt.Errorf("schema version: %w", err)
	}
	for _, t := range MainTables {
		var n int64
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			return in, fmt.Errorf("count %s: %w", t, err)
		}
		in.Tables[t] = n
	}

	last := map[int64]int64{} // account -> its last row's balance_after
	broken := map[int64]bool{}
	extra := 0
	problem := func(format string, args ...any) {
		if len(in.Problems) < maxProblems {
			in.Problems = append(in.Problems, fmt.Sprintf(format, args...))
		} else {
			extra++
		}
	}
	h := sha256.New()
	rows, err := q.QueryContext(ctx, `SELECT id, user_id, amount, balance_after, kind, description, reference, created_at
		FROM credit_ledger ORDER BY id`)
	if err != nil {
		return in, fmt.Errorf("read ledger: %w", err)
	}
	for rows.Next() {
		var id, user, amount, after int64
		var kind, desc, ref string
		var at any
		if err := rows.Scan(&id, &user, &amount, &after, &kind, &desc, &ref, &at); err != nil {
			rows.Close()
			return in, fmt.Errorf("read ledger: %w", err)
		}
		if err := hashRow(h, id, user, amount, after, kind, desc, ref, at); err != nil {
			rows.Close()
			return in, err
		}
		in.Ledger.Rows++
		prev := last[user]
		if after != prev+amount && !broken[user] {
			// One problem per account: past the first break every row would differ.
			broken[user] = true
			problem("account %d: ledger row %d has balance_after %d, but the previous balance %d plus its amount %d is %d",
				user, id, after, prev, amount, prev+amount)
		}
		last[user] = after
	}
	if err := rows.Err(); err != nil {
		return in, fmt.Errorf("read ledger: %w", err)
	}
	rows.Close()
	in.Ledger.SHA256 = hex.EncodeToString(h.Sum(nil))

	urows, err := q.QueryContext(ctx, `SELECT id, credits FROM users ORDER BY id`)
	if err != nil {
		return in, fmt.Errorf("read balances: %w", err)
	}
	defer urows.Close()
	for urows.Next() {
		var id, credits int64
		if err := urows.Scan(&id, &credits); err != nil {
			return in, fmt.Errorf("read balances: %w", err)
		}
		in.Ledger.Accounts++
		in.Ledger.BalanceSum += credits
		if l := last[id]; l != credits {
			problem("account %d: balance %d, but its ledger's last balance is %d", id, credits, l)
		}
		delete(last, id)
	}
	if err := urows.Err(); err != nil {
		return in, fmt.Errorf("read balances: %w", err)
	}
	for id := range last {
		problem("account %d: ledger rows for an account that does not exist", id)
	}
	if extra > 0 {
		in.Problems = append(in.Problems, fmt.Sprintf("and %d more problems", extra))
	}
	return in, nil
}

func hashRow(h hash.Hash, id, user, amount, after int64, kind, desc, ref string, at any) error {
	var when string
	switch v := at.(type) {
	case time.Time:
		when = v.UTC().Format("2006-01-02T15:04:05.000000Z")
	case string:
		when = v
	case []byte:
		when = string(v)
	default:
		return fmt.Errorf("ledger row %d: created_at of type %T", id, at)
	}
	b, err := json.Marshal([]any{id, user, amount, after, kind, desc, ref, when})
	if err != nil {
		return err
	}
	h.Write(append(b, '\n'))
	return nil
}

// compare lists where a database's inspection differs from the manifest.
func compare(m Manifest, in inspection) []string {
	var out []string
	if m.SchemaVersion != in.SchemaVersion {
		out = append(out, fmt.Sprintf("schema version %d, manifest %d", in.SchemaVersion, m.SchemaVersion))
	}
	for _, t := range MainTables {
		want, ok := m.Tables[t]
		if ok && want != in.Tables[t] {
			out = append(out, fmt.Sprintf("table %s has %d rows, manifest %d", t, in.Tables[t], want))
		}
	}
	if m.Ledger.Rows != in.Ledger.Rows {
		out = append(out, fmt.Sprintf("ledger has %d rows, manifest %d", in.Ledger.Rows, m.Ledger.Rows))
	}
	if m.Ledger.SHA256 != in.Ledger.SHA256 {
		out = append(out, fmt.Sprintf("ledger checksum %s, manifest %s", in.Ledger.SHA256, m.Ledger.SHA256))
	}
	if m.Ledger.Accounts != in.Ledger.Accounts || m.Ledger.BalanceSum != in.Ledger.BalanceSum {
		out = append(out, fmt.Sprintf("%d accounts with balances summing to %d, manifest %d summing to %d",
			in.Ledger.Accounts, in.Ledger.BalanceSum, m.Ledger.Accounts, m.Ledger.BalanceSum))
	}
	return out
}
