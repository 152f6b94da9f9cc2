// Package store is the database: it opens SQLite or PostgreSQL from a URL, applies the migrations of that dialect
// and implements the domain packages' store interfaces with portable, hand-written SQL (placeholders are written
// as ? and rewritten to $n for PostgreSQL).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect is the SQL flavour of the database.
type Dialect int

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// DB is the application's database.
type DB struct {
	sql *sql.DB
	// stmts caches prepared statements by query text for each pool: SQLite (modernc) would otherwise parse every
	// statement on every call, a large share of a cheap query's cost. PostgreSQL's driver caches on its own.
	rstmts, wstmts *stmtCache
	// wsql takes every write. On SQLite it is a pool of one connection: SQLite lets one writer in at a time, and
	// writers that queue here wait in order, where writers that collide inside SQLite back off in sleeps of
	// milliseconds (its busy handler), which wrecks throughput and tail latency under load. On PostgreSQL it is
	// the same pool as sql.
	wsql    *sql.DB
	dialect Dialect
	// meters groups the charges that are committed together (meter_group.go).
	meters meterGroup
	// stopCheckpoints ends SQLite's checkpointer (checkpoints); checkpointsDone is closed when it has.
	stopCheckpoints context.CancelFunc
	checkpointsDone chan struct{}
}

// Open connects to the database named by url: sqlite://PATH (a file, created with its folder if missing) or
// postgres://... It does not migrate; call Migrate.
func Open(ctx context.Context, url string) (*DB, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		db, err := sql.Open("pgx", url)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		db.SetMaxOpenConns(DefaultMaxConns)
		db.SetMaxIdleConns(DefaultMaxConns)
		db.SetConnMaxIdleTime(5 * time.Minute)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("connect to postgres: %w", err)
		}
		return &DB{sql: db, wsql: db, dialect: Postgres}, nil
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite://"), "sqlite:")
		return openSQLite(ctx, path)
	default:
		return nil, fmt.Errorf("unsupported database URL %q: want sqlite://PATH or postgres://", url)
	}
}

// DefaultMaxConns is the PostgreSQL pool's size unless SetPool changes it (VALUATOR_DB_MAX_CONNS).
const DefaultMaxConns = 32

// SetPool bounds the PostgreSQL pool to maxConns connections, of which at most maxIdle are kept open while idle.
// A request that finds every connection busy waits for one as long as its context allows. SQLite's pools are
// sized by the database's own rules (one writer), so SetPool leaves them alone.
func (db *DB) SetPool(maxConns, maxIdle int) {
	if db.dialect != Postgres || maxConns < 1 {
		return
	}
	db.sql.SetMaxOpenConns(maxConns)
	db.sql.SetMaxIdleConns(min(max(maxIdle, 0), maxConns))
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create database folder: %w", err)
		}
	}
	// The database holds password hashes, sealed API keys and every customer's data: it is created readable by
	// its owner only. SQLite gives the -wal and -shm files the database file's permissions, so creating the file
	// here, before SQLite does (with the process umask, usually 0644), covers all three.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create database file %s: %w", path, err)
	}
	// WAL lets readers run while one writer writes; busy_timeout makes a second writer wait instead of failing;
	// _txlock=immediate takes the write lock at BEGIN, so two read-then-write transactions cannot deadlock on a
	// lock upgrade; foreign_keys is off by default in SQLite.
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	open := func(conns int, pragmas string) (*sql.DB, error) {
		db, err := sql.Open("sqlite", dsn+pragmas)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		db.SetConnMaxIdleTime(0)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		return db, nil
	}
	// The writer does not checkpoint (the WAL's pages copied back into the database file) after its commits, as
	// SQLite does by default every 1,000 pages: a checkpoint ends in an fsync, which the writer would wait for
	// while holding the write lock, and under load that was half of the writer's time. checkpoints runs them
	// once a second instead (see there). journal_size_limit shrinks a WAL that a burst grew back to 64 MiB when
	// it is started over. temp_store(MEMORY) keeps the statement journal of a statement that writes many rows
	// (the one SQLite keeps to undo just that statement) in memory, where it would spill to a temporary file in
	// write calls past 64 KiB.
	w, err := open(1, "&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(67108864)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, err
	}
	r, err := open(8, "")
	if err != nil {
		w.Close()
		return nil, err
	}
	db := &DB{sql: r, wsql: w, dialect: SQLite, rstmts: &stmtCache{db: r}, wstmts: &stmtCache{db: w},
		checkpointsDone: make(chan struct{})}
	var cctx context.Context
	cctx, db.stopCheckpoints = context.WithCancel(context.Background())
	ticker := time.NewTicker(checkpointEvery)
	go func() {
		defer ticker.Stop()
		db.checkpoints(cctx, ticker.C)
	}()
	return db, nil
}

