package billing

import (
	"context"
	"errors"
	"fmt"

	"valuator/internal/apperr"
)

// Provider events, the period job and the provider outbox: everything that moves an account's billing on without
// the customer asking.

// MaxSignatureLen bounds the Stripe-Signature header a webhook may carry (api/openapi.yaml).
const MaxSignatureLen = 1024

// HandleWebhook verifies a provider webhook and applies its event once.
func (s *Service) HandleWebhook(ctx context.Context, payload []byte, signature string) error {
	if s.Provider == nil || s.Provider.Mode() != ModeStripe {
		return apperr.NotFound("not_found", "Not found")
	}
	var ev Event
	err := ErrSignature
	// Stripe's header is a timestamp and a signature or two (about 150 characters); a longer one is refused unread.
	if len(signature) <= MaxSignatureLen {
		ev, err = s.Provider.ParseWebhook(payload, signature, s.now())
	}
	if err != nil {
		if errors.Is(err, ErrSignature) {
			return &apperr.Error{Kind: apperr.KindInvalid, Code: "bad_signature", Field: "Stripe-Signature",
				Message: "The webhook's Stripe-Signature does not verify."}
		}
		return apperr.Invalid("body", "The webhook's body is not a Stripe event.")
	}
	_, err = s.HandleEvent(ctx, ev)
	return err
}

// HandleEvent applies a verified event (from a webhook, the test mode's confirmation or a payment the provider
// settled at once) once, then makes the provider calls it left owing: a payment that was paid after the account
// changed under it is refunded.
func (s *Service) HandleEvent(ctx context.Context, ev Event) (EventResult, error) {
	if ev.Type == EventIgnored {
		return EventResult{}, nil
	}
	res, err := s.Store.ApplyEvent(ctx, s.Provider.Mode(), ev, s.now())
	if err != nil {
		return res, err
	}
	if !res.Applied {
		s.log().Info("billing event already applied", "event", ev.ID, "type", ev.Type)
	}
	if res.Stale {
		s.log().Warn("a payment was paid after its account changed; nothing was granted", "payment", res.Payment.ID,
			"status", res.Payment.Status)
	}
	if res.UserID != 0 {
		s.flushProviderActions(ctx, res.UserID)
	} else if res.Payment.UserID != 0 {
		s.flushProviderActions(ctx, res.Payment.UserID)
	}
	return res, nil
}

// Housekeep is the body of the periodic billing job: it closes every billing period that has ended (and bills what
// that leaves to the provider), closes the open payments that are due (expired after 24 hours, abandoned
// mid-call, or priced against an account that has since changed), and makes the provider calls closed payments
// still owe. Running it again finds nothing more to do.
func (s *Service) Housekeep(ctx context.Context) (HousekeepResult, error) {
	var out HousekeepResult
	var err error
	if out.Periods, err = s.RollDue(ctx); err != nil {
		return out, err
	}
	if out.Payments, err = s.Store.SweepOpenPayments(ctx, s.now()); err != nil {
		return out, err
	}
	out.ProviderCalls, err = s.RunProviderActions(ctx, 0)
	return out, err
}

// HousekeepResult counts what a Housekeep run did.
type HousekeepResult struct {
	Periods, Payments, ProviderCalls int
}

