package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"valuator/internal/account"
	"valuator/internal/billing"
	"valuator/internal/contact"
	"valuator/internal/credit"
	"valuator/internal/notify"
)

// The store implements contact.Store.
var _ contact.Store = (*DB)(nil)

// The store implements account.Store.
var _ account.Store = (*DB)(nil)

const userColumns = `id, email, full_name, company, plan, credits, total_credits_earned,
	notify_email, notify_usage, notify_weekly, notify_marketing, created_at, overage_limit_cents, role, suspended_at`

func scanUser(sc interface{ Scan(...any) error }, extra ...any) (account.User, error) {
	var u account.User
	var created dbTime
	var limit *int64
	var suspended dbTime
	dest := append([]any{&u.ID, &u.Email, &u.FullName, &u.Company, &u.Plan, &u.Credits, &u.TotalCreditsEarned,
		&u.Notifications.EmailNotifications, &u.Notifications.UsageAlerts, &u.Notifications.WeeklyReports,
		&u.Notifications.MarketingEmails, &created, &limit, &u.Role, &suspended}, extra...)
	if err := sc.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return account.User{}, account.ErrNotFound
		}
		return account.User{}, err
	}
	u.CreatedAt = created.Time
	u.SuspendedAt = suspended.ptr()
	u.CreditBalance = billing.BalanceOf(billing.Get(u.Plan), u.Credits, limit)
	return u, nil
}

// CreateUser inserts the account and grants its sign-up credits through the ledger, in one transaction. With a
// MailboxKey, the credits go to the mailbox once: the transaction enters the mailbox in welcome_grants and grants
// them only if it went in. The primary key decides between parallel sign-ups of one mailbox (jane+1@ and jane+2@
// at once): on PostgreSQL the second insert waits for the first transaction and then does nothing; on SQLite the
// transactions run one at a time.
func (db *DB) CreateUser(ctx context.Context, nu account.NewUser) (account.User, account.Welcome, error) {
	var u account.User
	var welcome account.Welcome
	err := db.tx(ctx, func(x q) error {
		var id int64
		// The first billing period starts at sign-up; the sign-up grant is its Free plan credits.
		period := billing.PeriodAt(nu.CreatedAt, nu.CreatedAt)
		err := x.row(ctx, `INSERT INTO users (email, email_key, password_hash, full_name, notify_email, notify_usage,
				notify_weekly, notify_marketing, created_at, updated_at, period_anchor, period_start, period_end)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			nu.Email, nu.EmailKey, nu.PasswordHash, nu.FullName,
			nu.Notifications.EmailNotifications, nu.Notifications.UsageAlerts, nu.Notifications.WeeklyReports,
			nu.Notifications.MarketingEmails, x.t(nu.CreatedAt), x.t(nu.CreatedAt), x.t(period.Start),
			x.t(period.Start), x.t(period.End)).Scan(&id)
		if isUniqueViolation(err) {
			return account.ErrEmailTaken
		}
		if err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
		credits, note := nu.SignupCredits, nu.SignupNote
		if credits > 0 && nu.MailboxKey != "" {
			res, err := x.exec(ctx, `INSERT INTO welcome_grants (mailbox_hash, user_id, created_at) VALUES (?, ?, ?)
				ON CONFLICT DO NOTHING`, emailKeyHash(nu.MailboxKey), id, x.t(nu.CreatedAt))
			if err != nil {
				return fmt.Errorf("record the welcome grant: %w", err)
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				credits, note = 0, nu.MailboxNote
			}
		}
		welcome.Credits = credits
		if credits == 0 && note != "" {
			welcome.Message = &note
		}
		if credits > 0 || note != "" {
			description := note
			if description == "" {
				description = "Welcome bonus: free credits"
			}
			if _, err := postCredit(ctx, x, credit.Entry{
				UserID: id, Amount: credits, Kind: credit.KindSignupBonus,
				Description: description, Reference: fmt.Sprintf("signup:%d", id), CreatedAt: nu.CreatedAt,
			}, noFloor); err != nil {
				return err
			}
		}
		u, err = userByID(ctx, x, id)
		return err
	})
	if err != nil {
		return account.User{}, account.Welcome{}, err
	}
	return u, welcome, nil
}

func userByID(ctx context.Context, x q, id int64) (account.User, error) {
	return scanUser(x.row(ctx, `SELECT `+userColumns+` FROM users WHERE id = ? AND closed_at IS NULL`, id))
}

// UserByID returns an open account.
func (db *DB) UserByID(ctx context.Context, id int64) (account.User, error) {
	return userByID(ctx, db.q(), id)
}

// CredentialByEmail returns the open account with this email key and its password hash.
func (db *DB) CredentialByEmail(ctx context.Context, emailKey string) (account.Credential, error) {
	var c account.Credential
	u, err := scanUser(db.q().row(ctx, `SELECT `+userColumns+`, password_hash FROM users
		WHERE email_key = ? AND closed_at IS NULL`, emailKey), &c.PasswordHash)
	c.User = u
	return c, err
}

// CredentialByID returns the open account and its password hash.
func (db *DB) CredentialByID(ctx context.Context, id int64) (account.Credential, error) {
	var c account.Credential
	u, err := scanUser(db.q().row(ctx, `SELECT `+userColumns+`, password_hash FROM users
		WHERE id = ? AND closed_at IS NULL`, id), &c.PasswordHash)
	c.User = u
	return c, err
}

// UpdateProfile changes name, company and email of an open account.
func (db *DB) UpdateProfile(ctx context.Context, id int64, p account.ProfileUpdate) (account.User, error) {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE users SET full_name = ?, company = ?, email = ?, email_key = ?, updated_at = ?
		WHERE id = ? AND closed_at IS NULL`, p.FullName, p.Company, p.Email, p.EmailKey, x.t(p.At), id)
	if isUniqueViolation(err) {
		return account.User{}, account.ErrEmailTaken
	}
	if err := expectOne(res, err); err != nil {
		return account.User{}, err
	}
	return userByID(ctx, x, id)
}

// UpdateNotifications replaces the email preferences of an open account.
func (db *DB) UpdateNotifications(ctx context.Context, id int64, n account.Notifications, at time.Time) (account.User, error) {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE users SET notify_email = ?, notify_usage = ?, notify_weekly = ?,
		notify_marketing = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
		n.EmailNotifications, n.UsageAlerts, n.WeeklyReports, n.MarketingEmails, x.t(at), id)
	if err := expectOne(res, err); err != nil {
		return account.User{}, err
	}
	return userByID(ctx, x, id)
}

// SetPassword replaces the password hash, revokes every other session and every outstanding reset link, in one
// transaction: a link sent before the change must not be able to undo it.
func (db *DB) SetPassword(ctx context.Context, id int64, hash string, keepSessionID int64, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
			hash, x.t(at), id)
		if err := expectOne(res, err); err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id <> ? AND revoked_at IS NULL`,
			x.t(at), id, keepSessionID); err != nil {
			return err
		}
		_, err = x.exec(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, x.t(at), id)
		return err
	})
}

// CreateSession stores a new session.
func (db *DB) CreateSession(ctx context.Context, s account.Session) (account.Session, error) {
	x := db.w()
	err := x.row(ctx, `INSERT INTO sessions (user_id, token_hash, created_at, expires_at, user_agent, ip)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		s.UserID, s.TokenHash, x.t(s.CreatedAt), x.t(s.ExpiresAt), s.UserAgent, s.IP).Scan(&s.ID)
	if err != nil {
		return account.Session{}, fmt.Errorf("insert session: %w", err)
	}
	return s, nil
}

