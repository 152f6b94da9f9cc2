package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/billing"
	"valuator/internal/billing/stripepay"
	"valuator/internal/testdb"
)

// The money path as an attacker and a new customer try it (issue: one price, one charge, one balance): a payment is
// for one change of one subscription at one price; parallel clicks make one charge; the card on file pays; only
// money that moved has a receipt; one balance everywhere; the customer reads our words, never a provider's error.

// subscribed signs a new user up and subscribes them to plan, paid with the test card number (which becomes the
// card on file).
func subscribed(t *testing.T, a *testApp, email, plan, number string) (token string, userID int64) {
	t.Helper()
	token, u := a.register(email, "correct-horse", "Pat Payer")
	pm := a.card(token, number)
	r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
		body: map[string]string{"planType": plan, "paymentMethodId": pm}})
	expectStatus(t, r, http.StatusOK)
	var sub billing.SubscribeResponse
	r.json(t, &sub)
	r = a.do(req{method: "POST", path: "/api/billing/test-mode/confirm", token: token,
		body: map[string]string{"clientSecret": sub.ClientSecret, "paymentMethodId": pm}})
	expectStatus(t, r, http.StatusOK)
	var res billing.TestConfirmResult
	r.json(t, &res)
	if res.Status == billing.AwaitAction {
		expectStatus(t, a.authenticate(token, sub.ClientSecret, billing.AuthComplete), http.StatusOK)
	}
	if s := a.subscription(token); s.PlanType != plan || s.Status != "active" {
		t.Fatalf("after subscribing: %+v", s)
	}
	return token, u.ID
}

// authenticate answers the test bank's authentication of a payment.
func (a *testApp) authenticate(token, secret, answer string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/billing/test-mode/confirm", token: token,
		body: map[string]string{"clientSecret": secret, "authentication": answer}})
}

func (a *testApp) changePlan(token, plan string) (billing.PlanChange, resp) {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/billing/change-plan", token: token, body: map[string]string{"planType": plan}})
	var ch billing.PlanChange
	if r.status == http.StatusOK {
		r.json(a.t, &ch)
	}
	return ch, r
}

// paymentsOf is the user's payment history as the API shows it, newest first.
func (a *testApp) paymentsOf(token string) []billing.PaymentView {
	a.t.Helper()
	var page struct{ Data []billing.PaymentView }
	a.do(req{method: "GET", path: "/api/billing/payments?limit=100", token: token}).json(a.t, &page)
	return page.Data
}

func countRows(rows []ledgerRow, kind string) int {
	n := 0
	for _, r := range rows {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// postJSON is a signed-in JSON POST for a.parallel and parallelAnswers.
func (a *testApp) postJSON(path, token string, body any) *http.Request {
	a.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		a.t.Fatal(err)
	}
	rq, err := http.NewRequest("POST", a.srv.URL+path, strings.NewReader(string(raw)))
	if err != nil {
		a.t.Fatal(err)
	}
	rq.Header.Set("Content-Type", "application/json")
	rq.Header.Set("Authorization", "Bearer "+token)
	return rq
}

// answer is one reply of parallelAnswers.
type answer struct {
	status int
	body   []byte
}

// parallelAnswers sends n copies of the request mk makes all at once and returns every reply.
func (a *testApp) parallelAnswers(n int, mk func() *http.Request) []answer {
	a.t.Helper()
	out := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := a.srv.Client().Do(mk())
			if err != nil {
				a.t.Error(err)
				return
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			out[i] = answer{res.StatusCode, body}
		}()
	}
	wg.Wait()
	return out
}

// openUpgrade starts an upgrade that the card on file cannot pay at once (4000 0027 6000 3184 asks for
// authentication every time), so that its payment stays open, and returns its client secret.
func openUpgrade(t *testing.T, a *testApp, token, plan string) (string, billing.PlanChange) {
	t.Helper()
	ch, r := a.changePlan(token, plan)
	expectStatus(t, r, http.StatusOK)
	if ch.PaymentStatus != billing.ChangePaymentAction || ch.ClientSecret == nil || ch.Message == nil {
		t.Fatalf("upgrade with an authenticating card: %+v, want requires_action with a client secret", ch)
	}
	return *ch.ClientSecret, ch
}