// busyTimeoutMS is how long a connection waits for a lock that another holds (a second writer, a checkpoint).
const busyTimeoutMS = 10000

// checkpointEvery is how often SQLite's WAL is checkpointed. Between checkpoints the WAL grows by every page
// written in the meantime (under the load benchmark, about 100 MB a second, mostly the same pages again).
const checkpointEvery = time.Second

// checkpoints copies the WAL back into the database file at every tick until ctx ends, and starts it over.
//
// A passive checkpoint on a reading connection does the bulk of the copying and its fsyncs beside the writer. On
// its own it never catches up under steady writes: the writer appends while it copies, so the WAL is never all
// copied when the next write begins, the next write appends instead of starting the WAL over, and the file grew
// by gigabytes in a minute of load (and every one of those pages was a write that extended the file). So a
// restart checkpoint follows on the writer's own connection, queued with the writes: it copies the little the
// writer added meanwhile, waits a moment for the readers still reading from the WAL (most reads take
// microseconds), and the next write starts the WAL over from its beginning, rewriting pages the file already has.
func (db *DB) checkpoints(ctx context.Context, tick <-chan time.Time) {
	defer close(db.checkpointsDone)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			// A failure is tried again at the next tick.
			if _, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err == nil {
				_ = db.restartWAL(ctx)
			}
		}
	}
}

// restartWAL runs a restart checkpoint on the writer's connection. It waits for readers for 20 ms at most, not
// the usual busy timeout: the writes queue behind it, and a long reader (a large export, say) would hold them
// all. A WAL that a reader kept is started over at a later tick.
func (db *DB) restartWAL(ctx context.Context) error {
	c, err := db.wsql.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PRAGMA busy_timeout = 20`); err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
	_, rerr := c.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = `+strconv.Itoa(busyTimeoutMS))
	return errors.Join(err, rerr)
}

// LeaveCheckpoints stops the SQLite checkpointer (checkpoints) for good, leaving the WAL to another process:
// Litestream, which must be the only one to checkpoint so that the WAL is never started over before it has copied
// it. Without such a process the WAL grows without bound. PostgreSQL: nothing to do.
func (db *DB) LeaveCheckpoints() {
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
		<-db.checkpointsDone
	}
}

// Close closes the connections.
func (db *DB) Close() error {
	if db.stopCheckpoints != nil {
		db.stopCheckpoints()
		<-db.checkpointsDone
	}
	if db.wsql != db.sql {
		db.wsql.Close()
	}
	return db.sql.Close()
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.sql.PingContext(ctx) }

// Pools names the connection pools, for their statistics: "valuator" reads (and on PostgreSQL writes too), and on
// SQLite "valuator_writer" is the one connection every write queues for.
func (db *DB) Pools() map[string]*sql.DB {
	if db.wsql == db.sql {
		return map[string]*sql.DB{"valuator": db.sql}
	}
	return map[string]*sql.DB{"valuator": db.sql, "valuator_writer": db.wsql}
}

// Dialect tells which database this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// SQL exposes the connection pool for components that bring their own queries (the job queue).
func (db *DB) SQL() *sql.DB { return db.sql }

// execer is what both *sql.DB and *sql.Tx offer.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// q runs queries written with ? placeholders on a pool or a transaction, in the DB's dialect.
type q struct {
	ex    execer
	d     Dialect
	stmts *stmtCache // the pool's prepared statements (nil: prepare per call)
	tx    *sql.Tx    // set inside a transaction
}

// q reads; w writes (outside a transaction). Reads never wait for a writer: SQLite's WAL lets them run beside it.
func (db *DB) q() q { return q{ex: db.sql, d: db.dialect, stmts: db.rstmts} }
func (db *DB) w() q { return q{ex: db.wsql, d: db.dialect, stmts: db.wstmts} }

