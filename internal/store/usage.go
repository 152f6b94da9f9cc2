package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"valuator/internal/usage"
)

// The store implements usage.Store.
var _ usage.Store = (*DB)(nil)

// Meter charges a call and records it in one transaction: the ledger debit (refused below the account's floor:
// zero on the Free plan, the overage limit on a paid plan) and the usage record. It returns the new balance. When
// the balance cannot pay, nothing is written and *credit.ErrInsufficient says why.
//
// Charges made at the same time are committed together (meter_group.go); each stays all-or-nothing.
func (db *DB) Meter(ctx context.Context, rec usage.Record, cost int64, description string) (int64, error) {
	return db.meterGrouped(ctx, rec, cost, description)
}

// meter is Meter inside the caller's transaction.
func meter(ctx context.Context, x q, rec usage.Record, cost int64, description string) (int64, error) {
	res := make([]meterResult, 1)
	if err := charge(ctx, x, []*meterReq{{ctx: ctx, rec: rec, cost: cost, description: description}}, res); err != nil {
		return 0, err
	}
	return res[0].balance, res[0].err
}

// RecordUsage records a call that cost nothing (bad input, not found, refused).
func (db *DB) RecordUsage(ctx context.Context, rec usage.Record) error {
	rec.CreditsUsed = 0
	_, err := insertUsage(ctx, db.w(), rec)
	return err
}

// insertUsage stores a usage record and returns its id.
func insertUsage(ctx context.Context, x q, r usage.Record) (int64, error) {
	var id int64
	err := x.row(ctx, `INSERT INTO usage_records (`+usageColumns+`) VALUES `+placeholders(1, usageColumnCount)+
		` RETURNING id`, usageArgs(x, r)...).Scan(&id)
	return id, err
}

// usageColumns are the columns a usage record is written to, in the order of usageArgs.
const (
	usageColumns = `user_id, api_key_id, api_key_name, endpoint, service, property_address, response_status,
		response_time_ms, credits_used, valuation, request_data, request_id, created_at, client_request_id`
	usageColumnCount = 14
)

// usageArgs are a usage record's values for usageColumns; optional fields are NULL when empty.
func usageArgs(x q, r usage.Record) []any {
	var keyID, keyName, addr, valuation, data, client any
	if r.APIKeyID != 0 {
		keyID, keyName = r.APIKeyID, r.APIKeyName
	}
	if r.PropertyAddress != "" {
		addr = r.PropertyAddress
	}
	if r.Valuation != 0 {
		valuation = r.Valuation
	}
	if r.RequestData != "" {
		data = r.RequestData
	}
	if r.ClientRequestID != "" {
		client = r.ClientRequestID
	}
	return []any{r.UserID, keyID, keyName, r.Endpoint, r.Service, addr, r.Status, r.ResponseTimeMs, r.CreditsUsed,
		valuation, data, r.RequestID, x.t(r.CreatedAt), client}
}

// placeholders is the VALUES list of a statement that inserts rows rows of cols values each: (?, ?), (?, ?).
func placeholders(rows, cols int) string {
	one := "(" + strings.Repeat("?, ", cols-1) + "?)"
	return strings.Repeat(one+", ", rows-1) + one
}

// historyWhere builds the filter of a user's history: the same conditions for the page and its count.
func historyWhere(userID int64, f usage.Filter) (string, []any) {
	where := []string{"user_id = ?"}
	args := []any{userID}
	if f.Search != "" {
		where = append(where, "LOWER(COALESCE(property_address, '')) LIKE ? ESCAPE '\\'")
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(f.Search))
		args = append(args, "%"+esc+"%")
	}
	switch {
	case strings.EqualFold(f.APIKey, "dashboard"):
		where = append(where, "api_key_name IS NULL")
	case f.APIKey != "":
		where = append(where, "api_key_name = ?")
		args = append(args, f.APIKey)
	}
	switch f.Status {
	case "success":
		where = append(where, "response_status BETWEEN 200 AND 299")
	case "error":
		where = append(where, "(response_status < 200 OR response_status > 299)")
	}
	return strings.Join(where, " AND "), args
}

