package store

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/contact"
	"valuator/internal/credit"
	"valuator/internal/testdb"
	"valuator/internal/usage"
)

// tablesWithColumn lists the tables of the schema that have a column named col.
func tablesWithColumn(t *testing.T, db *DB, col string) []string {
	t.Helper()
	ctx := context.Background()
	query := `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = ?`
	if db.Dialect() == SQLite {
		query = `SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = ?`
	}
	rows, err := db.q().query(ctx, query, col)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	return names
}

// TestErasureCoversEveryTableWithAUserID: every table that names an account (a user_id column) says what erasure
// does with it (erasureOfTable), so that a table added later cannot keep a closed account's data by oversight; and
// every table named there exists.
func TestErasureCoversEveryTableWithAUserID(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		db := openTest(t, url)
		tables := tablesWithColumn(t, db, "user_id")
		if len(tables) < 10 {
			t.Fatalf("found only %v with a user_id column: the query is wrong", tables)
		}
		for _, name := range tables {
			if _, ok := erasureOfTable[name]; !ok {
				t.Errorf("table %s has a user_id column but erasureOfTable does not say what erasing an account does "+
					"with it: erase its personal data in eraseUserData and name it there", name)
			}
		}
		have := map[string]bool{"users": true}
		for _, n := range tables {
			have[n] = true
		}
		for name := range erasureOfTable {
			if !have[name] {
				t.Errorf("erasureOfTable names %s, which has no user_id column", name)
			}
		}
	})
}

// ledgerKept is a ledger row without its description, which erasure may replace.
type ledgerKept struct {
	ID, Amount, BalanceAfter int64
	Kind, Reference          string
	CreatedAt                time.Time
}

func ledgerOf(t *testing.T, db *DB, userID int64) ([]ledgerKept, []string) {
	t.Helper()
	rows, err := db.Ledger(context.Background(), userID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var kept []ledgerKept
	var descriptions []string
	for _, e := range rows {
		kept = append(kept, ledgerKept{e.ID, e.Amount, e.BalanceAfter, e.Kind, e.Reference, e.CreatedAt})
		descriptions = append(descriptions, e.Description)
	}
	return kept, descriptions
}

// closedUser makes an account with a charged valuation of address, a session and a contact message, closed at
// closedAt.
func closedUser(t *testing.T, db *DB, email, address string, closedAt time.Time) int64 {
	t.Helper()
	ctx := context.Background()
	u, _, err := db.CreateUser(ctx, newUser(email))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Meter(ctx, usage.Record{UserID: u.ID, Endpoint: "POST /api/property/lookup",
		Service: usage.ServiceValuation, PropertyAddress: address, Status: 200, CreditsUsed: 1,
		RequestData: `{"address":"` + address + `"}`, RequestID: "req-" + email, ClientRequestID: "mine-" + email,
		CreatedAt: t0}, credit.ValuationCost, "Property valuation: "+address); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateSession(ctx, account.Session{UserID: u.ID, TokenHash: "sess-" + email, CreatedAt: t0,
		ExpiresAt: t0.Add(time.Hour), UserAgent: "Firefox", IP: "203.0.113.9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContactMessage(ctx, contact.Message{UserID: u.ID, FirstName: "Jane", LastName: "Doe",
		Email: email, Subject: "general", Message: "About " + address, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if !closedAt.IsZero() {
		if err := db.CloseUser(ctx, u.ID, closedAt); err != nil {
			t.Fatal(err)
		}
	}
	return u.ID
}

// TestEraseAccountOnlyWhenDueAndOnce: an account closed two years and a day before now is erased (its row
// anonymised, its sessions and messages gone, its ledger kept with plain descriptions); one closed two years less a
// day before, and an open one, are not touched; erasing again changes nothing; and the ledger stays append-only for
// everything but the description of an erased account's rows.
func TestEraseAccountOnlyWhenDueAndOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		now := t0.AddDate(account.ErasureAfterYears, 0, 1)
		cutoff := account.ErasureCutoff(now)
		due := closedUser(t, db, "due@example.com", "1 Erase St", t0)
		recent := closedUser(t, db, "recent@example.com", "2 Keep St", t0.AddDate(0, 0, 2))
		open := closedUser(t, db, "open@example.com", "3 Open St", time.Time{})
		ledgerBefore, _ := ledgerOf(t, db, due)
		_, recentDescriptions := ledgerOf(t, db, recent)

		ids, err := db.ClosedAccountsDue(ctx, cutoff, 100)
		if err != nil || len(ids) != 1 || ids[0] != due {
			t.Fatalf("ClosedAccountsDue = %v, %v; want [%d]", ids, err, due)
		}
		for _, id := range []int64{recent, open} {
			if ok, err := db.EraseAccount(ctx, id, cutoff, now); ok || err != nil {
				t.Errorf("EraseAccount(%d, not due) = %v, %v; want false", id, ok, err)
			}
		}
		if ok, err := db.EraseAccount(ctx, due, cutoff, now); !ok || err != nil {
			t.Fatalf("EraseAccount(due) = %v, %v; want true", ok, err)
		}
		if ok, err := db.EraseAccount(ctx, due, cutoff, now.Add(time.Hour)); ok || err != nil {
			t.Errorf("EraseAccount a second time = %v, %v; want false", ok, err)
		}
		if ids, err := db.ClosedAccountsDue(ctx, cutoff, 100); err != nil || len(ids) != 0 {
			t.Errorf("ClosedAccountsDue after erasure = %v, %v; want none", ids, err)
		}

		var email, name, hash string
		var emailKey *string
		var erasedAt dbTime
		if err := db.q().row(ctx, `SELECT email, email_key, full_name, password_hash, erased_at FROM users WHERE id = ?`,
			due).Scan(&email, &emailKey, &name, &hash, &erasedAt); err != nil {
			t.Fatal(err)
		}
		if email != account.ErasedEmail(due) || emailKey != nil || name != "" || hash != "" ||
			!erasedAt.Time.Equal(now.Truncate(time.Microsecond)) {
			t.Errorf("erased user row: email %q key %v name %q hash %q erased_at %v", email, emailKey, name, hash, erasedAt.Time)
		}
		for table, want := range map[string]int{"sessions": 0, "contact_messages": 0} {
			var n int
			if err := db.q().row(ctx, `SELECT COUNT(*) FROM `+table+` WHERE user_id = ?`, due).Scan(&n); err != nil || n != want {
				t.Errorf("%s of the erased account: %d (%v), want %d", table, n, err, want)
			}
		}
		var addr, data, clientID *string
		if err := db.q().row(ctx, `SELECT property_address, request_data, client_request_id FROM usage_records
			WHERE user_id = ?`, due).Scan(&addr, &data, &clientID); err != nil || addr != nil || data != nil || clientID != nil {
			t.Errorf("usage record of the erased account: %v %v %v (%v), want no address, data or client id", addr, data, clientID, err)
		}
		ledgerAfter, descriptions := ledgerOf(t, db, due)
		if fmt.Sprint(ledgerAfter) != fmt.Sprint(ledgerBefore) {
			t.Errorf("ledger changed:\n got %+v\nwant %+v", ledgerAfter, ledgerBefore)
		}
		for i, d := range descriptions {
			if want := credit.ErasedDescription(ledgerAfter[i].Kind); d != want {
				t.Errorf("ledger row %d description %q, want %q", ledgerAfter[i].ID, d, want)
			}
		}
		if _, d := ledgerOf(t, db, recent); fmt.Sprint(d) != fmt.Sprint(recentDescriptions) {
			t.Errorf("the recently closed account's ledger descriptions changed: %v, want %v", d, recentDescriptions)
		}
		for _, id := range []int64{recent, open} {
			var n int
			if err := db.q().row(ctx, `SELECT COUNT(*) FROM users WHERE id = ? AND erased_at IS NULL AND full_name = 'Jane Doe'`,
				id).Scan(&n); err != nil || n != 1 {
				t.Errorf("account %d was touched (%v)", id, err)
			}
			if err := db.q().row(ctx, `SELECT COUNT(*) FROM contact_messages WHERE user_id = ?`, id).Scan(&n); err != nil || n != 1 {
				t.Errorf("account %d lost its contact message (%v)", id, err)
			}
		}

		// Append-only still: no amount of an erased account, no description of another account, no deletion.
		for _, stmt := range []struct {
			sql string
			id  int64
		}{
			{`UPDATE credit_ledger SET amount = amount + 1 WHERE user_id = ?`, due},
			{`UPDATE credit_ledger SET reference = 'x' WHERE user_id = ?`, due},
			{`UPDATE credit_ledger SET description = 'x' WHERE user_id = ?`, recent},
			{`UPDATE credit_ledger SET description = 'x' WHERE user_id = ?`, open},
			{`DELETE FROM credit_ledger WHERE user_id = ?`, due},
		} {
			if _, err := db.w().exec(ctx, stmt.sql, stmt.id); err == nil {
				t.Errorf("%s (user %d) succeeded, want the append-only trigger to refuse it", stmt.sql, stmt.id)
			}
		}
	})
}