// prepared returns the cached statement for query, bound to the transaction when there is one; nil when
// statements are not cached (the caller then runs the text).
func (x q) prepared(ctx context.Context, query string) *sql.Stmt {
	if x.stmts == nil {
		return nil
	}
	if x.tx != nil {
		// The transaction holds the writer pool's only connection, so preparing on the pool now would wait for
		// the transaction to end: a deadlock. The first time, the text runs and the statement is prepared once
		// the connection is free; after that the transaction reuses the statement prepared on its connection.
		st := x.stmts.cached(query)
		if st == nil {
			x.stmts.prepareLater(query)
			return nil
		}
		return x.tx.StmtContext(ctx, st)
	}
	return x.stmts.get(ctx, query)
}

func (x q) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	query = rebind(x.d, query)
	if st := x.prepared(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return x.ex.ExecContext(ctx, query, args...)
}

func (x q) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	query = rebind(x.d, query)
	if st := x.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return x.ex.QueryContext(ctx, query, args...)
}

// ids runs a query of one integer column and returns its values, in order.
func (x q) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := x.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (x q) row(ctx context.Context, query string, args ...any) *sql.Row {
	query = rebind(x.d, query)
	if st := x.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return x.ex.QueryRowContext(ctx, query, args...)
}

// stmtCache holds one prepared statement per query text. A statement that fails to prepare is not cached (the
// call then runs the text and reports the error itself).
type stmtCache struct {
	db      *sql.DB
	m       sync.Map // query -> *sql.Stmt
	pending sync.Map // query -> true while prepareLater works on it
}

func (c *stmtCache) cached(query string) *sql.Stmt {
	if v, ok := c.m.Load(query); ok {
		return v.(*sql.Stmt)
	}
	return nil
}

// prepareLater prepares query in the background, at most once at a time per query.
func (c *stmtCache) prepareLater(query string) {
	if _, busy := c.pending.LoadOrStore(query, true); busy {
		return
	}
	go func() {
		defer c.pending.Delete(query)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c.get(ctx, query)
	}()
}

func (c *stmtCache) get(ctx context.Context, query string) *sql.Stmt {
	if st := c.cached(query); st != nil {
		return st
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if v, loaded := c.m.LoadOrStore(query, st); loaded {
		st.Close()
		return v.(*sql.Stmt)
	}
	return st
}

// t converts a time for this dialect: fixed-width UTC text for SQLite (so text comparison is time order),
// a UTC time.Time for PostgreSQL.
func (x q) t(tm time.Time) any {
	return timeArg(x.d, tm)
}

func timeArg(d Dialect, tm time.Time) any {
	tm = tm.UTC().Truncate(time.Microsecond)
	if d == SQLite {
		return tm.Format(sqliteTimeFormat)
	}
	return tm
}

const sqliteTimeFormat = "2006-01-02T15:04:05.000000Z"

// tx runs fn in one transaction, committing when it returns nil and rolling back otherwise.
func (db *DB) tx(ctx context.Context, fn func(x q) error) (err error) {
	t, err := db.wsql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = t.Rollback()
			panic(p)
		}
		if err != nil {
			_ = t.Rollback()
		}
	}()
	if err = fn(q{ex: t, d: db.dialect, stmts: db.wstmts, tx: t}); err != nil {
		return err
	}
	if err = t.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// rebind rewrites ? placeholders as $1, $2, ... for PostgreSQL, leaving string literals alone.
func rebind(d Dialect, query string) string {
	if d != Postgres || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	inString := false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			inString = !inString
			b.WriteByte(c)
		case c == '?' && !inString:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dbTime scans a time written by timeArg from either dialect.
type dbTime struct {
	Time  time.Time
	Valid bool
}

func (t *dbTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*t = dbTime{}
		return nil
	case time.Time:
		*t = dbTime{Time: v.UTC(), Valid: true}
		return nil
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	default:
		return fmt.Errorf("cannot scan %T into a time", src)
	}
}

func (t *dbTime) parse(s string) error {
	for _, layout := range []string{sqliteTimeFormat, time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00"} {
		if tm, err := time.Parse(layout, s); err == nil {
			*t = dbTime{Time: tm.UTC(), Valid: true}
			return nil
		}
	}
	return fmt.Errorf("cannot parse time %q", s)
}

// isUniqueViolation reports whether err is a unique-constraint failure, in either dialect.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var sqliteErr *sqlite.Error
	if errors.As(err, &sqliteErr) {
		return sqliteErr.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
	}
	return false
}
