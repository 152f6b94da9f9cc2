package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// migrations holds one folder per dialect; both describe the same schema.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Migrate brings the schema up to date and enters the accounts made before welcome_grants in it (a step in Go,
// idempotent, that runs every time). Several instances may start at once on PostgreSQL: a session advisory lock
// lets one migrate while the others wait.
func (db *DB) Migrate(ctx context.Context) error {
	dir := "migrations/" + db.dialect.String()
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.dialect == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.wsql, fsys, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", db.dialect, err)
	}
	if err := db.backfillWelcomeGrants(ctx); err != nil {
		return err
	}
	return db.migrateQueue(ctx)
}
