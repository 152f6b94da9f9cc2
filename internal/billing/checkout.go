package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"valuator/internal/apperr"
)

// The customer's side of payments: subscribing, changing plan, replacing the card on file and withdrawing an open
// payment. Each payment opens under the account's lock (Store.OpenPayment), so that repeated or parallel requests
// answer one payment, and is priced against the account as it is then (PaymentRecord.PricedState).

// paidPlan reads a planType field: one of the paid plans.
func paidPlan(id string) (Plan, error) {
	p, ok := Lookup(id)
	if !ok || !p.Paid() {
		return Plan{}, apperr.Invalid("planType", "Choose a plan: basic, professional or enterprise.")
	}
	return p, nil
}

// SubscribeResponse is the answer to POST /api/billing/subscribe.
type SubscribeResponse struct {
	ClientSecret string `json:"clientSecret"`
	PaymentID    int64  `json:"paymentId"`
	AmountCents  int64  `json:"amountCents"`
	PlanType     string `json:"planType"`
}

// Subscribe starts a subscription to a paid plan for an account without one. Nothing is granted here: the
// credits come with the payment's success event. Subscribing again to the same plan with the same card while the
// first payment is open answers that payment.
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
	opening, err := s.Store.OpenPayment(ctx, userID, s.now(), func(st State, open *PaymentRecord) (*PaymentRecord, error) {
		if st.Active() {
			return nil, apperr.Conflict("already_subscribed", "planType",
				fmt.Sprintf("You already subscribe to the %s plan. Choose another plan to change it.", Get(st.Plan).Name))
		}
		if open != nil && open.Kind == KindSubscription && open.Plan == plan.ID && open.PaymentMethodRef == pm {
			return nil, nil
		}
		return &PaymentRecord{Provider: prov.Mode(), Kind: KindSubscription, Plan: plan.ID, FromPlan: Get(st.Plan).ID,
			AmountCents: plan.PriceCents, Credits: plan.Credits, PaymentMethodRef: pm, ExpiresAt: s.expiry(s.now()),
			Description: fmt.Sprintf("%s plan, first month", plan.Name)}, nil
	})
	if err != nil {
		return SubscribeResponse{}, err
	}
	pay := opening.Payment
	if !opening.Created {
		return s.answerSubscribe(ctx, prov, userID, pay)
	}
	st := opening.State
	customer := ""
	if st.Sub != nil && st.Sub.Provider == prov.Mode() {
		customer = st.Sub.CustomerRef
	}
	res, err := prov.Subscribe(ctx, SubscribeRequest{UserID: userID, Email: st.Email, Name: st.FullName,
		CustomerID: customer, Plan: plan, PaymentMethodID: pm, PaymentID: pay.ID})
	if err != nil {
		return SubscribeResponse{}, s.attemptFailed(ctx, pay, err)
	}
	if _, err := s.Store.RecordAttempt(ctx, pay.ID, Attempt{Ref: res.Payment.Ref,
		SecretHash: secretHash(prov, res.Payment.ClientSecret), Parent: res.SubscriptionID,
		AmountCents: res.Payment.AmountCents, Status: PaymentPending, Awaiting: AwaitConfirmation}, s.now()); err != nil {
		return SubscribeResponse{}, err
	}
	if err := s.Store.SaveSubscription(ctx, userID, Sub{Plan: plan.ID, Status: StatusIncomplete, Provider: prov.Mode(),
		CustomerRef: res.CustomerID, SubscriptionRef: res.SubscriptionID, PaymentMethodRef: pm, Card: res.Card}, s.now()); err != nil {
		return SubscribeResponse{}, err
	}
	return SubscribeResponse{ClientSecret: res.Payment.ClientSecret, PaymentID: pay.ID,
		AmountCents: res.Payment.AmountCents, PlanType: plan.ID}, nil
}