// RunProviderActions makes the provider calls that closed payments still owe (of one user, or of all for 0): a
// cancel withdraws the payment at the provider, a refund gives its money back, and an end_subscription ends the
// subscription a full refund ended here. A call that fails stays queued for the next run. It answers how many
// calls were made.
func (s *Service) RunProviderActions(ctx context.Context, userID int64) (int, error) {
	if s.Provider == nil {
		return 0, nil
	}
	actions, err := s.Store.ProviderActions(ctx, userID, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range actions {
		if a.Payment.Provider != s.Provider.Mode() {
			continue // made by a provider this server no longer uses: nothing to call
		}
		switch a.Action {
		case ActionCancel:
			err = s.Provider.CancelPayment(ctx, a.Payment)
		case ActionRefund:
			err = s.Provider.Refund(ctx, a.Payment)
		case ActionEndSubscription:
			err = s.Provider.EndSubscription(ctx, a.SubscriptionRef)
		default:
			err = fmt.Errorf("unknown provider action %q", a.Action)
		}
		if err != nil {
			s.log().Warn("a provider call a closed payment owes failed; it is tried again later", "payment",
				a.Payment.ID, "action", a.Action, "err", err)
			continue
		}
		if err := s.Store.ProviderActionDone(ctx, a.Payment.ID, a.Action, s.now()); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// flushProviderActions makes the user's owed provider calls now rather than at the next job run, so that a
// withdrawn payment cannot be paid in the browser meanwhile. A failure is logged and left for the job.
func (s *Service) flushProviderActions(ctx context.Context, userID int64) {
	if _, err := s.RunProviderActions(ctx, userID); err != nil {
		s.log().Warn("provider calls of closed payments", "user", userID, "err", err)
	}
}

// RollDue closes every billing period that has ended, then bills what closing them left to the provider
// (renewals, overage). Running it again finds nothing due.
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
		return s.Store.FailPayment(ctx, p.ID, MsgPaymentsUnavailable, s.now())
	}
	now := s.now()
	switch p.Kind {
	case KindOverage:
		ref, err := s.Provider.BillOverage(ctx, OverageRequest{UserID: p.UserID, CustomerID: sub.CustomerRef,
			SubscriptionID: sub.SubscriptionRef, Credits: p.Credits, AmountCents: p.AmountCents, Period: p.Period, PaymentID: p.ID})
		if err != nil {
			s.log().Warn("billing overage failed", "payment", p.ID, "err", err)
			return s.Store.FailPayment(ctx, p.ID, MsgPaymentsUnavailable, now)
		}
		if err := s.Store.AttachPayment(ctx, p.ID, ref, "", p.AmountCents, now); err != nil {
			return err
		}
		if s.Provider.Mode() == ModeStripe {
			return nil // on the next invoice
		}
		_, err = s.HandleEvent(ctx, Event{ID: fmt.Sprintf("evt_test_payment_%d", p.ID),
			Type: EventPaymentSucceeded, PaymentRef: ref, AmountCents: p.AmountCents, Created: now})
		return err
	case KindRenewal:
		pay, err := s.Provider.Renew(ctx, RenewRequest{UserID: p.UserID, CustomerID: sub.CustomerRef,
			SubscriptionID: sub.SubscriptionRef, PaymentMethodID: sub.PaymentMethodRef, Plan: Get(p.Plan),
			Period: p.Period, PaymentID: p.ID})
		if err != nil {
			s.log().Warn("billing a renewal failed", "payment", p.ID, "err", err)
			return s.Store.FailPayment(ctx, p.ID, MsgPaymentsUnavailable, now)
		}
		if pay.Ref == "" {
			return nil // the provider bills it and its event grants the credits
		}
		if err := s.Store.AttachPayment(ctx, p.ID, pay.Ref, "", pay.AmountCents, now); err != nil {
			return err
		}
		// The test mode charges the card on file off-session, as Stripe does a renewal.
		card, err := s.Store.TestCard(ctx, p.UserID, sub.PaymentMethodRef)
		if err != nil {
			card = CheckedCard{Outcome: "card_declined", Message: DeclineMessage("card_declined")}
		}
		ev := Event{ID: "evt_test_" + randomID(), Type: EventPaymentSucceeded, PaymentRef: pay.Ref,
			AmountCents: pay.AmountCents, Created: now}
		switch ch := card.Charge(false); {
		case ch.NeedsAuth:
			ev.Type, ev.FailureMessage = EventPaymentFailed, MsgAuthRequired
		case ch.Decline != nil:
			ev.Type, ev.FailureMessage = EventPaymentFailed, ch.Decline.Message
		}
		_, err = s.HandleEvent(ctx, ev)
		return err
	}
	return nil
}
