package main

import (
	"context"
	"testing"

	"valuator/internal/store"
)

// testStore opens the database at dbURL for a test, migrated (a no-op on one a server already migrated), and closes
// it when the test ends.
func testStore(t *testing.T, dbURL string) *store.DB {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}
