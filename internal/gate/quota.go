package gate

import "sync"

// Quota bounds how many operations of one kind each account has in flight, and, optionally, the process: so that
// one customer's uploads or downloads cannot hold every slot, and all customers' together cannot exceed what the
// process can afford. Unlike Gate it never waits: an operation past the bound is refused at once, and the caller
// answers 429 with Retry-After (the client that holds the slots is the one told to slow down).
type Quota struct {
	mu         sync.Mutex
	inFlight   map[int64]int
	perAccount int
	total      int
	maxTotal   int
}

// NewQuota allows perAccount operations per account (at least 1) and maxTotal in all (0: no bound for the
// process).
func NewQuota(perAccount, maxTotal int) *Quota {
	return &Quota{inFlight: map[int64]int{}, perAccount: max(perAccount, 1), maxTotal: max(maxTotal, 0)}
}

// Refusal says which bound refused an operation.
type Refusal int

const (
	// Admitted: the operation may run.
	Admitted Refusal = iota
	// AccountFull: the account has its share in flight.
	AccountFull
	// ProcessFull: the process has its bound in flight.
	ProcessFull
)

// Take admits one operation of the account, returning the function that ends it (call it once), or the bound that
// refused it.
func (q *Quota) Take(account int64) (release func(), refused Refusal) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.inFlight[account] >= q.perAccount:
		return nil, AccountFull
	case q.maxTotal > 0 && q.total >= q.maxTotal:
		return nil, ProcessFull
	}
	q.inFlight[account]++
	q.total++
	var once sync.Once
	return func() { once.Do(func() { q.release(account) }) }, Admitted
}

func (q *Quota) release(account int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.total--
	if q.inFlight[account]--; q.inFlight[account] <= 0 {
		delete(q.inFlight, account)
	}
}

// InFlight is the account's operations in flight and the process's (for tests and metrics).
func (q *Quota) InFlight(account int64) (forAccount, total int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.inFlight[account], q.total
}