// answerSubscribe answers an open subscription payment again, once the request that opened it has heard from the
// provider.
func (s *Service) answerSubscribe(ctx context.Context, prov Provider, userID int64, pay PaymentRecord) (SubscribeResponse, error) {
	pay, err := s.settled(ctx, userID, pay)
	if err != nil {
		return SubscribeResponse{}, err
	}
	switch {
	case pay.Status == PaymentSucceeded:
		return SubscribeResponse{}, apperr.Conflict("already_subscribed", "planType",
			fmt.Sprintf("You already subscribe to the %s plan; this payment was made.", Get(pay.Plan).Name))
	case !pay.Open || pay.Ref == "":
		return SubscribeResponse{}, closedPayment(pay)
	}
	secret, err := prov.ClientSecret(ctx, pay)
	if err != nil {
		return SubscribeResponse{}, s.unavailable(ctx, "reading an open payment's client secret", pay, err)
	}
	return SubscribeResponse{ClientSecret: secret, PaymentID: pay.ID, AmountCents: pay.AmountCents, PlanType: pay.Plan}, nil
}

// settledWait bounds how long a repeated request waits for the request that opened the same payment to hear from
// the provider (a Stripe call takes a second or two; a test-mode one a millisecond).
const settledWait = 10 * time.Second

// settled is the payment once it is no longer "processing" (or as it is after settledWait).
func (s *Service) settled(ctx context.Context, userID int64, pay PaymentRecord) (PaymentRecord, error) {
	deadline := time.Now().Add(settledWait)
	for pay.Open && pay.Awaiting == AwaitProcessing && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return pay, context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
		p, err := s.Store.Payment(ctx, userID, pay.ID)
		if err != nil {
			return pay, err
		}
		pay = p
	}
	return pay, nil
}

// PlanChange is the answer to a plan change and its preview (api/openapi.yaml PlanChange).
type PlanChange struct {
	PlanType        string    `json:"planType"`
	Change          string    `json:"change"`
	RequiresPayment bool      `json:"requiresPayment"`
	ClientSecret    *string   `json:"clientSecret"`
	PaymentID       *int64    `json:"paymentId"`
	PaymentStatus   string    `json:"paymentStatus"`
	Message         *string   `json:"message"`
	PaymentMethod   *Card     `json:"paymentMethod"`
	ChargeCents     int64     `json:"chargeCents"`
	Credits         int64     `json:"credits"`
	EffectiveAt     time.Time `json:"effectiveAt"`
}

