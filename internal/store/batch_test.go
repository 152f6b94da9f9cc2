package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/testdb"
)

func noQueue(context.Context, *sql.Tx, int64) error { return nil }

// TestBatchStorageIsCountedAndBounded: previews and job inputs count against the plan's storage quota, past which
// nothing is stored; a job made from a preview takes its place (deleting it in the same transaction), once.
func TestBatchStorageIsCountedAndBounded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		used := func() int64 {
			t.Helper()
			n, err := db.BatchStoredBytes(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		tooLarge := func(t *testing.T, err error) {
			t.Helper()
			if e, ok := apperr.As(err); !ok || e.Code != "storage_quota_exceeded" {
				t.Errorf("err = %v, want storage_quota_exceeded", err)
			}
		}
		// The Free plan keeps 10 MB.
		_, err = db.SaveBatchFile(ctx, u.ID, "big.csv", "sha-big", make([]byte, 10<<20-1000), t0)
		if err != nil {
			t.Fatal(err)
		}
		preview, err := db.SaveBatchFile(ctx, u.ID, "homes.csv", "sha-homes", make([]byte, 600), t0)
		if err != nil {
			t.Fatal(err)
		}
		if got := used(); got != 10<<20-400 {
			t.Errorf("used = %d, want %d", got, 10<<20-400)
		}
		_, err = db.SaveBatchFile(ctx, u.ID, "more.csv", "sha-more", make([]byte, 401), t0)
		tooLarge(t, err)
		inputs := [][]byte{bytes.Repeat([]byte("x"), 500), bytes.Repeat([]byte("y"), 500)}
		_, _, err = db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "rows.json", FileSHA256: "x", Mapping: "{}",
			CreatedAt: t0}, inputs, noQueue)
		tooLarge(t, err)

		// A job made from the preview: its 1,000 bytes of inputs replace the preview's 600, which fit even though
		// 1,000 more would not.
		job, created, err := db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "homes.csv", FileSHA256: "sha-homes",
			Mapping: "{}", UploadID: preview, CreatedAt: t0}, inputs, noQueue)
		if err != nil || !created || job.InputBytes != 1000 {
			t.Fatalf("job from the preview = %+v, %v, %v", job, created, err)
		}
		if got := used(); got != 10<<20-1000+1000 {
			t.Errorf("used after the job = %d, want %d", got, 10<<20)
		}
		if _, _, _, err := db.BatchFile(ctx, u.ID, preview); !errors.Is(err, batch.ErrNoBatch) {
			t.Errorf("the preview is still there after its job: %v", err)
		}
		if _, _, err := db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "homes.csv", FileSHA256: "sha-homes",
			Mapping: "{}", UploadID: preview, CreatedAt: t0}, inputs, noQueue); !errors.Is(err, batch.ErrNoBatch) {
			t.Errorf("a second job from one preview: err = %v, want batch.ErrNoBatch", err)
		}
		// Purged jobs and deleted previews no longer count.
		if _, err := db.CancelBatchJob(ctx, u.ID, job.ID, t0); err != nil {
			t.Fatal(err)
		}
		later := t0.Add(25 * time.Hour)
		if _, _, err := db.PurgeBatches(ctx, later.Add(-24*time.Hour), later); err != nil {
			t.Fatal(err)
		}
		if got := used(); got != 0 {
			t.Errorf("used after the purge = %d, want 0", got)
		}
	})
}

// TestConcurrentIdempotentJobsMakeOne: jobs created at once with one Idempotency-Key make one job; the others get
// it back, never a unique-index error (PostgreSQL's losers used to).
func TestConcurrentIdempotentJobsMakeOne(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		var mu sync.Mutex
		ids, made := map[int64]bool{}, 0
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, created, err := db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "homes.csv", FileSHA256: "same",
					Mapping: "{}", IdempotencyKey: "order-7", CreatedAt: t0}, [][]byte{[]byte(`{"line":2}`)}, noQueue)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("CreateBatchJob: %v", err)
					return
				}
				ids[j.ID] = true
				if created {
					made++
				}
			}()
		}
		wg.Wait()
		if made != 1 || len(ids) != 1 {
			t.Errorf("%d created, %d distinct jobs; want 1 and 1", made, len(ids))
		}
	})
}

// TestBatchQueueStats: the metrics' view of the queue, jobs by status and the oldest pending one's creation.
func TestBatchQueueStats(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		ctx := context.Background()
		db := openTest(t, url)
		counts, oldest, err := db.BatchQueueStats(ctx)
		if err != nil || len(counts) != 0 || !oldest.IsZero() {
			t.Fatalf("empty queue: %v, %v, %v; want no counts and no oldest", counts, oldest, err)
		}
		u, _, err := db.CreateUser(ctx, newUser("jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for i := range 3 {
			j, _, err := db.CreateBatchJob(ctx, batch.Job{UserID: u.ID, FileName: "homes.csv", FileSHA256: fmt.Sprint(i),
				Mapping: "{}", CreatedAt: t0.Add(time.Duration(i) * time.Hour)}, [][]byte{[]byte(`{}`)}, noQueue)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, j.ID)
		}
		if _, err := db.CancelBatchJob(ctx, u.ID, ids[0], t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		counts, oldest, err = db.BatchQueueStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if counts["pending"] != 2 || counts["cancelled"] != 1 || len(counts) != 2 {
			t.Errorf("counts = %v, want 2 pending and 1 cancelled", counts)
		}
		if want := t0.Add(time.Hour); !oldest.Equal(want) {
			t.Errorf("oldest pending = %v, want %v", oldest, want)
		}
	})
}
