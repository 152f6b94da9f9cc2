package store

import (
	"context"
	"testing"

	"valuator/internal/testdb"
)

// TestMigrateAcceptsANewerSchema: during a rolling deploy the old binary keeps running, and may restart, on a schema
// the new binary has already migrated one release ahead (docs/operations.md, "Restarts and rolling deploys"). Migrate
// must then apply nothing and refuse nothing: migrations it does not know are a newer release's, never an error.
func TestMigrateAcceptsANewerSchema(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		// A migration of the next release: an added table and column, recorded as goose records it.
		for _, q := range []string{
			`CREATE TABLE next_release_things (id INTEGER PRIMARY KEY, note TEXT)`,
			`ALTER TABLE users ADD COLUMN next_release_note TEXT`,
			`INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, TRUE)`,
		} {
			if _, err := db.SQL().ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("the old binary refuses a schema one release ahead: %v", err)
		}
		if n, err := db.CountUsers(ctx); err != nil || n != 0 {
			t.Errorf("reading users beside the new column: %d, %v", n, err)
		}
	})
}
