package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"valuator/internal/billing"
	"valuator/internal/jobs"
	"valuator/internal/notify"
	"valuator/internal/testdb"
)

// card makes a test-mode payment method for the user and returns its id.
func (a *testApp) card(token, number string) string {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/billing/test-mode/payment-methods", token: token,
		body: map[string]any{"number": number, "expMonth": 12, "expYear": 2034, "cvc": "123", "name": "Jane Doe"}})
	expectStatus(a.t, r, http.StatusOK)
	var pm struct{ ID, Last4 string }
	r.json(a.t, &pm)
	return pm.ID
}

// pay confirms a client secret with a card, as the test-mode form does.
func (a *testApp) pay(token, secret, pm string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/billing/test-mode/confirm", token: token,
		body: map[string]string{"clientSecret": secret, "paymentMethodId": pm}})
}

type ledgerRow struct {
	ID          int64
	Description string
	Amount      int64
	Balance     int64
	Kind        string
}

// ledger is the user's whole credit history, oldest first, read page by page through the API.
func (a *testApp) ledger(token string) []ledgerRow {
	a.t.Helper()
	var all []ledgerRow
	path := "/api/billing/credits/history?limit=3"
	for {
		var page struct {
			Data       []ledgerRow
			Pagination struct {
				HasMore    bool
				NextBefore *int64
			}
		}
		a.do(req{method: "GET", path: path, token: token}).json(a.t, &page)
		all = append(all, page.Data...)
		if !page.Pagination.HasMore {
			break
		}
		path = fmt.Sprintf("/api/billing/credits/history?limit=3&before=%d", *page.Pagination.NextBefore)
	}
	for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
		all[i], all[j] = all[j], all[i]
	}
	return all
}

// checkLedger fails unless the rows chain (each balance is the one before plus its amount) to the profile's credits.
func checkLedger(t *testing.T, a *testApp, token string) []ledgerRow {
	t.Helper()
	rows := a.ledger(token)
	var bal int64
	for _, r := range rows {
		if r.Balance != bal+r.Amount {
			t.Errorf("ledger row %d (%s): balance %d, want %d + %d", r.ID, r.Description, r.Balance, bal, r.Amount)
		}
		bal = r.Balance
	}
	var me struct{ Credits int64 }
	a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
	if me.Credits != bal {
		t.Errorf("profile credits %d, ledger ends at %d", me.Credits, bal)
	}
	return rows
}

type subView struct {
	PlanType          string
	Status            string
	CancelAtPeriodEnd bool
	PendingPlanType   *string
	CurrentPeriodEnd  time.Time
}

func (a *testApp) subscription(token string) subView {
	a.t.Helper()
	var s subView
	a.do(req{method: "GET", path: "/api/billing/subscription", token: token}).json(a.t, &s)
	return s
}

func hasRow(rows []ledgerRow, kind string, amount int64) bool {
	for _, r := range rows {
		if r.Kind == kind && r.Amount == amount {
			return true
		}
	}
	return false
}