const (
	cardOK          = "4242424242424242"
	cardAuthFirst   = "4000002500003155"
	cardAuthAlways  = "4000002760003184"
	cardAttachOnly  = "4000000000000341"
	cardDeclineNow  = "4000000000000002"
	msgStaleConfirm = "no longer matches your plan"
)

// TestStalePaymentsAreRefused: a payment priced against one state of the subscription cannot be paid once that
// state changed. Each case failed before: a Professional→Enterprise payment paid after a downgrade took effect gave
// Enterprise for the old price; paid after a cancellation ended it revived the subscription. On both databases.
func TestStalePaymentsAreRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		// endPeriod moves the clock past the period's end, runs the billing job and signs in again (the session
		// has expired by then).
		endPeriod := func(t *testing.T, email string, userID int64) string {
			t.Helper()
			st, err := a.db.BillingState(context.Background(), userID, a.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			a.clock.Advance(st.Period.End.Sub(a.clock.Now()) + time.Minute)
			if _, err := a.billing.Housekeep(context.Background()); err != nil {
				t.Fatal(err)
			}
			var auth struct{ Token string }
			a.login(email, "correct-horse").json(t, &auth)
			return auth.Token
		}
		paidUpgrades := func(token string) int {
			n := 0
			for _, p := range a.paymentsOf(token) {
				if p.Kind == billing.KindUpgrade && p.Status == billing.PaymentSucceeded {
					n++
				}
			}
			return n
		}
		refused := func(t *testing.T, token, secret, want string) {
			t.Helper()
			before, paid := checkLedger(t, a, token), paidUpgrades(token)
			r := a.authenticate(token, secret, billing.AuthComplete)
			expectStatus(t, r, http.StatusConflict)
			if e := r.errBody(t); e.Code != "payment_closed" || !strings.Contains(e.Error, want) {
				t.Errorf("stale confirm: %+v, want payment_closed saying %q", e, want)
			}
			if after := checkLedger(t, a, token); len(after) != len(before) {
				t.Errorf("a refused payment changed the ledger: %+v", after[len(before):])
			}
			if n := paidUpgrades(token); n != paid {
				t.Errorf("%d paid upgrades after the refusal, %d before", n, paid)
			}
			for _, p := range a.paymentsOf(token) {
				if p.Open || (p.Status != billing.PaymentSucceeded && p.ReceiptURL != nil) {
					t.Errorf("payment %+v: want closed, and a receipt only if paid", p)
				}
			}
		}

		t.Run("after a downgrade took effect", func(t *testing.T) {
			token, id := subscribed(t, a, "down@example.com", "professional", cardAuthAlways)
			secret, _ := openUpgrade(t, a, token, "enterprise")
			if ch, r := a.changePlan(token, "basic"); r.status != http.StatusOK || ch.Change != "downgrade" {
				t.Fatalf("downgrade: %d %+v", r.status, ch)
			}
			token = endPeriod(t, "down@example.com", id)
			if s := a.subscription(token); s.PlanType != "basic" {
				t.Fatalf("after the period: %+v, want basic", s)
			}
			refused(t, token, secret, "")
			if s := a.subscription(token); s.PlanType != "basic" {
				t.Errorf("a stale upgrade changed the plan: %+v", s)
			}
		})

		t.Run("after a cancellation ended", func(t *testing.T) {
			token, id := subscribed(t, a, "cancel@example.com", "professional", cardAuthAlways)
			secret, _ := openUpgrade(t, a, token, "enterprise")
			expectStatus(t, a.do(req{method: "POST", path: "/api/billing/cancel", token: token}), http.StatusOK)
			token = endPeriod(t, "cancel@example.com", id)
			refused(t, token, secret, "")
			if s := a.subscription(token); s.PlanType != "free" || s.Status != "none" {
				t.Errorf("a stale upgrade revived the subscription: %+v", s)
			}
		})

		t.Run("after a period closed", func(t *testing.T) {
			token, id := subscribed(t, a, "period@example.com", "basic", cardAuthAlways)
			// An hour before the period ends, so that the payment has not expired when it does.
			st, err := a.db.BillingState(context.Background(), id, a.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			a.clock.Advance(st.Period.End.Sub(a.clock.Now()) - time.Hour)
			var auth struct{ Token string }
			a.login("period@example.com", "correct-horse").json(t, &auth)
			secret, _ := openUpgrade(t, a, auth.Token, "professional")
			token = endPeriod(t, "period@example.com", id)
			refused(t, token, secret, msgStaleConfirm)
		})

		t.Run("after another payment settled", func(t *testing.T) {
			// Two tabs: Basic→Professional waits for authentication, then Basic→Enterprise replaces it and is paid.
			token, _ := subscribed(t, a, "tabs@example.com", "basic", cardAuthAlways)
			first, _ := openUpgrade(t, a, token, "professional")
			second, _ := openUpgrade(t, a, token, "enterprise")
			expectStatus(t, a.authenticate(token, second, billing.AuthComplete), http.StatusOK)
			refused(t, token, first, "Replaced by a newer payment")
			if s := a.subscription(token); s.PlanType != "enterprise" {
				t.Errorf("after paying the second tab: %+v", s)
			}
			if n := countRows(checkLedger(t, a, token), "proration_credits"); n != 1 {
				t.Errorf("%d proration grants, want 1", n)
			}
		})
	})
}

