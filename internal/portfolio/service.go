package portfolio

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/usage"
)

// Valuer values a home (valuation.Service.Appraise): the lookup's engine, its address normalisation and its error
// codes.
type Valuer interface {
	Appraise(ctx context.Context, in HomeInput) (Appraisal, error)
}

// NewHome is a valued home to store, with the usage record of its charge.
type NewHome struct {
	Input     HomeInput
	Appraisal Appraisal
	// Usage is the charge's record (a lookup's: the endpoint, the key, the request); the store sets its credits.
	Usage       usage.Record
	Description string
}

// Enqueue queues the webhook of a stored alert inside the store's transaction that stores it (jobs.Queue).
type Enqueue func(ctx context.Context, tx *sql.Tx, alertID int64) error

// Store is what portfolios need of the database (store.DB). Charges are written as a lookup's are, in the
// transaction that stores what they pay for: a usage record and a ledger row per home valued, refused below the
// account's floor with *credit.ErrInsufficient and nothing written.
type Store interface {
	CreditTerms(ctx context.Context, userID int64) (balance int64, plan string, overageLimitCents *int64, err error)
	// CreatePortfolio stores p with its homes, each charged HomeCost; the ids of the homes, in order.
	CreatePortfolio(ctx context.Context, p Portfolio, homes []NewHome, month string) (Portfolio, []int64, error)
	// AddPortfolioHomes adds homes to the user's portfolio (ErrNotFound), each charged HomeCost.
	AddPortfolioHomes(ctx context.Context, userID, portfolioID int64, homes []NewHome, month string, at time.Time) ([]int64, error)
	Portfolios(ctx context.Context, userID int64, offset, limit int) ([]Portfolio, int, error)
	Portfolio(ctx context.Context, userID, id int64) (Portfolio, error)
	PortfolioHomes(ctx context.Context, portfolioID int64) ([]Home, error)
	PortfolioValuations(ctx context.Context, portfolioID int64) ([]Valuation, error)
	// RemovePortfolioHomes removes homes of the user's portfolio; how many were removed.
	RemovePortfolioHomes(ctx context.Context, userID, portfolioID int64, homeIDs []int64) (int, error)
	DeletePortfolio(ctx context.Context, userID, id int64) error
	// UpdatePortfolio stores the user's portfolio's settings and webhook secret (ErrNotFound for another's).
	UpdatePortfolio(ctx context.Context, userID, id int64, set Settings, secret string) (Portfolio, error)

	// PortfoliosDue lists, by id after afterID, the portfolios with work in month: a home without its valuation
	// of the month, or the month's alert not yet decided.
	PortfoliosDue(ctx context.Context, month string, afterID int64, limit int) ([]Portfolio, error)
	HomesDue(ctx context.Context, portfolioID int64, month string) ([]Home, error)
	// SaveMonthlyValuation stores a home's valuation of month and charges it, in one transaction; false when the
	// home already has one (another instance's), then nothing is charged.
	SaveMonthlyValuation(ctx context.Context, h Home, month string, a Appraisal, rec usage.Record, description string) (bool, error)
	// PausePortfolio pauses a portfolio with reason and queues its email (once a month).
	PausePortfolio(ctx context.Context, p Portfolio, reason, month string, at time.Time) error
	ResumePortfolio(ctx context.Context, id int64) error
	// SaveAlert stores a's month as decided and, when it has homes, queues its email and (with a webhook) its
	// webhook; false when the month was decided before.
	SaveAlert(ctx context.Context, a Alert, enqueue Enqueue) (bool, error)
	// PortfolioAlerts is a page of a portfolio's sent alerts (those with homes), newest month first, and how many
	// there are.
	PortfolioAlerts(ctx context.Context, portfolioID int64, offset, limit int) ([]Alert, int, error)
}

// Service runs portfolios.
type Service struct {
	store        Store
	valuer       Valuer
	log          *slog.Logger
	now          func() time.Time
	checkWebhook func(ctx context.Context, url string) error
	newSecret    func() string
	enqueue      Enqueue
}

