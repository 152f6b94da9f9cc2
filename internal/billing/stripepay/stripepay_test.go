package stripepay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"

	"valuator/internal/billing"
	"valuator/internal/teststripe"
)

const (
	testSecretKey      = "sk_test_valuator"
	testPublishableKey = "pk_test_valuator"
	testWebhookSecret  = "whsec_valuator_test"
)

// What the tests against stripe-mock can and cannot tell.
//
// stripe-mock checks every request against Stripe's OpenAPI spec (a parameter the endpoint does not take, or a
// value of the wrong type, is a 400) and answers with fixture objects, into which it copies some of the
// parameters sent. It is stateless: a customer created in one request is unknown to the next, lookups answer the
// same fixture whatever was created, the fixture invoice is a draft with an empty confirmation secret and no
// PaymentIntent, no card is ever declined, no proration is computed and no webhook is sent. So these tests show
// that every call Provider makes is well-formed for the API version, that the parameters are the ones we mean
// (read back from a recording of the requests), and that Provider copes with the answers; they cannot show
// Stripe's business behaviour: that default_incomplete leaves the first payment to the browser, that
// pending_if_incomplete keeps the old price until the prorated invoice is paid, or what a decline looks like.
// Declines and price lookups that find something are tested against a small fake server below instead.

// recorded is one request Provider sent.
type recorded struct {
	Method, Path   string
	Form           url.Values // The form body, or the query of a GET.
	IdempotencyKey string
}

func (r recorded) String() string { return r.Method + " " + r.Path }

// recorder is an http.RoundTripper that records each request before passing it on.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []recorded
}

func (rec *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r := recorded{Method: req.Method, Path: req.URL.Path, IdempotencyKey: req.Header.Get("Idempotency-Key")}
	raw := req.URL.RawQuery
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
		if len(body) > 0 {
			raw = string(body)
		}
	}
	form, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("recorder: %s %s: %v", req.Method, req.URL.Path, err)
	}
	r.Form = form
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r)
	rec.mu.Unlock()
	return rec.next.RoundTrip(req)
}

// take returns the requests recorded since the last take.
func (rec *recorder) take() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	reqs := rec.reqs
	rec.reqs = nil
	return reqs
}

