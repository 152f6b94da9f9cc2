package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/contact"
	"valuator/internal/credit"
	"valuator/internal/testdb"
	"valuator/internal/usage"
)

func TestMain(m *testing.M) { testdb.Main(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)

func openTest(t *testing.T, url string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db
}

func newUser(email string) account.NewUser {
	return account.NewUser{
		Email: email, EmailKey: account.EmailKey(email), PasswordHash: "$argon2id$test", FullName: "Jane Doe",
		Notifications: account.DefaultNotifications, CreatedAt: t0, SignupCredits: credit.SignupBonus,
	}
}

func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = $1 AND b = $2"},
		{"SELECT '?' , ? FROM t", "SELECT '?' , $1 FROM t"},
		{"UPDATE t SET s = 'it''s ?' WHERE id = ?", "UPDATE t SET s = 'it''s ?' WHERE id = $1"},
	}
	for _, tt := range tests {
		if got := rebind(Postgres, tt.in); got != tt.want {
			t.Errorf("rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := rebind(SQLite, tt.in); got != tt.in {
			t.Errorf("rebind for SQLite changed %q to %q", tt.in, got)
		}
	}
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	if _, err := Open(context.Background(), "mysql://localhost/x"); err == nil {
		t.Fatal("Open(mysql://...) = nil error, want an error")
	}
}

func TestMigrateTwiceIsANoOp(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		db := openTest(t, url)
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
	})
}

func TestCreateUserGrantsSignupCreditsInTheLedger(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("Jane@Example.com"))
		if err != nil {
			t.Fatalf("CreateUser: %v", err)
		}
		if u.Credits != 100 || u.TotalCreditsEarned != 100 {
			t.Errorf("credits = %d / earned %d, want 100 / 100", u.Credits, u.TotalCreditsEarned)
		}
		if u.Email != "Jane@Example.com" || u.Plan != "free" || !u.CreatedAt.Equal(t0.Truncate(time.Microsecond)) {
			t.Errorf("user = %+v, want the email as typed, plan free, createdAt %v", u, t0)
		}
		if u.Notifications != account.DefaultNotifications {
			t.Errorf("notifications = %+v, want the defaults", u.Notifications)
		}
		rows, err := db.Ledger(ctx, u.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("ledger has %d rows, want 1", len(rows))
		}
		r := rows[0]
		if r.Amount != 100 || r.BalanceAfter != 100 || r.Kind != credit.KindSignupBonus {
			t.Errorf("ledger row = %+v, want +100 signup_bonus with balance 100", r)
		}
	})
}

func TestLedgerIsAppendOnly(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.q().exec(ctx, `UPDATE credit_ledger SET amount = 1000 WHERE user_id = ?`, u.ID); err == nil {
			t.Error("UPDATE of a ledger row succeeded, want the append-only trigger to refuse it")
		}
		if _, err := db.q().exec(ctx, `DELETE FROM credit_ledger WHERE user_id = ?`, u.ID); err == nil {
			t.Error("DELETE of a ledger row succeeded, want the append-only trigger to refuse it")
		}
	})
}

func TestPostCreditIsExactUnderConcurrency(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		const n = 40
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- db.tx(ctx, func(x q) error {
					_, err := postCredit(ctx, x, credit.Entry{UserID: u.ID, Amount: -1, Kind: "test",
						Description: "concurrent debit", CreatedAt: t0}, noFloor)
					return err
				})
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("postCredit: %v", err)
			}
		}
		got, err := db.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Credits != 100-n {
			t.Errorf("balance = %d, want %d", got.Credits, 100-n)
		}
		rows, err := db.Ledger(ctx, u.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		seen := map[int64]bool{}
		for _, r := range rows {
			sum += r.Amount
			if seen[r.BalanceAfter] {
				t.Errorf("two ledger rows end at balance %d: the postings were not serialised", r.BalanceAfter)
			}
			seen[r.BalanceAfter] = true
		}
		if sum != got.Credits {
			t.Errorf("ledger sums to %d, balance is %d", sum, got.Credits)
		}
		if rows[0].BalanceAfter != got.Credits {
			t.Errorf("newest ledger row balance = %d, want the balance %d", rows[0].BalanceAfter, got.Credits)
		}
	})
}

