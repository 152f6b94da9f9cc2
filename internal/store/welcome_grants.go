package store

import (
	"context"
	"fmt"

	"valuator/internal/account"
)

// welcomeBackfillBatch is how many accounts backfillWelcomeGrants reads and enters at a time (a variable so that a
// test can make batches small).
var welcomeBackfillBatch = 500

// backfillWelcomeGrants enters the mailbox of every account in welcome_grants, so that the accounts made before the
// table existed count as having had their welcome credits: each did get them, or an earlier account of its address
// did. The mailbox key is computed in Go (account.MailboxKey), which SQL cannot do, so this runs after the
// migrations rather than in one.
//
// It runs at every start, and that is safe: ON CONFLICT DO NOTHING leaves a mailbox that is already there (with the
// account that received its credits) as it is, so a second run changes nothing, and two instances starting at
// once cannot disagree. Running every time also enters the accounts that an instance of the previous release made
// while this one was starting. The accounts are read in batches in id order, so memory stays bounded whatever the
// number of accounts, and a mailbox shared by several old accounts names the oldest. Closed accounts are included:
// their addresses had their credits too.
func (db *DB) backfillWelcomeGrants(ctx context.Context) error {
	type owner struct {
		id      int64
		email   string
		created dbTime
	}
	batch := make([]owner, 0, welcomeBackfillBatch)
	for after := int64(0); ; {
		batch = batch[:0]
		rows, err := db.q().query(ctx, `SELECT id, email, created_at FROM users WHERE id > ? ORDER BY id LIMIT ?`,
			after, welcomeBackfillBatch)
		if err != nil {
			return fmt.Errorf("welcome grants backfill: %w", err)
		}
		for rows.Next() {
			var o owner
			if err := rows.Scan(&o.id, &o.email, &o.created); err != nil {
				rows.Close()
				return fmt.Errorf("welcome grants backfill: %w", err)
			}
			batch = append(batch, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("welcome grants backfill: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		err = db.tx(ctx, func(x q) error {
			for _, o := range batch {
				mailbox := account.MailboxKey(o.email)
				if mailbox == "" {
					continue
				}
				if _, err := x.exec(ctx, `INSERT INTO welcome_grants (mailbox_hash, user_id, created_at)
					VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, emailKeyHash(mailbox), o.id, x.t(o.created.Time)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("welcome grants backfill: %w", err)
		}
		if len(batch) < welcomeBackfillBatch {
			return nil
		}
		after = batch[len(batch)-1].id
	}
}