// newProvider makes a Provider against base, recording its requests. Its log goes to the test's log.
func newProvider(t *testing.T, base string) (*Provider, *recorder) {
	t.Helper()
	rec := &recorder{next: http.DefaultTransport}
	p, err := New(Config{
		SecretKey:      testSecretKey,
		PublishableKey: testPublishableKey,
		WebhookSecret:  testWebhookSecret,
		APIBase:        base,
		HTTPClient:     &http.Client{Transport: rec, Timeout: 30 * time.Second},
		Logger:         slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p, rec
}

// tWriter writes a logger's lines to the test log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// wantRequests checks the requests' methods and paths, in order.
func wantRequests(t *testing.T, got []recorded, want ...string) {
	t.Helper()
	var g []string
	for _, r := range got {
		g = append(g, r.String())
	}
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// wantForm checks fields of a request's form; a want of "" means the field must be absent.
func wantForm(t *testing.T, r recorded, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := r.Form.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", r, k, got, v)
		}
	}
}

// formValues is every value of a form whose keys start with prefix (such as expand[0], expand[1]).
func formValues(f url.Values, prefix string) []string {
	var vs []string
	for i := 0; ; i++ {
		v, ok := f[fmt.Sprintf("%s[%d]", prefix, i)]
		if !ok {
			return vs
		}
		vs = append(vs, v...)
	}
}

func plan(t *testing.T, id string) billing.Plan {
	t.Helper()
	p, ok := billing.Lookup(id)
	if !ok {
		t.Fatalf("no plan %q", id)
	}
	return p
}

// TestStripeMock runs every Provider call against stripe-mock.
func TestStripeMock(t *testing.T) {
	p, rec := newProvider(t, teststripe.Start(t))
	ctx := t.Context()
	basic, pro := plan(t, billing.Basic), plan(t, billing.Professional)

	if got := p.Mode(); got != billing.ModeStripe {
		t.Errorf("Mode() = %q, want %q", got, billing.ModeStripe)
	}
	if got := p.PublishableKey(); got != testPublishableKey {
		t.Errorf("PublishableKey() = %q, want %q", got, testPublishableKey)
	}

	var priceIDs map[string]string // plan → the price ID stripe-mock answered at creation
	t.Run("Subscribe new customer", func(t *testing.T) {
		res, err := p.Subscribe(ctx, billing.SubscribeRequest{
			UserID: 7, Email: "jo@example.com", Name: "Jo Buyer", Plan: basic,
			PaymentMethodID: "pm_card_visa", PaymentID: 42,
		})
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		if !strings.HasPrefix(res.CustomerID, "cus_") || !strings.HasPrefix(res.SubscriptionID, "sub_") {
			t.Errorf("Subscribe = customer %q, subscription %q; want cus_... and sub_...", res.CustomerID,
				res.SubscriptionID)
		}
		// The fixture invoice is a draft owing 1000 cents, with no client secret and no PaymentIntent, so the
		// payment is pending with neither; real Stripe fills both in (see TestInvoicePayment).
		if res.Payment.Status != billing.PaymentPending || res.Payment.AmountCents <= 0 {
			t.Errorf("Subscribe payment = %+v, want pending with an amount", res.Payment)
		}

		reqs := rec.take()
		wantRequests(t, reqs, "GET /v1/prices", "POST /v1/prices", "POST /v1/prices", "POST /v1/prices",
			"POST /v1/customers", "POST /v1/payment_methods/pm_card_visa/attach", "POST /v1/subscriptions")
		look := reqs[0]
		if got, want := strings.Join(formValues(look.Form, "lookup_keys"), " "),
			"valuator_basic valuator_professional valuator_enterprise"; got != want {
			t.Errorf("price lookup keys = %q, want %q", got, want)
		}
		wantForm(t, look, map[string]string{"active": "true"})
		// stripe-mock's price list fixture has no lookup key, so every price is created, and its answer
		// copies the lookup key and amount sent.
		priceIDs = map[string]string{}
		for i, pl := range []billing.Plan{basic, pro, plan(t, billing.Enterprise)} {
			r := reqs[1+i]
			wantForm(t, r, map[string]string{
				"lookup_key": "valuator_" + pl.ID, "unit_amount": fmt.Sprint(pl.PriceCents), "currency": "usd",
				"recurring[interval]": "month", "product_data[name]": "Valuator " + pl.Name,
				"transfer_lookup_key": "",
			})
		}
		for _, pl := range []billing.Plan{basic, pro, plan(t, billing.Enterprise)} {
			id, err := p.priceID(ctx, pl)
			if err != nil || !strings.HasPrefix(id, "price_") {
				t.Errorf("cached price of %s = %q, %v; want price_...", pl.ID, id, err)
			}
			priceIDs[pl.ID] = id
		}
		wantForm(t, reqs[4], map[string]string{"email": "jo@example.com", "name": "Jo Buyer",
			"metadata[user_id]": "7"})
		wantForm(t, reqs[5], map[string]string{"customer": res.CustomerID})
		sub := reqs[6]
		wantForm(t, sub, map[string]string{
			"customer": res.CustomerID, "items[0][price]": priceIDs[billing.Basic],
			"default_payment_method": "pm_card_visa", "payment_behavior": "default_incomplete",
			"metadata[user_id]": "7", "metadata[payment_id]": "42", "metadata[plan]": "basic",
		})
		if got, want := strings.Join(formValues(sub.Form, "expand"), " "),
			"latest_invoice.confirmation_secret latest_invoice.payments"; got != want {
			t.Errorf("subscription expand = %q, want %q", got, want)
		}
	})

	t.Run("Subscribe known customer", func(t *testing.T) {
		res, err := p.Subscribe(ctx, billing.SubscribeRequest{
			UserID: 7, Email: "jo@example.com", CustomerID: "cus_known", Plan: pro,
			PaymentMethodID: "pm_card_mastercard", PaymentID: 43,
		})
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		if res.CustomerID != "cus_known" || res.SubscriptionID == "" {
			t.Errorf("Subscribe = %+v, want customer cus_known and a subscription", res)
		}
		// The prices are cached, and the customer exists.
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/payment_methods/pm_card_mastercard/attach", "POST /v1/subscriptions")
		wantForm(t, reqs[1], map[string]string{"customer": "cus_known", "items[0][price]": priceIDs[billing.Professional]})
	})

	for _, resume := range []bool{false, true} {
		t.Run(fmt.Sprintf("Upgrade resume=%v", resume), func(t *testing.T) {
			pay, err := p.Upgrade(ctx, billing.ChangeRequest{
				UserID: 7, CustomerID: "cus_known", SubscriptionID: "sub_valuator", From: basic, To: pro,
				Resume: resume, PaymentID: 44,
			})
			if err != nil {
				t.Fatalf("Upgrade: %v", err)
			}
			if pay.Status != billing.PaymentPending || pay.AmountCents <= 0 {
				t.Errorf("Upgrade payment = %+v, want pending with an amount", pay)
			}
			reqs := rec.take()
			want := []string{"GET /v1/subscriptions/sub_valuator", "POST /v1/subscriptions/sub_valuator"}
			// The fixture subscription is set to cancel at period end, so resuming takes a second update.
			if resume {
				want = append(want, "POST /v1/subscriptions/sub_valuator")
			}
			wantRequests(t, reqs, want...)
			wantForm(t, reqs[1], map[string]string{
				"items[0][price]": priceIDs[billing.Professional], "proration_behavior": "always_invoice",
				"payment_behavior": "pending_if_incomplete", "cancel_at_period_end": "",
			})
			if reqs[1].Form.Get("items[0][id]") == "" {
				t.Errorf("%s names no subscription item: %v", reqs[1], reqs[1].Form)
			}
			if got, want := reqs[1].IdempotencyKey, "valuator-upgrade-44"; got != want {
				t.Errorf("upgrade Idempotency-Key = %q, want %q", got, want)
			}
			if resume {
				wantForm(t, reqs[2], map[string]string{"cancel_at_period_end": "false", "items[0][price]": ""})
			}
		})
	}

	for _, resume := range []bool{false, true} {
		t.Run(fmt.Sprintf("Downgrade resume=%v", resume), func(t *testing.T) {
			err := p.Downgrade(ctx, billing.ChangeRequest{
				UserID: 7, CustomerID: "cus_known", SubscriptionID: "sub_valuator", From: pro, To: basic,
				Resume: resume, PaymentID: 45,
			})
			if err != nil {
				t.Fatalf("Downgrade: %v", err)
			}
			reqs := rec.take()
			wantRequests(t, reqs, "GET /v1/subscriptions/sub_valuator", "POST /v1/subscriptions/sub_valuator")
			cancel := ""
			if resume {
				cancel = "false"
			}
			wantForm(t, reqs[1], map[string]string{
				"items[0][price]": priceIDs[billing.Basic], "proration_behavior": "none", "payment_behavior": "",
				"cancel_at_period_end": cancel,
			})
		})
	}

	t.Run("Cancel", func(t *testing.T) {
		if err := p.Cancel(ctx, "cus_known", "sub_valuator"); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/subscriptions/sub_valuator")
		wantForm(t, reqs[0], map[string]string{"cancel_at_period_end": "true"})
	})

	t.Run("Renew", func(t *testing.T) {
		pay, err := p.Renew(ctx, billing.RenewRequest{UserID: 7, CustomerID: "cus_known",
			SubscriptionID: "sub_valuator", Plan: pro, PaymentID: 46})
		if err != nil || pay != (billing.Payment{}) {
			t.Errorf("Renew = %+v, %v; want an empty payment and no error", pay, err)
		}
		wantRequests(t, rec.take())
	})

	t.Run("BillOverage", func(t *testing.T) {
		start := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
		id, err := p.BillOverage(ctx, billing.OverageRequest{
			UserID: 7, CustomerID: "cus_known", SubscriptionID: "sub_valuator", Credits: 123, AmountCents: 369,
			Period: billing.Period{Start: start, End: billing.AddMonths(start, 1)}, PaymentID: 47,
		})
		if err != nil {
			t.Fatalf("BillOverage: %v", err)
		}
		if !strings.HasPrefix(id, "ii_") {
			t.Errorf("BillOverage = %q, want ii_...", id)
		}
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/invoiceitems")
		wantForm(t, reqs[0], map[string]string{
			"customer": "cus_known", "subscription": "sub_valuator", "amount": "369", "currency": "usd",
			"description":          "Overage: 123 credits at $0.03 (Nov 24 – Dec 24, 2026)",
			"metadata[payment_id]": "47", "period[start]": fmt.Sprint(start.Unix()),
			"period[end]": fmt.Sprint(billing.AddMonths(start, 1).Unix()),
		})
		if got, want := reqs[0].IdempotencyKey, "valuator-overage-47"; got != want {
			t.Errorf("Idempotency-Key = %q, want %q", got, want)
		}
	})

	t.Run("SetPaymentMethod", func(t *testing.T) {
		card, err := p.SetPaymentMethod(ctx, billing.CardRequest{UserID: 7, CustomerID: "cus_known",
			SubscriptionID: "sub_valuator", PaymentMethodID: "pm_card_visa"})
		if err != nil {
			t.Fatalf("SetPaymentMethod: %v", err)
		}
		if card.Last4 == "" || card.Brand == "" {
			t.Errorf("SetPaymentMethod = %+v, want the fixture card's brand and last four digits", card)
		}
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/payment_methods/pm_card_visa/attach", "POST /v1/customers/cus_known",
			"POST /v1/subscriptions/sub_valuator")
		wantForm(t, reqs[1], map[string]string{"invoice_settings[default_payment_method]": "pm_card_visa"})
		wantForm(t, reqs[2], map[string]string{"default_payment_method": "pm_card_visa"})
	})

	t.Run("ClientSecret", func(t *testing.T) {
		if _, err := p.ClientSecret(ctx, billing.PaymentRecord{ID: 48, Ref: "pi_valuator"}); err != nil {
			t.Fatalf("ClientSecret: %v", err)
		}
		wantRequests(t, rec.take(), "GET /v1/payment_intents/pi_valuator")
	})

	for _, tt := range []struct {
		name string
		pay  billing.PaymentRecord
		want []string
	}{
		{"CancelPayment of a new subscription", billing.PaymentRecord{ID: 49, Ref: "pi_1", Parent: "sub_new"},
			[]string{"DELETE /v1/subscriptions/sub_new"}},
		{"CancelPayment of an upgrade", billing.PaymentRecord{ID: 50, Ref: "pi_2", Parent: "in_upgrade"},
			[]string{"POST /v1/invoices/in_upgrade/void"}},
		{"CancelPayment of a lone PaymentIntent", billing.PaymentRecord{ID: 51, Ref: "pi_3"},
			[]string{"POST /v1/payment_intents/pi_3/cancel"}},
		{"CancelPayment of nothing made at Stripe", billing.PaymentRecord{ID: 52}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := p.CancelPayment(ctx, tt.pay); err != nil {
				t.Fatalf("CancelPayment: %v", err)
			}
			wantRequests(t, rec.take(), tt.want...)
		})
	}

	t.Run("Refund", func(t *testing.T) {
		if err := p.Refund(ctx, billing.PaymentRecord{ID: 53, Ref: "pi_paid", Parent: "sub_stale"}); err != nil {
			t.Fatalf("Refund: %v", err)
		}
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/refunds", "DELETE /v1/subscriptions/sub_stale")
		wantForm(t, reqs[0], map[string]string{"payment_intent": "pi_paid", "metadata[payment_id]": "53"})
		if got, want := reqs[0].IdempotencyKey, "valuator-refund-53"; got != want {
			t.Errorf("Idempotency-Key = %q, want %q", got, want)
		}
	})

	// An operator's refund (the admin console) gives the money back and leaves the subscription running.
	t.Run("RefundPayment", func(t *testing.T) {
		if err := p.RefundPayment(ctx, billing.PaymentRecord{ID: 54, Ref: "pi_basic", Parent: "sub_live"}); err != nil {
			t.Fatalf("RefundPayment: %v", err)
		}
		reqs := rec.take()
		wantRequests(t, reqs, "POST /v1/refunds")
		wantForm(t, reqs[0], map[string]string{"payment_intent": "pi_basic", "metadata[payment_id]": "54",
			"metadata[reason]": "operator"})
		if got, want := reqs[0].IdempotencyKey, "valuator-refund-54"; got != want {
			t.Errorf("Idempotency-Key = %q, want %q", got, want)
		}
	})
}

