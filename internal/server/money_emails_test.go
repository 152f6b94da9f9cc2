package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/billing"
	"valuator/internal/notify"
	"valuator/internal/testdb"
	"valuator/internal/testsmtp"
)

// The emails about money (issue 36), end to end: the product's own paths move the money (the test-mode payment
// provider and its card form, the plan routes, the billing job, the operators' refund, Stripe's webhooks), the
// store queues each email in the transaction that moves it, the mail job sends it through our SMTP sender to a real
// SMTP server, and the test reads what that server received.

// cents is an amount as the emails write it, computed here independently of billing.Dollars.
func cents(c int64) string {
	d := fmt.Sprint(c / 100)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return fmt.Sprintf("$%s.%02d", d, c%100)
}

// expectMail fails unless exactly one email to addr has a subject containing subject, and returns it.
func (m *mailRig) expectMail(addr, subject string) testsmtp.Message {
	m.t.Helper()
	got := m.received(addr, subject)
	if len(got) != 1 {
		var subjects []string
		for _, msg := range m.smtp.To(addr) {
			subjects = append(subjects, msg.Header.Get("Subject"))
		}
		m.t.Fatalf("%d emails to %s with %q in the subject, want 1; received: %q", len(got), addr, subject, subjects)
	}
	return got[0]
}

// expectText fails unless the email's subject and body hold every want.
func expectText(t *testing.T, msg testsmtp.Message, want ...string) {
	t.Helper()
	text := msg.Header.Get("Subject") + "\n" + msg.Body
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("email %q lacks %q:\n%s", msg.Header.Get("Subject"), w, msg.Body)
		}
	}
}

// expectNoUnsubscribe fails if a receipt carries the unsubscribe link or headers: no switch governs it.
func expectNoUnsubscribe(t *testing.T, msg testsmtp.Message) {
	t.Helper()
	if msg.Header.Get("List-Unsubscribe") != "" || strings.Contains(msg.Body, "/unsubscribe?token=") {
		t.Errorf("receipt %q offers an unsubscribe, but no switch governs it:\n%s", msg.Header.Get("Subject"), msg.Body)
	}
}