// TestEraseAccountsConcurrently: several runs at once over the same due accounts (two instances, a retry) erase
// each account exactly once, without an error, and leave every balance as it was.
func TestEraseAccountsConcurrently(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		const accounts, runs = 12, 4
		sums := map[int64]int64{}
		for i := range accounts {
			id := closedUser(t, db, fmt.Sprintf("user%d@example.com", i), fmt.Sprintf("%d Race St", i), t0)
			var s int64
			if err := db.q().row(ctx, `SELECT SUM(amount) FROM credit_ledger WHERE user_id = ?`, id).Scan(&s); err != nil {
				t.Fatal(err)
			}
			sums[id] = s
		}
		now := t0.AddDate(account.ErasureAfterYears, 0, 1)
		cutoff := account.ErasureCutoff(now)
		var wg sync.WaitGroup
		var mu sync.Mutex
		erased := 0
		for range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids, err := db.ClosedAccountsDue(ctx, cutoff, 100)
				if err != nil {
					t.Error(err)
					return
				}
				for _, id := range ids {
					ok, err := db.EraseAccount(ctx, id, cutoff, now)
					if err != nil {
						t.Errorf("EraseAccount(%d): %v", id, err)
						return
					}
					if ok {
						mu.Lock()
						erased++
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if erased != accounts {
			t.Errorf("%d erasures by %d concurrent runs, want %d (each account once)", erased, runs, accounts)
		}
		for id, want := range sums {
			var got int64
			var n int
			if err := db.q().row(ctx, `SELECT SUM(amount), COUNT(*) FROM credit_ledger WHERE user_id = ?`, id).Scan(&got, &n); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("account %d: ledger sum %d after erasure, want %d", id, got, want)
			}
		}
		var left int
		if err := db.q().row(ctx, `SELECT COUNT(*) FROM users WHERE erased_at IS NULL`).Scan(&left); err != nil || left != 0 {
			t.Errorf("%d accounts not erased (%v)", left, err)
		}
	})
}
