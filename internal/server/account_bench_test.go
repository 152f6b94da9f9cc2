package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/config"
	"valuator/internal/ratelimit"
	"valuator/internal/store"
	"valuator/internal/testdb"
	"valuator/internal/valuation"
)

// BenchmarkSignInUnderResetFlood measures one normal sign-in (ns/op) while unauthenticated callers send
// reset-password requests with made-up tokens, 20 at a time, each from its own client address (so the per-address
// limit of the form does not stop them: this is a flood from many addresses). "quiet" is the same sign-in with
// no flood, for comparison. Run it alone with a short benchtime:
//
//	go test ./internal/server/ -run '^$' -bench SignInUnderResetFlood -benchtime 20x
func BenchmarkSignInUnderResetFlood(b *testing.B) {
	for _, flood := range []bool{false, true} {
		name := "quiet"
		if flood {
			name = "flood"
		}
		b.Run(name, func(b *testing.B) {
			url, client := benchAccountServer(b)
			post := func(path, ip string, body any) (int, error) {
				raw, _ := json.Marshal(body)
				rq, _ := http.NewRequest("POST", url+path, bytes.NewReader(raw))
				rq.Header.Set("Content-Type", "application/json")
				rq.Header.Set("X-Forwarded-For", ip)
				res, err := client.Do(rq)
				if err != nil {
					return 0, err
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				return res.StatusCode, nil
			}
			if st, err := post("/api/auth/register", "192.0.2.1", map[string]string{"email": "jane@example.com",
				"password": "correct-horse", "fullName": "Jane Doe"}); err != nil || st != http.StatusCreated {
				b.Fatalf("register: %d %v", st, err)
			}

			stop := make(chan struct{})
			var wg sync.WaitGroup
			var resets atomic.Int64
			if flood {
				for w := 0; w < 20; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; ; i++ {
							select {
							case <-stop:
								return
							default:
							}
							ip := fmt.Sprintf("10.%d.%d.%d", w, i/250%250, i%250+1)
							_, _ = post("/api/auth/reset-password", ip, map[string]string{
								"token":    fmt.Sprintf("vr_bogus-%d-%d-%s", w, i, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
								"password": "battery-staple-horse"})
							resets.Add(1)
						}
					}()
				}
				// Let the flood reach its pace before measuring.
				for resets.Load() < 40 {
					time.Sleep(time.Millisecond)
				}
			}
			start, startResets := time.Now(), resets.Load()
			for b.Loop() {
				if st, err := post("/api/auth/login", "198.51.100.20", map[string]string{"email": "jane@example.com",
					"password": "correct-horse"}); err != nil || st != http.StatusOK {
					b.Fatalf("sign-in: %d %v", st, err)
				}
			}
			elapsed := time.Since(start)
			close(stop)
			wg.Wait()
			if flood {
				b.ReportMetric(float64(resets.Load()-startResets)/elapsed.Seconds(), "bogus-resets/s")
			}
		})
	}
}

// benchAccountServer serves the product's routes on a fresh SQLite database with the real account service
// (real argon2id, the default password gate), trusting X-Forwarded-For for the client address.
func benchAccountServer(b *testing.B) (url string, client *http.Client) {
	b.Helper()
	ctx := context.Background()
	dbURL := testdb.SQLiteURL(b)
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"VALUATOR_DATABASE_URL": dbURL, "VALUATOR_TRUST_PROXY": "true"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	accounts := account.NewService(account.Deps{Store: db, Mailer: &mailbox{}, Logger: log, Dev: true,
		BaseURL: cfg.BaseURL, SessionTTL: cfg.SessionTTL})
	sealer, err := apikey.NewSealer(string(bytes.Repeat([]byte("k"), 32)))
	if err != nil {
		b.Fatal(err)
	}
	h := New(Deps{Config: cfg, Logger: log, DB: db, Accounts: accounts,
		Valuation: valuation.New(db, log, nil, fastEngine()), OpenAPI: []byte("{}"),
		Web:         fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}},
		FormLimiter: ratelimit.NewMemory(nil), APILimiter: ratelimit.NewMemory(nil),
		APIKeys: apikey.NewService(db, sealer, log, nil), Touches: &apikey.Touches{}})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	b.Cleanup(client.CloseIdleConnections)
	return srv.URL, client
}
