// Package examples makes the example valuation the product shows (the landing page, the API Keys screen's
// documentation, the help center, README.md and api/openapi.yaml): the answer the real engine gives, through the
// real HTTP handler, for one home of the demo market the development server seeds. Nothing in it is written by
// hand, so the examples cannot drift from what the API answers.
//
// The checked-in answer is the one of the demo market of a fixed day (MarketDay). A running server seeds its demo
// market as of the day it first starts and values as of its own clock, so its numbers differ: the screens show
// that server's own answer, GET /api/example, made from a live lookup by package example (which defines the home,
// the cut and the shape for both), and fall back to the checked-in answer, labelled with its day, only where the
// server has no record of the home (a production install).
//
// Regenerate with `make examples` (go run ./cmd/valuator examples); the tests of this package fail when the
// checked-in files are out of date.
package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/avm"
	"valuator/internal/config"
	"valuator/internal/demo"
	"valuator/internal/examples/example"
	"valuator/internal/mail"
	"valuator/internal/ratelimit"
	"valuator/internal/server"
	"valuator/internal/store"
	"valuator/internal/valuation"
)

// Command regenerates the checked-in examples, from the repository's root.
const Command = "make examples"

// The example's home, market, cut and shape are defined in package example, which the server's live example
// (GET /api/example) uses too; they are named here as well for the generator and its tests.
const (
	MarketSeed  = example.MarketSeed
	MarketHomes = example.MarketHomes
)

// MarketDay is the last day of the example market's history.
var MarketDay = example.MarketDay

// valuedAt is the server's clock when it answers: the afternoon of MarketDay, as on a development server seeded
// that morning.
var valuedAt = MarketDay.Add(17*time.Hour + 42*time.Minute + 8*time.Second)

// Request is the address the example values, split as the public API's query parameters.
type Request = example.Request

// Home is the example home (example.Home).
var Home = example.Home

// The volatile parts of a real answer are made fixed, so the example changes only when the valuation does:
//   - the request id is the server's own, new for every request; it is replaced with a fixed, well-formed ULID;
//   - meta.timestamp comes from the server's clock, set to valuedAt;
//   - meta.responseTime is measured; it is replaced with a typical figure (ResponseTimeMs).
const (
	RequestID      = "01JNB7Q2ZB8V3T5N0R6W4XHCDA"
	ResponseTimeMs = 38
)

// MaxComparables is how many comparable sales the example keeps (example.Trim makes the cut).
const MaxComparables = example.MaxComparables

// File is the checked-in example (web/src/generated/example-valuation.json); Comparables, MarketInfo and Response
// are its parts.
type (
	File        = example.File
	Comparables = example.Comparables
	MarketInfo  = example.MarketInfo
	Response    = example.Response
)

// Paths of the checked-in files, relative to the repository's root.
const (
	WebFile     = "web/src/generated/example-valuation.json"
	OpenAPIFile = "api/openapi.yaml"
)

// Generate builds the demo market, trains the engine on it (as `valuator serve` does) and values Home through the
// public API's handler. It takes about as long as training the engine on the demo market.
func Generate(ctx context.Context) (*File, error) {
	dir, err := os.MkdirTemp("", "valuator-examples-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	dbURL := "sqlite://" + filepath.Join(dir, "valuator.db")

	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	now := func() time.Time { return valuedAt }
	m := demo.GenerateN(MarketSeed, MarketDay, MarketHomes)
	recs := m.Records()
	for i := 0; i < len(recs); i += 1000 {
		if _, err := db.ImportRecords(ctx, demo.Source, recs[i:min(i+1000, len(recs))], MarketDay); err != nil {
			return nil, fmt.Errorf("import the demo market: %w", err)
		}
	}

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The engine with the server's own options.
	vals := valuation.New(db, log, now, avm.DefaultOptions())
	if err := vals.Load(ctx); err != nil {
		return nil, fmt.Errorf("train the engine: %w", err)
	}

	cfg, err := config.Load(func(k string) string {
		return map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_LOG_LEVEL": "error"}[k]
	})
	if err != nil {
		return nil, err
	}
	cfg.Secret = strings.Repeat("e", 32)
	sealer, err := apikey.NewSealer(cfg.Secret)
	if err != nil {
		return nil, err
	}
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: log}, Now: now, Logger: log,
		SessionTTL: time.Hour})
	// A new Free account (100 credits) with one key: the answer says 1 credit used and 99 remaining.
	auth, err := accounts.Register(ctx, account.RegisterInput{Email: "jane@example.com", Password: "correct-horse-battery",
		FullName: "Jane Doe"}, account.Client{IP: "127.0.0.1", UserAgent: "valuator examples"})
	if err != nil {
		return nil, err
	}
	key, err := apikey.New()
	if err != nil {
		return nil, err
	}
	sealed, err := sealer.Seal(key)
	if err != nil {
		return nil, err
	}
	if _, err := db.CreateAPIKey(ctx, auth.User.ID, "Production server", apikey.Hash(key), sealed, apikey.Preview(key),
		100, apikey.MaxPerAccount, valuedAt); err != nil {
		return nil, err
	}
	// Batch jobs, billing and people are not reached by the valuation endpoint. Nor is the contract: it is left out
	// on purpose, because the contract holds the example, and a stale example that no longer fits the schema must
	// not stop this command from writing a fresh one.
	h := server.New(server.Deps{Config: cfg, Logger: log, DB: db, Accounts: accounts, Valuation: vals,
		OpenAPI: []byte("{}"), Web: os.DirFS(dir), FormLimiter: ratelimit.NewMemory(now), APILimiter: ratelimit.NewMemory(now),
		APIKeys: apikey.NewService(db, sealer, log, now), Touches: &apikey.Touches{}, Now: now})

	path := Home.Path()
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	r.Header.Set("x-api-key", key)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d: %s", path, w.Code, w.Body)
	}
	var res Response
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields() // the answer is a valuation.Result and nothing else
	if err := dec.Decode(&res); err != nil || res.Data == nil {
		return nil, fmt.Errorf("decode the answer: %v", err)
	}

	res.Data.Meta.ResponseTime, res.Data.Meta.RequestID = ResponseTimeMs, RequestID
	comps := example.Trim(res.Data)
	return &File{
		Comment: "Generated by `" + Command + "` from the real engine and HTTP handler (internal/examples); do not edit. " +
			"The numbers are the answer on the demo market of " + MarketDay.Format("2006-01-02") + "; a running " +
			"server values the home on its own market and day, and the pages show its live answer (GET /api/example). " +
			"meta.responseTime is a typical figure, not the measured one; meta.requestId is a fixed example id.",
		Market:      MarketInfo{Seed: MarketSeed, Homes: MarketHomes, Day: MarketDay.Format("2006-01-02")},
		Request:     Home,
		Path:        path,
		Comparables: comps,
		Response:    res,
	}, nil
}
