package billing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"valuator/internal/apperr"
)

// Payment kinds.
const (
	KindSubscription = "subscription"
	KindUpgrade      = "upgrade"
	KindRenewal      = "renewal"
	KindOverage      = "overage"
)

// PaymentRecord is one row of the payments table: a charge, what it was for and how it ended.
type PaymentRecord struct {
	ID             int64
	UserID         int64
	Provider       string
	Ref            string
	Kind           string
	Plan           string
	FromPlan       string
	AmountCents    int64
	Credits        int64
	Status         string
	Description    string
	FailureMessage string
	Period         Period
	DedupeKey      string
	CreatedAt      time.Time
}

// Roll is what closing an account's due periods did: the payments it made that the provider must now bill
// (renewals and overage), which happens after the closing transaction commits.
type Roll struct {
	Rolled   bool
	Payments []PaymentRecord
	Sub      *Sub
}

// Store is what billing needs from the database. Every method that changes credits does so through the ledger in
// its own transaction.
type Store interface {
	BillingState(ctx context.Context, userID int64, now time.Time) (State, error)
	CreatePayment(ctx context.Context, p PaymentRecord) (int64, error)
	// AttachPayment records the provider's reference (and a test-mode secret's hash) and amount of a payment.
	AttachPayment(ctx context.Context, paymentID int64, ref, secretHash string, amountCents int64, at time.Time) error
	FailPayment(ctx context.Context, paymentID int64, message string, at time.Time) error
	SaveSubscription(ctx context.Context, userID int64, sub Sub, at time.Time) error
	// ScheduleChange sets or clears a downgrade and the cancellation at period end of an active subscription.
	ScheduleChange(ctx context.Context, userID int64, pendingPlan string, cancel bool, at time.Time) error
	// ApplyEvent applies a provider event once (false for a repeated delivery), with its credits, in one
	// transaction.
	ApplyEvent(ctx context.Context, provider string, ev Event, now time.Time) (bool, error)
	// RollPeriod closes the account's periods that ended by now, in one transaction; a second run finds nothing due.
	RollPeriod(ctx context.Context, userID int64, now time.Time) (Roll, error)
	DuePeriods(ctx context.Context, now time.Time, limit int) ([]int64, error)
	SaveTestCard(ctx context.Context, userID int64, id string, c CheckedCard, at time.Time) error
	TestCard(ctx context.Context, userID int64, id string) (CheckedCard, error)
	PaymentBySecret(ctx context.Context, userID int64, secretHash string) (PaymentRecord, error)
}

// ErrNotFound is a row that does not exist or is not the user's.
var ErrNotFound = errors.New("not found")

