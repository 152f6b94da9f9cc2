package store

import (
	"context"
	"testing"

	"valuator/internal/account"
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
		if err := db.SetRole(ctx, account.EmailKey("olive@example.com"), account.RoleAdmin, t0); err != nil {
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
		if err := db.SetRole(ctx, account.EmailKey("nobody@example.com"), account.RoleAdmin, t0); err == nil {
			t.Error("SetRole of an unknown email succeeded")
		}
	})
}
