// Package admin is the operators' side of Valuator (issue 27): finding and inspecting accounts, credit
// adjustments, refunds, suspension and closing, the operators' audit log, the compliance views and the business
// overview. It holds the rules and the texts; the database work goes through Store (implemented by internal/store),
// and every action an operator takes is written to the append-only audit log in the transaction that makes it.
package admin

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"valuator/internal/account"
	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/credit"
	"valuator/internal/person"
	"valuator/internal/text"
)

// Actions of the audit log.
const (
	ActionCreditAdjustment = "credit_adjustment"
	ActionRefund           = "refund"
	ActionSuspend          = "suspend"
	ActionReinstate        = "reinstate"
	ActionClose            = "close"
	ActionRoleGrant        = "role_grant"
	ActionRoleRevoke       = "role_revoke"
	// The support inbox's actions (internal/support) are operators' actions too.
	ActionSupportReply  = "support_reply"
	ActionSupportAssign = "support_assign"
	ActionSupportClose  = "support_close"
	ActionContactClose  = "contact_close"
)

// Account statuses as the console shows them.
const (
	StatusActive    = "active"
	StatusSuspended = "suspended"
	StatusClosed    = "closed"
)

// Bounds of the inputs.
const (
	MaxAdjustment  = 1_000_000
	MinReason      = 3
	MaxReason      = 500
	MaxQuery       = 200
	DefaultLimit   = 20
	MaxLimit       = 100
	MaxOverview    = 365
	FlagMisses     = 50 // person.MissesPerHour: more misses than this within an hour flags the account's lookups
	detailLedger   = 50
	detailRecent   = 20
	failingJobsMax = 20
)

// Errors the store answers.
var (
	ErrNotFound        = errors.New("admin: account not found")
	ErrPaymentNotFound = errors.New("admin: payment not found")
	// ErrBelowZero: a deduction would take the balance below 0.
	ErrBelowZero = errors.New("admin: balance would fall below zero")
	// ErrState: the account or payment is not in a state the action applies to (ErrStateMessage says why).
	ErrState = errors.New("admin: wrong state")
)

// StateError is ErrState with the reason for the operator.
type StateError struct{ Message string }

func (e *StateError) Error() string { return e.Message }
func (e *StateError) Unwrap() error { return ErrState }

// Enqueue queues a held batch job again inside the reinstating transaction (jobs.Queue.EnqueueBatch).
type Enqueue = func(ctx context.Context, tx *sql.Tx, jobID int64) error

// Store is what the operators' rules need from the database.
type Store interface {
	SearchAccounts(ctx context.Context, q string, offset, limit int64) ([]AccountRow, int64, error)
	// AccountDetail is everything the console shows of one account (ErrNotFound).
	AccountDetail(ctx context.Context, id int64, monthStart time.Time) (Detail, Credits, error)
	// AdjustCredits posts the adjustment as a ledger row of KindAdminAdjustment (floor 0 for a deduction:
	// ErrBelowZero) and its audit row, in one transaction.
	AdjustCredits(ctx context.Context, a Action, amount int64, description string) (credit.Entry, Credits, error)
	// Payment is one of the account's payments (ErrPaymentNotFound).
	AdminPayment(ctx context.Context, accountID, paymentID int64) (billing.PaymentRecord, error)
	// MarkRefunded applies the refund rule to a paid payment (status refunded, credits taken back as far as the
	// balance holds them) and writes the audit row, in one transaction (ErrState when it is no longer paid).
	MarkRefunded(ctx context.Context, a Action, paymentID int64) (billing.PaymentRecord, Credits, error)
	SuspendAccount(ctx context.Context, a Action) (Account, error)
	// Reinstate lifts the suspension and queues the account's held batch jobs again (enqueue), in one transaction.
	ReinstateAccount(ctx context.Context, a Action, enqueue Enqueue) (Account, error)
	CloseAccountByAdmin(ctx context.Context, a Action) (Account, error)
	AdminAuditLog(ctx context.Context, accountID int64, offset, limit int64) ([]AuditEntry, int64, error)
	AdminPersonAudits(ctx context.Context, f PersonAuditFilter, offset, limit int64) ([]PersonAudit, int64, error)
	AdminOptOuts(ctx context.Context, offset, limit int64) ([]OptOut, int64, error)
	AdminOverview(ctx context.Context, from, to time.Time) (OverviewData, error)
	// SetRole makes the open account with this email key an admin or a customer and audits it (admin 0: the
	// command line); ErrNotFound for no such account. An account that has the role already is left as it is, and
	// nothing is audited.
	SetRole(ctx context.Context, emailKey, role string, at time.Time) (RoleChange, error)
	// OpenAccountID is the id of the open account with this email key (ErrNotFound).
	OpenAccountID(ctx context.Context, emailKey string) (int64, error)
}