// TestParallelUpgradesChargeOnce: ten parallel clicks on one upgrade make one payment and one grant (six clicks made
// six charges before). The same holds for a new subscription: ten parallel subscribes answer one payment. On both
// databases.
func TestParallelUpgradesChargeOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := subscribed(t, a, "clicks@example.com", "basic", cardOK)
		const n = 10
		codes := a.parallel(n, func(int) *http.Request {
			return a.postJSON("/api/billing/change-plan", token, map[string]string{"planType": "professional"})
		})
		if codes[http.StatusOK] != n {
			t.Fatalf("answers %v, want %d × 200", codes, n)
		}
		upgrades := 0
		for _, p := range a.paymentsOf(token) {
			if p.Kind == billing.KindUpgrade {
				upgrades++
				if p.Status != billing.PaymentSucceeded {
					t.Errorf("the upgrade's payment: %+v", p)
				}
			}
		}
		rows := checkLedger(t, a, token)
		if upgrades != 1 || countRows(rows, "proration_credits") != 1 {
			t.Errorf("%d upgrade payments and %d proration grants for %d parallel clicks, want 1 and 1", upgrades,
				countRows(rows, "proration_credits"), n)
		}
		if s := a.subscription(token); s.PlanType != "professional" {
			t.Errorf("plan %+v", s)
		}

		// A new subscription, subscribed ten times at once with one card: one payment, the same secret for all.
		other, _ := a.register("subs@example.com", "correct-horse", "Sam Subs")
		pm := a.card(other, cardOK)
		distinct := map[string]bool{}
		for _, ans := range a.parallelAnswers(n, func() *http.Request {
			return a.postJSON("/api/billing/subscribe", other, map[string]string{"planType": "basic", "paymentMethodId": pm})
		}) {
			var sub billing.SubscribeResponse
			if ans.status != http.StatusOK || json.Unmarshal(ans.body, &sub) != nil {
				t.Errorf("subscribe: %d %s", ans.status, ans.body)
				continue
			}
			distinct[fmt.Sprintf("%d %s", sub.PaymentID, sub.ClientSecret)] = true
		}
		if got := len(a.paymentsOf(other)); len(distinct) != 1 || got != 1 {
			t.Errorf("%d distinct answers and %d payments for %d parallel subscribes, want 1 and 1", len(distinct), got, n)
		}
	})
}

// TestParallelConfirmsAllSayPaid: ten parallel confirmations of one payment grant once, and every caller is told it
// was paid (on PostgreSQL, the losers were told it "was not charged" when it was). On both databases.
func TestParallelConfirmsAllSayPaid(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("confirm@example.com", "correct-horse", "Cora Firm")
		pm := a.card(token, cardOK)
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": pm}})
		expectStatus(t, r, http.StatusOK)
		var sub billing.SubscribeResponse
		r.json(t, &sub)
		bodies := map[string]int{}
		for _, ans := range a.parallelAnswers(10, func() *http.Request {
			return a.postJSON("/api/billing/test-mode/confirm", token, map[string]string{"clientSecret": sub.ClientSecret,
				"paymentMethodId": pm})
		}) {
			var out struct{ Status string }
			_ = json.Unmarshal(ans.body, &out)
			bodies[fmt.Sprintf("%d %s", ans.status, out.Status)]++
		}
		if len(bodies) != 1 || bodies["200 succeeded"] != 10 {
			t.Errorf("answers %v, want 10 × 200 succeeded", bodies)
		}
		if n := countRows(checkLedger(t, a, token), "plan_credits"); n != 1 {
			t.Errorf("%d plan grants, want 1", n)
		}
	})
}