func TestEmailUniquenessIsCaseInsensitive(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		first, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.CreateUser(ctx, newUser("JANE@Example.COM")); !errors.Is(err, account.ErrEmailTaken) {
			t.Fatalf("second CreateUser error = %v, want ErrEmailTaken", err)
		}
		// The failed insert must not leave a ledger row or a user behind.
		rows, _ := db.Ledger(ctx, first.ID+1, 10)
		if len(rows) != 0 {
			t.Errorf("failed sign-up left %d ledger rows", len(rows))
		}
		other, _, err := db.CreateUser(ctx, newUser("john@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.UpdateProfile(ctx, other.ID, account.ProfileUpdate{FullName: "John", Email: "Jane@example.com",
			EmailKey: "jane@example.com", At: t0})
		if !errors.Is(err, account.ErrEmailTaken) {
			t.Errorf("UpdateProfile to a taken email: error = %v, want ErrEmailTaken", err)
		}
		c, err := db.CredentialByEmail(ctx, "jane@example.com")
		if err != nil || c.User.ID != first.ID || c.PasswordHash != "$argon2id$test" {
			t.Errorf("CredentialByEmail = %+v, %v; want user %d with its hash", c, err, first.ID)
		}
		if _, err := db.CredentialByEmail(ctx, "nobody@example.com"); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("CredentialByEmail(unknown) error = %v, want ErrNotFound", err)
		}
	})
}

func TestSessions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		mk := func(hash string, expires time.Time) account.Session {
			s, err := db.CreateSession(ctx, account.Session{UserID: u.ID, TokenHash: hash, CreatedAt: t0, ExpiresAt: expires})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		a := mk("hash-a", t0.Add(time.Hour))
		mk("hash-b", t0.Add(time.Hour))
		mk("hash-old", t0.Add(-time.Second))

		s, got, err := db.SessionUser(ctx, "hash-a", t0)
		if err != nil || got.ID != u.ID || s.ID != a.ID {
			t.Fatalf("SessionUser(a) = %+v %+v %v, want session %d of user %d", s, got, err, a.ID, u.ID)
		}
		if _, _, err := db.SessionUser(ctx, "hash-a", t0.Add(time.Hour)); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("SessionUser at expiry: error = %v, want ErrNotFound", err)
		}
		if _, _, err := db.SessionUser(ctx, "hash-old", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("SessionUser(expired) error = %v, want ErrNotFound", err)
		}
		if err := db.RevokeSession(ctx, "hash-b", t0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionUser(ctx, "hash-b", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("SessionUser(revoked) error = %v, want ErrNotFound", err)
		}
		if err := db.RevokeSession(ctx, "hash-b", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("revoking twice: error = %v, want ErrNotFound", err)
		}

		// Changing the password keeps the current session and revokes the others.
		mk("hash-c", t0.Add(time.Hour))
		if err := db.SetPassword(ctx, u.ID, "$argon2id$new", a.ID, t0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.SessionUser(ctx, "hash-a", t0); err != nil {
			t.Errorf("the session that changed the password was revoked: %v", err)
		}
		if _, _, err := db.SessionUser(ctx, "hash-c", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("another session survived a password change: error = %v", err)
		}
	})
}

func TestResetPasswordIsSingleUseAndRevokesSessions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateSession(ctx, account.Session{UserID: u.ID, TokenHash: "sess", CreatedAt: t0,
			ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{"reset-1", "reset-2"} {
			if err := db.CreatePasswordReset(ctx, u.ID, h, t0, t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.CreatePasswordReset(ctx, u.ID, "reset-expired", t0.Add(-2*time.Hour), t0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ResetPassword(ctx, "reset-expired", "$new", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("expired token: error = %v, want ErrNotFound", err)
		}
		if _, err := db.ResetPassword(ctx, "unknown", "$new", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("unknown token: error = %v, want ErrNotFound", err)
		}

		// Two concurrent uses of one token: exactly one wins.
		var wg sync.WaitGroup
		results := make(chan error, 2)
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := db.ResetPassword(ctx, "reset-1", "$new", t0)
				results <- err
			}()
		}
		wg.Wait()
		close(results)
		var ok, notFound int
		for err := range results {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, account.ErrNotFound):
				notFound++
			default:
				t.Errorf("concurrent reset: %v", err)
			}
		}
		if ok != 1 || notFound != 1 {
			t.Errorf("concurrent uses: %d succeeded, %d refused; want 1 and 1", ok, notFound)
		}
		c, _ := db.CredentialByID(ctx, u.ID)
		if c.PasswordHash != "$new" {
			t.Errorf("password hash = %q, want the new one", c.PasswordHash)
		}
		if _, _, err := db.SessionUser(ctx, "sess", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("session survived a password reset: error = %v", err)
		}
		if _, err := db.ResetPassword(ctx, "reset-2", "$other", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("a second outstanding link still worked after a reset: error = %v", err)
		}
	})
}

