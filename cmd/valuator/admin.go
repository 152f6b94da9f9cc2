package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"valuator/internal/admin"
)

const adminUsage = "usage: valuator admin add EMAIL | valuator admin remove EMAIL"

// runAdmin gives the operator role to an account (add) or takes it back (remove). It is the only way to make an
// operator: no route of the API can, so a stolen session cannot make itself one. The change is written to the
// operators' audit log with no operator (the command line).
func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 || (args[0] != "add" && args[0] != "remove") {
		fmt.Fprintln(stderr, adminUsage)
		return errors.New(adminUsage)
	}
	verb, email := args[0], args[1]
	cfg, _, err := loadConfig("admin", args[2:], getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := &admin.Service{Store: db}
	if err := svc.SetRole(ctx, email, verb == "add"); err != nil {
		return err
	}
	if verb == "add" {
		fmt.Fprintf(stdout, "%s is now an operator.\n", email)
	} else {
		fmt.Fprintf(stdout, "%s is no longer an operator.\n", email)
	}
	return nil
}
