package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"valuator/internal/apikey"
)

// The store implements apikey.Store.
var _ apikey.Store = (*DB)(nil)

// CreateAPIKey stores a key, unless the user already has maxKeys live keys (apikey.ErrTooManyKeys). The count and the
// insert are one transaction after lockUser, so that parallel requests cannot pass the limit together.
func (db *DB) CreateAPIKey(ctx context.Context, userID int64, name, hash string, sealed []byte, preview string,
	rateLimit, maxKeys int, at time.Time) (apikey.Stored, error) {
	k := apikey.Stored{UserID: userID, Name: name, Sealed: sealed, Preview: preview, RateLimit: rateLimit, CreatedAt: at}
	err := db.tx(ctx, func(x q) error {
		if _, err := lockUser(ctx, x, userID); err != nil {
			return err
		}
		var n int
		if err := x.row(ctx, `SELECT count(*) FROM api_keys WHERE user_id = ? AND deleted_at IS NULL`, userID).
			Scan(&n); err != nil {
			return err
		}
		if n >= maxKeys {
			return apikey.ErrTooManyKeys
		}
		return x.row(ctx, `INSERT INTO api_keys (user_id, name, key_hash, key_enc, key_preview, rate_limit, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, userID, name, hash, sealed, preview, rateLimit, x.t(at)).Scan(&k.ID)
	})
	return k, err
}

// APIKeys lists a user's live keys, newest first.
func (db *DB) APIKeys(ctx context.Context, userID int64) ([]apikey.Stored, error) {
	rows, err := db.q().query(ctx, `SELECT id, user_id, name, key_enc, key_preview, rate_limit, created_at, last_used_at
		FROM api_keys WHERE user_id = ? AND deleted_at IS NULL ORDER BY id DESC`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []apikey.Stored
	for rows.Next() {
		var k apikey.Stored
		var created, used dbTime
		if err := rows.Scan(&k.ID, &k.UserID, &k.Name, &k.Sealed, &k.Preview, &k.RateLimit, &created, &used); err != nil {
			return nil, err
		}
		k.CreatedAt = created.Time
		if used.Valid {
			t := used.Time
			k.LastUsedAt = &t
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// DeleteAPIKey deletes a user's live key; ErrNoKey when the user has no such key (another user's key included).
func (db *DB) DeleteAPIKey(ctx context.Context, userID, keyID int64, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE api_keys SET deleted_at = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL`,
		x.t(at), keyID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apikey.ErrNoKey
	}
	return nil
}

// KeyOwner finds the live key with this hash and its open account. It reads the database on every call, so a
// deleted key stops working at once on every instance.
func (db *DB) KeyOwner(ctx context.Context, hash string) (apikey.Owner, error) {
	var o apikey.Owner
	var suspended dbTime
	err := db.q().row(ctx, `SELECT k.id, k.name, k.rate_limit, u.id, u.plan, u.suspended_at FROM api_keys k
		JOIN users u ON u.id = k.user_id
		WHERE k.key_hash = ? AND k.deleted_at IS NULL AND u.closed_at IS NULL`, hash).
		Scan(&o.KeyID, &o.KeyName, &o.RateLimit, &o.UserID, &o.Plan, &suspended)
	o.Suspended = suspended.Valid
	if errors.Is(err, sql.ErrNoRows) {
		return o, apikey.ErrNoKey
	}
	return o, err
}

// TouchAPIKeys records when keys were last used, in one statement per key; it only moves the time forward, so
// instances flushing in any order agree.
func (db *DB) TouchAPIKeys(ctx context.Context, used map[int64]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return db.tx(ctx, func(x q) error {
		for id, at := range used {
			if _, err := x.exec(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND
				(last_used_at IS NULL OR last_used_at < ?)`, x.t(at), id, x.t(at)); err != nil {
				return err
			}
		}
		return nil
	})
}