// TestCardOnFile: the card on file pays an upgrade in one step; the browser is asked only when the provider
// demands it, and Stripe's test cards behave as documented. On both databases.
func TestCardOnFile(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)

		t.Run("authenticates its first payment, then pays off-session", func(t *testing.T) {
			token, _ := a.register("first@example.com", "correct-horse", "Fay First")
			pm := a.card(token, cardAuthFirst)
			r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
				body: map[string]string{"planType": "basic", "paymentMethodId": pm}})
			expectStatus(t, r, http.StatusOK)
			var sub billing.SubscribeResponse
			r.json(t, &sub)
			r = a.pay(token, sub.ClientSecret, pm)
			expectStatus(t, r, http.StatusOK)
			var res billing.TestConfirmResult
			r.json(t, &res)
			if res.Status != billing.AwaitAction || res.Message == nil {
				t.Fatalf("first payment with 3155: %+v, want requires_action", res)
			}
			if s := a.subscription(token); s.PlanType != "free" {
				t.Fatalf("subscribed before authenticating: %+v", s)
			}
			expectStatus(t, a.authenticate(token, sub.ClientSecret, billing.AuthComplete), http.StatusOK)
			if s := a.subscription(token); s.PlanType != "basic" {
				t.Fatalf("after authenticating: %+v", s)
			}
			pre := a.proration(token, "professional")
			ch, r := a.changePlan(token, "professional")
			expectStatus(t, r, http.StatusOK)
			if ch.PaymentStatus != billing.ChangePaymentSucceeded || ch.ClientSecret != nil || !ch.RequiresPayment ||
				ch.ChargeCents != pre.ChargeCents || ch.Credits != pre.Credits || pre.PaymentStatus != "none" {
				t.Errorf("upgrade with the saved 3155 card: %+v (preview %+v), want paid off-session at the previewed price", ch, pre)
			}
		})

		t.Run("authentication failed, then another card", func(t *testing.T) {
			token, _ := subscribed(t, a, "always@example.com", "basic", cardAuthAlways)
			secret, ch := openUpgrade(t, a, token, "professional")
			if s := a.subscription(token); s.PlanType != "basic" {
				t.Fatalf("upgraded before authenticating: %+v", s)
			}
			r := a.authenticate(token, secret, billing.AuthFail)
			expectStatus(t, r, http.StatusPaymentRequired)
			if e := r.errBody(t); e.Code != "payment_intent_authentication_failure" {
				t.Errorf("failed authentication: %+v", e)
			}
			pays := a.paymentsOf(token)
			if pays[0].Status != billing.PaymentFailed || !pays[0].Open || pays[0].ReceiptURL != nil {
				t.Errorf("after failing authentication: %+v, want declined, open for another card, no receipt", pays[0])
			}
			// The same click again answers the same payment, asking for another card.
			again, r := a.changePlan(token, "professional")
			expectStatus(t, r, http.StatusOK)
			if again.PaymentID == nil || *again.PaymentID != *ch.PaymentID || again.PaymentStatus != billing.ChangePaymentNeedsMethod {
				t.Errorf("a second click: %+v, want payment %d awaiting another card", again, *ch.PaymentID)
			}
			good := a.card(token, cardOK)
			expectStatus(t, a.pay(token, secret, good), http.StatusOK)
			if s := a.subscription(token); s.PlanType != "professional" {
				t.Errorf("after paying with another card: %+v", s)
			}
		})

		t.Run("update card", func(t *testing.T) {
			token, _ := subscribed(t, a, "update@example.com", "basic", cardOK)
			// A declining card cannot be attached; the card on file stays.
			r := a.do(req{method: "POST", path: "/api/billing/payment-method", token: token,
				body: map[string]string{"paymentMethodId": a.card(token, cardDeclineNow)}})
			expectStatus(t, r, http.StatusPaymentRequired)
			if e := r.errBody(t); e.Error != "Your card was declined." {
				t.Errorf("attaching a declining card: %+v", e)
			}
			// 0341 attaches: it becomes the card on file, and the next upgrade is declined on it.
			r = a.do(req{method: "POST", path: "/api/billing/payment-method", token: token,
				body: map[string]string{"paymentMethodId": a.card(token, cardAttachOnly)}})
			expectStatus(t, r, http.StatusOK)
			var sub billing.SubscriptionView
			r.json(t, &sub)
			if sub.PaymentMethod == nil || sub.PaymentMethod.Last4 != "0341" {
				t.Fatalf("after updating the card: %+v", sub)
			}
			ch, r := a.changePlan(token, "professional")
			expectStatus(t, r, http.StatusOK)
			if ch.PaymentStatus != billing.ChangePaymentNeedsMethod || ch.ClientSecret == nil || ch.Message == nil ||
				*ch.Message != "Your card was declined." {
				t.Errorf("upgrade on a declining card: %+v", ch)
			}
			// Someone else's card, or a made-up one, is not the customer's.
			other, _ := a.register("thief@example.com", "correct-horse", "Tom Thief")
			r = a.do(req{method: "POST", path: "/api/billing/payment-method", token: token,
				body: map[string]string{"paymentMethodId": a.card(other, cardOK)}})
			expectStatus(t, r, http.StatusBadRequest)
			r = a.do(req{method: "POST", path: "/api/billing/payment-method", token: other,
				body: map[string]string{"paymentMethodId": a.card(other, cardOK)}})
			expectStatus(t, r, http.StatusConflict)
		})
	})
}

