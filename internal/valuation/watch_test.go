package valuation

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/store"
)

// emptyStore is a database with no records that counts how often the service looks at it.
type emptyStore struct {
	noCharges
	checks atomic.Int32
}

func (s *emptyStore) LoadMarket(context.Context) (store.MarketData, error) {
	return store.MarketData{}, nil
}
func (s *emptyStore) MarketVersion(context.Context) (string, error) {
	s.checks.Add(1)
	return "empty", nil
}
func (s *emptyStore) SaveModel(context.Context, string, int, []byte, time.Time) error { return nil }
func (s *emptyStore) LoadModel(context.Context, string, int) ([]byte, error) {
	return nil, store.ErrNoModel
}

// TestWatchChecksSoonWhileEmpty: an engine with nothing to value from (a worker started beside the first server of
// an empty database) looks for records every few seconds, not once per interval.
func TestWatchChecksSoonWhileEmpty(t *testing.T) {
	st := &emptyStore{}
	s := New(st, slog.New(slog.DiscardHandler), nil, avm.DefaultOptions())
	if err := s.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Watch(ctx, time.Hour)
	deadline := time.Now().Add(4 * emptyInterval)
	for st.checks.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no check within %s of an empty load (interval an hour)", 4*emptyInterval)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
