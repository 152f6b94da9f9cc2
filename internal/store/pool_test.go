package store

import (
	"context"
	"testing"
	"time"

	"valuator/internal/testdb"
)

// TestSetPool checks that the PostgreSQL pool takes its size from the settings (VALUATOR_DB_MAX_CONNS), and that a
// request that finds every connection busy waits no longer than its context and fails as unavailable (a 503).
func TestSetPool(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.SQL().Stats().MaxOpenConnections; got != DefaultMaxConns {
		t.Errorf("default pool size %d, want %d", got, DefaultMaxConns)
	}
	db.SetPool(2, 1)
	if got := db.SQL().Stats().MaxOpenConnections; got != 2 {
		t.Fatalf("pool size %d after SetPool(2, 1), want 2", got)
	}
	var held []interface{ Close() error }
	for range 2 {
		c, err := db.SQL().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = db.SQL().PingContext(wctx)
	if err == nil || !IsUnavailable(err) {
		t.Errorf("with the pool exhausted: err = %v, want an unavailable error", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %v for a connection; want the context's 100ms", d)
	}
	for _, c := range held {
		c.Close()
	}
}