// TestPricesLookedUpOnce checks that concurrent first calls look the prices up (and create them) once.
func TestPricesLookedUpOnce(t *testing.T) {
	p, rec := newProvider(t, teststripe.Start(t))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := p.Subscribe(t.Context(), billing.SubscribeRequest{
				UserID: int64(i), Email: "jo@example.com", CustomerID: "cus_known", Plan: plan(t, billing.Basic),
				PaymentMethodID: "pm_card_visa", PaymentID: int64(100 + i),
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for _, r := range rec.take() {
		counts[r.String()]++
	}
	for req, want := range map[string]int{"GET /v1/prices": 1, "POST /v1/prices": 3, "POST /v1/subscriptions": 8} {
		if counts[req] != want {
			t.Errorf("%s sent %d times, want %d", req, counts[req], want)
		}
	}
}

// fakeStripe answers the few requests stripe-mock cannot answer usefully: a price list that finds our lookup keys,
// and errors. Each handler returns the status and JSON body for a request.
type fakeStripe map[string]func(r *http.Request) (int, string)

func (f fakeStripe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := f[r.Method+" "+r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":{"type":"invalid_request_error","message":"fake: no route %s %s"}}`, r.Method,
			r.URL.Path)
		return
	}
	if err := r.ParseForm(); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	status, body := h(r)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_fake")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func startFake(t *testing.T, f fakeStripe) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// priceJSON is a monthly USD price as Stripe answers it.
func priceJSON(id, lookupKey string, cents int64, product string) string {
	return fmt.Sprintf(`{"id":%q,"object":"price","active":true,"lookup_key":%q,"unit_amount":%d,"currency":"usd",
		"type":"recurring","recurring":{"interval":"month","interval_count":1},"product":%q}`,
		id, lookupKey, cents, product)
}

// listedPrices answers the price lookup with the Basic price as it should be and the Professional price at an
// outdated amount (Enterprise has none).
func listedPrices(r *http.Request) (int, string) {
	return 200, `{"object":"list","url":"/v1/prices","has_more":false,"data":[` +
		priceJSON("price_basic", "valuator_basic", 3000, "prod_basic") + "," +
		priceJSON("price_pro_old", "valuator_professional", 9900, "prod_pro") + `]}`
}

// createdPrice answers a price creation with a price named after its lookup key.
func createdPrice(r *http.Request) (int, string) {
	key := r.PostForm.Get("lookup_key")
	return 200, priceJSON("price_new_"+key, key, 0, "prod_x")
}

// TestPriceLookup checks that a price found by its lookup key is used when it bills the plan's amount, and
// replaced (on the same product, taking the lookup key over) when it does not.
func TestPriceLookup(t *testing.T) {
	p, rec := newProvider(t, startFake(t, fakeStripe{"GET /v1/prices": listedPrices, "POST /v1/prices": createdPrice}))
	for _, tt := range []struct{ plan, want string }{
		{billing.Basic, "price_basic"},
		{billing.Professional, "price_new_valuator_professional"},
		{billing.Enterprise, "price_new_valuator_enterprise"},
	} {
		if got, err := p.priceID(t.Context(), plan(t, tt.plan)); err != nil || got != tt.want {
			t.Errorf("price of %s = %q, %v; want %q", tt.plan, got, err, tt.want)
		}
	}
	if _, err := p.priceID(t.Context(), plan(t, billing.Free)); err == nil {
		t.Error("price of the Free plan: no error")
	}
	reqs := rec.take()
	wantRequests(t, reqs, "GET /v1/prices", "POST /v1/prices", "POST /v1/prices")
	wantForm(t, reqs[1], map[string]string{"lookup_key": "valuator_professional", "unit_amount": "12500",
		"product": "prod_pro", "transfer_lookup_key": "true", "product_data[name]": ""})
	wantForm(t, reqs[2], map[string]string{"lookup_key": "valuator_enterprise", "unit_amount": "20000",
		"product": "", "transfer_lookup_key": "", "product_data[name]": "Valuator Enterprise"})
}

// TestStripeErrors checks what Stripe's errors become: a refused card a *billing.CardError with Stripe's words
// (stripe-mock declines nothing, so a fake server answers as Stripe does), anything else an error that says what
// was being done and still unwraps to the *stripe.Error.
func TestStripeErrors(t *testing.T) {
	const declined = `{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds",
		"message":"Your card has insufficient funds.","param":""}}`
	const expired = `{"error":{"type":"card_error","code":"expired_card","message":"Your card has expired.",
		"param":"exp_month"}}`
	const noSuchCustomer = `{"error":{"type":"invalid_request_error","code":"resource_missing",
		"message":"No such customer: 'cus_gone'","param":"customer"}}`
	for _, tt := range []struct {
		name       string
		customerID string
		attach     func(*http.Request) (int, string)
		wantCard   *billing.CardError
		wantErr    string // For other errors, a part of the message.
		wantCustID string // The customer the result carries despite the error.
	}{
		{
			name: "declined", customerID: "cus_known",
			attach:     func(*http.Request) (int, string) { return 402, declined },
			wantCard:   &billing.CardError{Code: "card_declined", Message: "Your card has insufficient funds."},
			wantCustID: "cus_known",
		},
		{
			name:   "expired, new customer",
			attach: func(*http.Request) (int, string) { return 402, expired },
			wantCard: &billing.CardError{Code: "expired_card", Message: "Your card has expired.",
				Field: "expMonth"},
			wantCustID: "cus_new",
		},
		{
			name: "no such customer", customerID: "cus_gone",
			attach: func(*http.Request) (int, string) { return 400, noSuchCustomer },
			wantErr: "stripe: attaching the payment method: No such customer: 'cus_gone' " +
				"(invalid_request_error resource_missing, param customer, status 400, request req_fake)",
			wantCustID: "cus_gone",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := newProvider(t, startFake(t, fakeStripe{
				"GET /v1/prices":  listedPrices,
				"POST /v1/prices": createdPrice,
				"POST /v1/customers": func(*http.Request) (int, string) {
					return 200, `{"id":"cus_new","object":"customer"}`
				},
				"POST /v1/payment_methods/pm_card_x/attach": tt.attach,
			}))
			res, err := p.Subscribe(t.Context(), billing.SubscribeRequest{UserID: 1, Email: "jo@example.com",
				CustomerID: tt.customerID, Plan: plan(t, billing.Basic), PaymentMethodID: "pm_card_x", PaymentID: 9})
			if res.CustomerID != tt.wantCustID {
				t.Errorf("result customer = %q, want %q", res.CustomerID, tt.wantCustID)
			}
			var ce *billing.CardError
			if tt.wantCard != nil {
				if !errors.As(err, &ce) || *ce != *tt.wantCard {
					t.Fatalf("err = %#v, want %#v", err, tt.wantCard)
				}
				return
			}
			if errors.As(err, &ce) {
				t.Fatalf("err = %#v, want no card error", err)
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v\nwant %s", err, tt.wantErr)
			}
			var se *stripe.Error
			if !errors.As(err, &se) || se.Code != "resource_missing" {
				t.Errorf("errors.As(*stripe.Error) = %v, %+v; want the Stripe error", errors.As(err, &se), se)
			}
		})
	}
}

// TestUpgradeRefusesSamePrice checks that upgrading a subscription already on the plan's price is an error: the
// update would make no invoice, and the payment returned would be an older invoice's.
func TestUpgradeRefusesSamePrice(t *testing.T) {
	p, rec := newProvider(t, startFake(t, fakeStripe{
		"GET /v1/prices":  listedPrices,
		"POST /v1/prices": createdPrice,
		"GET /v1/subscriptions/sub_1": func(*http.Request) (int, string) {
			return 200, `{"id":"sub_1","object":"subscription","items":{"object":"list","data":[
				{"id":"si_1","object":"subscription_item","price":` +
				priceJSON("price_basic", "valuator_basic", 3000, "prod_basic") + `}]}}`
		},
	}))
	_, err := p.Upgrade(t.Context(), billing.ChangeRequest{SubscriptionID: "sub_1", From: plan(t, billing.Free),
		To: plan(t, billing.Basic)})
	if err == nil || !strings.Contains(err.Error(), "already on plan") {
		t.Errorf("err = %v, want one saying the subscription is already on the plan", err)
	}
	for _, r := range rec.take() {
		if r.Method == http.MethodPost && strings.HasPrefix(r.Path, "/v1/subscriptions") {
			t.Errorf("sent %s", r)
		}
	}
}

func TestNew(t *testing.T) {
	good := Config{SecretKey: "sk_test_abc", PublishableKey: "pk_test_abc", WebhookSecret: "whsec_abc"}
	for _, tt := range []struct {
		name    string
		edit    func(*Config)
		wantErr string // "" means no error.
	}{
		{"good", func(*Config) {}, ""},
		{"live", func(c *Config) { c.SecretKey, c.PublishableKey = "sk_live_abc", "pk_live_abc" }, ""},
		{"API base", func(c *Config) { c.APIBase = "http://127.0.0.1:12111/" }, ""},
		{"no secret key", func(c *Config) { c.SecretKey = "" }, "VALUATOR_STRIPE_SECRET_KEY is not set"},
		{"publishable as secret", func(c *Config) { c.SecretKey = "pk_test_abc" },
			`VALUATOR_STRIPE_SECRET_KEY must be the Stripe secret key, which starts with sk_; it starts with "pk_"`},
		{"restricted key", func(c *Config) { c.SecretKey = "rk_test_abc" }, "VALUATOR_STRIPE_SECRET_KEY must be"},
		{"no publishable key", func(c *Config) { c.PublishableKey = "" }, "VALUATOR_STRIPE_PUBLISHABLE_KEY is not set"},
		{"secret as publishable", func(c *Config) { c.PublishableKey = "sk_test_abc" },
			"VALUATOR_STRIPE_PUBLISHABLE_KEY must be the Stripe publishable key"},
		{"no webhook secret", func(c *Config) { c.WebhookSecret = "" }, "VALUATOR_STRIPE_WEBHOOK_SECRET is not set"},
		{"bad webhook secret", func(c *Config) { c.WebhookSecret = "secret123" },
			"VALUATOR_STRIPE_WEBHOOK_SECRET must be the Stripe webhook signing secret, which starts with whsec_; " +
				"it starts with something else"},
		{"modes differ", func(c *Config) { c.SecretKey = "sk_live_abc" },
			"VALUATOR_STRIPE_SECRET_KEY is a live-mode key but VALUATOR_STRIPE_PUBLISHABLE_KEY is a test-mode key"},
		{"bad API base", func(c *Config) { c.APIBase = "127.0.0.1:12111" }, "is not an http(s)://HOST[:PORT] URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.edit(&cfg)
			p, err := New(cfg)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tt.wantErr == "" && p == nil:
				t.Fatal("New returned no provider")
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("New: err = %v, want one containing %q", err, tt.wantErr)
			}
			// A key is a secret; its prefix is all an error may show.
			if err != nil && strings.Contains(err.Error(), "abc") {
				t.Errorf("error %q shows a key", err)
			}
		})
	}
}

