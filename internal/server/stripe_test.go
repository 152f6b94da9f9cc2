package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"

	"valuator/internal/billing"
	"valuator/internal/billing/stripepay"
	"valuator/internal/testdb"
	"valuator/internal/teststripe"
)

const testWebhookSecret = "whsec_valuator_test"

// withStripe takes payments through the Stripe provider pointed at a throwaway stripe-mock.
func withStripe(t *testing.T) func(*appOptions) {
	base := teststripe.Start(t)
	return func(o *appOptions) {
		o.billing = func(s *billing.Service) {
			p, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_valuator", PublishableKey: "pk_test_valuator",
				WebhookSecret: testWebhookSecret, APIBase: base})
			if err != nil {
				t.Fatal(err)
			}
			s.Provider = p
		}
	}
}

// stripeEvent posts a Stripe event to the webhook, signed with secret at the app's time.
func (a *testApp) stripeEvent(secret, id, typ, object string) resp {
	a.t.Helper()
	payload := fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"api_version":"2026-03-25.dahlia","created":%d,"data":{"object":%s}}`,
		id, typ, a.clock.Now().Unix(), object)
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: []byte(payload), Secret: secret,
		Timestamp: a.clock.Now()})
	return a.do(req{method: "POST", path: "/api/billing/webhook", raw: payload, badRequest: true,
		header: map[string]string{"Stripe-Signature": signed.Header}})
}

// TestStripeCallsAndWebhooks: against stripe-mock the subscribe, change-plan and cancel calls succeed; the webhook
// is the only place a Stripe payment becomes credits, applies a delivery twice once, and refuses a forged signature.
// On both databases.
func TestStripeCallsAndWebhooks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withStripe(t))
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var cfg struct{ Mode, PublishableKey string }
		a.do(req{method: "GET", path: "/api/billing/config", token: token}).json(t, &cfg)
		if cfg.Mode != "stripe" || cfg.PublishableKey != "pk_test_valuator" {
			t.Fatalf("config %+v", cfg)
		}
		// The test-mode form does not exist beside Stripe.
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/test-mode/payment-methods", token: token,
			body: map[string]any{"number": "4242424242424242", "expMonth": 12, "expYear": 2034, "cvc": "123"}}), http.StatusNotFound)

		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": "pm_card_visa"}})
		expectStatus(t, r, http.StatusOK)
		var sub billing.SubscribeResponse
		r.json(t, &sub)
		// stripe-mock's fixture invoice names no PaymentIntent; give the payment the one Stripe would have.
		if err := a.db.AttachPayment(context.Background(), sub.PaymentID, "pi_valuator_1", "", 3000, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		balance := func() int64 {
			var me struct{ Credits int64 }
			a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
			return me.Credits
		}
		if b := balance(); b != 100 {
			t.Fatalf("credits before the payment's event: %d, want the 100 free ones", b)
		}

		// A forged signature changes nothing.
		pi := `{"id":"pi_valuator_1","object":"payment_intent","amount":3000,"amount_received":3000,"status":"succeeded"}`
		r = a.stripeEvent("whsec_forged", "evt_1", "payment_intent.succeeded", pi)
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Code != "bad_signature" {
			t.Errorf("forged: %+v", e)
		}
		if b := balance(); b != 100 {
			t.Fatalf("credits after a forged event: %d", b)
		}
		// Delivered twice, credited once.
		for i := 0; i < 2; i++ {
			expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_1", "payment_intent.succeeded", pi), http.StatusOK)
		}
		if b := balance(); b != 1100 {
			t.Fatalf("credits after the event twice: %d, want 1100", b)
		}
		// The same payment under another event id (Stripe resends with a new id only for a new occurrence) is
		// not paid twice either: the payment is no longer pending.
		expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_2", "payment_intent.succeeded", pi), http.StatusOK)
		if b := balance(); b != 1100 {
			t.Fatalf("credits after a second event for the same payment: %d", b)
		}
		if s := a.subscription(token); s.PlanType != "basic" || s.Status != "active" {
			t.Fatalf("subscription %+v", s)
		}

		// Change plan (an upgrade) and cancel: the calls succeed against stripe-mock.
		r = a.do(req{method: "POST", path: "/api/billing/change-plan", token: token, body: map[string]string{"planType": "professional"}})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "POST", path: "/api/billing/change-plan", token: token, body: map[string]string{"planType": "basic"}})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "POST", path: "/api/billing/cancel", token: token})
		expectStatus(t, r, http.StatusOK)
		if s := a.subscription(token); !s.CancelAtPeriodEnd {
			t.Errorf("after cancel: %+v", s)
		}
		// The period ends; Stripe bills the renewal itself and its invoice.paid closes our period (the 100 free
		// credits carried into it expire unused; the plan's 1,000 carry over once) and grants the next period's
		// 1,000, once however often it is delivered. The cancellation is undone first, so the plan renews.
		if err := a.db.ScheduleChange(context.Background(), mustUserID(t, a, token), "", false, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		st, err := a.db.BillingState(context.Background(), mustUserID(t, a, token), a.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		a.clock.Advance(st.Period.End.Sub(a.clock.Now()) + time.Minute)
		var auth struct{ Token string }
		a.login("jane@example.com", "correct-horse").json(t, &auth)
		token = auth.Token
		before := balance()
		invoice := fmt.Sprintf(`{"id":"in_renewal_1","object":"invoice","billing_reason":"subscription_cycle","amount_paid":3000,
			"period_end":%d,"parent":{"type":"subscription_details","subscription_details":{"subscription":%q}}}`,
			st.Period.End.Unix(), st.Sub.SubscriptionRef)
		for i := 0; i < 2; i++ {
			expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_renewal_1", "invoice.paid", invoice), http.StatusOK)
		}
		expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_renewal_1b", "invoice.paid", invoice), http.StatusOK)
		if got := balance(); before != 1100 || got != 1100-100+1000 {
			t.Errorf("after the renewal's invoice.paid (three deliveries, two event ids): %d → %d, want 1100 → 2000", before, got)
		}
		// A refund takes back what the first payment bought.
		before = balance()
		expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_refund_1", "charge.refunded",
			`{"id":"ch_1","object":"charge","payment_intent":"pi_valuator_1","amount_refunded":3000}`), http.StatusOK)
		if got := balance(); got != before-1000 {
			t.Errorf("after the refund: %d, want %d - 1000", got, before)
		}
		// An event that is not ours (another integration's PaymentIntent) is received and ignored.
		before = balance()
		expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_3", "payment_intent.succeeded",
			`{"id":"pi_someone_else","object":"payment_intent","amount_received":999}`), http.StatusOK)
		if b := balance(); b != before {
			t.Errorf("credits after a foreign event: %d, want %d", b, before)
		}
	})
}

func mustUserID(t *testing.T, a *testApp, token string) int64 {
	t.Helper()
	var me struct{ ID int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
	return me.ID
}

// TestCSPAdmitsStripeOnlyWhenConfigured: Stripe.js and its frames are allowed by the Content-Security-Policy only on
// a server that takes payments with Stripe (the test mode needs no external origin; see the security headers test).
func TestCSPAdmitsStripeOnlyWhenConfigured(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) {
		o.env = map[string]string{"VALUATOR_STRIPE_SECRET_KEY": "sk_test_x", "VALUATOR_STRIPE_PUBLISHABLE_KEY": "pk_test_x",
			"VALUATOR_STRIPE_WEBHOOK_SECRET": "whsec_x"}
	})
	csp := a.do(req{method: "GET", path: "/", noContract: true}).header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self' https://js.stripe.com", "frame-src https://js.stripe.com",
		"connect-src 'self' https://api.stripe.com", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
}