// RoleChange is what SetRole did: Changed is false when the account had the role already; Suspended says the
// account is suspended (an operator who is cannot sign in until `valuator admin reinstate` lifts it).
type RoleChange struct{ Changed, Suspended bool }

// Action is one operator action on one account.
type Action struct {
	AdminID   int64
	AdminText string // the admin's email, for ledger descriptions
	AccountID int64
	Reason    string
	At        time.Time
}

// Credits is what a balance is computed from.
type Credits struct {
	Plan              string
	Credits           int64
	OverageLimitCents *int64
}

// Balance is the balance as every surface shows it.
func (c Credits) Balance() billing.Balance {
	return billing.BalanceOf(billing.Get(c.Plan), c.Credits, c.OverageLimitCents)
}

// AccountRow is one search result.
type AccountRow struct {
	ID       int64  `json:"id"`
	Email    string `json:"email"`
	FullName string `json:"fullName"`
	Company  string `json:"company"`
	Plan     string `json:"plan"`
	Status   string `json:"status"`
	// Balance is the balance as every surface shows it (billing.BalanceOf): in overage, 0 credits and the overage
	// used, never the ledger's negative figure.
	Balance   billing.Balance `json:"balance"`
	CreatedAt time.Time       `json:"createdAt"`
}

// Account is the account part of the detail.
type Account struct {
	ID            int64      `json:"id"`
	Email         string     `json:"email"`
	FullName      string     `json:"fullName"`
	Company       string     `json:"company"`
	Plan          string     `json:"plan"`
	Role          string     `json:"role"`
	Status        string     `json:"status"`
	SuspendedAt   *time.Time `json:"suspendedAt"`
	SuspendReason *string    `json:"suspendReason"`
	CreatedAt     time.Time  `json:"createdAt"`
	ClosedAt      *time.Time `json:"closedAt"`
}

// StatusOf is an account's status from its dates.
func StatusOf(suspendedAt, closedAt *time.Time) string {
	switch {
	case closedAt != nil:
		return StatusClosed
	case suspendedAt != nil:
		return StatusSuspended
	}
	return StatusActive
}

// LedgerRow is one credit ledger row.
type LedgerRow struct {
	ID           int64     `json:"id"`
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balanceAfter"`
	Kind         string    `json:"kind"`
	Description  string    `json:"description"`
	Reference    string    `json:"reference"`
	CreatedAt    time.Time `json:"createdAt"`
}

// LedgerRowOf is a ledger entry as the console shows it.
func LedgerRowOf(e credit.Entry) LedgerRow {
	return LedgerRow{ID: e.ID, Amount: e.Amount, BalanceAfter: e.BalanceAfter, Kind: e.Kind, Description: e.Description,
		Reference: e.Reference, CreatedAt: e.CreatedAt.UTC()}
}

// Payment is one payment as the console shows it.
type Payment struct {
	ID          int64     `json:"id"`
	Kind        string    `json:"kind"`
	Plan        string    `json:"plan"`
	AmountCents int64     `json:"amountCents"`
	Credits     int64     `json:"credits"`
	Status      string    `json:"status"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"createdAt"`
	Refundable  bool      `json:"refundable"`
}

// Refundable reports whether an operator can refund p: money moved for it (paid) and the provider knows it.
func Refundable(p billing.PaymentRecord) bool {
	return p.Status == billing.PaymentSucceeded && p.Ref != "" && p.AmountCents > 0
}

