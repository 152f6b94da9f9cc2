package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"valuator/internal/person"
	"valuator/internal/usage"
)

// The store implements person.Store.
var _ person.Store = (*DB)(nil)

// personKey is where a candidate is filed: its folded last name and the state of its first address.
func personKey(c person.Candidate) (last, state string) {
	last = person.FoldName(c.LastName)
	if last == "" {
		last = person.FoldName(person.ParseName(c.Name).Last)
	}
	switch {
	case c.FoundAtAddress != nil:
		state = c.FoundAtAddress.StateCode
	case len(c.CurrentAddresses) > 0:
		state = c.CurrentAddresses[0].StateCode
	case len(c.HistoricalAddrs) > 0:
		state = c.HistoricalAddrs[0].StateCode
	}
	return last, state
}

// storedCandidate is a candidate as the record column keeps it: the result and its name parts.
type storedCandidate struct {
	person.Result
	FirstName  string `json:"first_name"`
	MiddleName string `json:"middle_name"`
	LastName   string `json:"last_name"`
}

// ImportPeople adds or replaces people in the directory, skipping those who opted out. It returns how many were
// stored and how many were skipped.
func (db *DB) ImportPeople(ctx context.Context, source string, people []person.Candidate, at time.Time) (stored, optedOut int, err error) {
	err = db.tx(ctx, func(x q) error {
		stored, optedOut = 0, 0
		for _, c := range people {
			var n int
			if err := x.row(ctx, `SELECT COUNT(*) FROM person_optouts WHERE person_id = ?`, c.ID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				optedOut++
				continue
			}
			c.Source = source
			rec, err := json.Marshal(storedCandidate{Result: c.Result, FirstName: c.FirstName, MiddleName: c.MiddleName, LastName: c.LastName})
			if err != nil {
				return err
			}
			last, state := personKey(c)
			if _, err := x.exec(ctx, `INSERT INTO people (id, source, last_key, state_code, record, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET source = excluded.source,
				last_key = excluded.last_key, state_code = excluded.state_code, record = excluded.record,
				updated_at = excluded.updated_at`, c.ID, source, last, state, string(rec), x.t(at), x.t(at)); err != nil {
				return fmt.Errorf("store person %s: %w", c.ID, err)
			}
			stored++
		}
		return nil
	})
	return stored, optedOut, err
}

// CountPeople is how many people the directory holds.
func (db *DB) CountPeople(ctx context.Context) (int64, error) {
	var n int64
	err := db.q().row(ctx, `SELECT COUNT(*) FROM people`).Scan(&n)
	return n, err
}

// PeopleNamed is the directory's people with that folded last name whose address is in state (at most 500: a
// name and a state narrow it far below that in any real directory).
func (db *DB) PeopleNamed(ctx context.Context, lastKey, state string) ([]person.Candidate, error) {
	rows, err := db.q().query(ctx, `SELECT record FROM people WHERE last_key = ? AND state_code = ? ORDER BY id LIMIT 500`,
		lastKey, state)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []person.Candidate
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var sc storedCandidate
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			return nil, fmt.Errorf("person record: %w", err)
		}
		out = append(out, person.Candidate{Result: sc.Result, FirstName: sc.FirstName, MiddleName: sc.MiddleName, LastName: sc.LastName})
	}
	return out, rows.Err()
}

// RecordOptOutRequest writes a request to the opt-out log.
func (db *DB) RecordOptOutRequest(ctx context.Context, r person.OptOutRecord) error {
	x := db.w()
	_, err := x.exec(ctx, `INSERT INTO person_optout_requests (token_hash, listing_id, email_hash, query, client_ip, outcome,
		created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, nullable(r.TokenHash), nullable(r.ListingID), r.EmailHash,
		r.Query, r.ClientIP, r.Outcome, x.t(r.CreatedAt), nullTime(x, r.ExpiresAt))
	return err
}

// ConfirmOptOut uses an opt-out link: in one transaction, the link is marked used, its one listing is removed from
// the directory and its id, folded name and state are kept, so that no import brings it back and its name is left
// out of other people's associated people. It answers the removed listing; person.ErrOptOutLinkGone for a link that is
// unknown, expired or used. A listing already removed (another link of the same person) is removed again, which
// changes nothing.
func (db *DB) ConfirmOptOut(ctx context.Context, tokenHash string, now time.Time) (person.Candidate, error) {
	var listing person.Candidate
	err := db.tx(ctx, func(x q) error {
		var id int64
		var listingID string
		var expires dbTime
		err := x.row(ctx, `SELECT id, listing_id, expires_at FROM person_optout_requests WHERE token_hash = ?
			AND confirmed_at IS NULL`+forUpdate(x), tokenHash).Scan(&id, &listingID, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !now.Before(expires.Time)) {
			return person.ErrOptOutLinkGone
		}
		if err != nil {
			return err
		}
		var raw string
		err = x.row(ctx, `SELECT record FROM people WHERE id = ?`, listingID).Scan(&raw)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			listing = person.Candidate{Result: person.Result{ID: listingID}}
		case err != nil:
			return err
		default:
			var sc storedCandidate
			if err := json.Unmarshal([]byte(raw), &sc); err != nil {
				return fmt.Errorf("person record: %w", err)
			}
			listing = person.Candidate{Result: sc.Result, FirstName: sc.FirstName, MiddleName: sc.MiddleName, LastName: sc.LastName}
		}
		first, last := listing.FirstName, listing.LastName
		if last == "" {
			n := person.ParseName(listing.Name)
			first, last = n.First, n.Last
		}
		_, state := personKey(listing)
		if _, err := x.exec(ctx, `DELETE FROM people WHERE id = ?`, listingID); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `INSERT INTO person_optouts (person_id, created_at, name_key, state_code) VALUES (?, ?, ?, ?)
			ON CONFLICT (person_id) DO UPDATE SET name_key = excluded.name_key, state_code = excluded.state_code`,
			listingID, x.t(now), person.NameKey(first, last), state); err != nil {
			return err
		}
		_, err = x.exec(ctx, `UPDATE person_optout_requests SET confirmed_at = ? WHERE id = ?`, x.t(now), id)
		return err
	})
	return listing, err
}

// OptedOutNames is which of the folded names (person.NameKey) belong to people who opted out in one of states.
func (db *DB) OptedOutNames(ctx context.Context, states, names []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(states) == 0 || len(names) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(states)+len(names))
	for _, s := range states {
		args = append(args, s)
	}
	for _, n := range names {
		args = append(args, n)
	}
	rows, err := db.q().query(ctx, `SELECT DISTINCT name_key FROM person_optouts WHERE state_code IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", ")+`) AND name_key IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

func insertAudit(ctx context.Context, x q, userID int64, a person.Audit) error {
	_, err := x.exec(ctx, `INSERT INTO person_lookups (user_id, api_key_id, api_key_name, purpose, query, outcome, credits,
		result_id, request_id, client_request_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, userID, a.APIKeyID,
		a.APIKeyName, a.Purpose, a.Query, a.Outcome, a.Credits, a.ResultID, a.RequestID, nullable(a.ClientRequestID),
		x.t(a.CreatedAt))
	return err
}