// TestBillingLifecycleInTestMode walks a customer through the whole money loop in test mode, on both databases:
// a declined card, a subscription, overage up to a limit, a prorated upgrade, a scheduled downgrade, a cancellation
// and the period job closing the period (twice: it grants once).
func TestBillingLifecycleInTestMode(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Production", 1000)

		var cfg struct {
			Mode  string
			Plans []billing.Plan
		}
		a.do(req{method: "GET", path: "/api/billing/config", token: token}).json(t, &cfg)
		if cfg.Mode != "test" || len(cfg.Plans) != 4 {
			t.Fatalf("config %+v, want test mode and four plans", cfg)
		}
		if s := a.subscription(token); s.PlanType != "free" || s.Status != "none" {
			t.Fatalf("new account: %+v, want free with no subscription", s)
		}

		// A declining card cannot even be attached, as on Stripe: 402 with the provider's message at once, the
		// payment recorded declined, nothing granted.
		declined := a.card(token, "4000 0000 0000 0002")
		r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": declined}})
		expectStatus(t, r, http.StatusPaymentRequired)
		if e := r.errBody(t); e.Error != "Your card was declined." || e.Code != "card_declined" {
			t.Errorf("decline at attach: %+v", e)
		}
		// 4000 0000 0000 0341 attaches but its charge is declined: the payment stays open for another card.
		attachOnly := a.card(token, "4000 0000 0000 0341")
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": attachOnly}})
		expectStatus(t, r, http.StatusOK)
		var sub struct{ ClientSecret string }
		r.json(t, &sub)
		r = a.pay(token, sub.ClientSecret, attachOnly)
		expectStatus(t, r, http.StatusPaymentRequired)
		firstSecret := sub.ClientSecret
		if e := r.errBody(t); e.Error != "Your card was declined." || e.Code != "card_declined" {
			t.Errorf("decline: %+v", e)
		}
		if s := a.subscription(token); s.PlanType != "free" {
			t.Errorf("after a decline the plan is %s", s.PlanType)
		}

		// 4242...: Basic, 1,000 credits on top of the 100 free ones, the key's cap 60.
		good := a.card(token, "4242424242424242")
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "basic", "paymentMethodId": good}})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &sub)
		expectStatus(t, a.pay(token, sub.ClientSecret, good), http.StatusOK)
		expectStatus(t, a.pay(token, sub.ClientSecret, good), http.StatusOK) // confirming twice grants once
		if s := a.subscription(token); s.PlanType != "basic" || s.Status != "active" {
			t.Fatalf("after paying: %+v", s)
		}
		rows := checkLedger(t, a, token)
		if !hasRow(rows, "plan_credits", 1000) || rows[len(rows)-1].Balance != 1100 {
			t.Fatalf("ledger after subscribing: %+v", rows)
		}
		if k := a.createKey(token, "Second", 1000); k.EffectiveRateLimit != 60 {
			t.Errorf("basic key cap %d, want 60", k.EffectiveRateLimit)
		}
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
			body: map[string]string{"planType": "professional", "paymentMethodId": good}})
		expectStatus(t, r, http.StatusConflict)
		// The declined attempt's secret, paid now with a good card after the subscription started (the new
		// subscription replaced it): not charged.
		r = a.pay(token, firstSecret, good)
		expectStatus(t, r, http.StatusConflict)
		if c := checkLedger(t, a, token); c[len(c)-1].Balance != 1100 {
			t.Errorf("a second subscription's payment changed the balance: %+v", c[len(c)-1])
		}

		// Overage: spend the balance, then two credits of overage under a $0.06 limit, then 402.
		spendAll(t, a, u.ID)
		r = a.do(req{method: "PUT", path: "/api/user/overage-limit", token: token, body: map[string]any{"limit": 0.06}})
		expectStatus(t, r, http.StatusOK)
		expectStatus(t, a.public(key.Value, fortieth), http.StatusOK)
		expectStatus(t, a.public(key.Value, fortieth), http.StatusOK)
		r = a.public(key.Value, fortieth)
		expectStatus(t, r, http.StatusPaymentRequired)
		if e := r.errBody(t); !strings.Contains(e.Error, "Overage limit reached") {
			t.Errorf("402 past the limit: %q", e.Error)
		}
		var usage billing.MeteredUsage
		a.do(req{method: "GET", path: "/api/billing/metered-usage", token: token}).json(t, &usage)
		if usage.OverageCredits != 2 || usage.EstimatedOverageChargeCents != 6 || usage.UpcomingChargeCents != 3006 {
			t.Errorf("metered usage %+v, want 2 overage credits, 6 cents, upcoming 3006", usage)
		}
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/overage-limit", token: token,
			body: map[string]any{"limit": nil}}), http.StatusOK)

		// Half way through the period, upgrade to Professional: the prorated charge, then the plan and credits.
		a.clock.Advance(15 * 24 * time.Hour)
		var pre billing.PlanChange
		a.do(req{method: "GET", path: "/api/billing/proration?planType=professional", token: token}).json(t, &pre)
		if pre.Change != "upgrade" || pre.ChargeCents <= 0 || pre.ChargeCents >= 9500 || pre.Credits <= 0 {
			t.Fatalf("proration %+v", pre)
		}
		if !pre.RequiresPayment || pre.PaymentMethod == nil || pre.PaymentMethod.Last4 != "4242" {
			t.Errorf("proration %+v: want requiresPayment and the card on file", pre)
		}
		// The card on file pays in one step: no card form, no client secret.
		var ch billing.PlanChange
		r = a.do(req{method: "POST", path: "/api/billing/change-plan", token: token, body: map[string]string{"planType": "professional"}})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &ch)
		if !ch.RequiresPayment || ch.ClientSecret != nil || ch.ChargeCents != pre.ChargeCents || ch.PaymentStatus != "succeeded" {
			t.Fatalf("change-plan %+v, want %d paid by the card on file", ch, pre.ChargeCents)
		}
		if s := a.subscription(token); s.PlanType != "professional" {
			t.Fatalf("after the upgrade: %+v", s)
		}
		if k := a.createKey(token, "Third", 1000); k.EffectiveRateLimit != 120 {
			t.Errorf("professional key cap %d, want 120", k.EffectiveRateLimit)
		}
		rows = checkLedger(t, a, token)
		if !hasRow(rows, "proration_credits", pre.Credits) {
			t.Errorf("no proration row of %d credits in %+v", pre.Credits, rows)
		}

		// Downgrade: scheduled for the period end, no payment.
		r = a.do(req{method: "POST", path: "/api/billing/change-plan", token: token, body: map[string]string{"planType": "basic"}})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &ch)
		if ch.RequiresPayment || ch.Change != "downgrade" {
			t.Errorf("downgrade %+v", ch)
		}
		if s := a.subscription(token); s.PlanType != "professional" || s.PendingPlanType == nil || *s.PendingPlanType != "basic" {
			t.Errorf("after scheduling a downgrade: %+v", s)
		}

		// Cancel: at period end.
		r = a.do(req{method: "POST", path: "/api/billing/cancel", token: token})
		expectStatus(t, r, http.StatusOK)
		if s := a.subscription(token); !s.CancelAtPeriodEnd || s.PlanType != "professional" {
			t.Errorf("after cancelling: %+v", s)
		}

		// The period ends: the job closes it (twice, on purpose), the subscription ends, credits are forfeited
		// and the Free plan's credits are granted once.
		a.clock.Advance(16 * 24 * time.Hour)
		var auth struct{ Token string }
		a.login("jane@example.com", "correct-horse").json(t, &auth) // the session outlived its 30 days
		token = auth.Token
		before := len(a.ledger(token))
		for i := 0; i < 2; i++ {
			if _, err := a.billing.RollDue(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if s := a.subscription(token); s.PlanType != "free" || s.Status != "none" {
			t.Errorf("after the period end: %+v", s)
		}
		rows = checkLedger(t, a, token)
		grants := 0
		for _, r := range rows[before:] {
			if r.Kind == "plan_credits" {
				grants++
			}
		}
		if grants != 1 || rows[len(rows)-1].Balance != 100 {
			t.Errorf("after closing the period twice: %d grants, balance %d; rows %+v", grants, rows[len(rows)-1].Balance, rows[before:])
		}
		// The payments: a failed first attempt, the subscription, the upgrade.
		var pays struct {
			Data []struct {
				ID         int64
				Kind       string
				Status     string
				ReceiptURL *string
			}
		}
		a.do(req{method: "GET", path: "/api/billing/payments?limit=10", token: token}).json(t, &pays)
		if len(pays.Data) < 3 {
			t.Fatalf("payments %+v", pays.Data)
		}
		if pays.Data[0].ReceiptURL == nil {
			t.Fatalf("the paid upgrade has no receipt: %+v", pays.Data[0])
		}
		r = a.do(req{method: "GET", path: *pays.Data[0].ReceiptURL, token: token})
		expectStatus(t, r, http.StatusOK)
		if !strings.Contains(string(r.body), "Receipt #") {
			t.Errorf("receipt: %s", r.body)
		}
		// Another user sees none of it.
		other, _ := a.register("sam@example.com", "correct-horse", "Sam Roe")
		expectStatus(t, a.do(req{method: "GET", path: *pays.Data[0].ReceiptURL, token: other}), http.StatusNotFound)
		expectStatus(t, a.pay(other, sub.ClientSecret, good), http.StatusBadRequest)
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: other,
			body: map[string]string{"planType": "basic", "paymentMethodId": good}})
		expectStatus(t, r, http.StatusBadRequest)
	})
}