// PaymentOf is a payment as the console shows it.
func PaymentOf(p billing.PaymentRecord) Payment {
	return Payment{ID: p.ID, Kind: p.Kind, Plan: p.Plan, AmountCents: p.AmountCents, Credits: p.Credits, Status: p.Status,
		Description: p.Description, CreatedAt: p.CreatedAt.UTC(), Refundable: Refundable(p)}
}

// Key is an API key's preview (never the key).
type Key struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Preview    string     `json:"preview"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// Usage is the account's use this month and its latest calls.
type Usage struct {
	CallsThisMonth   int64       `json:"callsThisMonth"`
	CreditsThisMonth int64       `json:"creditsThisMonth"`
	Recent           []UsageCall `json:"recent"`
}

// UsageCall is one metered call.
type UsageCall struct {
	RequestID string    `json:"requestId"`
	Endpoint  string    `json:"endpoint"`
	Status    int       `json:"status"`
	Credits   int64     `json:"credits"`
	CreatedAt time.Time `json:"createdAt"`
}

// BatchJob is one batch job's summary.
type BatchJob struct {
	ID            int64     `json:"id"`
	FileName      string    `json:"fileName"`
	Status        string    `json:"status"`
	Held          bool      `json:"held"`
	TotalRows     int       `json:"totalRows"`
	ProcessedRows int       `json:"processedRows"`
	FailedRows    int       `json:"failedRows"`
	CreatedAt     time.Time `json:"createdAt"`
}

// PersonLookup is one person lookup's outline.
type PersonLookup struct {
	ID        int64     `json:"id"`
	Purpose   string    `json:"purpose"`
	Outcome   string    `json:"outcome"`
	Credits   int64     `json:"credits"`
	CreatedAt time.Time `json:"createdAt"`
}

// Outcome is a person lookup's outcome as the console shows it: "hit" when a person was found, else "miss".
func Outcome(stored string) string {
	if stored == "found" {
		return "hit"
	}
	return "miss"
}

// Detail is GET /api/admin/accounts/{id}.
type Detail struct {
	Account       Account         `json:"account"`
	Balance       billing.Balance `json:"balance"`
	Ledger        []LedgerRow     `json:"ledger"`
	Payments      []Payment       `json:"payments"`
	Keys          []Key           `json:"keys"`
	Usage         Usage           `json:"usage"`
	BatchJobs     []BatchJob      `json:"batchJobs"`
	PersonLookups []PersonLookup  `json:"personLookups"`
}

// AuditEntry is one row of the operators' audit log.
type AuditEntry struct {
	ID           int64           `json:"id"`
	AdminID      *int64          `json:"adminId"`
	AdminEmail   *string         `json:"adminEmail"`
	Action       string          `json:"action"`
	AccountID    *int64          `json:"accountId"`
	AccountEmail *string         `json:"accountEmail"`
	Reason       string          `json:"reason"`
	Before       json.RawMessage `json:"before"`
	After        json.RawMessage `json:"after"`
	CreatedAt    time.Time       `json:"createdAt"`
}

// PersonAuditFilter selects person lookups for the compliance view.
type PersonAuditFilter struct {
	AccountID int64
	Purpose   string
	Outcome   string // "", "hit" or "miss"
	Flagged   bool
	From, To  time.Time // days (UTC); zero: open
}

// PersonAudit is one person lookup in the compliance view.
type PersonAudit struct {
	ID           int64     `json:"id"`
	AccountID    int64     `json:"accountId"`
	AccountEmail string    `json:"accountEmail"`
	KeyName      *string   `json:"keyName"`
	Purpose      string    `json:"purpose"`
	Query        string    `json:"query"`
	Outcome      string    `json:"outcome"`
	Result       string    `json:"result"`
	Credits      int64     `json:"credits"`
	RequestID    string    `json:"requestId"`
	CreatedAt    time.Time `json:"createdAt"`
	Flagged      bool      `json:"flagged"`
}

// OptOut is one opt-out request: what was asked, whether a listing matched and whether it was confirmed.
type OptOut struct {
	ID          int64      `json:"id"`
	Query       string     `json:"query"`
	ListingID   *string    `json:"listingId"`
	Outcome     string     `json:"outcome"`
	CreatedAt   time.Time  `json:"createdAt"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	ConfirmedAt *time.Time `json:"confirmedAt"`
}

