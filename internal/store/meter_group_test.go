package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/credit"
	"valuator/internal/testdb"
	"valuator/internal/usage"
)

// TestGroupedChargesAreExact: many charges at once for two accounts, one of which runs out, callers whose context
// is already gone, and charges whose usage record the database refuses (a key that does not exist), which fail
// the group they are in. Each charge is all-or-nothing: the balances, the ledgers and the usage records agree to
// the credit, and every ledger row names the usage record of its own charge.
func TestGroupedChargesAreExact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		poor, rich := newUser("poor@example.com"), newUser("rich@example.com")
		poor.SignupCredits, rich.SignupCredits = 150, 1000
		up, _, err := db.CreateUser(ctx, poor)
		if err != nil {
			t.Fatal(err)
		}
		ur, _, err := db.CreateUser(ctx, rich)
		if err != nil {
			t.Fatal(err)
		}
		gone, cancel := context.WithCancel(ctx)
		cancel()
		const each = 200
		var wg sync.WaitGroup
		var mu sync.Mutex
		charged := map[int64]int{}
		refused, cancelled, failed := 0, 0, 0
		for i := 0; i < 2*each+30; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, user, key := ctx, up.ID, int64(0)
				switch {
				case i >= 2*each+20:
					user, key = ur.ID, 1<<40 // no such key: the usage record breaks its foreign key
				case i >= 2*each:
					c = gone
				case i%2 == 1:
					user = ur.ID
				}
				addr := fmt.Sprintf("%d Test Ave, Seattle, WA 98122", i)
				_, err := db.Meter(c, usage.Record{UserID: user, APIKeyID: key, APIKeyName: "gone",
					Endpoint: "GET /api/v1/property/valuation", Service: usage.ServiceValuation, Status: 200,
					PropertyAddress: addr, RequestID: fmt.Sprint("req-", i), CreatedAt: t0}, 1, "Property valuation: "+addr)
				mu.Lock()
				defer mu.Unlock()
				var ins *credit.ErrInsufficient
				switch {
				case err == nil:
					charged[user]++
				case errors.As(err, &ins):
					refused++
				case errors.Is(err, context.Canceled):
					cancelled++
				case key != 0:
					failed++
				default:
					t.Errorf("Meter: %v", err)
				}
			}()
		}
		wg.Wait()
		if charged[up.ID] != 150 || refused != each-150 || charged[ur.ID] != each || cancelled != 20 || failed != 10 {
			t.Errorf("charged %v, refused %d, cancelled %d, failed %d; want 150 and %d charged, %d refused, 20 cancelled, 10 failed",
				charged, refused, cancelled, failed, each, each-150)
		}
		for _, c := range []struct {
			id          int64
			start, used int64
		}{{up.ID, 150, 150}, {ur.ID, 1000, each}} {
			u, err := db.UserByID(ctx, c.id)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := db.Ledger(ctx, c.id, 1000)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, r := range rows {
				sum += r.Amount
				if r.Amount >= 0 {
					continue
				}
				var user int64
				var addr string
				if err := db.q().row(ctx, `SELECT user_id, property_address FROM usage_records WHERE id = ?`,
					strings.TrimPrefix(r.Reference, "usage:")).Scan(&user, &addr); err != nil {
					t.Fatalf("ledger row %d: its usage record %q: %v", r.ID, r.Reference, err)
				}
				if user != c.id || "Property valuation: "+addr != r.Description {
					t.Errorf("ledger row %d (%s, user %d) names the usage record of %q, user %d", r.ID, r.Description,
						c.id, addr, user)
				}
			}
			_, total, err := db.UsageHistory(ctx, c.id, usage.Filter{Page: 1, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if u.Credits != c.start-c.used || sum != u.Credits || int64(len(rows)) != c.used+1 || int64(total) != c.used {
				t.Errorf("user %d: balance %d, ledger sum %d over %d rows, %d usage records; want %d, %d, %d rows, %d",
					c.id, u.Credits, sum, len(rows), total, c.start-c.used, c.start-c.used, c.used+1, c.used)
			}
		}
		if db.dialect == SQLite {
			db.meters.mu.Lock()
			largest := db.meters.largest
			db.meters.mu.Unlock()
			if largest < 2 {
				t.Errorf("the largest group of charges was %d: SQLite did not group them", largest)
			}
		}
	})
}

