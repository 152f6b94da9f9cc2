package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"valuator/internal/notify"
	"valuator/internal/text"
)

// The store implements notify.Outbox.
var _ notify.Outbox = (*DB)(nil)

// insertMail queues m in the caller's transaction; queued is false when a mail with its key was queued before
// (then nothing changes: the key is what makes an email happen once).
func insertMail(ctx context.Context, x q, m notify.Mail) (queued bool, err error) {
	res, err := x.exec(ctx, `INSERT INTO mail_outbox (kind, dedupe_key, user_id, recipient, reply_to, topic, payload,
			created_at, next_attempt_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
		m.Kind, m.Key, nullID(m.UserID), nullStr(m.To), nullStr(m.ReplyTo), nullStr(m.Topic), string(m.Payload),
		x.t(m.CreatedAt), x.t(m.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("queue %s mail: %w", m.Kind, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// QueueMail queues one mail; false when its key was queued before.
func (db *DB) QueueMail(ctx context.Context, m notify.Mail) (bool, error) {
	var queued bool
	err := db.tx(ctx, func(x q) error {
		var err error
		queued, err = insertMail(ctx, x, m)
		return err
	})
	return queued, err
}

// ClaimMail takes up to limit mails due at now, oldest first, each for lease (see notify.Outbox). A mail another
// sender claimed between the read and the claim is left to it.
func (db *DB) ClaimMail(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]notify.Queued, error) {
	r := db.q()
	ids, err := r.ids(ctx, `SELECT id FROM mail_outbox WHERE sent_at IS NULL AND next_attempt_at <= ?
		ORDER BY id LIMIT ?`, r.t(now), limit)
	if err != nil {
		return nil, err
	}
	var out []notify.Queued
	for _, id := range ids {
		var m notify.Queued
		var claimed bool
		err := db.tx(ctx, func(x q) error {
			res, err := x.exec(ctx, `UPDATE mail_outbox SET next_attempt_at = ?, attempts = attempts + 1
				WHERE id = ? AND sent_at IS NULL AND next_attempt_at <= ?`, x.t(now.Add(lease)), id, x.t(now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return nil
			}
			claimed = true
			m, err = queuedMail(ctx, x, id)
			return err
		})
		if err != nil {
			return out, err
		}
		if claimed {
			out = append(out, m)
		}
	}
	return out, nil
}

// queuedMail reads a mail with its account's state.
func queuedMail(ctx context.Context, x q, id int64) (notify.Queued, error) {
	var m notify.Queued
	var userID sql.NullInt64
	var to, replyTo, topic, email, name sql.NullString
	var created, closed dbTime
	var account, usage, weekly sql.NullBool
	err := x.row(ctx, `SELECT o.id, o.kind, o.user_id, o.recipient, o.reply_to, o.topic, o.payload, o.created_at,
			o.attempts, u.email, u.full_name, u.closed_at, u.notify_email, u.notify_usage, u.notify_weekly
		FROM mail_outbox o LEFT JOIN users u ON u.id = o.user_id WHERE o.id = ?`, id).
		Scan(&m.ID, &m.Kind, &userID, &to, &replyTo, &topic, &m.Payload, &created, &m.Attempts, &email, &name, &closed,
			&account, &usage, &weekly)
	if err != nil {
		return m, err
	}
	m.UserID, m.To, m.ReplyTo, m.Topic = userID.Int64, to.String, replyTo.String, topic.String
	m.CreatedAt, m.AccountEmail, m.FullName = created.Time, email.String, name.String
	m.Open = email.Valid && !closed.Valid
	switch m.Topic {
	case notify.TopicAccount:
		m.Wanted = account.Bool
	case notify.TopicUsage:
		m.Wanted = usage.Bool
	case notify.TopicWeekly:
		m.Wanted = weekly.Bool
	}
	return m, nil
}

// MailDone records a claimed mail's end.
func (db *DB) MailDone(ctx context.Context, id int64, outcome string, at time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `UPDATE mail_outbox SET sent_at = ?, outcome = ? WHERE id = ? AND sent_at IS NULL`,
		x.t(at), text.Sanitize(text.Truncate(outcome, 500)), id)
	return err
}

// MailRetry puts a claimed mail back for another attempt at next.
func (db *DB) MailRetry(ctx context.Context, id int64, problem string, next time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `UPDATE mail_outbox SET next_attempt_at = ?, last_error = ? WHERE id = ? AND sent_at IS NULL`,
		x.t(next), text.Sanitize(text.Truncate(problem, 500)), id)
	return err
}

// PurgeMail deletes the mails dealt with before cutoff (they hold contact messages and the like; the outbox is
// not an archive).
func (db *DB) PurgeMail(ctx context.Context, cutoff time.Time) (int, error) {
	x := db.w()
	res, err := x.exec(ctx, `DELETE FROM mail_outbox WHERE sent_at IS NOT NULL AND sent_at < ?`, x.t(cutoff))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// MailOutcome is a queued mail's key and how it ended ("" while it waits), for tests and operators.
type MailOutcome struct {
	Key, Kind, Outcome, LastError string
	Attempts                      int
}

// MailOutcomes lists the outbox, oldest first.
func (db *DB) MailOutcomes(ctx context.Context) ([]MailOutcome, error) {
	rows, err := db.q().query(ctx, `SELECT dedupe_key, kind, outcome, COALESCE(last_error, ''), attempts
		FROM mail_outbox ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MailOutcome
	for rows.Next() {
		var m MailOutcome
		if err := rows.Scan(&m.Key, &m.Kind, &m.Outcome, &m.LastError, &m.Attempts); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// RememberDevice records that the account signed in from d, in one transaction with its alert: when d is new to
// the account and alert is set, the sign-in alert is queued. It reports whether d was new. A device seen before
// only has its last use updated.
func (db *DB) RememberDevice(ctx context.Context, userID int64, d notify.Device, at time.Time, alert bool) (bool, error) {
	var isNew bool
	err := db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `INSERT INTO known_devices (user_id, device_hash, first_seen, last_seen)
			VALUES (?, ?, ?, ?) ON CONFLICT (user_id, device_hash) DO NOTHING`, userID, d.Hash, x.t(at), x.t(at))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if isNew = n == 1; !isNew {
			_, err := x.exec(ctx, `UPDATE known_devices SET last_seen = ? WHERE user_id = ? AND device_hash = ?`,
				x.t(at), userID, d.Hash)
			return err
		}
		if alert {
			_, err = insertMail(ctx, x, notify.NewSignIn(userID, d, at))
		}
		return err
	})
	return isNew, err
}

