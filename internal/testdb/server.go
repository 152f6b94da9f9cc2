package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// errUnavailable marks the reasons that mean "there is no PostgreSQL here"
// (which skips tests), as opposed to a PostgreSQL that should work but does
// not (which fails them).
var errUnavailable = errors.New("PostgreSQL not available")

// readyTimeout bounds how long we wait for a server to accept connections.
const readyTimeout = 30 * time.Second

// server is a PostgreSQL server on which we may create databases.
type server struct {
	// admin is the URL of an existing database that we connect to in
	// order to run CREATE DATABASE and DROP DATABASE.
	admin *url.URL
	// desc says where the server comes from, for Available.
	desc string
}

var (
	serverOnce sync.Once
	theServer  *server
	serverErr  error

	// running is the cluster this process started, which shutdown stops.
	runningMu sync.Mutex
	running   *cluster
)

// getServer finds or starts the server once per process; every later call
// gets the same server, or the same error.
func getServer() (*server, error) {
	serverOnce.Do(func() { theServer, serverErr = findServer() })
	return theServer, serverErr
}

func findServer() (*server, error) {
	if raw := os.Getenv(EnvPostgresURL); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
			// The URL itself is left out of the message, since it
			// may hold a password.
			return nil, fmt.Errorf("%s is not a postgres://USER@HOST:PORT/DB URL", EnvPostgresURL)
		}
		// Without a database, pgx would connect to one named after the
		// user, which often does not exist; "postgres" always does.
		if u.Path == "" || u.Path == "/" {
			u.Path = "/postgres"
		}
		if err := waitReady(u.String()); err != nil {
			return nil, fmt.Errorf("server from %s: %w", EnvPostgresURL, err)
		}
		return &server{admin: u, desc: fmt.Sprintf("server %s from %s", u.Host, EnvPostgresURL)}, nil
	}

	start := time.Now()
	c, err := startCluster()
	if err != nil {
		return nil, err
	}
	runningMu.Lock()
	running = c
	runningMu.Unlock()

	u := &url.URL{
		Scheme:   "postgres",
		User:     url.User(c.user),
		Host:     fmt.Sprintf("127.0.0.1:%d", c.port),
		Path:     "/postgres",
		RawQuery: "sslmode=disable",
	}
	// pg_ctl -w has already waited for the server, so this normally
	// succeeds at once; it guards against pg_ctl's idea of "ready"
	// differing from a TCP client's.
	if err := waitReady(u.String()); err != nil {
		return nil, fmt.Errorf("local cluster in %s: %w\n%s", c.base, err, c.logTail())
	}
	desc := fmt.Sprintf("local cluster %s on %s (data in %s, started in %v)",
		c.version, u.Host, c.base, time.Since(start).Round(time.Millisecond))
	return &server{admin: u, desc: desc}, nil
}

// waitReady connects to connString until it works or readyTimeout passes,
// returning the last error in that case.
func waitReady(connString string) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := ping(ctx, connString)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", readyTimeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func ping(ctx context.Context, connString string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT 1")
	return err
}

// createDatabase creates an empty database with a random name and returns
// the name.
func (s *server) createDatabase(ctx context.Context) (string, error) {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	name := "t_" + hex.EncodeToString(b[:])
	err := s.exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil {
		return "", fmt.Errorf("creating database %s on %s: %w", name, s.admin.Host, err)
	}
	return name, nil
}

// dropDatabase drops a database made by createDatabase. WITH (FORCE)
// (PostgreSQL 13+) ends the sessions still connected to it, so a test that
// forgot to close its pool does not make the drop fail.
func (s *server) dropDatabase(ctx context.Context, name string) error {
	err := s.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	if err != nil {
		return fmt.Errorf("dropping database %s on %s: %w", name, s.admin.Host, err)
	}
	return nil
}

// exec runs one statement on the admin database. Each call has its own
// connection, since a pgx.Conn may not be shared between parallel tests and
// a connection costs only milliseconds.
func (s *server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.admin.String())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// databaseURL is the admin URL with the database replaced by name; user,
// password, host and parameters stay as they are.
func (s *server) databaseURL(name string) string {
	u := *s.admin
	u.Path = "/" + name
	return u.String()
}
