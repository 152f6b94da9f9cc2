//go:build !unix

package testredis

import "fmt"

// localServer is not supported off Unix: its watchdog needs /bin/sh and Unix sessions. Tests there can still use
// a server through VALUATOR_TEST_REDIS_URL.
type localServer struct {
	binary string
	dir    string
	port   int
}

func startLocal() (*localServer, error) {
	return nil, fmt.Errorf("%w: a throwaway redis-server needs a Unix system, and %s is not set",
		errUnavailable, EnvRedisURL)
}

func (ls *localServer) stop() error { return nil }

func (ls *localServer) logTail() string { return "" }
