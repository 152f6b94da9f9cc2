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
	"valuator/internal/testdb"
)

// TestAdminCommand: `valuator admin add|remove EMAIL` gives and takes the operator role (audited), and an unknown
// email is an error that makes the process exit 1 with "no account with email EMAIL".
func TestAdminCommand(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		db := testStore(t, dbURL)
		if _, _, err := db.CreateUser(ctx, account.NewUser{Email: "olive@example.com", EmailKey: account.EmailKey("olive@example.com"),
			PasswordHash: "x", FullName: "Olive", Notifications: account.DefaultNotifications, CreatedAt: time.Now().UTC()}); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_DATA_DIR": t.TempDir()}
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
