package main

import (
	"context"
	"fmt"
	"io"

	"valuator/internal/account"
	"valuator/internal/store"
)

// The demo account lets a developer sign in right after `make run`. It is created only in development mode and
// only in an empty database, so it never appears in production or next to real accounts.
const (
	demoEmail    = "demo@valuator.dev"
	demoPassword = "valuator-demo"
)

func seedDemoAccount(ctx context.Context, db *store.DB, accounts *account.Service, stdout io.Writer) error {
	n, err := db.CountUsers(ctx)
	if err != nil || n > 0 {
		return err
	}
	_, err = accounts.Register(ctx, account.RegisterInput{Email: demoEmail, Password: demoPassword,
		FullName: "Demo User"}, account.Client{IP: "127.0.0.1", UserAgent: "valuator demo seed"})
	if err != nil {
		return fmt.Errorf("create demo account: %w", err)
	}
	fmt.Fprintf(stdout, "Development mode: created the demo account %s (password %s)\n", demoEmail, demoPassword)
	return nil
}