// MeterPersonLookup charges a found person and records the call and its audit row, in one transaction.
func (db *DB) MeterPersonLookup(ctx context.Context, rec usage.Record, cost int64, description string, a person.Audit) (int64, error) {
	var balance int64
	err := db.tx(ctx, func(x q) error {
		var err error
		if balance, err = meter(ctx, x, rec, cost, description); err != nil {
			return err
		}
		a.Credits = cost
		return insertAudit(ctx, x, rec.UserID, a)
	})
	return balance, err
}

// RecordPersonLookup records a lookup that cost nothing (not found, bad input, refused, provider failure) and
// its audit row, in one transaction.
func (db *DB) RecordPersonLookup(ctx context.Context, rec usage.Record, a person.Audit) error {
	return db.tx(ctx, func(x q) error {
		rec.CreditsUsed = 0
		if _, err := insertUsage(ctx, x, rec); err != nil {
			return err
		}
		a.Credits = 0
		return insertAudit(ctx, x, rec.UserID, a)
	})
}

// PersonMisses is how many of the user's lookups since then found nobody, and when the oldest of them was.
func (db *DB) PersonMisses(ctx context.Context, userID int64, since time.Time) (int, time.Time, error) {
	x := db.q()
	var n int
	var oldest dbTime
	err := x.row(ctx, `SELECT COUNT(*), MIN(created_at) FROM person_lookups WHERE user_id = ? AND outcome = ?
		AND created_at >= ?`, userID, "not_found", x.t(since)).Scan(&n, &oldest)
	return n, oldest.Time, err
}

// PersonAudits is a page of the user's audit log matching f, newest first, older than before (0: from the newest).
func (db *DB) PersonAudits(ctx context.Context, userID int64, f person.AuditFilter, before int64, limit int) ([]person.Audit, bool, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	x := db.q()
	where, args := "user_id = ? AND id < ?", []any{userID, before}
	if !f.From.IsZero() {
		where, args = where+" AND created_at >= ?", append(args, x.t(f.From))
	}
	if !f.To.IsZero() {
		where, args = where+" AND created_at < ?", append(args, x.t(f.To.AddDate(0, 0, 1)))
	}
	if f.Purpose != "" {
		where, args = where+" AND purpose = ?", append(args, f.Purpose)
	}
	rows, err := x.query(ctx, `SELECT id, api_key_id, api_key_name, purpose, query, outcome, credits, result_id, request_id,
		client_request_id, created_at FROM person_lookups WHERE `+where+` ORDER BY id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []person.Audit
	for rows.Next() {
		var a person.Audit
		var at dbTime
		var client sql.NullString
		if err := rows.Scan(&a.ID, &a.APIKeyID, &a.APIKeyName, &a.Purpose, &a.Query, &a.Outcome, &a.Credits, &a.ResultID,
			&a.RequestID, &client, &at); err != nil {
			return nil, false, err
		}
		a.CreatedAt, a.ClientRequestID = at.Time, client.String
		out = append(out, a)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}

// DemoResident is one of the demo market's residents (source "demo"), picked at random; person.ErrNotFound when
// the directory holds none.
func (db *DB) DemoResident(ctx context.Context) (person.Candidate, error) {
	x := db.q()
	var n int64
	if err := x.row(ctx, `SELECT COUNT(*) FROM people WHERE source = ?`, "demo").Scan(&n); err != nil {
		return person.Candidate{}, err
	}
	if n == 0 {
		return person.Candidate{}, person.ErrNotFound
	}
	var raw string
	if err := x.row(ctx, `SELECT record FROM people WHERE source = ? ORDER BY id LIMIT 1 OFFSET ?`, "demo",
		rand.Int64N(n)).Scan(&raw); err != nil {
		return person.Candidate{}, err
	}
	var sc storedCandidate
	if err := json.Unmarshal([]byte(raw), &sc); err != nil {
		return person.Candidate{}, fmt.Errorf("person record: %w", err)
	}
	return person.Candidate{Result: sc.Result, FirstName: sc.FirstName, MiddleName: sc.MiddleName, LastName: sc.LastName}, nil
}