// changeTerms is what moving an account to plan would do now: the same figures for the preview and the change.
func changeTerms(st State, to Plan, now time.Time) (PlanChange, error) {
	if !st.Active() {
		return PlanChange{}, apperr.Conflict("no_subscription", "planType",
			"You have no paid plan to change yet. Choose a plan to subscribe.")
	}
	from := Get(st.Plan)
	out := PlanChange{PlanType: to.ID, PaymentStatus: ChangePaymentNone}
	if st.Sub.Card.Last4 != "" {
		c := st.Sub.Card
		out.PaymentMethod = &c
	}
	switch ChangeKind(from, to) {
	case Upgrade:
		pr := Prorate(from, to, st.Period, now)
		out.Change, out.ChargeCents, out.Credits, out.EffectiveAt = "upgrade", pr.ChargeCents, pr.Credits, now
		out.RequiresPayment = pr.ChargeCents > 0
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

// errNothingToPay tells ChangePlan that, under the lock, the change turned out not to be an upgrade (a parallel
// request made it first, say), so that it takes the path of a change without payment.
var errNothingToPay = errors.New("the plan change takes no payment")

// ChangePlan moves an active subscription to another plan: an upgrade at once with a prorated charge to the card on
// file (the plan and credits change when it is paid; the browser acts only when the provider asks), a downgrade at
// period end. Choosing the current plan again keeps it: it clears a scheduled downgrade or cancellation.
func (s *Service) ChangePlan(ctx context.Context, userID int64, planType string) (PlanChange, error) {
	prov, err := s.provider()
	if err != nil {
		return PlanChange{}, err
	}
	to, err := paidPlan(planType)
	if err != nil {
		return PlanChange{}, err
	}
	var terms PlanChange
	var req ChangeRequest
	opening, err := s.Store.OpenPayment(ctx, userID, s.now(), func(st State, open *PaymentRecord) (*PaymentRecord, error) {
		now := s.now()
		t, err := changeTerms(st, to, now)
		if err != nil {
			return nil, err
		}
		terms = t
		if t.Change != "upgrade" {
			return nil, errNothingToPay
		}
		if open != nil && open.Kind == KindUpgrade && open.Plan == to.ID {
			return nil, nil
		}
		from := Get(st.Plan)
		req = ChangeRequest{UserID: userID, CustomerID: st.Sub.CustomerRef, SubscriptionID: st.Sub.SubscriptionRef,
			From: from, To: to, Resume: st.Sub.CancelAtPeriodEnd, Proration: Prorate(from, to, st.Period, now),
			PaymentMethodID: st.Sub.PaymentMethodRef}
		return &PaymentRecord{Provider: prov.Mode(), Kind: KindUpgrade, Plan: to.ID, FromPlan: from.ID,
			AmountCents: t.ChargeCents, Credits: t.Credits, PaymentMethodRef: st.Sub.PaymentMethodRef, Period: st.Period,
			ExpiresAt: s.expiry(now),
			Description: fmt.Sprintf("Upgrade from %s to %s, prorated for the rest of the period to %s", from.Name,
				to.Name, st.Period.End.Format("Jan 2, 2006"))}, nil
	})
	if errors.Is(err, errNothingToPay) {
		return s.scheduleChange(ctx, prov, userID, to)
	}
	if err != nil {
		return PlanChange{}, err
	}
	pay := opening.Payment
	if !opening.Created {
		if pay, err = s.settled(ctx, userID, pay); err != nil {
			return PlanChange{}, err
		}
		return s.answerChange(ctx, prov, terms, pay, "")
	}
	req.PaymentID = pay.ID
	p, err := prov.Upgrade(ctx, req)
	if err != nil {
		return PlanChange{}, s.attemptFailed(ctx, pay, err)
	}
	if p.Status == PaymentSucceeded && p.Ref == "" {
		// Nothing was left to pay (a free change, or an invoice the provider settled at once), so the provider
		// named no payment: the payment row gets its own reference, for the event below to find it by.
		p.Ref = fmt.Sprintf("settled-%d", pay.ID)
	}
	a := Attempt{Ref: p.Ref, SecretHash: secretHash(prov, p.ClientSecret), Parent: p.Parent, AmountCents: p.AmountCents,
		Status: PaymentPending, Awaiting: p.Awaiting, Message: p.FailureMessage}
	if p.Status == PaymentFailed {
		a.Status, a.Awaiting = PaymentFailed, AwaitPaymentMethod
	}
	if p.Status == PaymentSucceeded {
		a.Awaiting = AwaitProcessing // until the event below settles it
	}
	if pay, err = s.Store.RecordAttempt(ctx, pay.ID, a, s.now()); err != nil {
		return PlanChange{}, err
	}
	if p.Status == PaymentSucceeded {
		// Apply it as the event the provider would send.
		res, err := s.HandleEvent(ctx, Event{ID: fmt.Sprintf("evt_local_payment_%d", pay.ID),
			Type: EventPaymentSucceeded, PaymentRef: p.Ref, AmountCents: p.AmountCents, Created: s.now()})
		if err != nil {
			return PlanChange{}, err
		}
		if res.Payment.ID != 0 {
			pay = res.Payment
		}
	}
	return s.answerChange(ctx, prov, terms, pay, p.ClientSecret)
}

// answerChange is a plan change's answer for its payment as it stands; secret is its client secret when the
// caller just heard it from the provider ("" reads it again when the browser needs it).
func (s *Service) answerChange(ctx context.Context, prov Provider, terms PlanChange, pay PaymentRecord, secret string) (PlanChange, error) {
	if !pay.Open && pay.Status != PaymentSucceeded {
		return PlanChange{}, closedPayment(pay)
	}
	out := terms
	out.ChargeCents, out.Credits, out.PaymentID = pay.AmountCents, pay.Credits, &pay.ID
	out.PaymentStatus = pay.ChangeStatus()
	if pay.NeedsBrowser() {
		if secret == "" {
			var err error
			if secret, err = prov.ClientSecret(ctx, pay); err != nil {
				return PlanChange{}, s.unavailable(ctx, "reading an open payment's client secret", pay, err)
			}
		}
		msg := pay.FailureMessage
		out.ClientSecret, out.Message = &secret, &msg
	}
	return out, nil
}

// scheduleChange is a change without payment: a downgrade at period end, or the current plan chosen again (which
// keeps it, clearing a scheduled downgrade or cancellation).
func (s *Service) scheduleChange(ctx context.Context, prov Provider, userID int64, to Plan) (PlanChange, error) {
	now := s.now()
	st, err := s.Store.BillingState(ctx, userID, now)
	if err != nil {
		return PlanChange{}, err
	}
	out, err := changeTerms(st, to, now)
	if err != nil {
		return PlanChange{}, err
	}
	req := ChangeRequest{UserID: userID, CustomerID: st.Sub.CustomerRef, SubscriptionID: st.Sub.SubscriptionRef,
		From: Get(st.Plan), To: to, Resume: st.Sub.CancelAtPeriodEnd}
	switch out.Change {
	case "downgrade":
		if err := prov.Downgrade(ctx, req); err != nil {
			return PlanChange{}, s.providerError(ctx, "scheduling a downgrade", err)
		}
		err = s.Store.ScheduleChange(ctx, userID, to.ID, false, now)
	case "none":
		if st.Sub.PendingPlan != "" && prov.Mode() == ModeStripe {
			// Stripe already bills the cheaper price from the next period: put this plan's price back.
			if err := prov.Downgrade(ctx, req); err != nil {
				return PlanChange{}, s.providerError(ctx, "keeping the current plan", err)
			}
		}
		err = s.Store.ScheduleChange(ctx, userID, "", false, now)
	default:
		// A parallel request upgraded in between: nothing is left to do here.
		return out, nil
	}
	if err == nil {
		s.flushProviderActions(ctx, userID)
	}
	return out, err
}

// Cancel ends the subscription at the end of its period. An open payment for a change closes with it.
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
			return SubscriptionView{}, s.providerError(ctx, "cancelling the subscription", err)
		}
		if err := s.Store.ScheduleChange(ctx, userID, "", true, now); err != nil {
			return SubscriptionView{}, err
		}
		s.flushProviderActions(ctx, userID)
	}
	st, err = s.Store.BillingState(ctx, userID, now)
	return ViewSubscription(st), err
}

