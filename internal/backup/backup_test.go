package backup_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/backup"
	"valuator/internal/credit"
	"valuator/internal/store"
	"valuator/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestCheckLive: a live database whose ledgers chain and match the balances passes; a balance changed behind the
// ledger's back is named with its account; a missing SQLite file is an error, not an empty pass.
func TestCheckLive(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		db, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		var users []int64
		for i := range 3 {
			email := fmt.Sprintf("live%d@example.com", i)
			u, _, err := db.CreateUser(ctx, account.NewUser{Email: email, EmailKey: account.EmailKey(email), PasswordHash: "x",
				FullName: "User", Notifications: account.DefaultNotifications, CreatedAt: at, SignupCredits: credit.SignupBonus})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Grant(ctx, u.ID, 500, credit.KindPlanCredits, "Plan credits", fmt.Sprintf("live:%d", i), at); err != nil {
				t.Fatal(err)
			}
			users = append(users, u.ID)
		}
		r, err := backup.CheckLive(ctx, dbURL)
		if err != nil || len(r.Problems) != 0 || r.Tables["users"] != 3 || r.Tables["credit_ledger"] < 3 {
			t.Fatalf("sound database: %+v, %v", r, err)
		}
		if _, err := db.SQL().ExecContext(ctx, fmt.Sprintf(`UPDATE users SET credits = credits + 7 WHERE id = %d`, users[1])); err != nil {
			t.Fatal(err)
		}
		r, err = backup.CheckLive(ctx, dbURL)
		if err != nil || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], fmt.Sprintf("account %d: balance", users[1])) {
			t.Errorf("changed balance: %q, %v", r.Problems, err)
		}
	})
	if _, err := backup.CheckLive(context.Background(), "sqlite://"+t.TempDir()+"/missing.db"); err == nil {
		t.Error("a missing SQLite database passed")
	}
}
