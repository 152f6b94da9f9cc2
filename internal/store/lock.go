package store

import (
	"context"
	"fmt"
)

// Lock ids of the work that instances sharing one database must not do at once (PostgreSQL advisory locks share
// one space of 64-bit ids per database; the queue's migration lock is in queue.go).
const (
	// LockDemoSeed serialises the demo seeding of an empty development database, so that instances started
	// together seed it once: each checks whether the database is empty only while it holds the lock.
	LockDemoSeed int64 = 0x76616c6465 // "valde"
)

// WithLock runs fn while this process holds the lock id, waiting for any other instance that holds it. On
// PostgreSQL it is a session advisory lock on a connection of its own (fn may use the pool freely). On SQLite fn
// runs without one: a SQLite database is served by one instance.
func (db *DB) WithLock(ctx context.Context, id int64, fn func() error) error {
	if db.dialect != Postgres {
		return fn()
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, id); err != nil {
		return fmt.Errorf("lock %#x: %w", id, err)
	}
	// Unlocked on a context of its own: a cancelled ctx must not leave the lock held by a pooled connection.
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, id) //nolint:errcheck
	return fn()
}
