package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"valuator/internal/credit"
	"valuator/internal/notify"
	"valuator/internal/portfolio"
	"valuator/internal/usage"
)

// The store implements portfolio.Store.
var _ portfolio.Store = (*DB)(nil)

const portfolioColumns = `p.id, p.user_id, p.name, p.alert_threshold, p.webhook_url, p.webhook_secret, p.status,
	p.paused_reason, p.paused_at, p.created_at,
	(SELECT COUNT(*) FROM portfolio_homes h WHERE h.portfolio_id = p.id)`

func scanPortfolio(sc interface{ Scan(...any) error }) (portfolio.Portfolio, error) {
	var p portfolio.Portfolio
	var threshold sql.NullFloat64
	var hook, secret, reason sql.NullString
	var paused, created dbTime
	err := sc.Scan(&p.ID, &p.UserID, &p.Name, &threshold, &hook, &secret, &p.Status, &reason, &paused, &created,
		&p.HomeCount)
	if errors.Is(err, sql.ErrNoRows) {
		return p, portfolio.ErrNotFound
	}
	if threshold.Valid {
		p.AlertThreshold = &threshold.Float64
	}
	p.WebhookURL, p.WebhookSecret, p.PausedReason = hook.String, secret.String, reason.String
	p.PausedAt, p.CreatedAt = paused.ptr(), created.Time
	return p, err
}

// chargeHome charges one home's valuation as a lookup is charged (a usage record, and a ledger row naming it), in
// the caller's transaction, and returns the usage record's id. The user's row must be locked (lockUser) and the
// balance known to pay: postCredit refuses below floor all the same.
func chargeHome(ctx context.Context, x q, rec usage.Record, description string, floor int64) (int64, error) {
	rec.CreditsUsed = portfolio.HomeCost
	id, err := insertUsage(ctx, x, rec)
	if err != nil {
		return 0, fmt.Errorf("portfolio charge: usage: %w", err)
	}
	_, err = postCredit(ctx, x, credit.Entry{UserID: rec.UserID, Amount: -portfolio.HomeCost, Kind: rec.Service,
		Description: description, Reference: fmt.Sprintf("usage:%d", id), CreatedAt: rec.CreatedAt}, floor)
	return id, err
}

// creditTermsLocked locks the user's row and returns what a charge is checked against.
func creditTermsLocked(ctx context.Context, x q, userID int64) (balance int64, plan string, limit *int64, err error) {
	lock := ""
	if x.d == Postgres {
		lock = " FOR UPDATE"
	}
	err = x.row(ctx, `SELECT credits, plan, overage_limit_cents FROM users WHERE id = ? AND closed_at IS NULL`+lock, userID).
		Scan(&balance, &plan, &limit)
	return balance, plan, limit, err
}