// TestBillingBadInput: every billing endpoint that takes input names the bad field.
func TestBillingBadInput(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
	for _, tt := range []struct {
		name, method, path string
		body               any
		raw                string
		status             int
		field              string
	}{
		{"plan missing", "POST", "/api/billing/subscribe", map[string]string{"paymentMethodId": "pm_x"}, "", 400, "planType"},
		{"free is not a plan to buy", "POST", "/api/billing/subscribe", map[string]string{"planType": "free", "paymentMethodId": "pm_x"}, "", 400, "planType"},
		{"no payment method", "POST", "/api/billing/subscribe", map[string]string{"planType": "basic"}, "", 400, "paymentMethodId"},
		{"unknown payment method", "POST", "/api/billing/subscribe", map[string]string{"planType": "basic", "paymentMethodId": "pm_test_nope"}, "", 400, "paymentMethodId"},
		{"NUL in a plan", "POST", "/api/billing/subscribe", map[string]string{"planType": "basic\x00", "paymentMethodId": "x"}, "", 400, "planType"},
		{"change plan without a subscription", "POST", "/api/billing/change-plan", map[string]string{"planType": "basic"}, "", 409, "planType"},
		{"change to nothing", "POST", "/api/billing/change-plan", map[string]string{"planType": "platinum"}, "", 400, "planType"},
		{"proration of nothing", "GET", "/api/billing/proration?planType=", nil, "", 400, "planType"},
		{"bad card number", "POST", "/api/billing/test-mode/payment-methods", map[string]any{"number": "4242424242424241", "expMonth": 12, "expYear": 2034, "cvc": "123"}, "", 400, "number"},
		{"expired card", "POST", "/api/billing/test-mode/payment-methods", map[string]any{"number": "4242424242424242", "expMonth": 1, "expYear": 2020, "cvc": "123"}, "", 400, "expYear"},
		{"huge card number", "POST", "/api/billing/test-mode/payment-methods", map[string]any{"number": strings.Repeat("4", 40), "expMonth": 1, "expYear": 2030, "cvc": "123"}, "", 400, "number"},
		{"no client secret", "POST", "/api/billing/test-mode/confirm", map[string]string{"paymentMethodId": "pm"}, "", 400, "clientSecret"},
		{"unknown client secret", "POST", "/api/billing/test-mode/confirm", map[string]string{"clientSecret": "pi_x_secret_y", "paymentMethodId": "pm"}, "", 400, "clientSecret"},
		{"negative limit", "PUT", "/api/user/overage-limit", map[string]any{"limit": -1}, "", 400, "limit"},
		{"text limit", "PUT", "/api/user/overage-limit", nil, `{"limit":"abc"}`, 400, "limit"},
		{"a tenth of a cent", "PUT", "/api/user/overage-limit", map[string]any{"limit": 1.234}, "", 400, "limit"},
		{"no limit field", "PUT", "/api/user/overage-limit", map[string]any{}, "", 400, "limit"},
		{"bad cursor", "GET", "/api/billing/credits/history?before=-3", nil, "", 400, "before"},
		{"huge page", "GET", "/api/billing/payments?limit=1000000", nil, "", 400, "limit"},
		{"bad receipt id", "GET", "/api/billing/payments/abc/receipt", nil, "", 400, "id"},
		{"bad payment id to withdraw", "POST", "/api/billing/payments/-1/cancel", nil, "", 400, "id"},
		{"nobody's payment", "POST", "/api/billing/payments/999999/cancel", nil, "", 404, ""},
		{"nobody's receipt", "GET", "/api/billing/payments/999999/receipt", nil, "", 404, ""},
		{"no card to put on file", "POST", "/api/billing/payment-method", map[string]string{}, "", 400, "paymentMethodId"},
		{"NUL in a card", "POST", "/api/billing/payment-method", map[string]string{"paymentMethodId": "pm\x00"}, "", 400, "paymentMethodId"},
		{"a card on file without a subscription", "POST", "/api/billing/payment-method", map[string]string{"paymentMethodId": "pm_test_x"}, "", 409, "paymentMethodId"},
		{"a made-up authentication", "POST", "/api/billing/test-mode/confirm", map[string]string{"clientSecret": "pi_x_secret_y", "authentication": "maybe"}, "", 400, "authentication"},
		{"authentication and a card at once", "POST", "/api/billing/test-mode/confirm", map[string]string{"clientSecret": "pi_x_secret_y", "authentication": "complete", "paymentMethodId": "pm"}, "", 400, "authentication"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(req{method: tt.method, path: tt.path, token: token, body: tt.body, raw: tt.raw, badRequest: tt.status == 400})
			expectStatus(t, r, tt.status)
			if e := r.errBody(t); e.Field != tt.field {
				t.Errorf("field %q, want %q (%s)", e.Field, tt.field, e.Error)
			}
		})
	}
	// The webhook is Stripe's only: 404 in test mode. Cancel without a subscription is a conflict.
	expectStatus(t, a.do(req{method: "POST", path: "/api/billing/webhook", raw: "{}", badRequest: true,
		header: map[string]string{"Stripe-Signature": "t=1,v1=00"}}), http.StatusNotFound)
	expectStatus(t, a.do(req{method: "POST", path: "/api/billing/cancel", token: token}), http.StatusConflict)
	for _, p := range []string{"/api/billing/subscription", "/api/billing/metered-usage", "/api/billing/credits/history",
		"/api/billing/payments", "/api/user/overage-limit", "/api/billing/config"} {
		expectStatus(t, a.do(req{method: "GET", path: p}), http.StatusUnauthorized)
	}
}

