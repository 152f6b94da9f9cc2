package usage

import (
	"context"
	"time"
)

// Store is what the history and statistics need from the database (internal/store).
type Store interface {
	UsageHistory(ctx context.Context, userID int64, f Filter) ([]Entry, int, error)
	UsageStats(ctx context.Context, userID int64, from, to, monthStart, lastMonthStart time.Time) (Stats, error)
}

// Service reads an account's record of calls: the history and the statistics of the reporting screen.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the usage service; now is optional (time.Now).
func NewService(st Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now}
}

// History is a page of the user's calls as f selects them, and how many match in all.
func (s *Service) History(ctx context.Context, userID int64, f Filter) ([]Entry, int, error) {
	return s.store.UsageHistory(ctx, userID, f)
}

// Stats are the user's statistics of the last days (ParseDays), with this and last calendar month (UTC) for the
// month-over-month change.
func (s *Service) Stats(ctx context.Context, userID int64, days int) (Stats, error) {
	now := s.now().UTC()
	from, to := Window(now, days)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	st, err := s.store.UsageStats(ctx, userID, from, to, month, month.AddDate(0, -1, 0))
	st.Days = days
	return st, err
}

// Call is a metered call as it arrives: who makes it, through which endpoint, and the request's ids. The services
// that charge for calls (valuation, person lookup) record every call from it, charged or not.
type Call struct {
	UserID     int64
	APIKeyID   int64  // 0: a dashboard call
	APIKeyName string // "" for a dashboard call
	Endpoint   string // "GET /api/v1/property/valuation"
	RequestID  string
	// ClientRequestID is the X-Request-Id the caller sent ("" for none).
	ClientRequestID string
	// Start is when the request arrived: the recorded response time runs from it.
	Start time.Time
}

// Record is the call's usage record of service, answered with status, made at now.
func (c Call) Record(service string, status int, now time.Time) Record {
	return Record{UserID: c.UserID, APIKeyID: c.APIKeyID, APIKeyName: c.APIKeyName, Endpoint: c.Endpoint,
		Service: service, Status: status, ResponseTimeMs: time.Since(c.Start).Milliseconds(), RequestID: c.RequestID,
		ClientRequestID: c.ClientRequestID, CreatedAt: now}
}