// UpdateCard makes a new card the subscription's card on file: renewals and upgrades charge it from now on.
func (s *Service) UpdateCard(ctx context.Context, userID int64, paymentMethodID string) (SubscriptionView, error) {
	prov, err := s.provider()
	if err != nil {
		return SubscriptionView{}, err
	}
	pm := strings.TrimSpace(paymentMethodID)
	if pm == "" || len(pm) > 255 {
		return SubscriptionView{}, apperr.Invalid("paymentMethodId", "Enter your card details.")
	}
	st, err := s.Store.BillingState(ctx, userID, s.now())
	if err != nil {
		return SubscriptionView{}, err
	}
	if !st.Active() {
		return SubscriptionView{}, apperr.Conflict("no_subscription", "paymentMethodId",
			"You have no paid subscription to keep a card for. Choose a plan to subscribe.")
	}
	card, err := prov.SetPaymentMethod(ctx, CardRequest{UserID: userID, CustomerID: st.Sub.CustomerRef,
		SubscriptionID: st.Sub.SubscriptionRef, PaymentMethodID: pm})
	if err != nil {
		return SubscriptionView{}, s.providerError(ctx, "replacing the card on file", err)
	}
	if err := s.Store.SaveCard(ctx, userID, pm, card, s.now()); err != nil {
		return SubscriptionView{}, err
	}
	return s.Subscription(ctx, userID)
}