// TestConcurrentOverageNeverPassesTheLimit: 40 calls at once on a paid plan with a 30-cent limit and no credits
// left are served 10 times (10 overage credits at 3 cents), never more, on both databases.
func TestConcurrentOverageNeverPassesTheLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		k := a.createKey(token, "Load", 1000)
		setPlan(t, a, u.ID, "enterprise", 30)
		spendAll(t, a, u.ID)
		codes := a.parallel(40, func(int) *http.Request {
			rq, _ := http.NewRequest("GET", a.srv.URL+"/api/v1/property/valuation?"+fortieth.Encode(), nil)
			rq.Header.Set("x-api-key", k.Value)
			return rq
		})
		if codes[200] != 10 || codes[402] != 30 {
			t.Fatalf("statuses %v, want 10 × 200 and 30 × 402", codes)
		}
		var usage billing.MeteredUsage
		a.do(req{method: "GET", path: "/api/billing/metered-usage", token: token}).json(t, &usage)
		if usage.OverageCredits != 10 || usage.EstimatedOverageChargeCents != 30 {
			t.Errorf("overage %d credits, %d cents; want 10 and 30", usage.OverageCredits, usage.EstimatedOverageChargeCents)
		}
	})
}

// TestLowBalanceAlertsHonourSettings: a charge that takes the balance under 50 queues one alert for the period;
// the alert job mails it to a user with usage alerts on and not to one who turned them off.
func TestLowBalanceAlertsHonourSettings(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle)
		on, _ := a.register("on@example.com", "correct-horse", "Alert On")
		off, _ := a.register("off@example.com", "correct-horse", "Alert Off")
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/notifications", token: off,
			body: map[string]bool{"emailNotifications": true, "usageAlerts": false, "weeklyReports": false, "marketingEmails": false}}), http.StatusOK)
		for _, token := range []string{on, off} {
			k := a.createKey(token, "Main", 1000)
			for range 52 { // 100 → 48: crosses 50 once
				expectStatus(t, a.public(k.Value, fortieth), http.StatusOK)
			}
		}
		sent := func() []string {
			var to []string
			for _, m := range a.mail.all() {
				if strings.Contains(m.Subject, "credits left") {
					to = append(to, m.To)
				}
			}
			return to
		}
		before := len(sent())
		for i := 0; i < 2; i++ {
			if _, err := jobs.SendAlerts(context.Background(), a.db, a.mail, notify.Links{BaseURL: "http://valuator.test"}, a.clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		got := sent()[before:]
		if len(got) != 1 || got[0] != "on@example.com" {
			t.Errorf("low-balance emails to %v, want one to on@example.com", got)
		}
	})
}