// OverviewData is what the store counts for the overview.
type OverviewData struct {
	PayingByPlan       map[string]int64
	SignupsPerDay      map[string]int64
	CallsPerDay        map[string]int64
	CreditsSold        int64
	CreditsUsed        int64
	OverageBilledCents int64
	FailingJobs        []FailingJob
}

// FailingJob is a batch job of the window that failed or has failed rows.
type FailingJob struct {
	ID           int64     `json:"id"`
	AccountID    int64     `json:"accountId"`
	AccountEmail string    `json:"accountEmail"`
	FileName     string    `json:"fileName"`
	FailedRows   int       `json:"failedRows"`
	Status       string    `json:"status"`
	CreatedAt    time.Time `json:"createdAt"`
}

// DayCount is one day's count.
type DayCount struct {
	Date  string `json:"date"`
	Count int64  `json:"count"`
}

// Overview is GET /api/admin/overview.
type Overview struct {
	From               time.Time        `json:"from"`
	To                 time.Time        `json:"to"`
	PayingByPlan       map[string]int64 `json:"payingByPlan"`
	MRRCents           int64            `json:"mrrCents"`
	SignupsPerDay      []DayCount       `json:"signupsPerDay"`
	CallsPerDay        []DayCount       `json:"callsPerDay"`
	CreditsSold        int64            `json:"creditsSold"`
	CreditsUsed        int64            `json:"creditsUsed"`
	OverageBilledCents int64            `json:"overageBilledCents"`
	FailingJobs        []FailingJob     `json:"failingJobs"`
}

// FailingJobsMax is how many failing jobs the overview lists.
const FailingJobsMax = failingJobsMax

// Service implements the operators' rules.
type Service struct {
	Store Store
	// Refunder moves the money of a refund (billing.Provider.RefundPayment, which leaves the subscription alone;
	// nil: payments are not configured).
	Refunder interface {
		RefundPayment(ctx context.Context, p billing.PaymentRecord) error
	}
	// ProviderCalls makes the provider calls the account's payments owe (billing.Service.RunProviderActions): after a
	// full refund that ended the plan, the end of the subscription at the provider, at once rather than at the
	// billing job's next run (nil: the job makes them).
	ProviderCalls func(ctx context.Context, userID int64) (int, error)
	// Enqueue queues reinstated accounts' held batch jobs (nil: none are queued; a worker-less test).
	Enqueue Enqueue
	Now     func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// MsgForbidden is the answer to a signed-in non-admin on every operator route.
const MsgForbidden = "Only Valuator operators can do this."

// RequireAdmin refuses everyone but operators.
func RequireAdmin(u account.User) error {
	if u.Role != account.RoleAdmin {
		return &apperr.Error{Kind: apperr.KindForbidden, Code: "forbidden", Message: MsgForbidden}
	}
	return nil
}

// Page is a validated page of a list: page (1-based) and limit.
type Page struct {
	Page, Limit int64
}

// Offset is where the page starts; a page past any list (however huge its number) starts past its end.
func (p Page) Offset() int64 {
	const maxOffset = 1 << 53
	if p.Page-1 > maxOffset/p.Limit {
		return maxOffset
	}
	return (p.Page - 1) * p.Limit
}

// Pagination is a list's page as answered.
type Pagination struct {
	Page  int64 `json:"page"`
	Limit int64 `json:"limit"`
	Total int64 `json:"total"`
	Pages int64 `json:"pages"`
}

// PaginationOf is the pagination of a page of a list of total items.
func PaginationOf(p Page, total int64) Pagination {
	return Pagination{Page: p.Page, Limit: p.Limit, Total: total, Pages: (total + p.Limit - 1) / p.Limit}
}

// ParsePage reads page (a positive whole number, default 1) and limit (1-100, default 20).
func ParsePage(page, limit string) (Page, error) {
	var v apperr.Validation
	p := Page{Page: 1, Limit: DefaultLimit}
	if page != "" {
		n, err := parseInt(page)
		v.Check(err == nil && n >= 1, "page", "page must be a whole number from 1")
		p.Page = max(n, 1)
	}
	if limit != "" {
		n, err := parseInt(limit)
		v.Check(err == nil && n >= 1 && n <= MaxLimit, "limit", fmt.Sprintf("limit must be a whole number from 1 to %d", MaxLimit))
		p.Limit = min(max(n, 1), MaxLimit)
	}
	return p, v.Err()
}

func parseInt(s string) (int64, error) {
	var n int64
	if s == "" || len(s) > 19 {
		return 0, errors.New("not a number")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, errors.New("too large")
		}
		n = n*10 + d
	}
	return n, nil
}