// Service joins the billing rules, the store and the payments provider.
type Service struct {
	Store    Store
	Provider Provider // nil: payments are not configured (billing config says "disabled")
	Log      *slog.Logger
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Mode is the payment mode the app shows: ModeTest, ModeStripe or "disabled".
func (s *Service) Mode() string {
	if s.Provider == nil {
		return "disabled"
	}
	return s.Provider.Mode()
}

func (s *Service) provider() (Provider, error) {
	if s.Provider == nil {
		return nil, &apperr.Error{Kind: apperr.KindUnavailable, Code: "payments_not_configured",
			Message: "Payments are not configured on this server. Ask its operator to set VALUATOR_STRIPE_SECRET_KEY."}
	}
	return s.Provider, nil
}

// paidPlan reads a planType field: one of the paid plans.
func paidPlan(id string) (Plan, error) {
	p, ok := Lookup(id)
	if !ok || !p.Paid() {
		return Plan{}, apperr.Invalid("planType", "Choose a plan: basic, professional or enterprise.")
	}
	return p, nil
}

// SubscribeResult is the answer to POST /api/billing/subscribe.
type SubscribeResponse struct {
	ClientSecret string `json:"clientSecret"`
	PaymentID    int64  `json:"paymentId"`
	AmountCents  int64  `json:"amountCents"`
	PlanType     string `json:"planType"`
}

// Subscribe starts a subscription to a paid plan for an account without one. Nothing is granted here: the
// credits come with the payment's success event.
func (s *Service) Subscribe(ctx context.Context, userID int64, planType, paymentMethodID string) (SubscribeResponse, error) {
	prov, err := s.provider()
	if err != nil {
		return SubscribeResponse{}, err
	}
	plan, err := paidPlan(planType)
	if err != nil {
		return SubscribeResponse{}, err
	}
	pm := strings.TrimSpace(paymentMethodID)
	if pm == "" || len(pm) > 255 {
		return SubscribeResponse{}, apperr.Invalid("paymentMethodId", "Enter your card details.")
	}
	now := s.now()
	st, err := s.Store.BillingState(ctx, userID, now)
	if err != nil {
		return SubscribeResponse{}, err
	}
	if st.Active() {
		return SubscribeResponse{}, apperr.Conflict("already_subscribed", "planType",
			fmt.Sprintf("You already subscribe to the %s plan. Choose another plan to change it.", Get(st.Plan).Name))
	}
	card := Card{}
	if prov.Mode() == ModeTest {
		c, err := s.Store.TestCard(ctx, userID, pm)
		if errors.Is(err, ErrNotFound) {
			return SubscribeResponse{}, apperr.Invalid("paymentMethodId", "This payment method does not exist. Enter your card details again.")
		}
		if err != nil {
			return SubscribeResponse{}, err
		}
		card = c.Card
	}
	pay := PaymentRecord{UserID: userID, Provider: prov.Mode(), Kind: KindSubscription, Plan: plan.ID, FromPlan: Get(st.Plan).ID,
		AmountCents: plan.PriceCents, Credits: plan.Credits, Status: PaymentPending,
		Description: fmt.Sprintf("%s plan, first month", plan.Name), CreatedAt: now}
	if pay.ID, err = s.Store.CreatePayment(ctx, pay); err != nil {
		return SubscribeResponse{}, err
	}
	customer := ""
	if st.Sub != nil && st.Sub.Provider == prov.Mode() {
		customer = st.Sub.CustomerRef
	}
	res, err := prov.Subscribe(ctx, SubscribeRequest{UserID: userID, Email: st.Email, Name: st.FullName,
		CustomerID: customer, Plan: plan, PaymentMethodID: pm, PaymentID: pay.ID})
	if err != nil {
		return SubscribeResponse{}, s.paymentFailed(ctx, pay.ID, err)
	}
	if err := s.Store.AttachPayment(ctx, pay.ID, res.Payment.Ref, secretHash(prov, res.Payment.ClientSecret),
		res.Payment.AmountCents, now); err != nil {
		return SubscribeResponse{}, err
	}
	if err := s.Store.SaveSubscription(ctx, userID, Sub{Plan: plan.ID, Status: StatusIncomplete, Provider: prov.Mode(),
		CustomerRef: res.CustomerID, SubscriptionRef: res.SubscriptionID, PaymentMethodRef: pm, Card: card}, now); err != nil {
		return SubscribeResponse{}, err
	}
	return SubscribeResponse{ClientSecret: res.Payment.ClientSecret, PaymentID: pay.ID,
		AmountCents: res.Payment.AmountCents, PlanType: plan.ID}, nil
}

// PlanChange is the answer to a plan change and its preview (api/openapi.yaml PlanChange).
type PlanChange struct {
	PlanType        string    `json:"planType"`
	Change          string    `json:"change"`
	RequiresPayment bool      `json:"requiresPayment"`
	ClientSecret    *string   `json:"clientSecret"`
	PaymentID       *int64    `json:"paymentId"`
	ChargeCents     int64     `json:"chargeCents"`
	Credits         int64     `json:"credits"`
	EffectiveAt     time.Time `json:"effectiveAt"`
}

// changeTerms is what moving an account to plan would do now.
func changeTerms(st State, to Plan, now time.Time) (PlanChange, error) {
	if !st.Active() {
		return PlanChange{}, apperr.Conflict("no_subscription", "planType",
			"You have no paid plan to change yet. Choose a plan to subscribe.")
	}
	from := Get(st.Plan)
	out := PlanChange{PlanType: to.ID}
	switch ChangeKind(from, to) {
	case Upgrade:
		pr := Prorate(from, to, st.Period, now)
		out.Change, out.ChargeCents, out.Credits, out.EffectiveAt = "upgrade", pr.ChargeCents, pr.Credits, now
	case Downgrade:
		out.Change, out.EffectiveAt = "downgrade", st.Period.End
	default:
		out.Change, out.EffectiveAt = "none", now
	}
	return out, nil
}

// Proration previews a plan change.
func (s *Service) Proration(ctx context.Context, userID int64, planType string) (PlanChange, error) {
	to, err := paidPlan(planType)
	if err != nil {
		return PlanChange{}, err
	}
	now := s.now()
	st, err := s.Store.BillingState(ctx, userID, now)
	if err != nil {
		return PlanChange{}, err
	}
	return changeTerms(st, to, now)
}

// ChangePlan moves an active subscription to another plan: an upgrade at once with a prorated charge (its
// payment confirmed by the browser; the plan and credits change when it succeeds), a downgrade at period end.
// Choosing the current plan again keeps it: it clears a scheduled downgrade or cancellation.
func (s *Service) ChangePlan(ctx context.Context, userID int64, planType string) (PlanChange, error) {
	prov, err := s.provider()
	if err != nil {
		return PlanChange{}, err
	}
	to, err := paidPlan(planType)
	if err != nil {
		return PlanChange{}, err
	}
	now := s.now()
	st, err := s.Store.BillingState(ctx, userID, now)
	if err != nil {
		return PlanChange{}, err
	}
	out, err := changeTerms(st, to, now)
	if err != nil {
		return PlanChange{}, err
	}
	from := Get(st.Plan)
	req := ChangeRequest{UserID: userID, CustomerID: st.Sub.CustomerRef, SubscriptionID: st.Sub.SubscriptionRef,
		From: from, To: to, Resume: st.Sub.CancelAtPeriodEnd}
	switch out.Change {
	case "downgrade":
		if err := prov.Downgrade(ctx, req); err != nil {
			return PlanChange{}, providerError(err)
		}
		return out, s.Store.ScheduleChange(ctx, userID, to.ID, false, now)
	case "none":
		if st.Sub.PendingPlan != "" && prov.Mode() == ModeStripe {
			// Stripe already bills the cheaper price from the next period: put this plan's price back.
			if err := prov.Downgrade(ctx, req); err != nil {
				return PlanChange{}, providerError(err)
			}
		}
		return out, s.Store.ScheduleChange(ctx, userID, "", false, now)
	}
	req.Proration = Prorate(from, to, st.Period, now)
	pay := PaymentRecord{UserID: userID, Provider: prov.Mode(), Kind: KindUpgrade, Plan: to.ID, FromPlan: from.ID,
		AmountCents: out.ChargeCents, Credits: out.Credits, Status: PaymentPending,
		Description: fmt.Sprintf("Upgrade from %s to %s, prorated for the rest of the period to %s", from.Name, to.Name,
			st.Period.End.Format("Jan 2, 2006")), Period: st.Period, CreatedAt: now}
	if pay.ID, err = s.Store.CreatePayment(ctx, pay); err != nil {
		return PlanChange{}, err
	}
	req.PaymentID = pay.ID
	p, err := prov.Upgrade(ctx, req)
	if err != nil {
		return PlanChange{}, s.paymentFailed(ctx, pay.ID, err)
	}
	settled := p.Status == PaymentSucceeded || p.AmountCents == 0
	if p.Ref == "" && settled {
		// Nothing was left to pay (a free change, or an invoice the provider settled at once), so the provider
		// named no payment: the payment row gets its own reference, for the event below to find it by.
		p.Ref = fmt.Sprintf("settled-%d", pay.ID)
	}
	if err := s.Store.AttachPayment(ctx, pay.ID, p.Ref, secretHash(prov, p.ClientSecret), p.AmountCents, now); err != nil {
		return PlanChange{}, err
	}
	out.ChargeCents, out.PaymentID = p.AmountCents, &pay.ID
	if settled {
		// Apply it as the event the provider would send.
		_, err := s.Store.ApplyEvent(ctx, prov.Mode(), Event{ID: fmt.Sprintf("evt_local_payment_%d", pay.ID),
			Type: EventPaymentSucceeded, PaymentRef: p.Ref, AmountCents: p.AmountCents, Created: now}, now)
		return out, err
	}
	out.RequiresPayment = p.ClientSecret != ""
	if out.RequiresPayment {
		out.ClientSecret = &p.ClientSecret
	}
	return out, nil
}

// Cancel ends the subscription at the end of its period.
func (s *Service) Cancel(ctx context.Context, userID int64) (SubscriptionView, error) {
	prov, err := s.provider()
	if err != nil {
		return SubscriptionView{}, err
	}
	now := s.now()
	st, err := s.Store.BillingState(ctx, userID, now)
	if err != nil {
		return SubscriptionView{}, err
	}
	if !st.Active() {
		return SubscriptionView{}, apperr.Conflict("no_subscription", "", "You have no paid subscription to cancel.")
	}
	if !st.Sub.CancelAtPeriodEnd {
		if err := prov.Cancel(ctx, st.Sub.CustomerRef, st.Sub.SubscriptionRef); err != nil {
			return SubscriptionView{}, providerError(err)
		}
		if err := s.Store.ScheduleChange(ctx, userID, "", true, now); err != nil {
			return SubscriptionView{}, err
		}
	}
	st, err = s.Store.BillingState(ctx, userID, now)
	return ViewSubscription(st), err
}

// HandleWebhook verifies a provider webhook and applies its event once.
func (s *Service) HandleWebhook(ctx context.Context, payload []byte, signature string) error {
	if s.Provider == nil || s.Provider.Mode() != ModeStripe {
		return apperr.NotFound("not_found", "Not found")
	}
	ev, err := s.Provider.ParseWebhook(payload, signature, s.now())
	if err != nil {
		if errors.Is(err, ErrSignature) {
			return &apperr.Error{Kind: apperr.KindInvalid, Code: "bad_signature", Field: "Stripe-Signature",
				Message: "The webhook's Stripe-Signature does not verify."}
		}
		return apperr.Invalid("body", "The webhook's body is not a Stripe event.")
	}
	return s.HandleEvent(ctx, ev)
}

// HandleEvent applies a verified event (from a webhook or the test mode's confirmation) once, and then does what
// an applied event leaves to the provider.
func (s *Service) HandleEvent(ctx context.Context, ev Event) error {
	if ev.Type == EventIgnored {
		return nil
	}
	applied, err := s.Store.ApplyEvent(ctx, s.Provider.Mode(), ev, s.now())
	if err != nil {
		return err
	}
	if !applied {
		s.log().Info("billing event already applied", "event", ev.ID, "type", ev.Type)
	}
	return nil
}

// TestPaymentMethod is what the test-mode card form gets back (api/openapi.yaml PaymentMethod).
type TestPaymentMethod struct {
	ID string `json:"id"`
	Card
}

// CreateTestCard checks a test card and keeps its brand, last four digits and outcome.
func (s *Service) CreateTestCard(ctx context.Context, userID int64, in TestCardInput) (TestPaymentMethod, error) {
	if s.Mode() != ModeTest {
		return TestPaymentMethod{}, apperr.NotFound("not_found", "Test mode is not enabled on this server.")
	}
	now := s.now()
	c, err := CheckTestCard(in, now)
	if err != nil {
		var ce *CardError
		if errors.As(err, &ce) {
			return TestPaymentMethod{}, &apperr.Error{Kind: apperr.KindInvalid, Code: ce.Code, Field: ce.Field,
				Message: ce.Message, Fields: map[string]string{ce.Field: ce.Message}}
		}
		return TestPaymentMethod{}, err
	}
	id := "pm_test_" + randomID()
	if err := s.Store.SaveTestCard(ctx, userID, id, c, now); err != nil {
		return TestPaymentMethod{}, err
	}
	return TestPaymentMethod{ID: id, Card: c.Card}, nil
}

// ConfirmTestPayment confirms a test-mode payment by its client secret with a test card, as Stripe's
// confirmCardPayment does in the browser: the card's outcome becomes the provider event, applied through
// HandleEvent like a webhook. A declined card answers 402 with Stripe's message.
func (s *Service) ConfirmTestPayment(ctx context.Context, userID int64, clientSecret, paymentMethodID string) error {
	if s.Mode() != ModeTest {
		return apperr.NotFound("not_found", "Test mode is not enabled on this server.")
	}
	pay, err := s.Store.PaymentBySecret(ctx, userID, hashSecret(clientSecret))
	if errors.Is(err, ErrNotFound) {
		return apperr.Invalid("clientSecret", "No payment of yours awaits confirmation with this client secret.")
	}
	if err != nil {
		return err
	}
	card, err := s.Store.TestCard(ctx, userID, paymentMethodID)
	if errors.Is(err, ErrNotFound) {
		return apperr.Invalid("paymentMethodId", "This payment method does not exist. Enter your card details again.")
	}
	if err != nil {
		return err
	}
	switch pay.Status {
	case PaymentSucceeded:
		return nil // confirming twice is harmless, as on Stripe
	case PaymentPending, PaymentFailed:
		// A declined payment may be confirmed again with another card, as a Stripe PaymentIntent can.
	default:
		return apperr.Conflict("payment_not_pending", "clientSecret", "This payment was already "+pay.Status+".")
	}
	if pay.Kind == KindSubscription {
		// Two sign-ups started at once (two tabs): the first one paid wins, the other is not charged.
		st, err := s.Store.BillingState(ctx, userID, s.now())
		if err != nil {
			return err
		}
		if st.Active() {
			msg := fmt.Sprintf("You already subscribe to the %s plan; this second subscription was not charged.", Get(st.Plan).Name)
			if err := s.Store.FailPayment(ctx, pay.ID, msg, s.now()); err != nil {
				return err
			}
			return apperr.Conflict("already_subscribed", "clientSecret", msg)
		}
	}
	return s.settleTestPayment(ctx, pay, card)
}

// settleTestPayment turns a test card's outcome into the event Stripe would send for the payment.
func (s *Service) settleTestPayment(ctx context.Context, pay PaymentRecord, card CheckedCard) error {
	// Each confirmation is its own event, as each attempt on Stripe is; a payment already paid is not paid again
	// (store.ApplyEvent acts only on a pending or declined payment).
	ev := Event{ID: "evt_test_" + randomID(), PaymentRef: pay.Ref, AmountCents: pay.AmountCents, Created: s.now()}
	if card.Outcome == OutcomeSucceed {
		ev.Type = EventPaymentSucceeded
		return s.HandleEvent(ctx, ev)
	}
	ev.Type, ev.FailureMessage = EventPaymentFailed, card.Message
	if err := s.HandleEvent(ctx, ev); err != nil {
		return err
	}
	return &apperr.Error{Kind: apperr.KindPaymentRequired, Code: card.Outcome, Message: card.Message}
}

// RollDue closes every billing period that has ended, then bills what closing them left to the provider
// (renewals, overage). It is the body of the periodic job; running it again finds nothing due.
func (s *Service) RollDue(ctx context.Context) (int, error) {
	now := s.now()
	n := 0
	for {
		ids, err := s.Store.DuePeriods(ctx, now, 500)
		if err != nil || len(ids) == 0 {
			return n, err
		}
		for _, id := range ids {
			roll, err := s.Store.RollPeriod(ctx, id, now)
			if err != nil {
				return n, fmt.Errorf("roll period of user %d: %w", id, err)
			}
			if roll.Rolled {
				n++
			}
			for _, p := range roll.Payments {
				if err := s.bill(ctx, p, roll.Sub); err != nil {
					s.log().Warn("billing a closed period failed", "user", id, "payment", p.ID, "kind", p.Kind, "err", err)
				}
			}
		}
		if len(ids) < 500 {
			return n, nil
		}
	}
}

// bill hands a renewal or overage payment made by a period close to the provider.
func (s *Service) bill(ctx context.Context, p PaymentRecord, sub *Sub) error {
	if s.Provider == nil || sub == nil {
		return s.Store.FailPayment(ctx, p.ID, "Payments are not configured on this server.", s.now())
	}
	now := s.now()
	switch p.Kind {
	case KindOverage:
		ref, err := s.Provider.BillOverage(ctx, OverageRequest{UserID: p.UserID, CustomerID: sub.CustomerRef,
			SubscriptionID: sub.SubscriptionRef, Credits: p.Credits, AmountCents: p.AmountCents, Period: p.Period, PaymentID: p.ID})
		if err != nil {
			return s.Store.FailPayment(ctx, p.ID, providerError(err).Error(), now)
		}
		if err := s.Store.AttachPayment(ctx, p.ID, ref, "", p.AmountCents, now); err != nil {
			return err
		}
		if s.Provider.Mode() == ModeStripe {
			return nil // on the next invoice
		}
		_, err = s.Store.ApplyEvent(ctx, ModeTest, Event{ID: fmt.Sprintf("evt_test_payment_%d", p.ID),
			Type: EventPaymentSucceeded, PaymentRef: ref, AmountCents: p.AmountCents, Created: now}, now)
		return err
	case KindRenewal:
		pay, err := s.Provider.Renew(ctx, RenewRequest{UserID: p.UserID, CustomerID: sub.CustomerRef,
			SubscriptionID: sub.SubscriptionRef, PaymentMethodID: sub.PaymentMethodRef, Plan: Get(p.Plan),
			Period: p.Period, PaymentID: p.ID})
		if err != nil {
			return s.Store.FailPayment(ctx, p.ID, providerError(err).Error(), now)
		}
		if pay.Ref == "" {
			return nil // the provider bills it and its event grants the credits
		}
		if err := s.Store.AttachPayment(ctx, p.ID, pay.Ref, "", pay.AmountCents, now); err != nil {
			return err
		}
		p.Ref = pay.Ref
		card, err := s.Store.TestCard(ctx, p.UserID, sub.PaymentMethodRef)
		if err != nil {
			card = CheckedCard{Outcome: "card_declined", Message: DeclineMessage("card_declined")}
		}
		err = s.settleTestPayment(ctx, p, card)
		if apperr.IsKind(err, apperr.KindPaymentRequired) {
			return nil // recorded as failed; the subscription is past due
		}
		return err
	}
	return nil
}

// paymentFailed records a provider's refusal on the payment and answers it: a card error as 402 with the
// provider's message, anything else as the provider being unavailable.
func (s *Service) paymentFailed(ctx context.Context, paymentID int64, err error) error {
	perr := providerError(err)
	if ferr := s.Store.FailPayment(ctx, paymentID, perr.Error(), s.now()); ferr != nil {
		s.log().Error("recording a failed payment", "payment", paymentID, "err", ferr)
	}
	return perr
}

// providerError is a provider failure as the customer sees it.
func providerError(err error) error {
	var ce *CardError
	if errors.As(err, &ce) {
		return &apperr.Error{Kind: apperr.KindPaymentRequired, Code: ce.Code, Message: ce.Message}
	}
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "payment_provider_error",
		Message: "The payment provider could not be reached. Nothing was charged; try again in a minute.", Err: err}
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// secretHash is what the store keeps of a client secret: its hash in test mode (the app itself checks it when the
// payment is confirmed), nothing for Stripe (which checks its own).
func secretHash(p Provider, secret string) string {
	if p.Mode() != ModeTest || secret == "" {
		return ""
	}
	return hashSecret(secret)
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Subscription is the account's subscription as the API shows it.
func (s *Service) Subscription(ctx context.Context, userID int64) (SubscriptionView, error) {
	st, err := s.Store.BillingState(ctx, userID, s.now())
	return ViewSubscription(st), err
}

// Usage is the account's metered usage of the current period.
func (s *Service) Usage(ctx context.Context, userID int64) (MeteredUsage, error) {
	st, err := s.Store.BillingState(ctx, userID, s.now())
	return ViewMeteredUsage(st), err
}