func (a *testApp) proration(token, plan string) billing.PlanChange {
	a.t.Helper()
	var pre billing.PlanChange
	r := a.do(req{method: "GET", path: "/api/billing/proration?planType=" + plan, token: token})
	expectStatus(a.t, r, http.StatusOK)
	r.json(a.t, &pre)
	return pre
}

// TestOpenPaymentsExpireAndWithdraw: an unpaid payment expires after 24 hours and is shown as Expired (it stayed
// "Pending" for ever before); a payment the customer closes is withdrawn; neither has a receipt, and the receipt
// endpoint answers 404 for them. On both databases.
func TestOpenPaymentsExpireAndWithdraw(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := subscribed(t, a, "expire@example.com", "basic", cardAuthAlways)
		secret, ch := openUpgrade(t, a, token, "professional")
		p := a.paymentsOf(token)[0]
		if p.Status != billing.PaymentPending || !p.Open || p.ExpiresAt == nil || p.ReceiptURL != nil {
			t.Fatalf("open payment %+v, want pending and open with an expiry, no receipt", p)
		}
		receipt := fmt.Sprintf("/api/billing/payments/%d/receipt", *ch.PaymentID)
		expectStatus(t, a.do(req{method: "GET", path: receipt, token: token}), http.StatusNotFound)

		a.clock.Advance(23 * time.Hour)
		if _, err := a.billing.Housekeep(context.Background()); err != nil {
			t.Fatal(err)
		}
		if p := a.paymentsOf(token)[0]; !p.Open {
			t.Fatalf("closed before 24 hours: %+v", p)
		}
		// At 24 hours, before the job comes by, paying it is refused all the same, and the history says expired.
		a.clock.Advance(time.Hour)
		var auth struct{ Token string }
		a.login("expire@example.com", "correct-horse").json(t, &auth)
		token = auth.Token
		r := a.authenticate(token, secret, billing.AuthComplete)
		expectStatus(t, r, http.StatusConflict)
		if e := r.errBody(t); !strings.Contains(e.Error, "expired") {
			t.Errorf("paying an expired payment: %+v", e)
		}
		p = a.paymentsOf(token)[0]
		if p.Status != billing.PaymentExpired || p.Open || p.ExpiresAt != nil || p.ReceiptURL != nil {
			t.Errorf("after 24 hours: %+v, want expired without a receipt", p)
		}
		expectStatus(t, a.do(req{method: "GET", path: receipt, token: token}), http.StatusNotFound)
		if s := a.subscription(token); s.PlanType != "basic" {
			t.Errorf("an expired upgrade changed the plan: %+v", s)
		}

		// Closing the card form withdraws the payment: cancelled, and a second withdrawal is a conflict.
		_, ch = openUpgrade(t, a, token, "professional")
		path := fmt.Sprintf("/api/billing/payments/%d/cancel", *ch.PaymentID)
		other, _ := a.register("nosy@example.com", "correct-horse", "Nora Nosy")
		expectStatus(t, a.do(req{method: "POST", path: path, token: other}), http.StatusNotFound)
		r = a.do(req{method: "POST", path: path, token: token})
		expectStatus(t, r, http.StatusOK)
		var closed billing.PaymentView
		r.json(t, &closed)
		if closed.Status != billing.PaymentCancelled || closed.Open || closed.ReceiptURL != nil {
			t.Errorf("withdrawn: %+v", closed)
		}
		expectStatus(t, a.do(req{method: "POST", path: path, token: token}), http.StatusConflict)
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/payments/0/cancel", token: token, badRequest: true}),
			http.StatusBadRequest)
		if s := a.subscription(token); s.PlanType != "basic" {
			t.Errorf("plan after withdrawn payments: %+v", s)
		}
	})
}

