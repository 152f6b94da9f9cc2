package person

import "context"

// DirectoryStore is what the local directory needs from the database (store.DB).
type DirectoryStore interface {
	// PeopleNamed is the people with that folded last name whose address is in state.
	PeopleNamed(ctx context.Context, lastKey, state string) ([]Candidate, error)
}

// Directory is the local directory provider: people loaded with `valuator import people` (and, in development,
// the demo market's residents), matched by Match.
type Directory struct {
	Store DirectoryStore
}

// Name is "directory".
func (Directory) Name() string { return "directory" }

// Find matches the query against the people filed under its last name and state.
func (d Directory) Find(ctx context.Context, q Query) (Result, error) {
	q, err := q.Validate()
	if err != nil {
		return Result{}, err
	}
	cands, err := d.Store.PeopleNamed(ctx, FoldName(ParseName(q.Name).Last), q.StateCode)
	if err != nil {
		return Result{}, err
	}
	return Match(q, cands)
}
