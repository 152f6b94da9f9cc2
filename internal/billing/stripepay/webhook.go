package stripepay

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"valuator/internal/billing"
)

// webhookTolerance is how far a signature's time may be from now, either way. Stripe signs each delivery (and each
// retry) afresh, so an older one is a replay. A newer one is not a clock a few seconds off: it was made with the
// secret for later, and accepting it would let it be replayed until that time plus the tolerance.
const webhookTolerance = 5 * time.Minute

// ParseWebhook verifies the Stripe-Signature header of a webhook delivery and maps its event to a billing.Event.
// A missing, malformed, forged, stale or future-dated signature is billing.ErrSignature (wrapped, with the reason).
// now is the time the signature's time is compared with; the zero time means the wall clock.
func (p *Provider) ParseWebhook(payload []byte, signature string, now time.Time) (billing.Event, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, signature, p.webhookSecret, webhook.ConstructEventOptions{
		// stripe-go measures the signature's age with time.Since, which would ignore the clock the caller
		// passes as now, and only in the past; the signature's time is checked against now below instead, with
		// the same 5-minute tolerance both ways.
		IgnoreTolerance: true,
		// The webhook endpoint's API version is set in the Stripe dashboard and may differ from the one
		// stripe-go is pinned to. A mismatch must not reject every event: we read only long-stable fields
		// (IDs, amounts, billing_reason, last_payment_error), and the test table decodes them.
		IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		if isSignatureError(err) {
			return billing.Event{}, fmt.Errorf("%w: %v", billing.ErrSignature, err)
		}
		// The signature verified, so Stripe sent this; it is not an event we can read.
		return billing.Event{}, fmt.Errorf("stripe webhook: %w", err)
	}
	if now.IsZero() {
		now = time.Now()
	}
	signed, ok := signatureTime(signature)
	if !ok {
		return billing.Event{}, fmt.Errorf("%w: the Stripe-Signature header has no timestamp", billing.ErrSignature)
	}
	if age := now.Sub(signed); age > webhookTolerance {
		return billing.Event{}, fmt.Errorf("%w: signed at %s, %v before now, more than the %v allowed",
			billing.ErrSignature, signed.UTC().Format(time.RFC3339), age.Round(time.Second), webhookTolerance)
	} else if -age > webhookTolerance {
		return billing.Event{}, fmt.Errorf("%w: signed at %s, %v after now, more than the %v allowed",
			billing.ErrSignature, signed.UTC().Format(time.RFC3339), (-age).Round(time.Second), webhookTolerance)
	}
	return eventFromStripe(ev)
}

// isSignatureError reports whether stripe-go refused the delivery for its signature header, as opposed to a
// verified payload it could not decode.
func isSignatureError(err error) bool {
	return errors.Is(err, webhook.ErrNotSigned) || errors.Is(err, webhook.ErrInvalidHeader) ||
		errors.Is(err, webhook.ErrNoValidSignature) || errors.Is(err, webhook.ErrTooOld)
}

// signatureTime is the t= timestamp of a Stripe-Signature header ("t=1700000000,v1=...,v1=...").
func signatureTime(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
}