// TestOneBalanceEverywhere: in overage on Basic the profile, the metered usage and a 402 read the same balance (0
// plan credits and the overage with its cost; the header once said "-10 credits" and the card "0"), and after
// cancelling the upcoming charge names the plan it is priced on. On both databases.
func TestOneBalanceEverywhere(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, id := subscribed(t, a, "over@example.com", "basic", cardOK)
		key := a.createKey(token, "Production", 1000)
		spendAll(t, a, id)
		for range 10 {
			expectStatus(t, a.public(key.Value, fortieth), http.StatusOK)
		}
		want := billing.Balance{PlanType: "basic", Credits: 0, OverageCredits: 10, OverageCents: 30, OverageRateCents: 3,
			State: billing.BalanceOverage}
		var me struct{ CreditBalance billing.Balance }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		var usage billing.MeteredUsage
		a.do(req{method: "GET", path: "/api/billing/metered-usage", token: token}).json(t, &usage)
		for name, got := range map[string]billing.Balance{"profile": me.CreditBalance, "metered usage": usage.CreditBalance} {
			if got != want {
				t.Errorf("%s balance %+v, want %+v", name, got, want)
			}
		}
		// With a limit of 30 cents, the 402 says the limit is reached, with the same figures.
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/overage-limit", token: token,
			body: map[string]any{"limit": 0.30}}), http.StatusOK)
		r := a.public(key.Value, fortieth)
		expectStatus(t, r, http.StatusPaymentRequired)
		var body struct{ CreditBalance billing.Balance }
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if b := body.CreditBalance; b.State != billing.BalanceLimitReached || b.OverageCredits != 10 ||
			b.OverageLeftCents == nil || *b.OverageLeftCents != 0 || b.SpendableCredits == nil || *b.SpendableCredits != 0 {
			t.Errorf("402 balance %+v, want the limit reached after 10 overage credits", b)
		}

		// After cancelling: the next period is on Free, so the upcoming charge is the overage only, and says when the
		// plan ends.
		expectStatus(t, a.do(req{method: "POST", path: "/api/billing/cancel", token: token}), http.StatusOK)
		a.do(req{method: "GET", path: "/api/billing/metered-usage", token: token}).json(t, &usage)
		if usage.NextPlanType != "free" || usage.NextPlanPriceCents != 0 || usage.UpcomingChargeCents != 30 ||
			usage.EndsAt == nil || !usage.EndsAt.Equal(usage.PeriodEnd) {
			t.Errorf("after cancelling: next %s at %d, upcoming %d, ends %v; want free, 0, 30, the period end",
				usage.NextPlanType, usage.NextPlanPriceCents, usage.UpcomingChargeCents, usage.EndsAt)
		}
	})
}