// ParseID reads a positive id of a path or query (field names it in the error).
func ParseID(field, s string) (int64, error) {
	n, err := parseInt(s)
	if err != nil || n < 1 {
		return 0, apperr.Invalid(field, field+" must be a positive whole number")
	}
	return n, nil
}

// checkReason validates an action's reason: 3 to 500 characters of text a person can read as stored, without the
// text-direction controls that would make the append-only audit log show another reason (text.MessageProblem,
// issue 36, L-3).
func checkReason(v *apperr.Validation, reason string) string {
	r := strings.TrimSpace(reason)
	n := utf8.RuneCountInString(r)
	v.Check(n >= MinReason && n <= MaxReason, "reason",
		fmt.Sprintf("reason must be %d to %d characters: say why, for the audit log", MinReason, MaxReason))
	if p := text.MessageProblem(r); p != "" {
		v.Add("reason", "reason "+p)
	}
	return r
}

func notFound() error {
	return apperr.NotFound("account_not_found", "No account with this id")
}

// storeErr turns the store's errors into the console's answers.
func storeErr(err error) error {
	var se *StateError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return notFound()
	case errors.Is(err, ErrPaymentNotFound):
		return apperr.NotFound("payment_not_found", "This account has no payment with this id")
	case errors.Is(err, ErrBelowZero):
		return apperr.Conflict("insufficient_credits", "amount", "The deduction would take the balance below 0")
	case errors.As(err, &se):
		return apperr.Conflict("invalid_state", "", se.Message)
	case apperr.IsKind(err, apperr.KindInternal):
		return err
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	return apperr.Internal(err)
}

// Accounts searches accounts by email, name or company (case-insensitive substring); an empty query lists the
// newest first.
func (s *Service) Accounts(ctx context.Context, q string, p Page) ([]AccountRow, Pagination, error) {
	q = strings.TrimSpace(q)
	var v apperr.Validation
	v.Check(utf8.RuneCountInString(q) <= MaxQuery, "q", fmt.Sprintf("q must be at most %d characters", MaxQuery))
	if pr := text.Problem(q); pr != "" {
		v.Add("q", "q "+pr)
	}
	if err := v.Err(); err != nil {
		return nil, Pagination{}, err
	}
	rows, total, err := s.Store.SearchAccounts(ctx, strings.ToLower(q), p.Offset(), p.Limit)
	if err != nil {
		return nil, Pagination{}, storeErr(err)
	}
	return rows, PaginationOf(p, total), nil
}

// Account is everything the console shows of one account.
func (s *Service) Account(ctx context.Context, id int64) (Detail, error) {
	now := s.now()
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	d, c, err := s.Store.AccountDetail(ctx, id, monthStart)
	if err != nil {
		return Detail{}, storeErr(err)
	}
	d.Balance = c.Balance()
	return d, nil
}

// CreditInput is POST /api/admin/accounts/{id}/credits.
type CreditInput struct {
	Amount int64  `json:"amount"`
	Reason string `json:"reason"`
}

// AdjustResult is the answer to a credit adjustment.
type AdjustResult struct {
	Balance billing.Balance `json:"balance"`
	Entry   LedgerRow       `json:"entry"`
}