// writeMoneyEmails appends every email the server received, as received, to the file VALUATOR_MONEY_EMAILS_OUT
// names (the text of the emails for a person to read; nothing when unset), from the SQLite run only.
func writeMoneyEmails(t *testing.T, m *mailRig) {
	path := os.Getenv("VALUATOR_MONEY_EMAILS_OUT")
	if path == "" || !strings.HasSuffix(t.Name(), "/sqlite") {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s: %d emails\n\n", strings.TrimSuffix(t.Name(), "/sqlite"), len(m.smtp.Messages()))
	for _, msg := range m.smtp.Messages() {
		fmt.Fprintf(&b, "To: %s\nSubject: %s\n", strings.Join(msg.To, ", "), msg.Header.Get("Subject"))
		if h := msg.Header.Get("List-Unsubscribe"); h != "" {
			fmt.Fprintf(&b, "List-Unsubscribe: %s\n", h)
		}
		fmt.Fprintf(&b, "\n%s\n%s\n", strings.TrimRight(msg.Body, "\n"), strings.Repeat("=", 78))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.WriteString(b.String() + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Error(err)
	}
}

// TestMoneyEmails: every money event of the test mode, through the product's routes and the billing job, mails
// once: a receipt for each paid payment (the first month, a prorated upgrade, a renewal) with its amount to the
// cent, plan, period and card; the month's credits; a scheduled downgrade; a cancellation; a declined renewal; and
// the operators' full refund, which ends the plan. Receipts go with "Email notifications" off; the notices do not.
// Confirming twice, running the billing job twice, a second refund and a replayed provider event mail nothing more.
func TestMoneyEmails(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withMail)
		m := newMailRig(t, a)
		ctx := context.Background()
		janeDevice := from(chromeUA, "203.0.113.7")
		jane, janeUser := a.registerFrom("jane@example.com", "Jane Doe", janeDevice)

		// Carol's card on file declines (4000 0000 0000 0341 attaches, but its charges are declined).
		carol, _ := a.registerFrom("carol@example.com", "Carol Doe", from(chromeUA, "203.0.113.8"))
		carolCard := a.card(carol, "4242424242424242")
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: carol,
			body: map[string]string{"planType": "basic", "paymentMethodId": carolCard}})
		expectStatus(t, r, http.StatusOK)
		var sub billing.SubscribeResponse
		r.json(t, &sub)
		expectStatus(t, a.pay(carol, sub.ClientSecret, carolCard), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/payment-method", token: carol,
			body: map[string]string{"paymentMethodId": a.card(carol, "4000 0000 0000 0341")}}), http.StatusOK)

		// Bob turned "Email notifications" off: his receipt still goes, nothing else does (his cancellation, the
		// operator's full refund and his month's credits are queued, and marked off when the mail job comes).
		bob, bobUser := a.registerFrom("bob@example.com", "Bob Doe", from(chromeUA, "203.0.113.9"))
		a.setNotifications(bob, account.Notifications{EmailNotifications: false, UsageAlerts: true})
		bobCard := a.card(bob, "5555555555554444")
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: bob,
			body: map[string]string{"planType": "basic", "paymentMethodId": bobCard}})
		expectStatus(t, r, http.StatusOK)
		var bobSub billing.SubscribeResponse
		r.json(t, &bobSub)
		expectStatus(t, a.pay(bob, bobSub.ClientSecret, bobCard), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/cancel", token: bob}), http.StatusOK)
		op, _ := a.operator("olive@valuator.test")
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/payments/%d/refund",
			bobUser.ID, bobSub.PaymentID), token: op, body: map[string]any{"reason": "Bought by mistake"}}), http.StatusOK)
		m.deliver()
		bobMail := m.smtp.To("bob@example.com")
		if len(bobMail) != 1 {
			t.Fatalf("bob (switch off) received %d emails, want only his receipt", len(bobMail))
		}
		expectText(t, bobMail[0], fmt.Sprintf("Your Valuator receipt #%d: $30.00 paid", bobSub.PaymentID),
			"Card:     Mastercard ending in 4444")
		expectNoUnsubscribe(t, bobMail[0])

		// The first month of Basic, confirmed twice.
		visa := a.card(jane, "4242 4242 4242 4242")
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: jane,
			body: map[string]string{"planType": "basic", "paymentMethodId": visa}})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &sub)
		expectStatus(t, a.pay(jane, sub.ClientSecret, visa), http.StatusOK)
		expectStatus(t, a.pay(jane, sub.ClientSecret, visa), http.StatusOK)
		if n := m.deliver(); n != 2 {
			t.Fatalf("the first payment sent %d emails, want 2 (its receipt and the month's credits)", n)
		}
		receipt := m.expectMail("jane@example.com", fmt.Sprintf("receipt #%d", sub.PaymentID))
		expectText(t, receipt, fmt.Sprintf("Your Valuator receipt #%d: $30.00 paid", sub.PaymentID), "Hello Jane Doe",
			"For:      Basic plan, first month", "Plan:     Basic", "Period:   Mar 1 – Apr 1, 2026",
			"Credits:  1,000", "Card:     Visa ending in 4242", "Amount:   $30.00 (USD)",
			"Paid:     Sunday, March 1, 2026 at 12:00 UTC", "Test mode: no money moved.", appBaseURL+"/billing",
			"whatever your email settings")
		expectNoUnsubscribe(t, receipt)
		credits := m.expectMail("jane@example.com", "credits added")
		expectText(t, credits, "1,000 credits added for Mar 1 to Apr 1, 2026", "Your Basic plan's 1,000 credits",
			"Balance: 1,100 credits", "Next credits: April 1, 2026", appBaseURL+"/billing")
		unsubscribeToken(t, credits) // the switch's link and RFC 8058 headers

		// Ten days later, an upgrade to Professional charged to the card on file: its receipt, to the cent.
		a.clock.Advance(10 * 24 * time.Hour)
		r = a.do(req{method: "POST", path: "/api/billing/change-plan", token: jane, body: map[string]string{"planType": "professional"}})
		expectStatus(t, r, http.StatusOK)
		var up billing.PlanChange
		r.json(t, &up)
		if up.PaymentStatus != billing.ChangePaymentSucceeded || up.PaymentID == nil || up.ChargeCents <= 0 || up.ChargeCents%100 == 0 {
			t.Fatalf("upgrade: %+v, want a paid charge with cents", up)
		}
		m.deliver()
		upReceipt := m.expectMail("jane@example.com", fmt.Sprintf("receipt #%d", *up.PaymentID))
		expectText(t, upReceipt, fmt.Sprintf("Your Valuator receipt #%d: %s paid", *up.PaymentID, cents(up.ChargeCents)),
			"For:      Upgrade from Basic to Professional, prorated for the rest of the period to Apr 1, 2026",
			"Plan:     Professional", "Period:   Mar 1 – Apr 1, 2026", "Card:     Visa ending in 4242",
			fmt.Sprintf("Amount:   %s (USD)", cents(up.ChargeCents)))
		expectNoUnsubscribe(t, upReceipt)

		// A downgrade to Basic, chosen twice: one notice.
		for range 2 {
			expectStatus(t, a.do(req{method: "POST", path: "/api/billing/change-plan", token: jane,
				body: map[string]string{"planType": "basic"}}), http.StatusOK)
		}
		// A cancellation, asked twice: one notice. Then Professional again, which keeps the plan.
		for range 2 {
			expectStatus(t, a.do(req{method: "POST", path: "/api/billing/cancel", token: jane}), http.StatusOK)
		}
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/change-plan", token: jane,
			body: map[string]string{"planType": "professional"}}), http.StatusOK)
		if n := m.deliver(); n != 2 {
			t.Fatalf("a downgrade and a cancellation sent %d emails, want 2", n)
		}
		down := m.expectMail("jane@example.com", "Your plan changes to Basic")
		expectText(t, down, "Your plan changes to Basic on April 1, 2026",
			"from Professional to Basic on Wednesday, April 1, 2026 at 12:00 UTC", "$30.00 a month for 1,000 credits",
			appBaseURL+"/billing")
		unsubscribeToken(t, down)
		cancel := m.expectMail("jane@example.com", "is cancelled")
		expectText(t, cancel, "Your Professional plan is cancelled: it runs until April 1, 2026",
			"runs until Wednesday, April 1, 2026 at 12:00 UTC and is not renewed", "moves to the Free plan",
			appBaseURL+"/billing")
		unsubscribeToken(t, cancel)

		// April 1: the billing job renews Jane's Professional plan with her card, and Carol's renewal is declined.
		// Run twice: each is mailed once.
		a.clock.Advance(21*24*time.Hour + time.Minute)
		for range 2 {
			if _, err := a.billing.Housekeep(ctx); err != nil {
				t.Fatal(err)
			}
		}
		m.deliver()
		jane = a.signInFrom("jane@example.com", janeDevice)
		pays := a.paymentsOf(jane)
		renewal := pays[0]
		if renewal.Kind != billing.KindRenewal || renewal.Status != billing.PaymentSucceeded || renewal.AmountCents != 12500 {
			t.Fatalf("jane's newest payment %+v, want the paid Professional renewal", renewal)
		}
		renewed := m.expectMail("jane@example.com", fmt.Sprintf("receipt #%d", renewal.ID))
		expectText(t, renewed, fmt.Sprintf("Your Valuator receipt #%d: $125.00 paid", renewal.ID),
			"For:      Professional plan, Apr 1 – May 1, 2026", "Period:   Apr 1 – May 1, 2026", "Credits:  5,000",
			"Card:     Visa ending in 4242", "Amount:   $125.00 (USD)", "Paid:     Wednesday, April 1, 2026 at 12:01 UTC")
		aprilBalance := a.credits(jane)
		expectText(t, m.expectMail("jane@example.com", "credits added for Apr 1 to May 1, 2026"),
			"5,000 credits added for Apr 1 to May 1, 2026", fmt.Sprintf("Balance: %s credits", billing.Thousands(aprilBalance)),
			"Next credits: May 1, 2026")
		declined := m.expectMail("carol@example.com", "renewal of $30.00 was declined")
		expectText(t, declined, "Your Basic plan renewal of $30.00 was declined", "Hello Carol Doe",
			"We could not collect $30.00 for your Basic plan for Apr 1 – May 1, 2026.",
			"The card's answer: Your card was declined.", "past due", "this period's 1,000 credits are added only once a payment goes through",
			"charged again at the next renewal, on May 1, 2026", appBaseURL+"/billing")
		unsubscribeToken(t, declined)

		// The operator refunds Jane's renewal in full: the credits it bought go back and the plan ends at once. A
		// second refund is refused, and the provider's event for it, replayed, changes and mails nothing.
		var opAuth account.Auth
		a.login("olive@valuator.test", "correct-horse").json(t, &opAuth)
		op = opAuth.Token
		refundPath := fmt.Sprintf("/api/admin/accounts/%d/payments/%d/refund", janeUser.ID, renewal.ID)
		expectStatus(t, a.do(req{method: "POST", path: refundPath, token: op, body: map[string]any{"reason": "Asked before using it"}}),
			http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: refundPath, token: op, body: map[string]any{"reason": "Again"}}),
			http.StatusConflict)
		rec, err := a.db.Payment(ctx, janeUser.ID, renewal.ID)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := a.billing.HandleEvent(ctx, billing.Event{ID: "evt_replayed_refund", Type: billing.EventPaymentRefunded,
				PaymentRef: rec.Ref, AmountCents: rec.AmountCents, Created: a.clock.Now()}); err != nil {
				t.Fatal(err)
			}
			if _, err := a.billing.HandleEvent(ctx, billing.Event{ID: "evt_replayed_payment", Type: billing.EventPaymentSucceeded,
				PaymentRef: rec.Ref, AmountCents: rec.AmountCents, Created: a.clock.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		m.deliver()
		if s := a.subscription(jane); s.PlanType != "free" || s.Status != "none" {
			t.Errorf("after the full refund jane's subscription is %+v, want the Free plan", s)
		}
		refund := m.expectMail("jane@example.com", "Refund of")
		expectText(t, refund, fmt.Sprintf("Refund of $125.00 for payment #%d", renewal.ID),
			fmt.Sprintf("Payment #%d (Professional plan, Apr 1 – May 1, 2026) was refunded in full: $125.00 of the $125.00 you paid", renewal.ID), "Test mode: no money moved.",
			"Credits: 5,000 taken back", fmt.Sprintf("Balance: %s credits", billing.Thousands(aprilBalance-5000)),
			"your Professional plan ended at once; your account is on the Free plan and nothing renews", appBaseURL+"/billing")
		unsubscribeToken(t, refund)
		if got := a.credits(jane); got != aprilBalance-5000 {
			t.Errorf("jane's balance after the refund %d, want %d", got, aprilBalance-5000)
		}

		// May 1: Jane's Free month. Carol's next renewal is declined again: a new renewal, a new notice.
		a.clock.Advance(30*24*time.Hour + time.Minute)
		if _, err := a.billing.Housekeep(ctx); err != nil {
			t.Fatal(err)
		}
		m.deliver()
		jane = a.signInFrom("jane@example.com", janeDevice)
		expectText(t, m.expectMail("jane@example.com", "credits added for May 1 to Jun 1, 2026"),
			"100 credits added for May 1 to Jun 1, 2026", "Your Free plan's 100 credits",
			fmt.Sprintf("Balance: %s credits", billing.Thousands(a.credits(jane))))
		if got := m.received("carol@example.com", "was declined"); len(got) != 2 || !strings.Contains(got[1].Body, "May 1 – Jun 1, 2026") {
			t.Errorf("carol's declined renewals: %d emails, want April's and May's", len(got))
		}

		// Nothing else went, and nothing is left to go.
		if n := m.deliver(); n != 0 {
			t.Errorf("a last mail run sent %d emails", n)
		}
		counts := map[string]int{}
		for _, msg := range m.smtp.Messages() {
			counts[msg.To[0]]++
		}
		// Jane: 3 receipts, 3 months of credits, a downgrade, a cancellation, a refund. Carol: a receipt, a month's
		// credits, two declines. Bob: his receipt. The operator, on the Free plan: April's and May's credits.
		if counts["jane@example.com"] != 9 || counts["carol@example.com"] != 4 || counts["bob@example.com"] != 1 ||
			counts["olive@valuator.test"] != 2 || len(counts) != 4 {
			t.Errorf("emails received per address: %v", counts)
		}
		outcomes, err := a.db.MailOutcomes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		off := map[string]int{}
		for _, o := range outcomes {
			if strings.HasPrefix(o.Kind, "sign_in") {
				continue
			}
			if o.Outcome == "off" {
				off[o.Kind]++
				continue
			}
			if o.Outcome != "sent" {
				t.Errorf("outbox row %s (%s): %q", o.Key, o.Kind, o.Outcome)
			}
		}
		// Bob's: the cancellation, the refund, the first month's credits and two Free months'.
		if want := map[string]int{notify.KindCancellation: 1, notify.KindRefund: 1, notify.KindCreditsGranted: 3}; fmt.Sprint(off) != fmt.Sprint(want) {
			t.Errorf("mails not sent for the switch off: %v, want %v (bob's)", off, want)
		}
		writeMoneyEmails(t, m)
	})
}