// insertHomes stores valued homes of a portfolio, each with its valuation of month and its charge, after checking
// in the locked transaction that the plan's size holds and that the balance pays for them all (otherwise nothing is
// written: *credit.ErrInsufficient).
func insertHomes(ctx context.Context, x q, userID, portfolioID int64, have int, homes []portfolio.NewHome, month string, at time.Time) ([]int64, error) {
	balance, plan, limit, err := creditTermsLocked(ctx, x, userID)
	if err != nil {
		return nil, err
	}
	if have+len(homes) > portfolio.MaxHomes(plan) {
		return nil, portfolio.TooManyHomes(plan, have, len(homes))
	}
	floor := credit.Floor(plan, limit)
	if len(homes) > 0 && !credit.Pays(balance, int64(len(homes))*portfolio.HomeCost, floor) {
		return nil, &credit.ErrInsufficient{Balance: balance, Plan: plan, OverageLimitCents: limit}
	}
	ids := make([]int64, 0, len(homes))
	for _, h := range homes {
		input, _ := json.Marshal(h.Input)
		a := h.Appraisal
		var id int64
		err := x.row(ctx, `INSERT INTO portfolio_homes (portfolio_id, input, formatted_address, address, unit, city, state,
			zip, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, portfolioID, string(input), a.FormattedAddress,
			a.Address, nullStr(a.Unit), a.City, a.State, a.ZIP, x.t(at)).Scan(&id)
		if isUniqueViolation(err) {
			// Added by a request of a moment ago: the whole request is refused, nothing charged.
			return nil, portfolio.ErrDuplicate(a.FormattedAddress)
		}
		if err != nil {
			return nil, err
		}
		h.Usage.CreatedAt = at
		usageID, err := chargeHome(ctx, x, h.Usage, h.Description, floor)
		if err != nil {
			return nil, err
		}
		if err := insertValuation(ctx, x, id, month, a, usageID, at); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func insertValuation(ctx context.Context, x q, homeID int64, month string, a portfolio.Appraisal, usageID int64, at time.Time) error {
	_, err := x.exec(ctx, `INSERT INTO portfolio_valuations (home_id, month, value, low, high, confidence, fsd, usage_id,
		created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, homeID, month, a.Value, a.Low, a.High, a.Confidence, a.FSD,
		usageID, x.t(at))
	return err
}

// CreatePortfolio stores a portfolio with its homes, each valued in month and charged, in one transaction.
func (db *DB) CreatePortfolio(ctx context.Context, p portfolio.Portfolio, homes []portfolio.NewHome, month string) (portfolio.Portfolio, []int64, error) {
	var ids []int64
	err := db.tx(ctx, func(x q) error {
		if _, err := lockUser(ctx, x, p.UserID); err != nil {
			return err
		}
		var n int
		if err := x.row(ctx, `SELECT COUNT(*) FROM portfolios WHERE user_id = ?`, p.UserID).Scan(&n); err != nil {
			return err
		}
		if n >= portfolio.MaxPerAccount {
			return portfolio.ErrTooMany
		}
		err := x.row(ctx, `INSERT INTO portfolios (user_id, name, alert_threshold, webhook_url, webhook_secret, status,
			created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.UserID, p.Name, p.AlertThreshold,
			nullStr(p.WebhookURL), nullStr(p.WebhookSecret), portfolio.StatusActive, x.t(p.CreatedAt)).Scan(&p.ID)
		if err != nil {
			return err
		}
		ids, err = insertHomes(ctx, x, p.UserID, p.ID, 0, homes, month, p.CreatedAt)
		if err != nil {
			return err
		}
		p, err = scanPortfolio(x.row(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.id = ?`, p.ID))
		return err
	})
	return p, ids, err
}

// AddPortfolioHomes adds valued homes to the user's portfolio, each charged, in one transaction.
func (db *DB) AddPortfolioHomes(ctx context.Context, userID, portfolioID int64, homes []portfolio.NewHome, month string, at time.Time) ([]int64, error) {
	var ids []int64
	err := db.tx(ctx, func(x q) error {
		if _, err := lockUser(ctx, x, userID); err != nil {
			return err
		}
		p, err := scanPortfolio(x.row(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.id = ? AND p.user_id = ?`,
			portfolioID, userID))
		if err != nil {
			return err
		}
		ids, err = insertHomes(ctx, x, userID, p.ID, p.HomeCount, homes, month, at)
		return err
	})
	return ids, err
}

// Portfolios is a page of the user's portfolios, newest first, and how many there are.
func (db *DB) Portfolios(ctx context.Context, userID int64, offset, limit int) ([]portfolio.Portfolio, int, error) {
	x := db.q()
	var total int
	if err := x.row(ctx, `SELECT COUNT(*) FROM portfolios WHERE user_id = ?`, userID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.user_id = ? ORDER BY p.id DESC
		LIMIT ? OFFSET ?`, userID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []portfolio.Portfolio
	for rows.Next() {
		p, err := scanPortfolio(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, total, rows.Err()
}

// Portfolio is the user's portfolio (portfolio.ErrNotFound for another user's).
func (db *DB) Portfolio(ctx context.Context, userID, id int64) (portfolio.Portfolio, error) {
	return scanPortfolio(db.q().row(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.id = ? AND p.user_id = ?`,
		id, userID))
}

// PortfolioHomes are a portfolio's homes in the order they were added.
func (db *DB) PortfolioHomes(ctx context.Context, portfolioID int64) ([]portfolio.Home, error) {
	return homesWhere(ctx, db.q(), `h.portfolio_id = ?`, portfolioID)
}

func homesWhere(ctx context.Context, x q, where string, args ...any) ([]portfolio.Home, error) {
	rows, err := x.query(ctx, `SELECT h.id, h.portfolio_id, h.input, h.formatted_address, h.address, h.unit, h.city,
		h.state, h.zip, h.added_at FROM portfolio_homes h WHERE `+where+` ORDER BY h.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []portfolio.Home
	for rows.Next() {
		var h portfolio.Home
		var input string
		var unit sql.NullString
		var added dbTime
		if err := rows.Scan(&h.ID, &h.PortfolioID, &input, &h.FormattedAddress, &h.Address, &unit, &h.City, &h.State,
			&h.ZIP, &added); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(input), &h.Input); err != nil {
			return nil, fmt.Errorf("portfolio home %d: %w", h.ID, err)
		}
		h.Unit, h.AddedAt = unit.String, added.Time
		out = append(out, h)
	}
	return out, rows.Err()
}

// PortfolioValuations are every valuation of a portfolio's homes.
func (db *DB) PortfolioValuations(ctx context.Context, portfolioID int64) ([]portfolio.Valuation, error) {
	rows, err := db.q().query(ctx, `SELECT v.home_id, v.month, v.value, v.low, v.high, v.confidence, v.fsd, v.created_at
		FROM portfolio_valuations v JOIN portfolio_homes h ON h.id = v.home_id WHERE h.portfolio_id = ?
		ORDER BY v.home_id, v.month`, portfolioID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []portfolio.Valuation
	for rows.Next() {
		var v portfolio.Valuation
		var at dbTime
		if err := rows.Scan(&v.HomeID, &v.Month, &v.Value, &v.Low, &v.High, &v.Confidence, &v.FSD, &at); err != nil {
			return nil, err
		}
		v.CreatedAt = at.Time
		out = append(out, v)
	}
	return out, rows.Err()
}

// RemovePortfolioHomes deletes homes of the user's portfolio with their valuations; every id must be one of its
// homes (portfolio.ErrNotFound otherwise, and nothing is removed).
func (db *DB) RemovePortfolioHomes(ctx context.Context, userID, portfolioID int64, homeIDs []int64) (int, error) {
	n := 0
	err := db.tx(ctx, func(x q) error {
		if _, err := scanPortfolio(x.row(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.id = ? AND p.user_id = ?`,
			portfolioID, userID)); err != nil {
			return err
		}
		for _, id := range homeIDs {
			if _, err := x.exec(ctx, `DELETE FROM portfolio_valuations WHERE home_id IN
				(SELECT id FROM portfolio_homes WHERE id = ? AND portfolio_id = ?)`, id, portfolioID); err != nil {
				return err
			}
			res, err := x.exec(ctx, `DELETE FROM portfolio_homes WHERE id = ? AND portfolio_id = ?`, id, portfolioID)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			if k == 0 {
				return portfolio.ErrHomeNotFound
			}
			n++
		}
		return nil
	})
	return n, err
}

// DeletePortfolio deletes the user's portfolio with its homes, valuations and alerts.
func (db *DB) DeletePortfolio(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `UPDATE portfolios SET name = name WHERE id = ? AND user_id = ?`, id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return portfolio.ErrNotFound
		}
		for _, s := range []string{
			`DELETE FROM portfolio_valuations WHERE home_id IN (SELECT id FROM portfolio_homes WHERE portfolio_id = ?)`,
			`DELETE FROM portfolio_homes WHERE portfolio_id = ?`,
			`DELETE FROM portfolio_alerts WHERE portfolio_id = ?`,
			`DELETE FROM portfolios WHERE id = ?`,
		} {
			if _, err := x.exec(ctx, s, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// UpdatePortfolio stores the user's portfolio's settings (portfolio.ErrNotFound for another user's).
func (db *DB) UpdatePortfolio(ctx context.Context, userID, id int64, set portfolio.Settings, secret string) (portfolio.Portfolio, error) {
	var p portfolio.Portfolio
	err := db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `UPDATE portfolios SET name = ?, alert_threshold = ?, webhook_url = ?, webhook_secret = ?
			WHERE id = ? AND user_id = ?`, set.Name, set.AlertThreshold, nullStr(set.WebhookURL), nullStr(secret), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return portfolio.ErrNotFound
		}
		p, err = scanPortfolio(x.row(ctx, `SELECT `+portfolioColumns+` FROM portfolios p WHERE p.id = ?`, id))
		return err
	})
	return p, err
}

// PortfoliosDue lists the portfolios of open, unsuspended accounts with work in month: a home without its valuation
// of the month, or (with a threshold) the month's alert not yet decided.
func (db *DB) PortfoliosDue(ctx context.Context, month string, afterID int64, limit int) ([]portfolio.Portfolio, error) {
	rows, err := db.q().query(ctx, `SELECT `+portfolioColumns+` FROM portfolios p JOIN users u ON u.id = p.user_id
		WHERE p.id > ? AND u.closed_at IS NULL AND u.suspended_at IS NULL AND (
			EXISTS (SELECT 1 FROM portfolio_homes h WHERE h.portfolio_id = p.id AND NOT EXISTS
				(SELECT 1 FROM portfolio_valuations v WHERE v.home_id = h.id AND v.month = ?))
			OR (p.alert_threshold IS NOT NULL AND EXISTS (SELECT 1 FROM portfolio_homes h WHERE h.portfolio_id = p.id)
				AND NOT EXISTS (SELECT 1 FROM portfolio_alerts a WHERE a.portfolio_id = p.id AND a.month = ?)))
		ORDER BY p.id LIMIT ?`, afterID, month, month, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []portfolio.Portfolio
	for rows.Next() {
		p, err := scanPortfolio(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// HomesDue are a portfolio's homes without a valuation of month.
func (db *DB) HomesDue(ctx context.Context, portfolioID int64, month string) ([]portfolio.Home, error) {
	return homesWhere(ctx, db.q(), `h.portfolio_id = ? AND NOT EXISTS
		(SELECT 1 FROM portfolio_valuations v WHERE v.home_id = h.id AND v.month = ?)`, portfolioID, month)
}

// SaveMonthlyValuation stores a home's valuation of month and charges it in one transaction. The insert comes
// first: UNIQUE (home_id, month) makes a second instance's insert of the same home wait for the first to commit and
// then change nothing, and this transaction then charges nothing (false). When the balance cannot pay, nothing is
// written and the error is *credit.ErrInsufficient. A home removed meanwhile is not charged (false).
func (db *DB) SaveMonthlyValuation(ctx context.Context, h portfolio.Home, month string, a portfolio.Appraisal, rec usage.Record, description string) (bool, error) {
	saved := false
	err := db.tx(ctx, func(x q) error {
		balance, plan, limit, err := creditTermsLocked(ctx, x, rec.UserID)
		if err != nil {
			return err
		}
		res, err := x.exec(ctx, `INSERT INTO portfolio_valuations (home_id, month, value, low, high, confidence, fsd,
			created_at) SELECT h.id, ?, ?, ?, ?, ?, ?, ? FROM portfolio_homes h WHERE h.id = ?
			ON CONFLICT (home_id, month) DO NOTHING`, month, a.Value, a.Low, a.High, a.Confidence, a.FSD,
			x.t(rec.CreatedAt), h.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		floor := credit.Floor(plan, limit)
		if !credit.Pays(balance, portfolio.HomeCost, floor) {
			return &credit.ErrInsufficient{Balance: balance, Plan: plan, OverageLimitCents: limit}
		}
		usageID, err := chargeHome(ctx, x, rec, description, floor)
		if err != nil {
			return err
		}
		if _, err := x.exec(ctx, `UPDATE portfolio_valuations SET usage_id = ? WHERE home_id = ? AND month = ?`,
			usageID, h.ID, month); err != nil {
			return err
		}
		saved = true
		return nil
	})
	return saved, err
}

// PausePortfolio pauses a portfolio with reason and queues the email that says so (the account's "Email
// notifications"), once a month, in one transaction.
func (db *DB) PausePortfolio(ctx context.Context, p portfolio.Portfolio, reason, month string, at time.Time) error {
	return db.tx(ctx, func(x q) error {
		if _, err := x.exec(ctx, `UPDATE portfolios SET status = ?, paused_reason = ?, paused_at = ? WHERE id = ?`,
			portfolio.StatusPaused, reason, x.t(at), p.ID); err != nil {
			return err
		}
		var due int
		if err := x.row(ctx, `SELECT COUNT(*) FROM portfolio_homes h WHERE h.portfolio_id = ? AND NOT EXISTS
			(SELECT 1 FROM portfolio_valuations v WHERE v.home_id = h.id AND v.month = ?)`, p.ID, month).Scan(&due); err != nil {
			return err
		}
		_, err := insertMail(ctx, x, notify.NewPortfolioPaused(p.UserID, notify.PortfolioPaused{
			PortfolioID: p.ID, Name: p.Name, Month: month, NotValued: due, At: at.UTC()}))
		return err
	})
}

// ResumePortfolio makes a paused portfolio active again.
func (db *DB) ResumePortfolio(ctx context.Context, id int64) error {
	_, err := db.w().exec(ctx, `UPDATE portfolios SET status = ?, paused_reason = NULL, paused_at = NULL WHERE id = ?`,
		portfolio.StatusActive, id)
	return err
}

// SaveAlert stores the month's alert decision of a portfolio once (UNIQUE (portfolio_id, month)); with homes that
// moved it queues the email and, when enqueue is set, the webhook, in the same transaction, so each is sent once.
func (db *DB) SaveAlert(ctx context.Context, a portfolio.Alert, enqueue portfolio.Enqueue) (bool, error) {
	saved := false
	err := db.tx(ctx, func(x q) error {
		payload, err := json.Marshal(a)
		if err != nil {
			return err
		}
		var id int64
		err = x.row(ctx, `INSERT INTO portfolio_alerts (portfolio_id, month, payload, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (portfolio_id, month) DO NOTHING RETURNING id`, a.PortfolioID, a.Month, string(payload),
			x.t(a.CreatedAt)).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		saved = true
		if len(a.Homes) == 0 {
			return nil
		}
		var userID int64
		if err := x.row(ctx, `SELECT user_id FROM portfolios WHERE id = ?`, a.PortfolioID).Scan(&userID); err != nil {
			return err
		}
		if _, err := insertMail(ctx, x, notify.NewPortfolioAlert(userID, id, payload, a.CreatedAt)); err != nil {
			return err
		}
		if enqueue != nil {
			return enqueue(ctx, x.tx, id)
		}
		return nil
	})
	return saved, err
}

// PortfolioAlert is a stored alert with where its webhook goes (for the webhook job).
func (db *DB) PortfolioAlert(ctx context.Context, id int64) (a portfolio.Alert, webhookURL, secret string, err error) {
	var payload string
	var hook, sec sql.NullString
	err = db.q().row(ctx, `SELECT a.payload, p.webhook_url, p.webhook_secret FROM portfolio_alerts a
		JOIN portfolios p ON p.id = a.portfolio_id WHERE a.id = ?`, id).Scan(&payload, &hook, &sec)
	if errors.Is(err, sql.ErrNoRows) {
		return a, "", "", portfolio.ErrNotFound
	}
	if err != nil {
		return a, "", "", err
	}
	if err := json.Unmarshal([]byte(payload), &a); err != nil {
		return a, "", "", err
	}
	a.ID = id
	return a, hook.String, sec.String, nil
}

// sentAlert holds of a portfolio_alerts row whose payload lists homes: a month decided with no home past the
// threshold is stored too (so that the month is not decided again) but was never sent. The payload is always
// portfolio.Alert as json.Marshal writes it, where no homes is "homes":null (or [] for an empty slice), and a quote
// inside the portfolio's name is escaped, so these patterns match nothing else.
const sentAlert = `a.payload NOT LIKE '%"homes":null%' AND a.payload NOT LIKE '%"homes":[]%'`

// PortfolioAlerts is a page of a portfolio's sent alerts, newest month first, and how many there are. The month is
// 'YYYY-MM', so its text orders as time does, and UNIQUE (portfolio_id, month) serves the order.
func (db *DB) PortfolioAlerts(ctx context.Context, portfolioID int64, offset, limit int) ([]portfolio.Alert, int, error) {
	x := db.q()
	var total int
	if err := x.row(ctx, `SELECT COUNT(*) FROM portfolio_alerts a WHERE a.portfolio_id = ? AND `+sentAlert,
		portfolioID).Scan(&total); err != nil {
		return nil, 0, err
	}
	if offset >= total {
		return nil, total, nil
	}
	rows, err := x.query(ctx, `SELECT a.id, a.payload FROM portfolio_alerts a WHERE a.portfolio_id = ? AND `+sentAlert+`
		ORDER BY a.month DESC LIMIT ? OFFSET ?`, portfolioID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []portfolio.Alert
	for rows.Next() {
		var id int64
		var payload string
		if err := rows.Scan(&id, &payload); err != nil {
			return nil, 0, err
		}
		var a portfolio.Alert
		if err := json.Unmarshal([]byte(payload), &a); err != nil {
			return nil, 0, fmt.Errorf("portfolio alert %d: %w", id, err)
		}
		a.ID = id
		out = append(out, a)
	}
	return out, total, rows.Err()
}
