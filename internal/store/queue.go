package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// QueueDriver is River's driver on this database, so that jobs live beside the data they work on and are queued
// in the same transactions. Both drivers work on database/sql, so a transaction is a *sql.Tx on either database.
// On SQLite River gets the writer pool: its one connection serialises River's writes with ours (River's own
// advice for SQLite, which otherwise answers SQLITE_BUSY). On PostgreSQL riverdatabasesql is used rather than
// riverpgxv5 so that River and the store share one pool and one transaction type; the cost is that workers poll
// for jobs instead of being woken by LISTEN/NOTIFY.
func (db *DB) QueueDriver() riverdriver.Driver[*sql.Tx] {
	if db.dialect == SQLite {
		return riversqlite.New(db.wsql)
	}
	return riverdatabasesql.New(db.sql)
}

// migrateQueue creates or updates River's tables. On PostgreSQL an advisory lock keeps instances that start
// together from migrating at once (goose's own lock is released by then).
func (db *DB) migrateQueue(ctx context.Context) error {
	if db.dialect == Postgres {
		conn, err := db.sql.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		const lockID = 0x76616c7175 // "valqu"
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
			return fmt.Errorf("queue migrations: lock: %w", err)
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, lockID) //nolint:errcheck
	}
	m, err := rivermigrate.New(db.QueueDriver(), &rivermigrate.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return fmt.Errorf("queue migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("queue migrations on %s: %w", db.dialect, err)
	}
	return nil
}