// DisableNotification turns one notification switch of an open account off (an unsubscribe link).
// account.ErrNotFound when the account is closed or does not exist.
func (db *DB) DisableNotification(ctx context.Context, userID int64, topic string, at time.Time) error {
	column := map[string]string{notify.TopicAccount: "notify_email", notify.TopicUsage: "notify_usage",
		notify.TopicWeekly: "notify_weekly"}[topic]
	if column == "" {
		return fmt.Errorf("no notification switch %q", topic)
	}
	x := db.w()
	res, err := x.exec(ctx, `UPDATE users SET `+column+` = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
		false, x.t(at), userID)
	return expectOne(res, err)
}

// WeeklySubscribers is up to limit open accounts with the weekly report on, by id, after afterID.
func (db *DB) WeeklySubscribers(ctx context.Context, afterID int64, limit int) ([]int64, error) {
	rows, err := db.q().query(ctx, `SELECT id FROM users WHERE notify_weekly = ? AND closed_at IS NULL AND id > ?
		ORDER BY id LIMIT ?`, true, afterID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// WeeklyActivity is an account's use in [start, end): calls, successful calls, credits and the top endpoints.
func (db *DB) WeeklyActivity(ctx context.Context, userID int64, start, end time.Time, top int) (notify.WeeklyReport, error) {
	x := db.q()
	r := notify.WeeklyReport{WeekStart: start.UTC(), WeekEnd: end.UTC()}
	err := x.row(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN response_status BETWEEN 200 AND 299 THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(credits_used), 0)
		FROM usage_records WHERE user_id = ? AND created_at >= ? AND created_at < ?`, userID, x.t(start), x.t(end)).
		Scan(&r.Calls, &r.Successful, &r.CreditsUsed)
	if err != nil || r.Calls == 0 {
		return r, err
	}
	rows, err := x.query(ctx, `SELECT endpoint, COUNT(*) FROM usage_records
		WHERE user_id = ? AND created_at >= ? AND created_at < ? GROUP BY endpoint ORDER BY 2 DESC, 1 LIMIT ?`,
		userID, x.t(start), x.t(end), top)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		var e notify.EndpointCount
		if err := rows.Scan(&e.Endpoint, &e.Calls); err != nil {
			return r, err
		}
		r.TopEndpoints = append(r.TopEndpoints, e)
	}
	return r, rows.Err()
}
