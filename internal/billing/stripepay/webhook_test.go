package stripepay

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"valuator/internal/billing"
)

// eventCreated is the creation time of the test events, 2026-11-24T10:00:00Z.
const eventCreated = 1795514400

// eventJSON is a Stripe event (a webhook payload) of type typ around the data object obj, as the given API version
// sends it.
func eventJSON(id, typ, apiVersion, obj string) string {
	return fmt.Sprintf(`{"id":%q,"object":"event","api_version":%q,"created":%d,"livemode":false,
		"pending_webhooks":1,"request":{"id":null,"idempotency_key":null},"type":%q,"data":{"object":%s}}`,
		id, apiVersion, eventCreated, typ, obj)
}

// sign signs payload as Stripe does, at the given time.
func sign(payload, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{
		Payload: []byte(payload), Secret: secret, Timestamp: at,
	}).Header
}

func webhookProvider(t *testing.T) *Provider {
	t.Helper()
	p, err := New(Config{SecretKey: testSecretKey, PublishableKey: testPublishableKey, WebhookSecret: testWebhookSecret})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const succeededPI = `{"id":"pi_1","object":"payment_intent","amount":3000,"amount_received":3000,"currency":"usd",
	"status":"succeeded","metadata":{}}`

// TestParseWebhookSignature checks that only a delivery signed with our secret, within five minutes of now either
// way, is read, and that every other is ErrSignature.
func TestParseWebhookSignature(t *testing.T) {
	p := webhookProvider(t)
	now := time.Date(2026, 11, 24, 10, 0, 5, 0, time.UTC)
	payload := eventJSON("evt_1", "payment_intent.succeeded", stripe.APIVersion, succeededPI)
	good := sign(payload, testWebhookSecret, now.Add(-2*time.Second))
	for _, tt := range []struct {
		name, payload, signature string
		now                      time.Time
		wantSigErr               bool
	}{
		{"signed", payload, good, now, false},
		{"signed 4m59s ago", payload, sign(payload, testWebhookSecret, now.Add(-299*time.Second)), now, false},
		{"two signatures, one ours (secret being rolled)", payload,
			good + ",v1=" + strings.Repeat("ab", 32), now, false},
		{"stale", payload, sign(payload, testWebhookSecret, now.Add(-301*time.Second)), now, true},
		{"signed 4m59s ahead (clocks apart)", payload, sign(payload, testWebhookSecret, now.Add(299*time.Second)),
			now, false},
		{"signed more than 5 minutes ahead", payload, sign(payload, testWebhookSecret, now.Add(301*time.Second)),
			now, true},
		{"signed a day ahead", payload, sign(payload, testWebhookSecret, now.Add(24*time.Hour)), now, true},
		{"replayed an hour later", payload, good, now.Add(time.Hour), true},
		{"wrong secret", payload, sign(payload, "whsec_someone_else", now), now, true},
		{"forged signature", payload, fmt.Sprintf("t=%d,v1=%s", now.Unix(), strings.Repeat("0", 64)), now, true},
		{"payload changed", strings.Replace(payload, `"amount_received":3000`, `"amount_received":300000`, 1),
			good, now, true},
		{"timestamp changed", payload, strings.Replace(good, fmt.Sprint(now.Add(-2*time.Second).Unix()),
			fmt.Sprint(now.Unix()), 1), now, true},
		{"v0 scheme only", payload, strings.Replace(good, "v1=", "v0=", 1), now, true},
		{"no timestamp", payload, good[strings.Index(good, ",")+1:], now, true},
		{"missing header", payload, "", now, true},
		{"garbage header", payload, "garbage", now, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := p.ParseWebhook([]byte(tt.payload), tt.signature, tt.now)
			if tt.wantSigErr {
				if !errors.Is(err, billing.ErrSignature) {
					t.Errorf("ParseWebhook: err = %v, want ErrSignature", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseWebhook: %v", err)
			}
			want := billing.Event{ID: "evt_1", Type: billing.EventPaymentSucceeded, PaymentRef: "pi_1",
				AmountCents: 3000, Created: time.Unix(eventCreated, 0).UTC()}
			if ev != want {
				t.Errorf("ParseWebhook = %+v, want %+v", ev, want)
			}
		})
	}
}

// TestParseWebhookWallClock checks that a zero now means the wall clock.
func TestParseWebhookWallClock(t *testing.T) {
	p := webhookProvider(t)
	payload := eventJSON("evt_1", "payment_intent.succeeded", stripe.APIVersion, succeededPI)
	if _, err := p.ParseWebhook([]byte(payload), sign(payload, testWebhookSecret, time.Now()), time.Time{}); err != nil {
		t.Errorf("signed just now: %v", err)
	}
	old := sign(payload, testWebhookSecret, time.Now().Add(-10*time.Minute))
	if _, err := p.ParseWebhook([]byte(payload), old, time.Time{}); !errors.Is(err, billing.ErrSignature) {
		t.Errorf("signed 10 minutes ago: err = %v, want ErrSignature", err)
	}
}

// TestParseWebhookFutureSignature checks that a signature dated more than five minutes after now, by the caller's
// clock or the wall clock, is ErrSignature and says so: it was made for later and could be replayed until then.
func TestParseWebhookFutureSignature(t *testing.T) {
	p := webhookProvider(t)
	payload := eventJSON("evt_1", "payment_intent.succeeded", stripe.APIVersion, succeededPI)
	now := time.Date(2026, 11, 24, 10, 0, 5, 0, time.UTC)
	_, err := p.ParseWebhook([]byte(payload), sign(payload, testWebhookSecret, now.Add(10*time.Minute)), now)
	if !errors.Is(err, billing.ErrSignature) {
		t.Fatalf("signed 10 minutes ahead: err = %v, want ErrSignature", err)
	}
	want := "signed at 2026-11-24T10:10:05Z, 10m0s after now, more than the 5m0s allowed"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("signed 10 minutes ahead: err = %q, want it to say %q", err, want)
	}
	ahead := sign(payload, testWebhookSecret, time.Now().Add(10*time.Minute))
	if _, err := p.ParseWebhook([]byte(payload), ahead, time.Time{}); !errors.Is(err, billing.ErrSignature) {
		t.Errorf("signed 10 minutes ahead of the wall clock: err = %v, want ErrSignature", err)
	}
}

// TestParseWebhookPayload checks payloads that are signed correctly: an event of another API version (as a
// dashboard-configured endpoint may send) is read, and a payload that is no event is an error, but not
// ErrSignature, since Stripe did send it.
func TestParseWebhookPayload(t *testing.T) {
	p := webhookProvider(t)
	now := time.Now()
	for _, tt := range []struct {
		name, payload string
		wantErr       bool
	}{
		{"older API version", eventJSON("evt_1", "payment_intent.succeeded", "2024-06-20", succeededPI), false},
		{"other release train", eventJSON("evt_1", "payment_intent.succeeded", "2025-09-30.clover", succeededPI),
			false},
		{"not JSON", "not json", true},
		{"thin event", `{"id":"evt_1","object":"v2.core.event","type":"v1.billing.meter.no_meter_found"}`, true},
		{"no data object", `{"id":"evt_1","object":"event","type":"payment_intent.succeeded","created":1}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.ParseWebhook([]byte(tt.payload), sign(tt.payload, testWebhookSecret, now), now)
			if (err != nil) != tt.wantErr || errors.Is(err, billing.ErrSignature) {
				t.Errorf("ParseWebhook: err = %v, want error %v and not ErrSignature", err, tt.wantErr)
			}
		})
	}
}

// Data objects of the mapping table, trimmed to what Stripe sends that matters (plus some that must not).
const (
	failedPI = `{"id":"pi_2","object":"payment_intent","amount":12500,"amount_received":0,"currency":"usd",
		"status":"requires_payment_method","last_payment_error":{"type":"card_error","code":"card_declined",
		"decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}`
	failedPINoError = `{"id":"pi_3","object":"payment_intent","amount":12500,"status":"requires_payment_method",
		"last_payment_error":null}`

	// renewalInvoice is a subscription_cycle invoice: its own period is the one that just ended (Oct 24 – Nov 24),
	// its subscription line's is the new one (Nov 24 – Dec 24), and it carries an overage item for the old one.
	renewalInvoice = `{"id":"in_1","object":"invoice","billing_reason":"subscription_cycle","status":"paid",
		"amount_due":3369,"amount_paid":3369,"currency":"usd","customer":"cus_1","attempt_count":1,
		"next_payment_attempt":null,"period_start":1792836000,"period_end":1795514400,
		"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1","metadata":{}}},
		"lines":{"object":"list","has_more":false,"data":[
			{"id":"il_overage","object":"line_item","amount":369,"period":{"start":1792836000,"end":1795514400},
			 "parent":{"type":"invoice_item_details","invoice_item_details":{"invoice_item":"ii_1","proration":false,
			 "subscription":"sub_1"}}},
			{"id":"il_sub","object":"line_item","amount":3000,"period":{"start":1795514400,"end":1798106400},
			 "parent":{"type":"subscription_item_details","subscription_item_details":{"subscription":"sub_1",
			 "subscription_item":"si_1","proration":false}}}]}}`
	// renewalNoLines is a renewal invoice whose lines were left out: the period comes from period_end.
	renewalNoLines = `{"id":"in_2","object":"invoice","billing_reason":"subscription_cycle","status":"paid",
		"amount_paid":3000,"period_start":1792836000,"period_end":1795514400,
		"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_2"}},
		"lines":{"object":"list","data":[]}}`
	// renewalLineOnly names its subscription only on its line, as an invoice without a parent would.
	renewalLineOnly = `{"id":"in_3","object":"invoice","billing_reason":"subscription_cycle","amount_paid":3000,
		"period_end":1795514400,"parent":null,"lines":{"object":"list","data":[
			{"id":"il_sub","object":"line_item","period":{"start":1795514400,"end":1798106400},
			 "parent":{"type":"subscription_item_details","subscription_item_details":{"subscription":"sub_3",
			 "proration":false}}}]}}`
	renewalNoSubscription = `{"id":"in_4","object":"invoice","billing_reason":"subscription_cycle",
		"amount_paid":3000,"parent":null,"lines":{"object":"list","data":[]}}`
	firstInvoice = `{"id":"in_5","object":"invoice","billing_reason":"subscription_create","status":"paid",
		"amount_paid":3000,"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1"}}}`
	upgradeInvoice = `{"id":"in_6","object":"invoice","billing_reason":"subscription_update","status":"open",
		"amount_due":1583,"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1"}}}`
	failedRenewal = `{"id":"in_7","object":"invoice","billing_reason":"subscription_cycle","status":"open",
		"amount_due":3000,"amount_paid":0,"attempt_count":2,"next_payment_attempt":1795860000,
		"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1"}}}`
	finalFailedRenewal = `{"id":"in_8","object":"invoice","billing_reason":"subscription_cycle","status":"open",
		"amount_due":3000,"attempt_count":4,"next_payment_attempt":null,
		"parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1"}}}`
	deletedSub = `{"id":"sub_1","object":"subscription","status":"canceled","customer":"cus_1",
		"cancel_at_period_end":true,"items":{"object":"list","data":[]}}`
	refundedCharge = `{"id":"ch_1","object":"charge","amount":12500,"amount_refunded":5000,"refunded":false,
		"payment_intent":"pi_9","currency":"usd"}`
	refundedChargeNoPI = `{"id":"ch_2","object":"charge","amount":500,"amount_refunded":500,"refunded":true,
		"payment_intent":null}`
)

// TestEventFromStripe is the event-type mapping table.
func TestEventFromStripe(t *testing.T) {
	created := time.Unix(eventCreated, 0).UTC()
	ev := func(typ billing.EventType) billing.Event {
		return billing.Event{ID: "evt_1", Type: typ, Created: created}
	}
	with := func(e billing.Event, edit func(*billing.Event)) billing.Event { edit(&e); return e }
	for _, tt := range []struct {
		name, typ, obj string
		want           billing.Event
		wantErr        bool
	}{
		{"payment succeeded", "payment_intent.succeeded", succeededPI,
			with(ev(billing.EventPaymentSucceeded), func(e *billing.Event) { e.PaymentRef, e.AmountCents = "pi_1", 3000 }),
			false},
		{"payment failed", "payment_intent.payment_failed", failedPI,
			with(ev(billing.EventPaymentFailed), func(e *billing.Event) {
				e.PaymentRef, e.AmountCents, e.FailureMessage = "pi_2", 12500, "Your card has insufficient funds."
			}), false},
		{"payment failed without an error", "payment_intent.payment_failed", failedPINoError,
			with(ev(billing.EventPaymentFailed), func(e *billing.Event) {
				e.PaymentRef, e.AmountCents, e.FailureMessage = "pi_3", 12500, "The payment failed."
			}), false},
		{"renewal paid", "invoice.paid", renewalInvoice,
			with(ev(billing.EventRenewalPaid), func(e *billing.Event) {
				e.SubscriptionRef, e.AmountCents, e.PeriodStart = "sub_1", 3369, time.Unix(1795514400, 0).UTC()
			}), false},
		{"renewal paid, no lines", "invoice.paid", renewalNoLines,
			with(ev(billing.EventRenewalPaid), func(e *billing.Event) {
				e.SubscriptionRef, e.AmountCents, e.PeriodStart = "sub_2", 3000, time.Unix(1795514400, 0).UTC()
			}), false},
		{"renewal paid, subscription on the line", "invoice.paid", renewalLineOnly,
			with(ev(billing.EventRenewalPaid), func(e *billing.Event) {
				e.SubscriptionRef, e.AmountCents, e.PeriodStart = "sub_3", 3000, time.Unix(1795514400, 0).UTC()
			}), false},
		{"renewal paid, no subscription", "invoice.paid", renewalNoSubscription, ev(billing.EventIgnored), true},
		{"first invoice paid", "invoice.paid", firstInvoice, ev(billing.EventIgnored), false},
		{"upgrade invoice failed", "invoice.payment_failed", upgradeInvoice, ev(billing.EventIgnored), false},
		{"renewal failed", "invoice.payment_failed", failedRenewal,
			with(ev(billing.EventRenewalFailed), func(e *billing.Event) {
				e.SubscriptionRef, e.AmountCents = "sub_1", 3000
				e.FailureMessage = "Stripe could not collect the renewal payment (attempt 2); it will try again on " +
					"Nov 28, 2026."
			}), false},
		{"renewal failed for good", "invoice.payment_failed", finalFailedRenewal,
			with(ev(billing.EventRenewalFailed), func(e *billing.Event) {
				e.SubscriptionRef, e.AmountCents = "sub_1", 3000
				e.FailureMessage = "Stripe could not collect the renewal payment (attempt 4) and will not try again."
			}), false},
		{"subscription deleted", "customer.subscription.deleted", deletedSub,
			with(ev(billing.EventSubscriptionEnded), func(e *billing.Event) { e.SubscriptionRef = "sub_1" }), false},
		{"charge refunded", "charge.refunded", refundedCharge,
			with(ev(billing.EventPaymentRefunded), func(e *billing.Event) { e.PaymentRef, e.AmountCents = "pi_9", 5000 }),
			false},
		{"charge refunded without a PaymentIntent", "charge.refunded", refundedChargeNoPI, ev(billing.EventIgnored),
			false},
		{"other type", "customer.updated", `{"id":"cus_1","object":"customer"}`, ev(billing.EventIgnored), false},
		{"subscription updated", "customer.subscription.updated", deletedSub, ev(billing.EventIgnored), false},
		{"bad object", "payment_intent.succeeded", `{"id":"pi_1","amount_received":"lots"}`, billing.Event{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var e stripe.Event
			if err := json.Unmarshal([]byte(eventJSON("evt_1", tt.typ, stripe.APIVersion, tt.obj)), &e); err != nil {
				t.Fatalf("decoding the test event: %v", err)
			}
			got, err := eventFromStripe(e)
			if tt.wantErr {
				if err == nil {
					t.Errorf("eventFromStripe = %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("eventFromStripe: %v", err)
			}
			if got != tt.want {
				t.Errorf("eventFromStripe =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}
