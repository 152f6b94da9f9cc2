//go:build !unix

package testdb

import (
	"context"
	"fmt"
)

// cluster is not supported off Unix: starting one needs Unix process
// credentials and /bin/sh. Tests there can still use a server through
// VALUATOR_TEST_POSTGRES_URL.
type cluster struct {
	base    string
	version string
	port    int
	user    string
}

func startCluster(...string) (*cluster, error) {
	return nil, fmt.Errorf("%w: a throwaway cluster needs a Unix system, and %s is not set",
		errUnavailable, EnvPostgresURL)
}

func (c *cluster) stop() error { return nil }

func (c *cluster) start(context.Context) error { return nil }

func (c *cluster) halt(context.Context) error { return nil }

func (c *cluster) logTail() string { return "" }

func (c *cluster) crash(context.Context) error { return nil }

func (c *cluster) own(string) error { return nil }

func (c *cluster) binDir() string { return "" }

func (c *cluster) dataDir() string { return "" }

func (c *cluster) run(context.Context, string, ...string) error { return nil }