func TestInvoicePayment(t *testing.T) {
	payments := func(ids ...string) *stripe.InvoicePaymentList {
		l := &stripe.InvoicePaymentList{}
		for i, id := range ids {
			l.Data = append(l.Data, &stripe.InvoicePayment{IsDefault: i == len(ids)-1, Payment: &stripe.InvoicePaymentPayment{
				Type: stripe.InvoicePaymentPaymentTypePaymentIntent, PaymentIntent: &stripe.PaymentIntent{ID: id}}})
		}
		return l
	}
	secret := func(s string) *stripe.InvoiceConfirmationSecret {
		return &stripe.InvoiceConfirmationSecret{ClientSecret: s, Type: "payment_intent"}
	}
	for _, tt := range []struct {
		name    string
		inv     *stripe.Invoice
		want    billing.Payment
		wantErr bool
	}{
		{"open", &stripe.Invoice{ID: "in_1", Status: "open", AmountDue: 3000,
			ConfirmationSecret: secret("pi_1_secret_x"), Payments: payments("pi_1")},
			billing.Payment{Ref: "pi_1", ClientSecret: "pi_1_secret_x", AmountCents: 3000, Status: billing.PaymentPending},
			false},
		{"open, default payment of two", &stripe.Invoice{ID: "in_1", Status: "open", AmountDue: 3000,
			ConfirmationSecret: secret("pi_2_secret_x"), Payments: payments("pi_1", "pi_2")},
			billing.Payment{Ref: "pi_2", ClientSecret: "pi_2_secret_x", AmountCents: 3000, Status: billing.PaymentPending},
			false},
		{"open, payments not expanded", &stripe.Invoice{ID: "in_1", Status: "open", AmountDue: 3000,
			ConfirmationSecret: secret("pi_3_secret_x")},
			billing.Payment{Ref: "pi_3", ClientSecret: "pi_3_secret_x", AmountCents: 3000, Status: billing.PaymentPending},
			false},
		{"paid by the saved card", &stripe.Invoice{ID: "in_1", Status: "paid", AmountDue: 1583, AmountPaid: 1583,
			ConfirmationSecret: secret("pi_4_secret_x"), Payments: payments("pi_4")},
			billing.Payment{Ref: "pi_4", AmountCents: 1583, Status: billing.PaymentSucceeded}, false},
		{"nothing due", &stripe.Invoice{ID: "in_1", Status: "paid"},
			billing.Payment{Status: billing.PaymentSucceeded}, false},
		{"draft (stripe-mock)", &stripe.Invoice{ID: "in_1", Status: "draft", AmountDue: 1000,
			ConfirmationSecret: secret("")},
			billing.Payment{AmountCents: 1000, Status: billing.PaymentPending}, false},
		{"void", &stripe.Invoice{ID: "in_1", Status: "void", AmountDue: 1000}, billing.Payment{}, true},
		{"none", nil, billing.Payment{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := invoicePayment(tt.inv)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("invoicePayment = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestOverageDescription(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 9, 30, 0, 0, time.UTC) }
	for _, tt := range []struct {
		credits, cents int64
		period         billing.Period
		want           string
	}{
		{123, 369, billing.Period{Start: day(2026, 11, 24), End: day(2026, 12, 24)},
			"Overage: 123 credits at $0.03 (Nov 24 – Dec 24, 2026)"},
		{1, 3, billing.Period{Start: day(2026, 1, 31), End: day(2026, 2, 28)},
			"Overage: 1 credit at $0.03 (Jan 31 – Feb 28, 2026)"},
		{10, 1250, billing.Period{Start: day(2026, 12, 5), End: day(2027, 1, 5)},
			"Overage: 10 credits at $1.25 (Dec 5, 2026 – Jan 5, 2027)"},
		// A rate that is not a whole number of cents is left out rather than rounded.
		{3, 10, billing.Period{Start: day(2026, 3, 1), End: day(2026, 4, 1)}, "Overage: 3 credits (Mar 1 – Apr 1, 2026)"},
		{5, 15, billing.Period{}, "Overage: 5 credits at $0.03"},
	} {
		got := overageDescription(billing.OverageRequest{Credits: tt.credits, AmountCents: tt.cents, Period: tt.period})
		if got != tt.want {
			t.Errorf("overageDescription(%d credits, %d cents) = %q, want %q", tt.credits, tt.cents, got, tt.want)
		}
	}
}

// TestBillOverageRefusesNothing checks that an empty overage is refused without a call.
func TestBillOverageRefusesNothing(t *testing.T) {
	p, rec := newProvider(t, "http://127.0.0.1:1")
	for _, r := range []billing.OverageRequest{
		{CustomerID: "cus_1", Credits: 0, AmountCents: 0},
		{CustomerID: "cus_1", Credits: 5, AmountCents: -15},
		{Credits: 5, AmountCents: 15},
	} {
		if _, err := p.BillOverage(t.Context(), r); err == nil {
			t.Errorf("BillOverage(%+v): no error", r)
		}
	}
	wantRequests(t, rec.take())
}

// TestPriceWaitEndsWithContext checks that a call waiting for another's price lookup gives up when its context
// ends.
func TestPriceWaitEndsWithContext(t *testing.T) {
	p, rec := newProvider(t, "http://127.0.0.1:1")
	p.priceLock <- struct{}{} // Another call's lookup, which never ends.
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := p.priceID(ctx, plan(t, billing.Basic))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("priceID: err = %v, want the context's deadline", err)
	}
	wantRequests(t, rec.take())
}

// TestUpgradeReadsItsPaymentIntent: when Stripe could not charge the card on file for an upgrade's invoice, its
// PaymentIntent says why, and the browser is asked for exactly that (stripe-mock's fixture invoice has no
// PaymentIntent, so a fake server answers as Stripe does).
func TestUpgradeReadsItsPaymentIntent(t *testing.T) {
	const subscription = `{"id":"sub_1","object":"subscription","items":{"object":"list","data":[{"id":"si_1",
		"object":"subscription_item","price":{"id":"price_basic","object":"price"}}]}}`
	updated := `{"id":"sub_1","object":"subscription","latest_invoice":{"id":"in_up","object":"invoice","status":"open",
		"amount_due":4750,"confirmation_secret":{"client_secret":"pi_up_secret_x","type":"payment_intent"},
		"payments":{"object":"list","data":[{"id":"inpay_1","object":"invoice_payment","is_default":true,
		"payment":{"type":"payment_intent","payment_intent":{"id":"pi_up","object":"payment_intent"}}}]}}}`
	for _, tt := range []struct {
		name, intent           string
		status, awaiting, says string
	}{
		{"authentication", `{"id":"pi_up","object":"payment_intent","status":"requires_action","client_secret":"pi_up_secret_x"}`,
			billing.PaymentPending, billing.AwaitAction, billing.MsgAuthRequired},
		{"declined", `{"id":"pi_up","object":"payment_intent","status":"requires_payment_method","client_secret":"pi_up_secret_x",
			"last_payment_error":{"type":"card_error","code":"card_declined","message":"Your card has insufficient funds."}}`,
			billing.PaymentFailed, billing.AwaitPaymentMethod, "Your card has insufficient funds."},
		{"processing", `{"id":"pi_up","object":"payment_intent","status":"processing","client_secret":"pi_up_secret_x"}`,
			billing.PaymentPending, billing.AwaitProcessing, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, rec := newProvider(t, startFake(t, fakeStripe{
				"GET /v1/prices":                listedPrices,
				"POST /v1/prices":               createdPrice,
				"GET /v1/subscriptions/sub_1":   func(*http.Request) (int, string) { return 200, subscription },
				"POST /v1/subscriptions/sub_1":  func(*http.Request) (int, string) { return 200, updated },
				"GET /v1/payment_intents/pi_up": func(*http.Request) (int, string) { return 200, tt.intent },
			}))
			pay, err := p.Upgrade(t.Context(), billing.ChangeRequest{UserID: 7, CustomerID: "cus_1", SubscriptionID: "sub_1",
				From: plan(t, billing.Basic), To: plan(t, billing.Professional), PaymentID: 60})
			if err != nil {
				t.Fatalf("Upgrade: %v", err)
			}
			want := billing.Payment{Ref: "pi_up", ClientSecret: "pi_up_secret_x", AmountCents: 4750, Status: tt.status,
				Awaiting: tt.awaiting, FailureMessage: tt.says, Parent: "in_up"}
			if pay != want {
				t.Errorf("Upgrade = %+v, want %+v", pay, want)
			}
			reqs := rec.take()
			if last := reqs[len(reqs)-1]; last.String() != "GET /v1/payment_intents/pi_up" {
				t.Errorf("last request %s, want the PaymentIntent read", last)
			}
		})
	}
}