// Deps wires a Service.
type Deps struct {
	Store  Store
	Valuer Valuer
	Logger *slog.Logger
	Now    func() time.Time // the business clock
	// CheckWebhook checks a webhook URL as a batch job's is checked (batch.Service.CheckWebhookURL); NewSecret makes
	// its signing secret (batch.NewWebhookSecret).
	CheckWebhook func(ctx context.Context, url string) error
	NewSecret    func() string
	// Enqueue queues alert webhooks (nil: alerts are emailed only, as in tests of the monthly run alone).
	Enqueue Enqueue
}

// NewService returns the portfolio service.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &Service{store: d.Store, valuer: d.Valuer, log: d.Logger, now: d.Now, checkWebhook: d.CheckWebhook,
		newSecret: d.NewSecret, enqueue: d.Enqueue}
}

// SetEnqueue sets how alert webhooks are queued (the queue is made after the service, which its workers need).
func (s *Service) SetEnqueue(e Enqueue) { s.enqueue = e }

// Row statuses of a create or add.
const (
	RowAdded  = "added"
	RowFailed = "failed"
)

// RowResult is what became of one home of a request: added (valued and charged) or failed with the lookup's code
// (not charged).
type RowResult struct {
	Index            int
	Status           string
	HomeID           int64
	FormattedAddress string
	Value            int64
	Code, Error      string
	Field            string
}

// Create makes a portfolio with homes; secret is the webhook's signing secret (shown when the portfolio is made and
// to its owner after). The homes are checked and valued first, then stored and charged in one transaction: an
// account that cannot pay for every valued home gets the lookup's 402 and nothing is made.
func (s *Service) Create(ctx context.Context, call usage.Call, set Settings, homes []HomeInput) (Portfolio, []RowResult, error) {
	if err := set.Validate(); err != nil {
		return Portfolio{}, nil, err
	}
	if err := s.checkHomes(ctx, call.UserID, homes, 0); err != nil {
		return Portfolio{}, nil, err
	}
	if set.WebhookURL != "" && s.checkWebhook != nil {
		if err := s.checkWebhook(ctx, set.WebhookURL); err != nil {
			return Portfolio{}, nil, err
		}
	}
	rows, valued, err := s.value(ctx, call, homes, nil)
	if err != nil {
		return Portfolio{}, nil, err
	}
	now := s.now()
	p := Portfolio{UserID: call.UserID, Name: set.Name, AlertThreshold: set.AlertThreshold, WebhookURL: set.WebhookURL,
		Status: StatusActive, CreatedAt: now}
	if p.WebhookURL != "" && s.newSecret != nil {
		p.WebhookSecret = s.newSecret()
	}
	p, ids, err := s.store.CreatePortfolio(ctx, p, valued, Month(now))
	if err = charged(err, len(valued)); err != nil {
		return Portfolio{}, nil, err
	}
	return p, fill(rows, ids), nil
}

