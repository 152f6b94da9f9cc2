package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"valuator/internal/person"
	"valuator/internal/usage"
)

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

// OptOut removes the people that match q at its address from the directory and keeps each one's id so that no
// later import brings them back. It returns how many were removed.
func (db *DB) OptOut(ctx context.Context, who person.Query, at time.Time) (int, error) {
	removed := 0
	last := person.FoldName(person.ParseName(who.Name).Last)
	cands, err := db.PeopleNamed(ctx, last, who.StateCode)
	if err != nil {
		return 0, err
	}
	p := person.ParseName(who.Name)
	ids := []string{person.CandidateID(p.First, p.Last, person.Address{StreetLine1: who.StreetLine1, City: who.City,
		StateCode: who.StateCode, PostalCode: who.PostalCode})}
	for _, c := range cands {
		if person.Score(who, c) >= person.Threshold {
			ids = append(ids, c.ID)
		}
	}
	err = db.tx(ctx, func(x q) error {
		removed = 0
		for _, id := range ids {
			res, err := x.exec(ctx, `DELETE FROM people WHERE id = ?`, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				removed++
			}
			if _, err := x.exec(ctx, `INSERT INTO person_optouts (person_id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
				id, x.t(at)); err != nil {
				return err
			}
		}
		return nil
	})
	return removed, err
}

// PersonAudit is one row of the person lookup audit log.
type PersonAudit struct {
	ID        int64     `json:"id"`
	APIKeyID  *int64    `json:"apiKeyId"`
	Purpose   string    `json:"purpose"`
	Query     string    `json:"query"`
	Outcome   string    `json:"outcome"`
	ResultID  string    `json:"resultId"`
	RequestID string    `json:"requestId"`
	CreatedAt time.Time `json:"createdAt"`
}

func insertAudit(ctx context.Context, x q, userID int64, a PersonAudit) error {
	_, err := x.exec(ctx, `INSERT INTO person_lookups (user_id, api_key_id, purpose, query, outcome, result_id, request_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, userID, a.APIKeyID, a.Purpose, a.Query, a.Outcome, a.ResultID, a.RequestID, x.t(a.CreatedAt))
	return err
}

// MeterPersonLookup charges a found person and records the call and its audit row, in one transaction.
func (db *DB) MeterPersonLookup(ctx context.Context, rec usage.Record, cost int64, description string, a PersonAudit) (int64, error) {
	var balance int64
	err := db.tx(ctx, func(x q) error {
		var err error
		if balance, err = meter(ctx, x, rec, cost, description); err != nil {
			return err
		}
		return insertAudit(ctx, x, rec.UserID, a)
	})
	return balance, err
}

// RecordPersonLookup records a lookup that cost nothing (not found, bad input, refused, provider failure) and
// its audit row, in one transaction.
func (db *DB) RecordPersonLookup(ctx context.Context, rec usage.Record, a PersonAudit) error {
	return db.tx(ctx, func(x q) error {
		rec.CreditsUsed = 0
		if _, err := insertUsage(ctx, x, rec); err != nil {
			return err
		}
		return insertAudit(ctx, x, rec.UserID, a)
	})
}

// PersonAudits is a page of the user's audit log, newest first, older than before (0: from the newest).
func (db *DB) PersonAudits(ctx context.Context, userID, before int64, limit int) ([]PersonAudit, bool, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := db.q().query(ctx, `SELECT id, api_key_id, purpose, query, outcome, result_id, request_id, created_at
		FROM person_lookups WHERE user_id = ? AND id < ? ORDER BY id DESC LIMIT ?`, userID, before, limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []PersonAudit
	for rows.Next() {
		var a PersonAudit
		var at dbTime
		if err := rows.Scan(&a.ID, &a.APIKeyID, &a.Purpose, &a.Query, &a.Outcome, &a.ResultID, &a.RequestID, &at); err != nil {
			return nil, false, err
		}
		a.CreatedAt = at.Time
		out = append(out, a)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, rows.Err()
}
