package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/config"
	"valuator/internal/mail"
	"valuator/internal/server"
	"valuator/internal/store"
)

// The demo account lets a developer sign in right after `make run`. It is created only in development mode and
// only in an empty database, so it never appears in production or next to real accounts. It joined demoJoinedDays
// ago and has used the product since (seedDemoActivity), so that every screen shows what it is for.
const (
	demoEmail    = "demo@valuator.dev"
	demoPassword = "valuator-demo"
	// The demo operator (issue 27): an admin, so that the operators' console can be tried after `make run`.
	demoAdminEmail    = "admin@valuator.dev"
	demoAdminPassword = "valuator-admin"
	// demoJoinedDays is how long ago the demo account signed up: a few weeks of history, inside its first billing
	// period (a month, so at least 28 days), so that no period has ended and no monthly grant is due at start.
	demoJoinedDays = 26
)

// demoJoined is when the demo account of a database seeded at now signed up: 09:14 UTC, demoJoinedDays ago.
func demoJoined(now time.Time) time.Time { return demoAt(now, demoJoinedDays, 9, 14) }

// demoAt is hh:mm UTC on the day daysAgo days before now.
func demoAt(now time.Time, daysAgo, hh, mm int) time.Time {
	d := now.UTC().AddDate(0, 0, -daysAgo)
	return time.Date(d.Year(), d.Month(), d.Day(), hh, mm, 0, 0, time.UTC)
}

// seedDemoAccount creates the demo account in an empty database, signed up at demoJoined(now) through the account
// service (its sign-up grant, billing period and creation date are those of that day), and returns its id; 0 when
// the database already has accounts (nothing is done).
func seedDemoAccount(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) (id int64, err error) {
	// Under the seeding lock, so that instances started together on one empty database create one demo account
	// (the others find it made and do nothing) rather than fail on its taken email.
	err = db.WithLock(ctx, store.LockDemoSeed, func() error {
		id, err = createDemoAccount(ctx, db, now, stdout)
		return err
	})
	return id, err
}

func createDemoAccount(ctx context.Context, db *store.DB, now time.Time, stdout io.Writer) (int64, error) {
	n, err := db.CountUsers(ctx)
	if err != nil || n > 0 {
		return 0, err
	}
	joined := demoJoined(now)
	quiet := slog.New(slog.DiscardHandler)
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: quiet}, Logger: quiet,
		Now: func() time.Time { return joined }, SessionTTL: time.Hour})
	auth, err := accounts.Register(ctx, account.RegisterInput{Email: demoEmail, Password: demoPassword,
		FullName: "Demo User"}, account.Client{IP: "127.0.0.1", UserAgent: "valuator demo seed"})
	if err != nil {
		return 0, fmt.Errorf("create demo account: %w", err)
	}
	fmt.Fprintf(stdout, "Development mode: created the demo account %s (password %s)\n", demoEmail, demoPassword)
	if _, err := accounts.Register(ctx, account.RegisterInput{Email: demoAdminEmail, Password: demoAdminPassword,
		FullName: "Demo Operator"}, account.Client{IP: "127.0.0.1", UserAgent: "valuator demo seed"}); err != nil {
		return 0, fmt.Errorf("create demo operator: %w", err)
	}
	if _, err := (&admin.Service{Store: db, Now: func() time.Time { return joined }}).SetRole(ctx, demoAdminEmail, true); err != nil {
		return 0, fmt.Errorf("make the demo operator an admin: %w", err)
	}
	fmt.Fprintf(stdout, "Development mode: created the demo operator %s (password %s) for the operators' console\n",
		demoAdminEmail, demoAdminPassword)
	return auth.User.ID, nil
}

// demoSignIn is what the sign-in page's "Use the demo account" gets (GET /api/auth/demo): the demo account's
// email and password in development with the demo on, when the account exists (seeded now or on an earlier
// start) and still has the demo password; nil otherwise, and always in production.
func demoSignIn(ctx context.Context, db *store.DB, cfg config.Config) (*server.DemoAccount, error) {
	if !cfg.Dev() || !cfg.Demo {
		return nil, nil
	}
	cred, err := db.CredentialByEmail(ctx, account.EmailKey(demoEmail))
	if errors.Is(err, account.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// A developer who changed the demo account's password gets no button that could only fail.
	if ok, err := account.VerifyPassword(demoPassword, cred.PasswordHash); err != nil || !ok {
		return nil, nil
	}
	return &server.DemoAccount{Email: demoEmail, Password: demoPassword}, nil
}