// TestFullRefundEndsThePlan (issue 36, L-4): an operator's full refund of the payment for the current period takes
// its credits back and ends the paid plan at once, in the same transaction: the account is on the Free plan, its
// subscription ended, nothing is scheduled to renew, and the period's end grants Free's credits instead of billing
// the plan. Before the fix the plan stayed paid until the period ended, and renewed.
func TestFullRefundEndsThePlan(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		ctx := context.Background()
		op, _ := a.operator("olive@valuator.test")
		pat, patID := subscribed(t, a, "pat@example.com", "basic", "4242424242424242")
		pay := a.paymentsOf(pat)[0]
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/payments/%d/refund", patID, pay.ID),
			token: op, body: map[string]any{"reason": "Asked for a refund"}}), http.StatusOK)

		if s := a.subscription(pat); s.PlanType != "free" || s.Status != "none" || s.CancelAtPeriodEnd || s.PendingPlanType != nil {
			t.Errorf("after a full refund the subscription is %+v, want the Free plan with nothing scheduled", s)
		}
		var usage billing.MeteredUsage
		a.do(req{method: "GET", path: "/api/billing/metered-usage", token: pat}).json(t, &usage)
		if usage.PlanType != "free" || usage.HasSubscription || usage.NextPlanType != "free" || usage.UpcomingChargeCents != 0 {
			t.Errorf("after a full refund: plan %s, subscription %t, next %s, upcoming %d; want Free with nothing to pay",
				usage.PlanType, usage.HasSubscription, usage.NextPlanType, usage.UpcomingChargeCents)
		}
		if got := a.credits(pat); got != 100 {
			t.Errorf("balance %d after the refund, want the 100 free credits", got)
		}
		if rows := a.audit(op, patID); len(rows) != 1 || rows[0].Before["plan"] != "basic" || rows[0].After["plan"] != "free" {
			t.Errorf("the refund's audit row: %+v, want the plan from basic to free", rows)
		}

		// The period ends: nothing is billed, and Free's credits are granted.
		st, err := a.db.BillingState(ctx, patID, a.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		a.clock.Advance(st.Period.End.Sub(a.clock.Now()) + time.Minute)
		if _, err := a.billing.Housekeep(ctx); err != nil {
			t.Fatal(err)
		}
		var auth account.Auth
		a.login("pat@example.com", "correct-horse").json(t, &auth)
		if ps := a.paymentsOf(auth.Token); len(ps) != 1 || ps[0].Status != billing.PaymentRefunded {
			t.Errorf("payments after the period ended: %+v, want only the refunded one (no renewal)", ps)
		}
		if rows := checkLedger(t, a, auth.Token); !hasRow(rows, "plan_credits", 100) || rows[len(rows)-1].Amount != 100 {
			t.Errorf("the next period's ledger: %+v, want Free's 100 credits last", rows)
		}
	})
}