// TestSQLiteCheckpointsBesideTheWriter: the writer does not checkpoint (wal_autocheckpoint is off on its
// connection), so the WAL would grow with every write; the checkpointer copies it back at each tick, after which
// the next writes start the WAL over instead of growing it, even when a reader still read from the WAL while the
// passive checkpoint ran (as under steady load, where some request always is). The test drives the ticks.
func TestSQLiteCheckpointsBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	url := testdb.SQLiteURL(t)
	db := openTest(t, url)
	db.stopCheckpoints() // the one Open started, replaced by one whose ticks the test sends
	<-db.checkpointsDone
	cctx, stop := context.WithCancel(ctx)
	db.stopCheckpoints, db.checkpointsDone = stop, make(chan struct{})
	tick := make(chan time.Time)
	go db.checkpoints(cctx, tick)

	u := newUser("wal@example.com")
	u.SignupCredits = 1 << 30
	user, _, err := db.CreateUser(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	write := func() int64 {
		for i := range 500 {
			if _, err := db.Meter(ctx, usage.Record{UserID: user.ID, Endpoint: "GET /api/v1/property/valuation",
				Service: usage.ServiceValuation, Status: 200, RequestID: fmt.Sprint("req-", i), CreatedAt: t0}, 1,
				"Property valuation"); err != nil {
				t.Fatal(err)
			}
		}
		st, err := os.Stat(strings.TrimPrefix(url, "sqlite://") + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	first := write()
	if again := write(); again < first+first/2 {
		t.Fatalf("without a checkpoint the WAL went from %d to only %d bytes: the writer checkpoints", first, again)
	}
	grown := write() // the size the WAL reached without a checkpoint
	tick <- time.Now()
	tick <- time.Now() // taken once the first checkpoint is done
	if after := write(); after > grown {
		t.Errorf("the WAL grew from %d to %d bytes after a checkpoint: it was not started over", grown, after)
	}

	// A reader in the middle of a read of the WAL while the passive checkpoint runs, as under steady load: the
	// passive checkpoint cannot copy what the reader may still need, so on its own it would leave the WAL to grow.
	// The restart checkpoint on the writer's connection, once the reader is done, finishes it.
	reader, err := db.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	read := func() {
		var n int
		if _, err := reader.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
			t.Fatal(err)
		}
		if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM usage_records`).Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	read()
	grown = write()
	if _, err := db.sql.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if err := db.restartWAL(ctx); err != nil {
		t.Fatal(err)
	}
	// A thousand more charges: written after the thousand the WAL holds now, they run past the end of the file
	// (which three rounds of five hundred made); written from the WAL's beginning, they fit.
	write()
	if after := write(); after > grown {
		t.Errorf("the WAL grew from %d to %d bytes after a restart checkpoint: it was not started over", grown, after)
	}

	// A reader that stays holds the restart checkpoint for a moment only, not the writes queued behind it for the
	// busy timeout (10 s), and the writer's connection keeps that timeout for its writes.
	read()
	write()
	start := time.Now()
	_ = db.restartWAL(ctx)
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("a reader held the restart checkpoint, and the writer with it, for %v", waited)
	}
	var ms int
	if err := db.wsql.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&ms); err != nil || ms != busyTimeoutMS {
		t.Errorf("the writer's busy timeout is %d ms after a restart checkpoint (%v), want %d", ms, err, busyTimeoutMS)
	}
	if _, err := reader.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
}
