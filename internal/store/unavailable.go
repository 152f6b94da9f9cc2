package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsUnavailable reports whether err means that the database could not be reached or would not take the query
// right now (down, restarting, out of connections, not answering in time), rather than that the query or our code
// was wrong. The server answers such errors with 503 and Retry-After instead of 500: trying again later can work.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection_exception and its subclasses
			return true
		case pgErr.Code == "53300": // too_many_connections ("sorry, too many clients already")
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03":
			// admin_shutdown, crash_shutdown, cannot_connect_now ("the database system is starting up")
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var sqliteErr *sqlite.Error
	if errors.As(err, &sqliteErr) {
		// Still locked by another writer after the busy timeout: the database is overloaded, not wrong.
		return sqliteErr.Code()&0xff == sqlite3.SQLITE_BUSY
	}
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, context.DeadlineExceeded), // waiting for a pooled connection or the server past the deadline
		errors.Is(err, io.ErrUnexpectedEOF),      // the server went away mid-answer
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.As(err, &opErr), errors.As(err, &netErr):
		return true
	}
	// pgx reports a connection that a failure already closed as "conn closed", with no type to match.
	return pgconn.Timeout(err) || strings.Contains(err.Error(), "conn closed")
}