// eventFromStripe maps a verified Stripe event to what the billing Service acts on. It is a pure function of the
// event, so the mapping is tested without a server.
//
// Payments we start (a subscription's first invoice, an upgrade's prorated invoice) are followed through their
// PaymentIntent events, matched by PaymentRef. Renewals, which Stripe bills by itself, are followed through their
// invoice events, matched by SubscriptionRef; the invoice events of other billing reasons are ignored, since
// their PaymentIntent events already carry them.
func eventFromStripe(e stripe.Event) (billing.Event, error) {
	out := billing.Event{ID: e.ID, Type: billing.EventIgnored, Created: unixTime(e.Created)}
	if e.ID == "" {
		return out, errors.New("stripe webhook: the event has no ID")
	}
	switch e.Type {
	case stripe.EventTypePaymentIntentSucceeded, stripe.EventTypePaymentIntentPaymentFailed:
		var pi stripe.PaymentIntent
		if err := decodeObject(e, &pi); err != nil {
			return out, err
		}
		out.PaymentRef = pi.ID
		if e.Type == stripe.EventTypePaymentIntentSucceeded {
			out.Type = billing.EventPaymentSucceeded
			out.AmountCents = pi.AmountReceived
		} else {
			out.Type = billing.EventPaymentFailed
			out.AmountCents = pi.Amount
			out.FailureMessage = "The payment failed."
			if pi.LastPaymentError != nil && pi.LastPaymentError.Msg != "" {
				out.FailureMessage = pi.LastPaymentError.Msg
			}
		}

	case stripe.EventTypeInvoicePaid, stripe.EventTypeInvoicePaymentFailed:
		var inv stripe.Invoice
		if err := decodeObject(e, &inv); err != nil {
			return out, err
		}
		if inv.BillingReason != stripe.InvoiceBillingReasonSubscriptionCycle {
			return out, nil
		}
		out.SubscriptionRef = invoiceSubscription(&inv)
		if out.SubscriptionRef == "" {
			return out, fmt.Errorf("stripe webhook: event %s: renewal invoice %s names no subscription", e.ID, inv.ID)
		}
		if e.Type == stripe.EventTypeInvoicePaid {
			out.Type = billing.EventRenewalPaid
			out.AmountCents = inv.AmountPaid
			out.PeriodStart = renewalPeriodStart(&inv)
		} else {
			out.Type = billing.EventRenewalFailed
			out.AmountCents = inv.AmountDue
			out.FailureMessage = renewalFailure(&inv)
		}

	case stripe.EventTypeCustomerSubscriptionDeleted:
		var sub stripe.Subscription
		if err := decodeObject(e, &sub); err != nil {
			return out, err
		}
		out.Type = billing.EventSubscriptionEnded
		out.SubscriptionRef = sub.ID

	case stripe.EventTypeChargeRefunded:
		var ch stripe.Charge
		if err := decodeObject(e, &ch); err != nil {
			return out, err
		}
		// Every payment we take is a PaymentIntent; a charge without one was not made by us.
		if ch.PaymentIntent == nil || ch.PaymentIntent.ID == "" {
			return out, nil
		}
		out.Type = billing.EventPaymentRefunded
		out.PaymentRef = ch.PaymentIntent.ID
		// amount_refunded is the total refunded so far, so a second partial refund reports the sum.
		out.AmountCents = ch.AmountRefunded
	}
	return out, nil
}

// decodeObject reads the event's data.object into v.
func decodeObject(e stripe.Event, v any) error {
	if e.Data == nil || len(e.Data.Raw) == 0 {
		return fmt.Errorf("stripe webhook: event %s (%s) has no data object", e.ID, e.Type)
	}
	if err := json.Unmarshal(e.Data.Raw, v); err != nil {
		return fmt.Errorf("stripe webhook: event %s (%s): reading its object: %w", e.ID, e.Type, err)
	}
	return nil
}

// invoiceSubscription is the subscription a renewal invoice bills: parent.subscription_details.subscription
// (where API versions since 2025-03-31 put it), or else the subscription of one of its lines.
func invoiceSubscription(inv *stripe.Invoice) string {
	if inv.Parent != nil && inv.Parent.SubscriptionDetails != nil && inv.Parent.SubscriptionDetails.Subscription != nil {
		if id := inv.Parent.SubscriptionDetails.Subscription.ID; id != "" {
			return id
		}
	}
	if li := subscriptionLine(inv); li != nil {
		return li.Parent.SubscriptionItemDetails.Subscription
	}
	return ""
}

// renewalPeriodStart is the start of the period a renewal invoice pays for: the period of its subscription line.
// Failing that it is the invoice's period_end, not its period_start: Stripe's invoice period "looks back one
// period for a subscription invoice", so a renewal invoice's period is the one just ended, and its end is the new
// period's start.
func renewalPeriodStart(inv *stripe.Invoice) time.Time {
	if li := subscriptionLine(inv); li != nil && li.Period != nil && li.Period.Start != 0 {
		return unixTime(li.Period.Start)
	}
	return unixTime(inv.PeriodEnd)
}

// subscriptionLine is the invoice's line for the subscription's price, not a proration (an invoice item for
// overage has no subscription item). The event's invoice holds its first lines, which include it.
func subscriptionLine(inv *stripe.Invoice) *stripe.InvoiceLineItem {
	if inv.Lines == nil {
		return nil
	}
	for _, li := range inv.Lines.Data {
		if li == nil || li.Parent == nil || li.Parent.SubscriptionItemDetails == nil {
			continue
		}
		if d := li.Parent.SubscriptionItemDetails; !d.Proration && d.Subscription != "" {
			return li
		}
	}
	return nil
}

// renewalFailure says why a renewal was not paid, as far as the invoice tells: the card's own decline message is
// on the PaymentIntent, which the invoice no longer embeds, so it says when Stripe tries again instead.
func renewalFailure(inv *stripe.Invoice) string {
	msg := "Stripe could not collect the renewal payment"
	if inv.AttemptCount > 0 {
		msg += fmt.Sprintf(" (attempt %d)", inv.AttemptCount)
	}
	if inv.NextPaymentAttempt != 0 {
		return msg + "; it will try again on " + unixTime(inv.NextPaymentAttempt).Format("Jan 2, 2006") + "."
	}
	return msg + " and will not try again."
}
