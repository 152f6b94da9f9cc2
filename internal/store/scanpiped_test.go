package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// scanPiped visits every row in order, batches reused included, and on an error of scan visits the rows before it
// and returns it.
func TestScanPiped(t *testing.T) {
	db := openTest(t, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	const n = 5000 // ten batches and a part
	query := `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5000) SELECT i FROM r`
	for _, failAt := range []int64{0, 1, 512, 513, 4000} {
		rows, err := db.SQL().QueryContext(context.Background(), query)
		if err != nil {
			t.Fatal(err)
		}
		bad := errors.New("bad row")
		var seen []int64
		err = scanPiped(rows, func(v *int64) error {
			if err := rows.Scan(v); err != nil {
				return err
			}
			if *v == failAt {
				return bad
			}
			return nil
		}, func(v *int64) { seen = append(seen, *v) })
		rows.Close()
		want := int64(n)
		if failAt > 0 {
			want = failAt - 1
			if !errors.Is(err, bad) {
				t.Errorf("failing at %d: err %v, want the scan's", failAt, err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if int64(len(seen)) != want {
			t.Fatalf("failing at %d: %d rows visited, want %d", failAt, len(seen), want)
		}
		for i, v := range seen {
			if v != int64(i+1) {
				t.Fatalf("failing at %d: row %d is %d, want %d", failAt, i, v, i+1)
			}
		}
	}
}

// A query whose context ends stops the reading with the context's error.
func TestScanPipedCancelled(t *testing.T) {
	db := openTest(t, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	ctx, cancel := context.WithCancel(context.Background())
	rows, err := db.SQL().QueryContext(ctx, `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
		SELECT i FROM r`) // endless
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	visited := 0
	err = scanPiped(rows, func(v *int64) error { return rows.Scan(v) }, func(*int64) {
		if visited++; visited == 10_000 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v after %d rows, want context.Canceled", err, visited)
	}
}
