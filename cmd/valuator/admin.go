package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"valuator/internal/admin"
	"valuator/internal/jobs"
)

const adminUsage = "usage: valuator admin add EMAIL | valuator admin remove EMAIL | valuator admin reinstate EMAIL"

// runAdmin gives the operator role to an account (add), takes it back (remove), or lifts a suspension (reinstate).
// It is the only way to make an operator: no route of the API can, so a stolen session cannot make itself one. The
// change is written to the operators' audit log with no operator (the command line); a command that changes nothing
// (adding an operator, removing a customer) says so and writes nothing.
func runAdmin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 || (args[0] != "add" && args[0] != "remove" && args[0] != "reinstate") {
		fmt.Fprintln(stderr, adminUsage)
		return errors.New(adminUsage)
	}
	verb, email := args[0], args[1]
	cfg, log, err := loadConfig("admin", args[2:], getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := &admin.Service{Store: db}
	if verb == "reinstate" {
		// An insert-only queue: the held batch jobs are queued in the reinstating transaction, and a running
		// server's workers take them.
		queue, err := jobs.New(jobs.Config{Store: db, Logger: log})
		if err != nil {
			return err
		}
		svc.Enqueue = queue.EnqueueBatch
		if _, err := svc.ReinstateByEmail(ctx, email); err != nil {
			if errors.Is(err, admin.ErrState) {
				fmt.Fprintf(stdout, "%s is not suspended.\n", email)
				return nil
			}
			return err
		}
		fmt.Fprintf(stdout, "%s is reinstated: it can sign in again, and its held batch jobs are queued again.\n", email)
		return nil
	}
	c, err := svc.SetRole(ctx, email, verb == "add")
	if err != nil {
		return err
	}
	switch {
	case verb == "add" && !c.Changed:
		fmt.Fprintf(stdout, "%s is already an operator.\n", email)
	case verb == "add":
		fmt.Fprintf(stdout, "%s is now an operator.\n", email)
	case !c.Changed:
		fmt.Fprintf(stdout, "%s is not an operator.\n", email)
	default:
		fmt.Fprintf(stdout, "%s is no longer an operator.\n", email)
	}
	if verb == "add" && c.Suspended {
		fmt.Fprintf(stdout, "%s is suspended and cannot sign in: lift it with valuator admin reinstate %s\n", email, email)
	}
	return nil
}