// AdjustCredits grants (amount > 0) or deducts (amount < 0) credits, as a ledger row naming the admin and the
// reason. A deduction may not take the balance below 0.
func (s *Service) AdjustCredits(ctx context.Context, admin account.User, id int64, in CreditInput) (AdjustResult, error) {
	var v apperr.Validation
	v.Check(in.Amount != 0 && in.Amount >= -MaxAdjustment && in.Amount <= MaxAdjustment, "amount",
		fmt.Sprintf("amount must be a whole number of credits from -%d to %d, not 0", MaxAdjustment, MaxAdjustment))
	reason := checkReason(&v, in.Reason)
	if err := v.Err(); err != nil {
		return AdjustResult{}, err
	}
	// Nobody sets their own balance (issue 36, L-1: an operator granted themselves credits without limit): another
	// operator can, under their own name in the audit log.
	if admin.ID == id {
		return AdjustResult{}, apperr.Conflict("invalid_state", "",
			"An operator cannot change their own account's credits: another operator can.")
	}
	a := Action{AdminID: admin.ID, AdminText: admin.Email, AccountID: id, Reason: reason, At: s.now()}
	e, c, err := s.Store.AdjustCredits(ctx, a, in.Amount, fmt.Sprintf("Adjustment by %s: %s", admin.Email, reason))
	if err != nil {
		return AdjustResult{}, storeErr(err)
	}
	return AdjustResult{Balance: c.Balance(), Entry: LedgerRowOf(e)}, nil
}

// ReasonInput is the body of the actions that only need a reason.
type ReasonInput struct {
	Reason string `json:"reason"`
}

// RefundResult is the answer to a refund.
type RefundResult struct {
	Payment Payment         `json:"payment"`
	Balance billing.Balance `json:"balance"`
}

// Refund gives a paid payment back in full: the provider moves the money first (test mode: nothing to move),
// then the refund rule marks it refunded and takes back the credits it bought as far as the balance still holds
// them, and, when the payment paid for the plan the account is on now, ends that plan at once (issue 36, L-4).
// Should the database fail after the provider refunded, the provider's refund event (Stripe's webhook) applies
// the same rule.
func (s *Service) Refund(ctx context.Context, admin account.User, id, paymentID int64, in ReasonInput) (RefundResult, error) {
	var v apperr.Validation
	reason := checkReason(&v, in.Reason)
	if err := v.Err(); err != nil {
		return RefundResult{}, err
	}
	p, err := s.Store.AdminPayment(ctx, id, paymentID)
	if err != nil {
		return RefundResult{}, storeErr(err)
	}
	if !Refundable(p) {
		return RefundResult{}, apperr.Conflict("payment_not_refundable", "",
			fmt.Sprintf("Payment #%d is %s, not paid: only a paid payment can be refunded.", p.ID, billing.StatusText(p.Status)))
	}
	if s.Refunder == nil {
		return RefundResult{}, &apperr.Error{Kind: apperr.KindUnavailable, Code: "payments_unavailable",
			Message: "Payments are not configured on this server, so nothing can be refunded."}
	}
	if err := s.Refunder.RefundPayment(ctx, p); err != nil {
		return RefundResult{}, &apperr.Error{Kind: apperr.KindUnavailable, Code: "refund_failed",
			Message: "The payment provider did not make the refund; nothing was changed. Try again later.", Err: err}
	}
	a := Action{AdminID: admin.ID, AdminText: admin.Email, AccountID: id, Reason: reason, At: s.now()}
	p, c, err := s.Store.MarkRefunded(ctx, a, paymentID)
	if err != nil {
		return RefundResult{}, storeErr(err)
	}
	if s.ProviderCalls != nil {
		// A failure is left to the billing job, which retries it; the refund itself is done.
		_, _ = s.ProviderCalls(ctx, id)
	}
	return RefundResult{Payment: PaymentOf(p), Balance: c.Balance()}, nil
}