// UsageHistory returns one page of a user's history, newest first, and how many entries match in all.
func (db *DB) UsageHistory(ctx context.Context, userID int64, f usage.Filter) ([]usage.Entry, int, error) {
	x := db.q()
	where, args := historyWhere(userID, f)
	var total int
	if err := x.row(ctx, `SELECT COUNT(*) FROM usage_records WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := x.query(ctx, `SELECT id, created_at, property_address, valuation, response_status, response_time_ms,
			api_key_name, endpoint, service, credits_used, request_data, request_id, client_request_id
		FROM usage_records WHERE `+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, (f.Page-1)*f.Limit)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []usage.Entry{}
	for rows.Next() {
		var e usage.Entry
		var at dbTime
		var data *string
		if err := rows.Scan(&e.ID, &at, &e.PropertyAddress, &e.Valuation, &e.ResponseStatus, &e.ResponseTimeMs,
			&e.APIKeyName, &e.Endpoint, &e.Service, &e.CreditsUsed, &data, &e.RequestID, &e.ClientRequestID); err != nil {
			return nil, 0, err
		}
		e.CreatedAt = at.Time
		if data != nil {
			var v any
			if json.Unmarshal([]byte(*data), &v) == nil {
				e.RequestData = v
			}
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// UsageStats computes a user's statistics over [from, to), with the counts of this and last calendar month.
func (db *DB) UsageStats(ctx context.Context, userID int64, from, to, monthStart, lastMonthStart time.Time) (usage.Stats, error) {
	x := db.q()
	var s usage.Stats
	var avg *float64
	err := x.row(ctx, `SELECT COUNT(*),
			COALESCE(SUM(CASE WHEN response_status BETWEEN 200 AND 299 THEN 1 ELSE 0 END), 0),
			AVG(response_time_ms), COALESCE(SUM(credits_used), 0),
			COALESCE(SUM(CASE WHEN response_time_ms < 300 THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN response_time_ms BETWEEN 300 AND 500 THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN response_time_ms > 500 THEN 1 ELSE 0 END), 0)
		FROM usage_records WHERE user_id = ? AND created_at >= ? AND created_at < ?`, userID, x.t(from), x.t(to)).
		Scan(&s.TotalRequests, &s.SuccessfulRequests, &avg, &s.CreditsUsed, &s.ResponseTimes.Fast,
			&s.ResponseTimes.Normal, &s.ResponseTimes.Slow)
	if err != nil {
		return s, err
	}
	if avg != nil {
		s.AvgResponseTime = float64(int64(*avg*10+0.5)) / 10
	}
	// Per day: the day is the UTC date of created_at, a prefix of the stored text on SQLite.
	dayExpr := "SUBSTR(created_at, 1, 10)"
	if x.d == Postgres {
		dayExpr = "TO_CHAR(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
	}
	rows, err := x.query(ctx, `SELECT `+dayExpr+`, COUNT(*),
			COALESCE(SUM(CASE WHEN response_status BETWEEN 200 AND 299 THEN 1 ELSE 0 END), 0)
		FROM usage_records WHERE user_id = ? AND created_at >= ? AND created_at < ? GROUP BY 1`,
		userID, x.t(from), x.t(to))
	if err != nil {
		return s, err
	}
	counts := map[string]usage.DayCount{}
	for rows.Next() {
		var d string
		var c usage.DayCount
		if err := rows.Scan(&d, &c.Requests, &c.Successful); err != nil {
			rows.Close()
			return s, err
		}
		counts[d] = c
	}
	rows.Close()
	// Percentiles from a histogram: 1 ms buckets up to a second, 100 ms above (no SQL percentile on SQLite).
	rows, err = x.query(ctx, `SELECT CASE WHEN response_time_ms < 1000 THEN response_time_ms
			ELSE (response_time_ms / 100) * 100 END AS b, COUNT(*)
		FROM usage_records WHERE user_id = ? AND created_at >= ? AND created_at < ? GROUP BY 1`,
		userID, x.t(from), x.t(to))
	if err != nil {
		return s, err
	}
	var hist []usage.TimeCount
	for rows.Next() {
		var h usage.TimeCount
		if err := rows.Scan(&h.Ms, &h.Count); err != nil {
			rows.Close()
			return s, err
		}
		hist = append(hist, h)
	}
	rows.Close()
	s.P50, s.P95 = usage.Percentile(hist, 0.5), usage.Percentile(hist, 0.95)
	s.RequestsByDay = usage.FillDays(from, int(to.Sub(from).Hours()/24+0.5), counts)
	err = x.row(ctx, `SELECT
			COALESCE(SUM(CASE WHEN created_at >= ? THEN 1 ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN created_at < ? THEN 1 ELSE 0 END), 0)
		FROM usage_records WHERE user_id = ? AND created_at >= ?`,
		x.t(monthStart), x.t(monthStart), userID, x.t(lastMonthStart)).Scan(&s.ThisMonth, &s.LastMonth)
	s.MonthOverMonth = usage.Change(s.ThisMonth, s.LastMonth)
	return s, err
}