// TestProviderFailuresInOurWords: when Stripe cannot be reached the customer reads that they were not charged and
// nothing internal is stored on the payment; with payments off the answer is the same 503, logged as a warning.
func TestProviderFailuresInOurWords(t *testing.T) {
	t.Run("stripe unreachable", func(t *testing.T) {
		a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) {
			o.billing = func(s *billing.Service) {
				p, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_valuator", PublishableKey: "pk_test_valuator",
					WebhookSecret: testWebhookSecret, APIBase: "http://127.0.0.1:1", HTTPClient: &http.Client{Timeout: 2 * time.Second}})
				if err != nil {
					t.Fatal(err)
				}
				s.Provider = p
			}
		})
		token, _ := a.register("down@example.com", "correct-horse", "Dee Down")
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": "pm_card_visa"}})
		expectStatus(t, r, http.StatusServiceUnavailable)
		if e := r.errBody(t); e.Error != billing.MsgPaymentsUnavailable {
			t.Errorf("answer %+v, want %q", e, billing.MsgPaymentsUnavailable)
		}
		pays := a.paymentsOf(token)
		if len(pays) != 1 || pays[0].Status != billing.PaymentCancelled || pays[0].FailureMessage != billing.MsgPaymentsUnavailable ||
			pays[0].ReceiptURL != nil {
			t.Errorf("payments %+v, want one cancelled in our words, without a receipt", pays)
		}
		if strings.Contains(string(r.body), "127.0.0.1") {
			t.Errorf("the answer names an internal address: %s", r.body)
		}
	})
	t.Run("payments off", func(t *testing.T) {
		a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) {
			o.billing = func(s *billing.Service) { s.Provider = nil }
		})
		token, _ := a.register("off@example.com", "correct-horse", "Otto Off")
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": "pm_x"}})
		expectStatus(t, r, http.StatusServiceUnavailable)
		if e := r.errBody(t); e.Error != billing.MsgPaymentsUnavailable || e.Code != "payments_not_configured" {
			t.Errorf("answer %+v", e)
		}
		logs := a.logs.String()
		if strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "level=WARN") {
			t.Errorf("payments off must log a warning, not an error:\n%s", logs)
		}
	})
}

// TestStripeStalePaymentIsRefunded: on Stripe the browser pays at Stripe, so a payment can be paid after it was
// withdrawn here (a second tab replaced it). Its webhook then grants nothing, and the money goes back: the refund
// (and the cancellation of the subscription it started) are made through Stripe at once. On both databases.
func TestStripeStalePaymentIsRefunded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withStripe(t))
		token, _ := a.register("stale@example.com", "correct-horse", "Stan Stale")
		subscribe := func(plan, pm string) billing.SubscribeResponse {
			t.Helper()
			r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
				body: map[string]string{"planType": plan, "paymentMethodId": pm}})
			expectStatus(t, r, http.StatusOK)
			var sub billing.SubscribeResponse
			r.json(t, &sub)
			return sub
		}
		first := subscribe("basic", "pm_card_visa")
		// stripe-mock's fixture invoice names no PaymentIntent; give the payment the one Stripe would have.
		if err := a.db.AttachPayment(context.Background(), first.PaymentID, "pi_stale_1", "", 3000, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		second := subscribe("professional", "pm_card_mastercard")
		if second.PaymentID == first.PaymentID {
			t.Fatalf("a subscription to another plan answered the first payment")
		}
		pi := `{"id":"pi_stale_1","object":"payment_intent","amount":3000,"amount_received":3000,"status":"succeeded"}`
		expectStatus(t, a.stripeEvent(testWebhookSecret, "evt_stale", "payment_intent.succeeded", pi), http.StatusOK)

		if s := a.subscription(token); s.Status != "none" {
			t.Errorf("a withdrawn payment started a subscription: %+v", s)
		}
		if rows := checkLedger(t, a, token); rows[len(rows)-1].Balance != 100 {
			t.Errorf("a withdrawn payment granted credits: %+v", rows)
		}
		var got billing.PaymentView
		for _, p := range a.paymentsOf(token) {
			if p.ID == first.PaymentID {
				got = p
			}
		}
		if got.Status != billing.PaymentRefunded || !strings.Contains(got.FailureMessage, "refunded in full") || got.ReceiptURL == nil {
			t.Errorf("the withdrawn payment paid at Stripe: %+v, want refunded with a receipt", got)
		}
		if owed, err := a.db.ProviderActions(context.Background(), 0, 10); err != nil || len(owed) != 0 {
			t.Errorf("provider calls still owed: %+v, %v", owed, err)
		}
	})
}