// TestTwoSubscriptionsConfirmedAtOnceGrantOnce: sign-ups started in four tabs with two cards and confirmed at the
// same moment make one subscription and one grant: each tab's payment replaced the one before, so only the last can
// be paid and the others are refused uncharged (409). On both databases.
func TestTwoSubscriptionsConfirmedAtOnceGrantOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		cards := []string{a.card(token, "4242424242424242"), a.card(token, "5555555555554444")}
		var secrets []string
		for i := range 4 {
			var sub struct{ ClientSecret string }
			r := a.do(req{method: "POST", path: "/api/billing/subscribe", token: token,
				body: map[string]string{"planType": "basic", "paymentMethodId": cards[i%2]}})
			expectStatus(t, r, http.StatusOK)
			r.json(t, &sub)
			secrets = append(secrets, sub.ClientSecret)
		}
		codes := a.parallel(len(secrets), func(i int) *http.Request {
			return a.postJSON("/api/billing/test-mode/confirm", token, map[string]string{"clientSecret": secrets[i],
				"paymentMethodId": cards[i%2]})
		})
		rows := checkLedger(t, a, token)
		grants := 0
		for _, r := range rows {
			if r.Kind == "plan_credits" {
				grants++
			}
		}
		if grants != 1 || rows[len(rows)-1].Balance != 1100 || codes[http.StatusOK] != 1 || codes[http.StatusConflict] != 3 {
			t.Errorf("statuses %v: %d grants, balance %d; want one 200, three 409, one grant and 1100", codes, grants,
				rows[len(rows)-1].Balance)
		}
	})
}
