// Package installtest installs each client the way a customer would, from the real binary: it starts
// bin/valuator (VALUATOR_BIN) on a free port with the demo market, reads GET /api/sdks, runs the install line the
// server gives for each language in an empty folder, and values the demo address with the installed client.
// `make test-sdk` runs it (with VALUATOR_BIN); without VALUATOR_BIN it is skipped, so that `go test ./...`
// does not install packages from the network.
package installtest
