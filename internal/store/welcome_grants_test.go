package store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"valuator/internal/account"
	"valuator/internal/credit"
	"valuator/internal/testdb"
)

// signup is what account.Service.Register gives the store for email.
func signup(email string) account.NewUser {
	nu := newUser(email)
	nu.MailboxKey = account.MailboxKey(email)
	nu.MailboxNote = account.MsgMailboxHadWelcome(nu.MailboxKey)
	return nu
}

// welcomeOwners returns the account each mailbox's welcome credits went to, by mailbox key.
func welcomeOwners(t *testing.T, db *DB, mailboxes ...string) map[string]int64 {
	t.Helper()
	owners := map[string]int64{}
	var n int
	if err := db.q().row(context.Background(), `SELECT COUNT(*) FROM welcome_grants`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	for _, m := range mailboxes {
		var id int64
		if err := db.q().row(context.Background(), `SELECT user_id FROM welcome_grants WHERE mailbox_hash = ?`,
			emailKeyHash(m)).Scan(&id); err == nil {
			owners[m] = id
		}
	}
	if n != len(owners) {
		t.Errorf("welcome_grants has %d rows, %d of them for %v", n, len(owners), mailboxes)
	}
	return owners
}

// TestCreateUserGrantsWelcomeOncePerMailbox: the first account of a mailbox gets the welcome credits; an alias of it
// gets 0, with a 0-credit ledger row and an answer that say why; another mailbox gets them.
func TestCreateUserGrantsWelcomeOncePerMailbox(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		first, w, err := db.CreateUser(ctx, signup("farm@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if w.Credits != credit.SignupBonus || w.Message != nil || first.Credits != credit.SignupBonus {
			t.Errorf("first account: welcome %+v, credits %d; want %d and no message", w, first.Credits, credit.SignupBonus)
		}
		alias, w, err := db.CreateUser(ctx, signup("Farm+2@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		const why = "No welcome credits: this mailbox (farm@example.com) already received them. " +
			"Choose a plan on the Billing page for more credits."
		if w.Credits != 0 || w.Message == nil || *w.Message != why || alias.Credits != 0 {
			t.Errorf("alias: welcome %+v (message %v), credits %d; want 0 and %q", w, deref(w.Message), alias.Credits, why)
		}
		rows, err := db.Ledger(ctx, alias.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Amount != 0 || rows[0].Kind != credit.KindSignupBonus || rows[0].Description != why {
			t.Errorf("alias ledger = %+v, want one 0-credit sign-up row saying %q", rows, why)
		}
		other, w, err := db.CreateUser(ctx, signup("john@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if w.Credits != credit.SignupBonus || other.Credits != credit.SignupBonus {
			t.Errorf("another mailbox: welcome %+v, credits %d; want %d", w, other.Credits, credit.SignupBonus)
		}
		got := welcomeOwners(t, db, "farm@example.com", "john@example.com")
		if got["farm@example.com"] != first.ID || got["john@example.com"] != other.ID {
			t.Errorf("welcome grants = %v, want farm@ to %d and john@ to %d", got, first.ID, other.ID)
		}
	})
}

// TestCreateUserParallelAliasesGrantOnce: many sign-ups of one mailbox's aliases at once, straight to the store
// (no password hashing to spread them out), give the welcome credits exactly once.
func TestCreateUserParallelAliasesGrantOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		const n = 20
		var wg sync.WaitGroup
		welcomes := make([]account.Welcome, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, w, err := db.CreateUser(ctx, signup(fmt.Sprintf("a+%d@x.com", i)))
				if err != nil {
					t.Error(err)
				}
				welcomes[i] = w
			}()
		}
		close(start)
		wg.Wait()
		granted := 0
		for _, w := range welcomes {
			if w.Credits > 0 {
				granted++
			}
		}
		if granted != 1 {
			t.Errorf("%d of %d parallel alias sign-ups got the welcome credits, want 1", granted, n)
		}
	})
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// TestWelcomeGrantsBackfill: the accounts made before welcome_grants (here made without a mailbox key, as the
// previous release did) are entered when the database is migrated, closed ones too, each mailbox naming its oldest
// account, read in batches; migrating again changes nothing; and a new alias of one of them gets no credits.
func TestWelcomeGrantsBackfill(t *testing.T) {
	defer func(n int) { welcomeBackfillBatch = n }(welcomeBackfillBatch)
	welcomeBackfillBatch = 2
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		ids := map[string]int64{}
		for _, email := range []string{"farm@example.com", "farm+1@example.com", "closed@example.com",
			"f.a.r.m@gmail.com", "farm@googlemail.com", "john@example.com", "farm+2@example.com"} {
			u, _, err := db.CreateUser(ctx, newUser(email))
			if err != nil {
				t.Fatal(err)
			}
			ids[email] = u.ID
		}
		if err := db.CloseUser(ctx, ids["closed@example.com"], t0); err != nil {
			t.Fatal(err)
		}
		mailboxes := []string{"farm@example.com", "closed@example.com", "farm@gmail.com", "john@example.com"}
		if got := welcomeOwners(t, db, mailboxes...); len(got) != 0 {
			t.Fatalf("before the backfill: welcome grants = %v, want none", got)
		}
		want := map[string]int64{
			"farm@example.com":   ids["farm@example.com"],
			"closed@example.com": ids["closed@example.com"],
			"farm@gmail.com":     ids["f.a.r.m@gmail.com"],
			"john@example.com":   ids["john@example.com"],
		}
		for run := 1; run <= 2; run++ {
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("Migrate %d: %v", run, err)
			}
			got := welcomeOwners(t, db, mailboxes...)
			for m, id := range want {
				if got[m] != id {
					t.Errorf("after Migrate %d: %s names account %d, want %d", run, m, got[m], id)
				}
			}
		}
		var created dbTime
		if err := db.q().row(ctx, `SELECT created_at FROM welcome_grants WHERE user_id = ?`,
			ids["john@example.com"]).Scan(&created); err != nil || !created.Time.Equal(t0) {
			t.Errorf("john's grant created at %v (%v), want the account's creation %v", created.Time, err, t0)
		}

		u, w, err := db.CreateUser(ctx, signup("farm+3@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if w.Credits != 0 || u.Credits != 0 {
			t.Errorf("a new alias of a backfilled mailbox: welcome %+v, credits %d; want 0", w, u.Credits)
		}
		if _, w, err := db.CreateUser(ctx, signup("farm.new@gmail.com")); err != nil || w.Credits != credit.SignupBonus {
			t.Errorf("a new gmail mailbox: welcome %+v (%v), want %d credits", w, err, credit.SignupBonus)
		}
	})
}
