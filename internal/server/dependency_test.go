package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"valuator/internal/apperr"
	"valuator/internal/store"
	"valuator/internal/testdb"
)

// TestDatabaseDownAnswers503 stops the app's PostgreSQL (pg_ctl stop -m fast, a cluster of this test's own) under
// the running app: a public lookup, a dashboard lookup, a sign-in and a dashboard read answer 503 `unavailable`
// with Retry-After, quickly, never 500, and charge nothing; started again, they answer 200, and the credit ledger
// holds exactly the charges that were answered 200.
func TestDatabaseDownAnswers503(t *testing.T) {
	cl := testdb.OwnCluster(t)
	a := newTestApp(t, cl.URL, withSeattle, func(o *appOptions) { o.holdJobs = true })
	token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
	key := a.createKey(token, "Server", 60)
	lookupBody := map[string]any{"address": "1000 N 40th St", "city": "Seattle", "state": "WA", "zip": "98103"}
	requests := []struct {
		name string
		rq   req
	}{
		{"public lookup", withKey(req{method: "GET", path: "/api/v1/property/valuation?" + fortieth.Encode()}, key.Value)},
		{"dashboard lookup", req{method: "POST", path: "/api/property/lookup", token: token, body: lookupBody}},
		{"sign-in", req{method: "POST", path: "/api/auth/login",
			body: map[string]string{"email": "jane@example.com", "password": "correct-horse"}}},
		{"dashboard read", req{method: "GET", path: "/api/user/profile", token: token}},
	}
	charged := 0 // lookups answered 200
	all200 := func(when string) {
		t.Helper()
		for _, x := range requests {
			r := a.do(x.rq)
			if r.status != http.StatusOK {
				t.Fatalf("%s %s: status %d, want 200; body %s", when, x.name, r.status, r.body)
			}
			if x.name == "public lookup" || x.name == "dashboard lookup" {
				charged++
			}
		}
	}
	all200("before the stop:")
	ledger := func() int {
		t.Helper()
		rows, err := a.db.Ledger(context.Background(), u.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range rows {
			if e.Amount < 0 {
				n++
			}
		}
		return n
	}
	if got := ledger(); got != charged {
		t.Fatalf("before the stop the ledger holds %d charges, want %d", got, charged)
	}

	if err := cl.Stop(); err != nil {
		t.Fatal(err)
	}
	for round := range 2 { // the first round meets the pool's dead connections, the second refused dials
		for _, x := range requests {
			start := time.Now()
			r := a.do(x.rq)
			took := time.Since(start)
			if r.status != http.StatusServiceUnavailable {
				t.Fatalf("database down, round %d, %s: status %d, want 503; body %s", round, x.name, r.status, r.body)
			}
			if e := r.errBody(t); e.Code != "unavailable" || e.RetryAfter <= 0 {
				t.Errorf("%s: body %s, want code unavailable and retryAfter", x.name, r.body)
			}
			if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s <= 0 {
				t.Errorf("%s: Retry-After %q, want seconds", x.name, r.header.Get("Retry-After"))
			}
			if took > 2*time.Second {
				t.Errorf("%s took %v with the database down", x.name, took)
			}
		}
	}

	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	all200("after the restart:")
	if got := ledger(); got != charged {
		t.Errorf("after the outage the ledger holds %d charges, want the %d lookups answered 200", got, charged)
	}
	var me struct{ Credits int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
	rows, err := a.db.Ledger(context.Background(), u.ID, 1)
	if err != nil || len(rows) != 1 || rows[0].BalanceAfter != me.Credits {
		t.Errorf("balance %d does not match the ledger's last balance (%+v, %v)", me.Credits, rows, err)
	}
}

// TestStoreUnavailableErrors checks which errors the server answers 503 rather than 500.
func TestStoreUnavailableErrors(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{fmt.Errorf("charge: %w", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), true},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{io.ErrUnexpectedEOF, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "42P01"}, false},
		{errors.New("cannot parse time"), false},
		{context.Canceled, false},
	} {
		if got := store.IsUnavailable(tt.err); got != tt.want {
			t.Errorf("IsUnavailable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	// And the answer: 503 with Retry-After, whatever wrapped the cause.
	e := errDatabaseUnavailable(io.ErrUnexpectedEOF)
	if e.Kind != apperr.KindUnavailable || e.Kind.Status() != http.StatusServiceUnavailable || e.RetryAfterSeconds <= 0 {
		t.Errorf("errDatabaseUnavailable = %+v", e)
	}
}
