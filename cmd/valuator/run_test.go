package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/mail"
	"valuator/internal/store"
	"valuator/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func envFrom(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestRunRejectsBadConfigNamingTheVariable(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"serve"}, envFrom(map[string]string{"VALUATOR_ENV": "production"}), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "VALUATOR_SECRET") {
		t.Errorf("run() error = %v, want one naming VALUATOR_SECRET", err)
	}
	err = run(context.Background(), []string{"frobnicate"}, envFrom(nil), &out, &errOut)
	if err == nil || !strings.Contains(errOut.String(), "Usage") {
		t.Errorf("unknown command: err=%v, stderr=%q", err, errOut.String())
	}
}

func TestMigrate(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		var out bytes.Buffer
		env := envFrom(map[string]string{"VALUATOR_DATABASE_URL": url, "VALUATOR_DATA_DIR": t.TempDir()})
		if err := run(context.Background(), []string{"migrate"}, env, &out, &out); err != nil {
			t.Fatalf("migrate: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "up to date") {
			t.Errorf("output = %q", out.String())
		}
	})
}

// TestServeStartsAndShutsDownGracefully runs the real server on a free port, makes a request and stops it the
// way SIGTERM would (by cancelling the context).
func TestServeStartsAndShutsDownGracefully(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := envFrom(map[string]string{
		"VALUATOR_DEMO":         "false", // the demo market's training is not what this test is about
		"VALUATOR_ADDR":         addr,
		"VALUATOR_DATA_DIR":     dir,
		"VALUATOR_DATABASE_URL": "sqlite://" + filepath.Join(dir, "v.db"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, nil, env, &out, &logs) }()

	url := "http://" + addr
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := http.Get(url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server did not become ready: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "Valuator is running at") {
		t.Errorf("stdout = %q", out.String())
	}
	if strings.Contains(out.String(), demoEmail) {
		t.Errorf("VALUATOR_DEMO=false still seeded the demo: %q", out.String())
	}
	// The development secret was generated in the data folder.
	if _, err := os.Stat(filepath.Join(dir, "secret")); err != nil {
		t.Errorf("no generated secret: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop after the context was cancelled")
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", logs.String())
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

// TestDemoSeedsAnEmptyDevelopmentDatabase checks the demo account and market of a first development start.
func TestDemoSeedsAnEmptyDevelopmentDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(context.Background(), "sqlite://"+filepath.Join(dir, "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	accounts := account.NewService(account.Deps{Store: db, Mailer: mail.Log{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		SessionTTL: time.Hour})
	if err := seedDemoAccount(context.Background(), db, accounts, &out); err != nil {
		t.Fatal(err)
	}
	if err := seedDemoMarket(context.Background(), db, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), demoEmail) || !strings.Contains(out.String(), "3000 homes") {
		t.Errorf("output = %q", out.String())
	}
	if _, err := accounts.Login(context.Background(), account.LoginInput{Email: demoEmail, Password: demoPassword},
		account.Client{IP: "127.0.0.1"}); err != nil {
		t.Errorf("demo login: %v", err)
	}
	// A second start leaves a seeded database alone.
	out.Reset()
	if err := seedDemoMarket(context.Background(), db, &out); err != nil || out.Len() != 0 {
		t.Errorf("second seed: %v %q", err, out.String())
	}
}
