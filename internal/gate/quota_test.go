package gate

import (
	"sync"
	"testing"
)

func TestQuotaBoundsEachAccountAndTheProcess(t *testing.T) {
	q := NewQuota(2, 3)
	a1, r := q.Take(1)
	a2, r2 := q.Take(1)
	if r != Admitted || r2 != Admitted {
		t.Fatalf("two for account 1: %v %v", r, r2)
	}
	if _, r := q.Take(1); r != AccountFull {
		t.Errorf("a third for account 1: %v, want AccountFull", r)
	}
	b1, r := q.Take(2)
	if r != Admitted {
		t.Fatalf("one for account 2: %v", r)
	}
	if _, r := q.Take(3); r != ProcessFull {
		t.Errorf("a fourth in all: %v, want ProcessFull", r)
	}
	a1()
	a1() // releasing twice frees one slot only
	if n, total := q.InFlight(1); n != 1 || total != 2 {
		t.Errorf("after one release: account %d, total %d; want 1 and 2", n, total)
	}
	if _, r := q.Take(3); r != Admitted {
		t.Errorf("after a release: %v", r)
	}
	a2()
	b1()
	if n, _ := q.InFlight(1); n != 0 {
		t.Errorf("account 1 still has %d", n)
	}
}

func TestQuotaUnderConcurrency(t *testing.T) {
	q := NewQuota(3, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted, most := 0, 0
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, r := q.Take(7)
			if r != Admitted {
				return
			}
			mu.Lock()
			admitted++
			n, _ := q.InFlight(7)
			most = max(most, n)
			mu.Unlock()
			release()
		}()
	}
	wg.Wait()
	if most > 3 || admitted == 0 {
		t.Errorf("at most %d in flight (bound 3), %d admitted", most, admitted)
	}
}