// Add values homes and adds them to the user's portfolio, as Create does.
func (s *Service) Add(ctx context.Context, call usage.Call, portfolioID int64, homes []HomeInput) ([]RowResult, error) {
	p, err := s.store.Portfolio(ctx, call.UserID, portfolioID)
	if err != nil {
		return nil, err
	}
	if len(homes) == 0 {
		return nil, apperr.Invalid("properties", "properties must list at least one property")
	}
	if err := s.checkHomes(ctx, call.UserID, homes, p.HomeCount); err != nil {
		return nil, err
	}
	have, err := s.store.PortfolioHomes(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	rows, valued, err := s.value(ctx, call, homes, have)
	if err != nil {
		return nil, err
	}
	ids, err := s.store.AddPortfolioHomes(ctx, call.UserID, p.ID, valued, Month(s.now()), s.now())
	if err = charged(err, len(valued)); err != nil {
		return nil, err
	}
	return fill(rows, ids), nil
}

// charged makes a refused charge of n homes the lookup's 402.
func charged(err error, n int) error {
	var ins *credit.ErrInsufficient
	if errors.As(err, &ins) {
		return ins.Answer(int64(n) * HomeCost)
	}
	return err
}

// fill gives the added rows their home ids, in order.
func fill(rows []RowResult, ids []int64) []RowResult {
	k := 0
	for i := range rows {
		if rows[i].Status == RowAdded && k < len(ids) {
			rows[i].HomeID = ids[k]
			k++
		}
	}
	return rows
}

// TooManyHomes is the error of a portfolio that would hold more homes than its account's plan allows (MaxHomes).
func TooManyHomes(plan string, have, adding int) error {
	limit := MaxHomes(plan)
	e := apperr.Invalid("properties", fmt.Sprintf(
		"A portfolio on your plan holds up to %d properties (the plan's batch size); it has %d and this adds %d",
		limit, have, adding))
	e.Code = "portfolio_too_large"
	e.Extra = map[string]any{"limit": limit}
	return e
}

// checkHomes checks each home's input, naming the field, and the plan's limit before anything is valued.
func (s *Service) checkHomes(ctx context.Context, userID int64, homes []HomeInput, have int) error {
	_, plan, _, err := s.store.CreditTerms(ctx, userID)
	if err != nil {
		return err
	}
	if have+len(homes) > MaxHomes(plan) {
		return TooManyHomes(plan, have, len(homes))
	}
	for i, in := range homes {
		if err := checkInput(in, fmt.Sprintf("properties[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// value values each home: a home the engine cannot value, or one already in the portfolio (have) or earlier in the
// request, is a failed row, free; a failure of the engine as a whole fails the request.
func (s *Service) value(ctx context.Context, call usage.Call, homes []HomeInput, have []Home) ([]RowResult, []NewHome, error) {
	seen := map[string]bool{}
	for _, h := range have {
		seen[h.FormattedAddress] = true
	}
	rows := make([]RowResult, len(homes))
	var valued []NewHome
	for i, in := range homes {
		rows[i] = RowResult{Index: i, Status: RowFailed}
		a, err := s.valuer.Appraise(ctx, in)
		if err != nil {
			e, ok := errPerHome(err)
			if !ok {
				return nil, nil, err
			}
			rows[i].Code, rows[i].Error = e.Code, e.Message
			if e.Field != "" {
				rows[i].Field = fmt.Sprintf("properties[%d].%s", i, e.Field)
			}
			continue
		}
		rows[i].FormattedAddress = a.FormattedAddress
		if seen[a.FormattedAddress] {
			rows[i].Code, rows[i].Error = "duplicate_property", "This property is already in the portfolio"
			rows[i].Field = fmt.Sprintf("properties[%d].address", i)
			continue
		}
		seen[a.FormattedAddress] = true
		rows[i].Status, rows[i].Value = RowAdded, a.Value
		rec := call.Record(usage.ServiceValuation, 200, s.now())
		rec.PropertyAddress, rec.Valuation = a.FormattedAddress, a.Value
		data, _ := json.Marshal(in)
		rec.RequestData = string(data)
		valued = append(valued, NewHome{Input: in, Appraisal: a, Usage: rec,
			Description: "Portfolio property valuation: " + a.FormattedAddress})
	}
	return rows, valued, nil
}

// Get is one of the user's portfolios with its homes' views (a page of them: offset, limit), the totals over all
// of them and its value month by month.
func (s *Service) Get(ctx context.Context, userID, id int64, offset, limit int) (Portfolio, []HomeView, int, Totals, []MonthValue, error) {
	p, err := s.store.Portfolio(ctx, userID, id)
	if err != nil {
		return p, nil, 0, Totals{}, nil, err
	}
	homes, err := s.store.PortfolioHomes(ctx, id)
	if err != nil {
		return p, nil, 0, Totals{}, nil, err
	}
	vals, err := s.store.PortfolioValuations(ctx, id)
	if err != nil {
		return p, nil, 0, Totals{}, nil, err
	}
	views, totals, series := Summarise(p.CreatedAt, Month(s.now()), homes, vals)
	total := len(views)
	views = views[min(offset, total):min(offset+limit, total)]
	return p, views, total, totals, series, nil
}

// List is a page of the user's portfolios, newest first, and how many there are.
func (s *Service) List(ctx context.Context, userID int64, offset, limit int) ([]Portfolio, int, error) {
	return s.store.Portfolios(ctx, userID, offset, limit)
}

// Alerts is a page of the alerts the user's portfolio has sent (by email, and to its webhook if it has one), newest
// month first, each as it was sent, and how many there are. A month whose homes all stayed within the threshold sent
// nothing and is not listed.
func (s *Service) Alerts(ctx context.Context, userID, id int64, offset, limit int) ([]Alert, int, error) {
	p, err := s.store.Portfolio(ctx, userID, id)
	if err != nil {
		return nil, 0, err
	}
	return s.store.PortfolioAlerts(ctx, p.ID, offset, limit)
}

// Remove removes homes from the user's portfolio; ids that are not its homes are a 404.
func (s *Service) Remove(ctx context.Context, userID, portfolioID int64, homeIDs []int64) (int, error) {
	if len(homeIDs) == 0 {
		return 0, apperr.Invalid("homeIds", "homeIds must list at least one home id")
	}
	if len(homeIDs) > 1000 {
		return 0, apperr.Invalid("homeIds", "homeIds may list up to 1000 home ids")
	}
	for i, id := range homeIDs {
		if id <= 0 {
			return 0, apperr.Invalid(fmt.Sprintf("homeIds[%d]", i), "home ids are positive whole numbers")
		}
	}
	return s.store.RemovePortfolioHomes(ctx, userID, portfolioID, homeIDs)
}

// Patch changes a portfolio's settings: a nil field is left as it is; ClearThreshold turns alerts off; a WebhookURL
// of "" removes the webhook.
type Patch struct {
	Name           *string
	AlertThreshold *float64
	ClearThreshold bool
	WebhookURL     *string
}

// Update changes the user's portfolio's settings, checked as when it was made. A webhook added where there was none
// gets a signing secret (shown with the portfolio); one moved to another address keeps its secret; one removed
// loses it.
func (s *Service) Update(ctx context.Context, userID, id int64, patch Patch) (Portfolio, error) {
	p, err := s.store.Portfolio(ctx, userID, id)
	if err != nil {
		return Portfolio{}, err
	}
	set := Settings{Name: p.Name, AlertThreshold: p.AlertThreshold, WebhookURL: p.WebhookURL}
	if patch.Name != nil {
		set.Name = *patch.Name
	}
	if patch.ClearThreshold {
		set.AlertThreshold = nil
	} else if patch.AlertThreshold != nil {
		set.AlertThreshold = patch.AlertThreshold
	}
	if patch.WebhookURL != nil {
		set.WebhookURL = *patch.WebhookURL
	}
	if err := set.Validate(); err != nil {
		return Portfolio{}, err
	}
	secret := p.WebhookSecret
	switch {
	case set.WebhookURL == "":
		secret = ""
	case set.WebhookURL != p.WebhookURL:
		if s.checkWebhook != nil {
			if err := s.checkWebhook(ctx, set.WebhookURL); err != nil {
				return Portfolio{}, err
			}
		}
		if secret == "" && s.newSecret != nil {
			secret = s.newSecret()
		}
	}
	return s.store.UpdatePortfolio(ctx, userID, id, set, secret)
}

// Delete deletes the user's portfolio with its homes, valuations and alerts (the ledger keeps its charges).
func (s *Service) Delete(ctx context.Context, userID, id int64) error {
	return s.store.DeletePortfolio(ctx, userID, id)
}

// RevalueReport says what a monthly run did.
type RevalueReport struct {
	Month    string
	Valued   int // homes valued and charged by this run
	Skipped  int // homes valued meanwhile by another instance (not charged again)
	Failed   int // homes the engine could not value this time (free; tried again on the next run)
	Paused   int
	Resumed  int
	Alerts   int
	Finished int // portfolios whose month is complete
}

// pausedReason is what a paused portfolio says, on screen and by email.
const pausedReason = "Paused: your credits ran out during this month's revaluation. It resumes within an hour of " +
	"credits being added (a plan upgrade, a payment or the next period's credits)."

// Revalue is the monthly job's work, for the business month of the clock: it values every home of every active
// portfolio not yet valued this month, each charged HomeCost in the transaction that stores its valuation (the
// database's UNIQUE (home, month) makes another instance's attempt at the same home change nothing and charge
// nothing). A portfolio whose account cannot pay is paused and its owner emailed; a paused portfolio resumes on the
// first run after its account can pay for a home again. When a portfolio's month is complete, the homes that moved
// past its threshold are alerted, once.
func (s *Service) Revalue(ctx context.Context) (RevalueReport, error) {
	month := Month(s.now())
	rep := RevalueReport{Month: month}
	var after int64
	for {
		due, err := s.store.PortfoliosDue(ctx, month, after, 100)
		if err != nil {
			return rep, err
		}
		for _, p := range due {
			after = p.ID
			if err := s.revaluePortfolio(ctx, p, month, &rep); err != nil {
				return rep, err
			}
		}
		if len(due) < 100 {
			return rep, nil
		}
	}
}

func (s *Service) revaluePortfolio(ctx context.Context, p Portfolio, month string, rep *RevalueReport) error {
	if p.Status == StatusPaused {
		balance, plan, limit, err := s.store.CreditTerms(ctx, p.UserID)
		if err != nil {
			return err
		}
		if credit.CanPay(balance, HomeCost, plan, limit) != nil {
			return nil // still cannot pay: stays paused
		}
		if err := s.store.ResumePortfolio(ctx, p.ID); err != nil {
			return err
		}
		rep.Resumed++
	}
	homes, err := s.store.HomesDue(ctx, p.ID, month)
	if err != nil {
		return err
	}
	incomplete := false
	for _, h := range homes {
		a, err := s.valuer.Appraise(ctx, h.Input)
		if err != nil {
			if _, ok := errPerHome(err); !ok {
				return err
			}
			// Not valued this time (the records changed): free, and tried again on the next run.
			rep.Failed++
			incomplete = true
			continue
		}
		rec := usage.Record{UserID: p.UserID, Endpoint: "Monthly portfolio revaluation", Service: usage.ServiceValuation,
			PropertyAddress: a.FormattedAddress, Status: 200, Valuation: a.Value, CreatedAt: s.now(),
			RequestID: fmt.Sprintf("portfolio-%d-%s-home-%d", p.ID, month, h.ID)}
		saved, err := s.store.SaveMonthlyValuation(ctx, h, month, a, rec,
			fmt.Sprintf("Portfolio %q, %s revaluation: %s", p.Name, month, a.FormattedAddress))
		var ins *credit.ErrInsufficient
		if errors.As(err, &ins) {
			rep.Paused++
			return s.store.PausePortfolio(ctx, p, pausedReason, month, s.now())
		}
		if err != nil {
			return err
		}
		if saved {
			rep.Valued++
		} else {
			rep.Skipped++
		}
	}
	if incomplete {
		return nil
	}
	rep.Finished++
	return s.decideAlert(ctx, p, month, rep)
}

// decideAlert stores the month's alert of a portfolio whose homes are all valued: the homes that moved past the
// threshold (none: the month is marked decided, and nothing is sent).
func (s *Service) decideAlert(ctx context.Context, p Portfolio, month string, rep *RevalueReport) error {
	if p.AlertThreshold == nil {
		return nil
	}
	homes, err := s.store.PortfolioHomes(ctx, p.ID)
	if err != nil {
		return err
	}
	vals, err := s.store.PortfolioValuations(ctx, p.ID)
	if err != nil {
		return err
	}
	a := Alert{PortfolioID: p.ID, PortfolioName: p.Name, Month: month, Threshold: *p.AlertThreshold,
		Homes: Moves(homes, vals, month, *p.AlertThreshold), CreatedAt: s.now()}
	var enqueue Enqueue
	if p.WebhookURL != "" {
		enqueue = s.enqueue
	}
	saved, err := s.store.SaveAlert(ctx, a, enqueue)
	if saved && len(a.Homes) > 0 {
		rep.Alerts++
	}
	return err
}