// TestStripeRefundsMailedOnce: Stripe's events, delivered twice (and at once, as two instances would), mail once:
// the first payment's receipt, a partial refund (which keeps the plan and the credits) and then the full refund
// (which takes the credits back, ends the plan and ends the subscription at Stripe).
func TestStripeRefundsMailedOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withStripe(t), withMail)
		m := newMailRig(t, a)
		ctx := context.Background()
		token, _ := a.registerFrom("jane@example.com", "Jane Doe", from(chromeUA, "203.0.113.7"))
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": "pm_card_visa"}})
		expectStatus(t, r, http.StatusOK)
		var sub billing.SubscribeResponse
		r.json(t, &sub)
		// stripe-mock's fixture invoice names no PaymentIntent; give the payment the one Stripe would have.
		if err := a.db.AttachPayment(ctx, sub.PaymentID, "pi_valuator_1", "", 3000, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		deliverTwice := func(id, typ, object string) {
			t.Helper()
			var wg sync.WaitGroup
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := a.stripeEvent(testWebhookSecret, id, typ, object); r.status != http.StatusOK {
						t.Errorf("%s %s: status %d %s", typ, id, r.status, r.body)
					}
				}()
			}
			wg.Wait()
			expectStatus(t, a.stripeEvent(testWebhookSecret, id, typ, object), http.StatusOK)
		}
		deliverTwice("evt_paid", "payment_intent.succeeded",
			`{"id":"pi_valuator_1","object":"payment_intent","amount":3000,"amount_received":3000,"status":"succeeded"}`)
		if n := m.deliver(); n != 2 {
			t.Fatalf("the paid event sent %d emails, want 2 (the receipt and the month's credits)", n)
		}
		receipt := m.expectMail("jane@example.com", "receipt")
		expectText(t, receipt, fmt.Sprintf("Your Valuator receipt #%d: $30.00 paid", sub.PaymentID), "Amount:   $30.00 (USD)",
			"Period:   Mar 1 – Apr 1, 2026")
		if strings.Contains(receipt.Body, "Test mode") {
			t.Errorf("a Stripe receipt says test mode:\n%s", receipt.Body)
		}

		// $10.00 of it back: the plan and the credits stay.
		deliverTwice("evt_refund_part", "charge.refunded",
			`{"id":"ch_1","object":"charge","payment_intent":"pi_valuator_1","amount":3000,"amount_refunded":1000}`)
		if s := a.subscription(token); s.PlanType != "basic" || s.Status != "active" {
			t.Errorf("after a partial refund: %+v, want Basic still active", s)
		}
		if got := a.credits(token); got != 1100 {
			t.Errorf("balance %d after a partial refund, want 1100", got)
		}
		if n := m.deliver(); n != 1 {
			t.Fatalf("the partial refund sent %d emails, want 1", n)
		}
		expectText(t, m.expectMail("jane@example.com", "Refund of $10.00"),
			fmt.Sprintf("Refund of $10.00 for payment #%d", sub.PaymentID),
			"was refunded in part: $10.00 of the $30.00 you paid", "within 5 to 10 business days",
			"Credits: unchanged (a partial refund takes none back)", "Balance: 1,100 credits",
			"Plan:    unchanged (Basic; a partial refund keeps the plan)")

		// The rest: all $30.00 refunded, the credits it bought go back, and the plan ends here and at Stripe.
		deliverTwice("evt_refund_all", "charge.refunded",
			`{"id":"ch_1","object":"charge","payment_intent":"pi_valuator_1","amount":3000,"amount_refunded":3000}`)
		if s := a.subscription(token); s.PlanType != "free" || s.Status != "none" {
			t.Errorf("after the full refund: %+v, want the Free plan", s)
		}
		if got := a.credits(token); got != 100 {
			t.Errorf("balance %d after the full refund, want 100", got)
		}
		var action string
		if err := a.db.SQL().QueryRow(fmt.Sprintf(`SELECT provider_action FROM payments WHERE id = %d`, sub.PaymentID)).
			Scan(&action); err != nil || action != "" {
			t.Errorf("the payment still owes Stripe %q (%v); want the subscription ended at Stripe", action, err)
		}
		if n := m.deliver(); n != 1 {
			t.Fatalf("the full refund sent %d emails, want 1", n)
		}
		expectText(t, m.expectMail("jane@example.com", "Refund of $30.00"),
			"was refunded in full: $30.00 of the $30.00 you paid", "Credits: 1,000 taken back", "Balance: 100 credits",
			"your Basic plan ended at once")
		if n := m.deliver(); n != 0 || len(m.smtp.To("jane@example.com")) != 4 {
			t.Errorf("jane received %d emails, want 4", len(m.smtp.To("jane@example.com")))
		}
		writeMoneyEmails(t, m)
	})
}
