package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	adminpkg "valuator/internal/admin"
	"valuator/internal/testdb"
)

// TestAdminCommand: `valuator admin add|remove EMAIL` gives and takes the operator role (audited), and an unknown
// email is an error that makes the process exit 1 with "no account with email EMAIL"; a command that changes nothing
// says so unaudited, a word too many is refused, and `admin reinstate` lifts a suspension (issue 36, M-2 and L-8).
func TestAdminCommand(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		db := testStore(t, dbURL)
		if _, _, err := db.CreateUser(ctx, account.NewUser{Email: "olive@example.com", EmailKey: account.EmailKey("olive@example.com"),
			PasswordHash: "x", FullName: "Olive", Notifications: account.DefaultNotifications, CreatedAt: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_DATA_DIR": t.TempDir()}
		userID := func() int64 {
			cred, err := db.CredentialByEmail(ctx, account.EmailKey("olive@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			return cred.User.ID
		}
		role := func() string {
			cred, err := db.CredentialByEmail(ctx, account.EmailKey("olive@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			return cred.User.Role
		}
		for _, tt := range []struct{ verb, out, role string }{
			{"add", "Olive@example.com is now an operator.\n", account.RoleAdmin},
			{"remove", "Olive@example.com is no longer an operator.\n", account.RoleCustomer},
		} {
			var out bytes.Buffer
			if err := run(ctx, []string{"admin", tt.verb, "Olive@example.com"}, envFrom(env), &out, &out); err != nil {
				t.Fatalf("admin %s: %v", tt.verb, err)
			}
			if out.String() != tt.out || role() != tt.role {
				t.Errorf("admin %s: %q, role %q", tt.verb, out.String(), role())
			}
		}
		if rows, total, err := db.AdminAuditLog(ctx, 0, 0, 10); err != nil || total != 2 || rows[0].Action != "role_revoke" {
			t.Errorf("audit: %+v %d %v", rows, total, err)
		}
		admin := func(args ...string) (string, error) {
			var out bytes.Buffer
			err := run(ctx, append([]string{"admin"}, args...), envFrom(env), &out, &out)
			return out.String(), err
		}
		// Removing a customer changes nothing and says so, and nothing is audited (issue 36, L-8).
		if out, err := admin("remove", "olive@example.com"); err != nil || out != "olive@example.com is not an operator.\n" {
			t.Errorf("remove of a customer: %q %v", out, err)
		}
		// A word too many is refused, not ignored, and changes nothing.
		if out, err := admin("add", "olive@example.com", "other@example.com"); err == nil ||
			!strings.Contains(out, `unexpected argument "other@example.com"`) || role() != account.RoleCustomer {
			t.Errorf("add with an extra argument: %q %v, role %q", out, err, role())
		}
		// An operator suspended before operators could no longer suspend each other (M-2): adding says so, and
		// `admin reinstate` lifts it from the command line, audited with no operator.
		if _, err := db.SuspendAccount(ctx, adminpkg.Action{AccountID: userID(), Reason: "test", At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		if out, err := admin("add", "olive@example.com"); err != nil || out != "olive@example.com is now an operator.\n"+
			"olive@example.com is suspended and cannot sign in: lift it with valuator admin reinstate olive@example.com\n" {
			t.Errorf("add of a suspended account: %q %v", out, err)
		}
		if out, err := admin("add", "olive@example.com"); err != nil || out != "olive@example.com is already an operator.\n"+
			"olive@example.com is suspended and cannot sign in: lift it with valuator admin reinstate olive@example.com\n" {
			t.Errorf("add of an operator: %q %v", out, err)
		}
		if out, err := admin("reinstate", "olive@example.com"); err != nil || !strings.Contains(out, "is reinstated") {
			t.Errorf("reinstate: %q %v", out, err)
		}
		if cred, err := db.CredentialByEmail(ctx, account.EmailKey("olive@example.com")); err != nil || cred.User.SuspendedAt != nil {
			t.Errorf("still suspended after reinstate: %+v %v", cred.User, err)
		}
		if out, err := admin("reinstate", "olive@example.com"); err != nil || out != "olive@example.com is not suspended.\n" {
			t.Errorf("reinstate of an open account: %q %v", out, err)
		}
		if _, err := admin("reinstate", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no account with email nobody@example.com") {
			t.Errorf("reinstate of an unknown email: %v", err)
		}
		// Audited: remove (before), suspend, add, reinstate; not the second add, the remove of a customer.
		if rows, total, err := db.AdminAuditLog(ctx, 0, 0, 10); err != nil || total != 5 || rows[0].Action != "reinstate" ||
			rows[0].AdminID != nil || rows[1].Action != "role_grant" || rows[2].Action != "suspend" {
			t.Errorf("audit after: %d %v %+v", total, err, rows)
		}

		for _, verb := range []string{"add", "remove"} {
			// The real process: main's exit status and message.
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), runEnv+"=admin "+verb+" nobody@example.com",
				"VALUATOR_DATABASE_URL="+dbURL, "VALUATOR_DATA_DIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 ||
				!strings.Contains(string(out), "no account with email nobody@example.com") {
				t.Errorf("admin %s of an unknown email: %v\n%s", verb, err, out)
			}
		}
		var out bytes.Buffer
		if err := run(ctx, []string{"admin", "promote", "x@example.com"}, envFrom(env), &out, &out); err == nil {
			t.Error("an unknown verb was accepted")
		}
	})
}
