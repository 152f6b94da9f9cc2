package store

import (
	"context"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/testdb"
)

// TestAdminAuditIsAppendOnly: the operators' audit log refuses UPDATE and DELETE in the database itself, on both
// dialects, so no code path (present or future) can rewrite what an operator did.
func TestAdminAuditIsAppendOnly(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		db := openTest(t, url)
		ctx := context.Background()
		u, _, err := db.CreateUser(ctx, newUser("olive@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SetRole(ctx, account.EmailKey("olive@example.com"), account.RoleAdmin, t0); err != nil {
			t.Fatal(err)
		}
		rows, total, err := db.AdminAuditLog(ctx, u.ID, 0, 10)
		if err != nil || total != 1 || len(rows) != 1 || rows[0].Action != "role_grant" || rows[0].AdminID != nil {
			t.Fatalf("audit %+v %d %v", rows, total, err)
		}
		if _, err := db.w().exec(ctx, `UPDATE admin_audit SET reason = 'rewritten'`); err == nil {
			t.Error("an UPDATE of admin_audit was allowed")
		}
		if _, err := db.w().exec(ctx, `DELETE FROM admin_audit`); err == nil {
			t.Error("a DELETE of admin_audit was allowed")
		}
		if _, err := db.SetRole(ctx, account.EmailKey("nobody@example.com"), account.RoleAdmin, t0); err == nil {
			t.Error("SetRole of an unknown email succeeded")
		}
	})
}

// TestAdminPersonAuditsFlagged: a lookup is flagged when its account made more than 50 misses in the hour up to it,
// counted by each database's own time arithmetic.
func TestAdminPersonAuditsFlagged(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		db := openTest(t, url)
		ctx := context.Background()
		u, _, err := db.CreateUser(ctx, newUser("sweeper@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		x := db.w()
		// 51 misses a minute apart from t0 (the 51st, at t0+50m, is flagged), then one 2 hours later (not flagged:
		// its hour holds one miss), then a hit.
		at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
		for i := 0; i < 51; i++ {
			if _, err := x.exec(ctx, `INSERT INTO person_lookups (user_id, purpose, query, outcome, created_at)
				VALUES (?, 'fraud_prevention', '{}', 'not_found', ?)`, u.ID, x.t(at(i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range []struct {
			outcome string
			m       int
		}{{"not_found", 170}, {"found", 171}} {
			if _, err := x.exec(ctx, `INSERT INTO person_lookups (user_id, purpose, query, outcome, created_at)
				VALUES (?, 'fraud_prevention', '{}', ?, ?)`, u.ID, l.outcome, x.t(at(l.m))); err != nil {
				t.Fatal(err)
			}
		}
		rows, total, err := db.AdminPersonAudits(ctx, admin.PersonAuditFilter{Flagged: true}, 0, 100)
		if err != nil || total != 1 || len(rows) != 1 || !rows[0].CreatedAt.Equal(at(50)) || rows[0].Outcome != "miss" {
			t.Fatalf("flagged: %d %+v %v", total, rows, err)
		}
		rows, total, err = db.AdminPersonAudits(ctx, admin.PersonAuditFilter{Outcome: "hit", AccountID: u.ID}, 0, 100)
		if err != nil || total != 1 || rows[0].Outcome != "hit" || rows[0].Flagged {
			t.Fatalf("hits: %d %+v %v", total, rows, err)
		}
		if _, total, err = db.AdminPersonAudits(ctx, admin.PersonAuditFilter{}, 50, 100); err != nil || total != 53 {
			t.Fatalf("all: %d %v", total, err)
		}
	})
}

// TestSearchAccountsEscapesWildcards: % and _ in a search are the characters themselves, not LIKE's wildcards.
func TestSearchAccountsEscapesWildcards(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		db := openTest(t, url)
		ctx := context.Background()
		for _, e := range []string{"ann_lee@example.com", "annxlee@example.com"} {
			if _, _, err := db.CreateUser(ctx, newUser(e)); err != nil {
				t.Fatal(err)
			}
		}
		for q, want := range map[string]int64{"ann_lee": 1, "%": 0, "ANN": 2, `\`: 0, "": 2} {
			rows, total, err := db.SearchAccounts(ctx, q, 0, 10)
			if err != nil || total != want || int64(len(rows)) != want {
				t.Errorf("search %q: %d rows, total %d, %v; want %d", q, len(rows), total, err, want)
			}
		}
	})
}