// SessionUser returns the live session with this token hash and its open account.
func (db *DB) SessionUser(ctx context.Context, tokenHash string, now time.Time) (account.Session, account.User, error) {
	x := db.q()
	var s account.Session
	var created, expires dbTime
	u, err := scanUser(x.row(ctx, `SELECT u.id, u.email, u.full_name, u.company, u.plan, u.credits,
			u.total_credits_earned, u.notify_email, u.notify_usage, u.notify_weekly, u.notify_marketing, u.created_at,
			u.overage_limit_cents, u.role, u.suspended_at, s.id, s.created_at, s.expires_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND u.closed_at IS NULL`,
		tokenHash, x.t(now)), &s.ID, &created, &expires)
	if err != nil {
		return account.Session{}, account.User{}, err
	}
	s.UserID, s.TokenHash, s.CreatedAt, s.ExpiresAt = u.ID, tokenHash, created.Time, expires.Time
	return s, u, nil
}

// RevokeSession ends the session with this token hash.
func (db *DB) RevokeSession(ctx context.Context, tokenHash string, at time.Time) error {
	x := db.w()
	res, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL`,
		x.t(at), tokenHash)
	return expectOne(res, err)
}

// CreatePasswordReset stores a reset token hash.
func (db *DB) CreatePasswordReset(ctx context.Context, userID int64, tokenHash string, createdAt, expiresAt time.Time) error {
	x := db.w()
	_, err := x.exec(ctx, `INSERT INTO password_resets (user_id, token_hash, created_at, expires_at)
		VALUES (?, ?, ?, ?)`, userID, tokenHash, x.t(createdAt), x.t(expiresAt))
	return err
}

// ResetTokenUser returns the open account of an unused, unexpired reset token. It only reads; ResetPassword
// uses the token.
func (db *DB) ResetTokenUser(ctx context.Context, tokenHash string, now time.Time) (account.User, error) {
	x := db.q()
	return scanUser(x.row(ctx, `SELECT u.id, u.email, u.full_name, u.company, u.plan, u.credits,
			u.total_credits_earned, u.notify_email, u.notify_usage, u.notify_weekly, u.notify_marketing, u.created_at,
			u.overage_limit_cents, u.role, u.suspended_at
		FROM password_resets r JOIN users u ON u.id = r.user_id
		WHERE r.token_hash = ? AND r.used_at IS NULL AND r.expires_at > ? AND u.closed_at IS NULL`,
		tokenHash, x.t(now)))
}

// ResetPassword uses a reset token once and sets the password, in one transaction: the conditional UPDATE marks
// the token used only if it is unused and unexpired, so two concurrent uses cannot both succeed.
func (db *DB) ResetPassword(ctx context.Context, tokenHash, newHash string, now time.Time) (int64, error) {
	var userID int64
	err := db.tx(ctx, func(x q) error {
		err := x.row(ctx, `UPDATE password_resets SET used_at = ?
			WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id`,
			x.t(now), tokenHash, x.t(now)).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return account.ErrNotFound
		}
		if err != nil {
			return err
		}
		res, err := x.exec(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND closed_at IS NULL`,
			newHash, x.t(now), userID)
		if err := expectOne(res, err); err != nil {
			return err
		}
		// Every session is signed out and every other outstanding link stops working.
		if _, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`,
			x.t(now), userID); err != nil {
			return err
		}
		_, err = x.exec(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`,
			x.t(now), userID)
		return err
	})
	return userID, err
}

