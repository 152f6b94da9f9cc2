package store

import (
	"context"
	"fmt"
	"sync"
)

// Lock ids of the work that instances sharing one database must not do at once (PostgreSQL advisory locks share
// one space of 64-bit ids per database; the queue's migration lock is in queue.go).
const (
	// LockDemoSeed serialises the demo seeding of an empty development database, so that instances started
	// together seed it once: each checks whether the database is empty only while it holds the lock.
	LockDemoSeed int64 = 0x76616c6465 // "valde"
	// LockTrain, plus a partition's hash, is held while an engine of that partition trains (jobs.TrainArgs): a
	// training job that River runs again while the first run still trains (it rescues jobs running longer than a
	// few minutes, and a training may take longer) finds it held and waits for the first.
	LockTrain int64 = 0x76616c7472 << 24 // "valtr"
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

// heldHere are the lock ids TryLock holds in this process on SQLite, whose database one process serves.
var heldHere sync.Map

// TryLock runs fn if no other holder has the lock id, and reports whether it ran; it never waits. On PostgreSQL it
// is a session advisory lock on a connection of its own, released when fn returns or when the process dies (its
// connection closes), so a worker killed mid-training never leaves a partition locked. On SQLite it is held in
// this process.
func (db *DB) TryLock(ctx context.Context, id int64, fn func() error) (bool, error) {
	if db.dialect != Postgres {
		if _, held := heldHere.LoadOrStore(id, true); held {
			return false, nil
		}
		defer heldHere.Delete(id)
		return true, fn()
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, id).Scan(&got); err != nil {
		return false, fmt.Errorf("lock %#x: %w", id, err)
	}
	if !got {
		return false, nil
	}
	defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, id) //nolint:errcheck
	return true, fn()
}