// WithdrawPayment closes one of the customer's open payments (they closed the card form), so that it can never be
// charged.
func (s *Service) WithdrawPayment(ctx context.Context, userID, paymentID int64) (PaymentRecord, error) {
	p, ok, err := s.Store.ClosePayment(ctx, userID, paymentID, CloseWithdrawn, s.now())
	if errors.Is(err, ErrNotFound) {
		return p, apperr.NotFound("payment_not_found", "Payment not found")
	}
	if err != nil {
		return p, err
	}
	if !ok {
		return p, apperr.Conflict("payment_closed", "id", fmt.Sprintf("This payment is no longer open: it is %s.",
			StatusText(p.Status)))
	}
	s.flushProviderActions(ctx, userID)
	return p, nil
}

// closedPayment is the 409 for a payment that can no longer be paid, with why.
func closedPayment(p PaymentRecord) error {
	msg := fmt.Sprintf("This payment can no longer be paid: it is %s.", StatusText(p.Status))
	if p.FailureMessage != "" {
		msg += " " + p.FailureMessage
	}
	return apperr.Conflict("payment_closed", "", msg)
}

// StatusText is a payment status as the customer reads it.
func StatusText(status string) string {
	switch status {
	case PaymentSucceeded:
		return "paid"
	case PaymentFailed:
		return "declined"
	case PaymentPending:
		return "pending"
	default:
		return status
	}
}

// attemptFailed closes a payment the provider refused to make: a card error (a decline) is the customer's 402 with
// the provider's words, and the payment stays in the history as declined; anything else is the provider being
// unavailable.
func (s *Service) attemptFailed(ctx context.Context, pay PaymentRecord, err error) error {
	var ce *CardError
	how := CloseUnavailable
	if errors.As(err, &ce) {
		how = func(p PaymentRecord) Closing { return CloseDeclined(p, ce.Message) }
	}
	if _, _, cerr := s.Store.ClosePayment(ctx, pay.UserID, pay.ID, how, s.now()); cerr != nil {
		s.log().Error("closing a payment the provider refused", "payment", pay.ID, "err", cerr)
	}
	return s.providerError(ctx, "making payment "+fmt.Sprint(pay.ID), err)
}

// providerError is a provider failure as the customer sees it: a card error with the provider's own words (402),
// an unknown payment method as a bad field, anything else as payments being unavailable, with the cause logged for
// the operator and never shown.
func (s *Service) providerError(ctx context.Context, doing string, err error) error {
	var ce *CardError
	switch {
	case errors.As(err, &ce):
		return &apperr.Error{Kind: apperr.KindPaymentRequired, Code: ce.Code, Message: ce.Message}
	case errors.Is(err, ErrUnknownPaymentMethod):
		return apperr.Invalid("paymentMethodId", "This payment method does not exist. Enter your card details again.")
	}
	s.log().WarnContext(ctx, "payment provider failed", "doing", doing, "err", err)
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "payments_unavailable", Message: MsgPaymentsUnavailable}
}

// unavailable is providerError for an open payment whose provider could not be asked.
func (s *Service) unavailable(ctx context.Context, doing string, pay PaymentRecord, err error) error {
	return s.providerError(ctx, fmt.Sprintf("%s (payment %d)", doing, pay.ID), err)
}