// Suspend, Reinstate and Close change the account's status.
func (s *Service) Suspend(ctx context.Context, admin account.User, id int64, in ReasonInput) (Account, error) {
	// A suspended operator cannot sign in to lift it, and the command line only gives and takes the role.
	if admin.ID == id {
		return Account{}, apperr.Conflict("invalid_state", "", "An operator cannot suspend their own account.")
	}
	if err := s.notOperator(ctx, id, "suspended"); err != nil {
		return Account{}, err
	}
	return s.statusAction(ctx, admin, id, in, func(a Action) (Account, error) { return s.Store.SuspendAccount(ctx, a) })
}

// Reinstate lifts a suspension; the account's held batch jobs are queued again.
func (s *Service) Reinstate(ctx context.Context, admin account.User, id int64, in ReasonInput) (Account, error) {
	enqueue := s.Enqueue
	if enqueue == nil {
		enqueue = func(context.Context, *sql.Tx, int64) error { return nil }
	}
	return s.statusAction(ctx, admin, id, in, func(a Action) (Account, error) { return s.Store.ReinstateAccount(ctx, a, enqueue) })
}

// Close closes the account as its owner would (balance forfeited, sessions revoked); its data is kept.
func (s *Service) Close(ctx context.Context, admin account.User, id int64, in ReasonInput) (Account, error) {
	if admin.ID == id {
		return Account{}, apperr.Conflict("invalid_state", "", "An operator cannot close their own account here.")
	}
	if err := s.notOperator(ctx, id, "closed"); err != nil {
		return Account{}, err
	}
	return s.statusAction(ctx, admin, id, in, func(a Action) (Account, error) { return s.Store.CloseAccountByAdmin(ctx, a) })
}

// notOperator refuses to suspend or close an operator from the console (issue 36, M-2): one operator could otherwise
// lock every other out, and a suspended operator cannot sign in to undo it. The role is taken away on the command
// line first (valuator admin remove), where the people who run the server decide it.
func (s *Service) notOperator(ctx context.Context, id int64, done string) error {
	d, _, err := s.Store.AccountDetail(ctx, id, s.now())
	if err != nil {
		return storeErr(err)
	}
	if d.Account.Role == account.RoleAdmin {
		return apperr.Conflict("invalid_state", "", fmt.Sprintf("An operator cannot be %s from the console: take "+
			"their operator role away first on the command line (valuator admin remove %s).", done, d.Account.Email))
	}
	return nil
}

func (s *Service) statusAction(ctx context.Context, admin account.User, id int64, in ReasonInput,
	do func(Action) (Account, error)) (Account, error) {
	var v apperr.Validation
	reason := checkReason(&v, in.Reason)
	if err := v.Err(); err != nil {
		return Account{}, err
	}
	acct, err := do(Action{AdminID: admin.ID, AdminText: admin.Email, AccountID: id, Reason: reason, At: s.now()})
	return acct, storeErr(err)
}

// Audit is a page of the operators' audit log, newest first, of one account (0: all).
func (s *Service) Audit(ctx context.Context, accountID int64, p Page) ([]AuditEntry, Pagination, error) {
	rows, total, err := s.Store.AdminAuditLog(ctx, accountID, p.Offset(), p.Limit)
	if err != nil {
		return nil, Pagination{}, storeErr(err)
	}
	return rows, PaginationOf(p, total), nil
}

// PersonAudits is a page of every account's person lookups, newest first.
func (s *Service) PersonAudits(ctx context.Context, f PersonAuditFilter, p Page) ([]PersonAudit, Pagination, error) {
	rows, total, err := s.Store.AdminPersonAudits(ctx, f, p.Offset(), p.Limit)
	if err != nil {
		return nil, Pagination{}, storeErr(err)
	}
	return rows, PaginationOf(p, total), nil
}

// OptOuts is a page of the opt-out log, newest first.
func (s *Service) OptOuts(ctx context.Context, p Page) ([]OptOut, Pagination, error) {
	rows, total, err := s.Store.AdminOptOuts(ctx, p.Offset(), p.Limit)
	if err != nil {
		return nil, Pagination{}, storeErr(err)
	}
	return rows, PaginationOf(p, total), nil
}

// PayingPlans are the plans the overview counts, in order.
var PayingPlans = []string{billing.Basic, billing.Professional, billing.Enterprise}