func TestCloseUserForfeitsCreditsAndFreesTheEmail(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.CreateSession(ctx, account.Session{UserID: u.ID, TokenHash: "sess", CreatedAt: t0,
			ExpiresAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := db.CloseUser(ctx, u.ID, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UserByID(ctx, u.ID); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("closed user still found: %v", err)
		}
		if _, _, err := db.SessionUser(ctx, "sess", t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("session of a closed account still live: %v", err)
		}
		rows, _ := db.Ledger(ctx, u.ID, 10)
		if len(rows) != 2 || rows[0].Amount != -100 || rows[0].BalanceAfter != 0 || rows[0].Kind != credit.KindForfeit {
			t.Errorf("ledger after closing = %+v, want a -100 forfeit row ending at 0", rows)
		}
		if _, _, err := db.CreateUser(ctx, newUser("jane@example.com")); err != nil {
			t.Errorf("the email of a closed account cannot be used again: %v", err)
		}
		if err := db.CloseUser(ctx, u.ID, t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("closing twice: error = %v, want ErrNotFound", err)
		}
	})
}

func TestNotificationsAndContact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		want := account.Notifications{WeeklyReports: true, MarketingEmails: true}
		got, err := db.UpdateNotifications(ctx, u.ID, want, t0)
		if err != nil || got.Notifications != want {
			t.Errorf("UpdateNotifications = %+v, %v; want %+v", got.Notifications, err, want)
		}
		if _, err := db.UpdateNotifications(ctx, u.ID+999, want, t0); !errors.Is(err, account.ErrNotFound) {
			t.Errorf("UpdateNotifications(unknown user) error = %v, want ErrNotFound", err)
		}
		id, err := db.CreateContactMessage(ctx, contact.Message{FirstName: "A", LastName: "B", Email: "a@b.co",
			Subject: "general", Message: "Hello", CreatedAt: t0})
		if err != nil || id == 0 {
			t.Errorf("CreateContactMessage(signed out) = %d, %v", id, err)
		}
		if _, err := db.CreateContactMessage(ctx, contact.Message{UserID: u.ID, FirstName: "A", LastName: "B",
			Email: "a@b.co", Subject: "general", Message: "Hello", CreatedAt: t0}); err != nil {
			t.Errorf("CreateContactMessage(signed in): %v", err)
		}
	})
}

func TestMeterNeverTakesTheBalanceBelowZero(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		nu := newUser("jane@example.com")
		nu.SignupCredits = 5
		u, _, err := db.CreateUser(ctx, nu)
		if err != nil {
			t.Fatal(err)
		}
		const n = 20
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := db.Meter(ctx, usage.Record{UserID: u.ID, Endpoint: "GET /api/v1/property/valuation",
					Service: usage.ServiceValuation, Status: 200, RequestID: "req", CreatedAt: t0}, 1, "Property valuation")
				mu.Lock()
				defer mu.Unlock()
				var ins *credit.ErrInsufficient
				switch {
				case err == nil:
					ok++
				case errors.As(err, &ins):
					refused++
					if ins.Balance != 0 || ins.Plan != "free" {
						t.Errorf("refusal says balance %d plan %q", ins.Balance, ins.Plan)
					}
				default:
					t.Errorf("Charge: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok != 5 || refused != n-5 {
			t.Errorf("%d charges went through and %d were refused, want 5 and %d", ok, refused, n-5)
		}
		got, _ := db.UserByID(ctx, u.ID)
		rows, _ := db.Ledger(ctx, u.ID, 100)
		var sum int64
		for _, r := range rows {
			sum += r.Amount
		}
		if got.Credits != 0 || sum != 0 || len(rows) != 6 {
			t.Errorf("balance %d, ledger sum %d over %d rows; want 0, 0 over 6", got.Credits, sum, len(rows))
		}
		// Each charge has its usage record, and the refused ones wrote nothing.
		entries, total, err := db.UsageHistory(ctx, u.ID, usage.Filter{Page: 1, Limit: 50})
		if err != nil || total != 5 || len(entries) != 5 || entries[0].CreditsUsed != 1 {
			t.Errorf("usage records = %d (%v), want the 5 charged calls", total, err)
		}
	})
}