// CloseUser closes an open account: the email is freed (and remembered in closed_emails), sessions and reset
// links are revoked, and the remaining balance is forfeited through the ledger (terms of service), all in one
// transaction.
func (db *DB) CloseUser(ctx context.Context, id int64, at time.Time) error {
	return db.tx(ctx, func(x q) error { return closeUser(ctx, x, id, at) })
}

// closeUser is CloseUser in the caller's transaction (an operator's close writes its audit row in the same one).
func closeUser(ctx context.Context, x q, id int64, at time.Time) error {
	var balance int64
	var emailKey string
	err := x.row(ctx, `SELECT credits, email_key FROM users WHERE id = ? AND closed_at IS NULL`, id).Scan(&balance, &emailKey)
	if errors.Is(err, sql.ErrNoRows) {
		return account.ErrNotFound
	}
	if err != nil {
		return err
	}
	// The same address may have been closed before (sign up, close, sign up again, close again).
	if _, err := x.exec(ctx, `INSERT INTO closed_emails (email_hash, closed_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		emailKeyHash(emailKey), x.t(at)); err != nil {
		return fmt.Errorf("remember the closed email: %w", err)
	}
	if balance > 0 {
		if _, err := postCredit(ctx, x, credit.Entry{UserID: id, Amount: -balance, Kind: credit.KindForfeit,
			Description: "Account closed: remaining credits forfeited", Reference: fmt.Sprintf("close:%d", id),
			CreatedAt: at}, noFloor); err != nil {
			return err
		}
	}
	if _, err := x.exec(ctx, `UPDATE users SET closed_at = ?, email_key = NULL, updated_at = ? WHERE id = ?`,
		x.t(at), x.t(at), id); err != nil {
		return err
	}
	if _, err := x.exec(ctx, `UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`,
		x.t(at), id); err != nil {
		return err
	}
	_, err = x.exec(ctx, `UPDATE password_resets SET used_at = ? WHERE user_id = ? AND used_at IS NULL`, x.t(at), id)
	return err
}

// EmailClosedBefore reports whether an account with this email key was closed.
func (db *DB) EmailClosedBefore(ctx context.Context, emailKey string) (bool, error) {
	var n int
	err := db.q().row(ctx, `SELECT COUNT(*) FROM closed_emails WHERE email_hash = ?`, emailKeyHash(emailKey)).Scan(&n)
	return n > 0, err
}

// emailKeyHash is how closed_emails keeps an address and welcome_grants a mailbox: the SHA-256 of its email key
// (or mailbox key), hex.
func emailKeyHash(emailKey string) string {
	sum := sha256.Sum256([]byte(emailKey))
	return hex.EncodeToString(sum[:])
}

// expectOne turns "no row changed" into account.ErrNotFound.
func expectOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return account.ErrNotFound
	}
	return nil
}

// CreateContactMessage stores a message sent with the contact form and, in the same transaction, queues the
// mails that then gives (mails, given the message's id: the copy to support and the acknowledgement), so that a
// stored message always reaches a person.
func (db *DB) CreateContactMessage(ctx context.Context, m contact.Message, mails ...func(id int64) []notify.Mail) (int64, error) {
	var userID any
	if m.UserID != 0 {
		userID = m.UserID
	}
	var id int64
	err := db.tx(ctx, func(x q) error {
		err := x.row(ctx, `INSERT INTO contact_messages (user_id, first_name, last_name, email, company, subject, message,
				ip, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			userID, m.FirstName, m.LastName, m.Email, m.Company, m.Subject, m.Message, m.IP, x.t(m.CreatedAt)).Scan(&id)
		if err != nil {
			return err
		}
		for _, f := range mails {
			for _, mm := range f(id) {
				if _, err := insertMail(ctx, x, mm); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return id, err
}

// CountUsers counts accounts, open or closed (used to seed an empty development database).
func (db *DB) CountUsers(ctx context.Context) (int64, error) {
	var n int64
	err := db.q().row(ctx, `SELECT COUNT(*) FROM users`).Scan(&n)
	return n, err
}