// Overview is the business over the last days days (1-365) up to now, by day in UTC.
func (s *Service) Overview(ctx context.Context, days int) (Overview, error) {
	if days < 1 || days > MaxOverview {
		return Overview{}, apperr.Invalid("days", fmt.Sprintf("days must be a whole number from 1 to %d", MaxOverview))
	}
	now := s.now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(days - 1))
	d, err := s.Store.AdminOverview(ctx, from, now)
	if err != nil {
		return Overview{}, storeErr(err)
	}
	o := Overview{From: from, To: now, PayingByPlan: map[string]int64{}, CreditsSold: d.CreditsSold,
		CreditsUsed: d.CreditsUsed, OverageBilledCents: d.OverageBilledCents, FailingJobs: d.FailingJobs}
	for _, plan := range PayingPlans {
		n := d.PayingByPlan[plan]
		o.PayingByPlan[plan] = n
		o.MRRCents += n * billing.Get(plan).PriceCents
	}
	for day := from; !day.After(today); day = day.AddDate(0, 0, 1) {
		key := day.Format(time.DateOnly)
		o.SignupsPerDay = append(o.SignupsPerDay, DayCount{Date: key, Count: d.SignupsPerDay[key]})
		o.CallsPerDay = append(o.CallsPerDay, DayCount{Date: key, Count: d.CallsPerDay[key]})
	}
	if o.FailingJobs == nil {
		o.FailingJobs = []FailingJob{}
	}
	return o, nil
}

// SetRole makes the account with email an operator (admin true) or a customer again, from the command line.
func (s *Service) SetRole(ctx context.Context, email string, admin bool) (RoleChange, error) {
	role := account.RoleCustomer
	if admin {
		role = account.RoleAdmin
	}
	c, err := s.Store.SetRole(ctx, account.EmailKey(email), role, s.now())
	if errors.Is(err, ErrNotFound) {
		return c, fmt.Errorf("no account with email %s", email)
	}
	return c, err
}

// CommandLineReason is the reason written to the audit log for what the command line does (no operator).
const CommandLineReason = "valuator admin command (command line)"

// ReinstateByEmail lifts the suspension of the account with email, from the command line (no operator in the audit
// row): the way back for an operator suspended before operators could no longer suspend each other (issue 36, M-2),
// or for any account when no operator can sign in. Its held batch jobs are queued again. A StateError when the
// account is not suspended.
func (s *Service) ReinstateByEmail(ctx context.Context, email string) (Account, error) {
	id, err := s.Store.OpenAccountID(ctx, account.EmailKey(email))
	if errors.Is(err, ErrNotFound) {
		return Account{}, fmt.Errorf("no account with email %s", email)
	}
	if err != nil {
		return Account{}, err
	}
	enqueue := s.Enqueue
	if enqueue == nil {
		return Account{}, errors.New("admin: reinstating needs the job queue to queue held batch jobs again")
	}
	return s.Store.ReinstateAccount(ctx, Action{AccountID: id, Reason: CommandLineReason, At: s.now()}, enqueue)
}

// ParsePersonAuditFilter reads the compliance view's filters: accountId, purpose, outcome (hit or miss),
// flagged (true or false) and the days from and to (YYYY-MM-DD, UTC).
func ParsePersonAuditFilter(get func(string) string) (PersonAuditFilter, error) {
	var f PersonAuditFilter
	var v apperr.Validation
	if s := get("accountId"); s != "" {
		n, err := parseInt(s)
		v.Check(err == nil && n >= 1, "accountId", "accountId must be a positive whole number")
		f.AccountID = n
	}
	if p := get("purpose"); p != "" {
		v.Check(person.ValidPurpose(p), "purpose", "purpose must be one of the permissible purposes")
		f.Purpose = p
	}
	switch o := get("outcome"); o {
	case "", "hit", "miss":
		f.Outcome = o
	default:
		v.Add("outcome", "outcome must be hit or miss")
	}
	switch fl := get("flagged"); fl {
	case "", "false":
	case "true":
		f.Flagged = true
	default:
		v.Add("flagged", "flagged must be true or false")
	}
	f.From, f.To = v.DateRange(get)
	return f, v.Err()
}
