// Package stripepay is the billing.Provider that takes payments through Stripe, with the official stripe-go
// client.
//
// It is pinned to stripe-go v85, whose API version is 2026-03-25.dahlia: the release train of the OpenAPI spec
// bundled in stripe-mock v0.203.0 (2026-08-26.dahlia), against which the tests run. In that API an invoice no
// longer has a payment_intent field; the client secret of its payment is the invoice's confirmation_secret and
// the PaymentIntent is found in its payments list, both of which must be expanded.
//
// Every Provider has its own stripe.Client, never the package-level stripe.Key, so that several providers (with
// different keys or API bases) can live in one process, as they do in the tests.
package stripepay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"valuator/internal/billing"
)

// The environment variables the keys come from, named in configuration errors so that a person knows what to fix.
const (
	EnvSecretKey      = "VALUATOR_STRIPE_SECRET_KEY"
	EnvPublishableKey = "VALUATOR_STRIPE_PUBLISHABLE_KEY"
	EnvWebhookSecret  = "VALUATOR_STRIPE_WEBHOOK_SECRET"
)

// lookupKeyPrefix, followed by the plan ID, is the lookup key of a plan's price. Stripe keeps lookup keys unique
// per account, so the key finds our price however many prices the account holds.
const lookupKeyPrefix = "valuator_"

// Config configures a Provider.
type Config struct {
	// SecretKey is the API key the server calls Stripe with (sk_test_... or sk_live_...).
	SecretKey string
	// PublishableKey is the key the browser's card form uses (pk_test_... or pk_live_...).
	PublishableKey string
	// WebhookSecret verifies the signatures of webhook deliveries (whsec_...).
	WebhookSecret string
	// APIBase is the API's URL; "" is Stripe's own. Tests point it at stripe-mock.
	APIBase string
	// HTTPClient makes the API calls; nil is stripe-go's default client.
	HTTPClient *http.Client
	// Logger receives the provider's and stripe-go's messages; nil is slog.Default().
	Logger *slog.Logger
}

// Provider is the Stripe payments provider. It is safe for concurrent use.
type Provider struct {
	sc             *stripe.Client
	publishableKey string
	webhookSecret  string
	log            *slog.Logger

	// priceLock guards prices, which maps a paid plan's ID to its Stripe price ID once they have been looked up.
	// It is held during the lookup itself, so that concurrent first calls do not each create the missing prices.
	// It is a channel rather than a sync.Mutex so that a caller waiting for a slow lookup can give up when its
	// context ends.
	priceLock chan struct{}
	prices    map[string]string
}

var _ billing.Provider = (*Provider)(nil)

// New checks cfg and makes a Provider. It makes no API call: prices are looked up on first use, so that a Stripe
// outage does not keep the server from starting.
func New(cfg Config) (*Provider, error) {
	if err := checkKey(cfg.SecretKey, "sk_", EnvSecretKey, "secret key"); err != nil {
		return nil, err
	}
	if err := checkKey(cfg.PublishableKey, "pk_", EnvPublishableKey, "publishable key"); err != nil {
		return nil, err
	}
	if err := checkKey(cfg.WebhookSecret, "whsec_", EnvWebhookSecret, "webhook signing secret"); err != nil {
		return nil, err
	}
	// A test-mode card form with a live secret key (or the reverse) fails on every payment with an error that
	// does not say why; saying it at start-up is kinder.
	if sm, pm := keyMode(cfg.SecretKey), keyMode(cfg.PublishableKey); sm != "" && pm != "" && sm != pm {
		return nil, fmt.Errorf("%s is a %s-mode key but %s is a %s-mode key; both must come from the same mode",
			EnvSecretKey, sm, EnvPublishableKey, pm)
	}

	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	bc := &stripe.BackendConfig{
		HTTPClient:    cfg.HTTPClient,
		LeveledLogger: stripeLogger{log: log.With("component", "stripe-go")},
	}
	if cfg.APIBase != "" {
		u, err := url.Parse(cfg.APIBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("stripe API base %q is not an http(s)://HOST[:PORT] URL", cfg.APIBase)
		}
		bc.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	return &Provider{
		sc:             stripe.NewClient(cfg.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(bc))),
		publishableKey: cfg.PublishableKey,
		webhookSecret:  cfg.WebhookSecret,
		log:            log,
		priceLock:      make(chan struct{}, 1),
	}, nil
}

// checkKey reports a missing or malformed key by the environment variable it comes from, showing at most its
// prefix, since the rest is a secret.
func checkKey(key, prefix, env, what string) error {
	switch {
	case key == "":
		return fmt.Errorf("%s is not set; it must be the Stripe %s (%s...)", env, what, prefix)
	case !strings.HasPrefix(key, prefix):
		shown, _, found := strings.Cut(key, "_")
		if !found || len(shown) > 5 {
			shown = "something else"
		} else {
			shown = strconv.Quote(shown + "_")
		}
		return fmt.Errorf("%s must be the Stripe %s, which starts with %s; it starts with %s", env, what, prefix,
			shown)
	}
	return nil
}

// keyMode is "test" or "live" for a key such as sk_test_... or pk_live_..., and "" when the key says neither.
func keyMode(key string) string {
	_, rest, _ := strings.Cut(key, "_")
	mode, _, _ := strings.Cut(rest, "_")
	if mode == "test" || mode == "live" {
		return mode
	}
	return ""
}

// Mode is billing.ModeStripe.
func (p *Provider) Mode() string { return billing.ModeStripe }

// PublishableKey is the key the browser's card form uses.
func (p *Provider) PublishableKey() string { return p.publishableKey }

// invoiceExpand makes an API call that returns a subscription also return what its latest invoice needs to be
// paid: the confirmation secret (the PaymentIntent's client secret) and the payments list (which names the
// PaymentIntent). Both are left out of an invoice unless expanded.
var invoiceExpand = []*string{
	stripe.String("latest_invoice.confirmation_secret"),
	stripe.String("latest_invoice.payments"),
}

// Subscribe makes the customer (unless r.CustomerID names one from an earlier attempt), attaches the browser's
// payment method to it and starts the subscription, incomplete until the browser confirms its first payment.
//
// When it fails after making the customer, the result still carries CustomerID, so that the next attempt reuses
// that customer instead of making another. A card Stripe refuses (when attaching it) is a *billing.CardError.
func (p *Provider) Subscribe(ctx context.Context, r billing.SubscribeRequest) (billing.SubscribeResult, error) {
	var res billing.SubscribeResult
	if !r.Plan.Paid() {
		return res, fmt.Errorf("stripe: cannot subscribe to plan %q: it has no price", r.Plan.ID)
	}
	if r.PaymentMethodID == "" {
		return res, errors.New("stripe: subscribing needs a payment method")
	}
	price, err := p.priceID(ctx, r.Plan)
	if err != nil {
		return res, err
	}

	res.CustomerID = r.CustomerID
	if res.CustomerID == "" {
		cp := &stripe.CustomerCreateParams{
			Metadata: map[string]string{"user_id": strconv.FormatInt(r.UserID, 10)},
		}
		if r.Email != "" {
			cp.Email = stripe.String(r.Email)
		}
		if r.Name != "" {
			cp.Name = stripe.String(r.Name)
		}
		cus, err := p.sc.V1Customers.Create(ctx, cp)
		if err != nil {
			return res, apiErr("creating the customer", err)
		}
		res.CustomerID = cus.ID
	}

	// Attaching is where Stripe first tries the card, so a refused card usually shows up here.
	pm, err := p.sc.V1PaymentMethods.Attach(ctx, r.PaymentMethodID, &stripe.PaymentMethodAttachParams{
		Customer: stripe.String(res.CustomerID),
	})
	if err != nil {
		return res, apiErr("attaching the payment method", err)
	}
	res.Card = cardOf(pm)

	sub, err := p.sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer:             stripe.String(res.CustomerID),
		Items:                []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price)}},
		DefaultPaymentMethod: stripe.String(r.PaymentMethodID),
		// default_incomplete leaves the first invoice's PaymentIntent for the browser to confirm, so that
		// 3-D Secure and declines are handled by Stripe.js in front of the customer. Stripe expires the
		// subscription itself if it is never paid.
		PaymentBehavior: stripe.String("default_incomplete"),
		Metadata: map[string]string{
			"user_id":    strconv.FormatInt(r.UserID, 10),
			"payment_id": strconv.FormatInt(r.PaymentID, 10),
			"plan":       r.Plan.ID,
		},
		Expand: invoiceExpand,
	})
	if err != nil {
		return res, apiErr("creating the subscription", err)
	}
	res.SubscriptionID = sub.ID
	pay, err := invoicePayment(sub.LatestInvoice)
	if err != nil {
		return res, fmt.Errorf("stripe: subscription %s: %w", sub.ID, err)
	}
	// Until its first payment the subscription is incomplete: withdrawing the payment cancels it.
	pay.Parent, pay.Awaiting = sub.ID, billing.AwaitConfirmation
	if pay.Status == billing.PaymentPending && pay.ClientSecret == "" {
		// Real Stripe finalizes the first invoice of a default_incomplete subscription at once and gives it a
		// PaymentIntent; stripe-mock's fixture invoice has neither. The payment is returned as it is, and
		// logged, because without a client secret the browser cannot confirm it.
		p.log.WarnContext(ctx, "stripe: the first invoice of a new subscription has no client secret",
			"subscription", sub.ID, "invoice", invoiceID(sub.LatestInvoice), "paymentRef", pay.Ref)
	}
	res.Payment = pay
	return res, nil
}

// Upgrade moves the subscription's item to the dearer plan's price. Stripe computes the proration and bills it on
// an invoice at once (always_invoice); with pending_if_incomplete the price only changes at Stripe once that
// invoice is paid, so an unpaid upgrade leaves the customer on the plan they paid for. The returned payment is
// that invoice's: pending with a client secret for the browser, or succeeded when Stripe already charged the
// saved card (or there was nothing to pay).
func (p *Provider) Upgrade(ctx context.Context, r billing.ChangeRequest) (billing.Payment, error) {
	price, err := p.priceID(ctx, r.To)
	if err != nil {
		return billing.Payment{}, err
	}
	sub, item, err := p.subscriptionItem(ctx, r.SubscriptionID)
	if err != nil {
		return billing.Payment{}, err
	}
	if item.Price != nil && item.Price.ID == price {
		return billing.Payment{}, fmt.Errorf("stripe: subscription %s is already on plan %q", sub.ID, r.To.ID)
	}
	params := &stripe.SubscriptionUpdateParams{
		Items:             []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(item.ID), Price: stripe.String(price)}},
		ProrationBehavior: stripe.String("always_invoice"),
		PaymentBehavior:   stripe.String("pending_if_incomplete"),
		Expand:            invoiceExpand,
	}
	if r.PaymentID != 0 {
		// A retried call (a timeout after Stripe acted) must not invoice the upgrade twice.
		params.SetIdempotencyKey("valuator-upgrade-" + strconv.FormatInt(r.PaymentID, 10))
	}
	updated, err := p.sc.V1Subscriptions.Update(ctx, sub.ID, params)
	if err != nil {
		return billing.Payment{}, apiErr("upgrading the subscription", err)
	}
	pay, err := invoicePayment(updated.LatestInvoice)
	if err != nil {
		return billing.Payment{}, fmt.Errorf("stripe: upgrading subscription %s: %w", sub.ID, err)
	}
	if updated.LatestInvoice != nil {
		// Voiding the invoice withdraws the payment and discards the pending update.
		pay.Parent = updated.LatestInvoice.ID
	}
	if pay.Status == billing.PaymentPending {
		// Stripe charged the card on file with the invoice: its PaymentIntent says whether the bank asks for
		// authentication or the card was declined.
		if err := p.readIntent(ctx, &pay); err != nil {
			return pay, err
		}
	}
	// Stripe accepts only price, quantity and proration parameters together with pending_if_incomplete, so
	// clearing a cancellation takes a second call. It comes after the upgrade, so that an upgrade Stripe refuses
	// leaves the cancellation as the customer set it.
	if r.Resume && sub.CancelAtPeriodEnd {
		if _, err := p.sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{
			CancelAtPeriodEnd: stripe.Bool(false),
		}); err != nil {
			return pay, apiErr("resuming the subscription after its upgrade", err)
		}
	}
	return pay, nil
}

// readIntent reads what a pending payment's PaymentIntent waits for: requires_action (the bank asks the customer
// to authenticate) or requires_payment_method (the card was declined, with Stripe's message); a PaymentIntent
// still processing or one that succeeded meanwhile is left pending, for its webhook to settle.
func (p *Provider) readIntent(ctx context.Context, pay *billing.Payment) error {
	if pay.Ref == "" {
		// Stripe always gives an open invoice a PaymentIntent; without one (stripe-mock's fixture invoice) there is
		// nothing the browser could confirm, so the payment waits for its webhook.
		p.log.WarnContext(ctx, "stripe: an upgrade's unpaid invoice has no PaymentIntent", "invoice", pay.Parent)
		pay.Awaiting = billing.AwaitProcessing
		return nil
	}
	pi, err := p.sc.V1PaymentIntents.Retrieve(ctx, pay.Ref, nil)
	if err != nil {
		return apiErr("reading the upgrade's payment", err)
	}
	if pi.ClientSecret != "" {
		pay.ClientSecret = pi.ClientSecret
	}
	switch pi.Status {
	case stripe.PaymentIntentStatusRequiresAction:
		pay.Awaiting, pay.FailureMessage = billing.AwaitAction, billing.MsgAuthRequired
	case stripe.PaymentIntentStatusRequiresPaymentMethod:
		pay.Status, pay.Awaiting, pay.FailureMessage = billing.PaymentFailed, billing.AwaitPaymentMethod, "Your card was declined."
		if pi.LastPaymentError != nil && pi.LastPaymentError.Msg != "" {
			pay.FailureMessage = pi.LastPaymentError.Msg
		}
	default:
		pay.Awaiting = billing.AwaitProcessing
	}
	return nil
}

// SetPaymentMethod attaches the card to the customer and makes it the default of the customer's invoices and of
// the subscription, so that renewals and upgrades charge it.
func (p *Provider) SetPaymentMethod(ctx context.Context, r billing.CardRequest) (billing.Card, error) {
	if r.CustomerID == "" {
		return billing.Card{}, errors.New("stripe: replacing a card needs a customer ID")
	}
	pm, err := p.sc.V1PaymentMethods.Attach(ctx, r.PaymentMethodID, &stripe.PaymentMethodAttachParams{
		Customer: stripe.String(r.CustomerID),
	})
	if err != nil {
		return billing.Card{}, apiErr("attaching the new card", err)
	}
	if _, err := p.sc.V1Customers.Update(ctx, r.CustomerID, &stripe.CustomerUpdateParams{
		InvoiceSettings: &stripe.CustomerUpdateInvoiceSettingsParams{DefaultPaymentMethod: stripe.String(pm.ID)},
	}); err != nil {
		return billing.Card{}, apiErr("making the new card the customer's default", err)
	}
	if r.SubscriptionID != "" {
		if _, err := p.sc.V1Subscriptions.Update(ctx, r.SubscriptionID, &stripe.SubscriptionUpdateParams{
			DefaultPaymentMethod: stripe.String(pm.ID),
		}); err != nil {
			return billing.Card{}, apiErr("making the new card the subscription's default", err)
		}
	}
	return cardOf(pm), nil
}

// cardOf is what is kept of a card payment method.
func cardOf(pm *stripe.PaymentMethod) billing.Card {
	if pm == nil || pm.Card == nil {
		return billing.Card{}
	}
	return billing.Card{Brand: string(pm.Card.Brand), Last4: pm.Card.Last4, ExpMonth: int(pm.Card.ExpMonth),
		ExpYear: int(pm.Card.ExpYear)}
}

// ClientSecret reads an open payment's client secret from its PaymentIntent.
func (p *Provider) ClientSecret(ctx context.Context, pay billing.PaymentRecord) (string, error) {
	if pay.Ref == "" {
		return "", fmt.Errorf("stripe: payment %d has no PaymentIntent yet", pay.ID)
	}
	pi, err := p.sc.V1PaymentIntents.Retrieve(ctx, pay.Ref, nil)
	if err != nil {
		return "", apiErr("reading the payment's client secret", err)
	}
	return pi.ClientSecret, nil
}

// CancelPayment withdraws an unpaid payment. A PaymentIntent made by an invoice cannot be cancelled by itself:
// the invoice is voided (which also discards an upgrade's pending update), and a new subscription's first payment
// is withdrawn by cancelling the incomplete subscription. Something Stripe already finished with (paid, void,
// cancelled) answers an error that says so, which is success here.
func (p *Provider) CancelPayment(ctx context.Context, pay billing.PaymentRecord) error {
	var err error
	switch {
	case strings.HasPrefix(pay.Parent, "sub_"):
		_, err = p.sc.V1Subscriptions.Cancel(ctx, pay.Parent, nil)
	case strings.HasPrefix(pay.Parent, "in_"):
		_, err = p.sc.V1Invoices.VoidInvoice(ctx, pay.Parent, nil)
	case strings.HasPrefix(pay.Ref, "pi_"):
		_, err = p.sc.V1PaymentIntents.Cancel(ctx, pay.Ref, nil)
	default:
		return nil // nothing was made at Stripe
	}
	if finished(err) {
		return nil
	}
	if err != nil {
		return apiErr("withdrawing payment "+strconv.FormatInt(pay.ID, 10), err)
	}
	return nil
}

// Refund gives a stale payment back in full, once (the idempotency key is our payment's id). A new subscription
// paid after it was withdrawn is cancelled too, so that it does not renew.
func (p *Provider) Refund(ctx context.Context, pay billing.PaymentRecord) error {
	if err := p.refund(ctx, pay, "stale_payment"); err != nil {
		return err
	}
	if strings.HasPrefix(pay.Parent, "sub_") {
		if _, err := p.sc.V1Subscriptions.Cancel(ctx, pay.Parent, nil); err != nil && !finished(err) {
			return apiErr("cancelling the refunded subscription", err)
		}
	}
	return nil
}

// RefundPayment is an operator's refund: the money back in full, once, and the subscription left running. It shares
// Refund's idempotency key, so a payment is never refunded twice whichever way it was asked.
func (p *Provider) RefundPayment(ctx context.Context, pay billing.PaymentRecord) error {
	return p.refund(ctx, pay, "operator")
}

// EndSubscription cancels a subscription at once (a full refund ended the plan), so that Stripe bills nothing more.
// One already cancelled, or gone, is done.
func (p *Provider) EndSubscription(ctx context.Context, subscriptionID string) error {
	if !strings.HasPrefix(subscriptionID, "sub_") {
		return nil // nothing was made at Stripe
	}
	if _, err := p.sc.V1Subscriptions.Cancel(ctx, subscriptionID, nil); err != nil && !finished(err) {
		return apiErr("ending the subscription of a refunded plan", err)
	}
	return nil
}

func (p *Provider) refund(ctx context.Context, pay billing.PaymentRecord, why string) error {
	if !strings.HasPrefix(pay.Ref, "pi_") {
		return fmt.Errorf("stripe: payment %d has no PaymentIntent to refund", pay.ID)
	}
	params := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pay.Ref),
		Metadata: map[string]string{"payment_id": strconv.FormatInt(pay.ID, 10), "reason": why}}
	params.SetIdempotencyKey("valuator-refund-" + strconv.FormatInt(pay.ID, 10))
	if _, err := p.sc.V1Refunds.Create(ctx, params); err != nil && !finished(err) {
		return apiErr("refunding payment "+strconv.FormatInt(pay.ID, 10), err)
	}
	return nil
}

// finished reports a Stripe answer that the object is already where we wanted it: a 400 for a state that no
// longer allows the change (already cancelled, void, paid or refunded), or a 404 for one that is gone.
func finished(err error) bool {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code {
	case stripe.ErrorCodePaymentIntentUnexpectedState, stripe.ErrorCodeResourceMissing, stripe.ErrorCodeChargeAlreadyRefunded,
		stripe.ErrorCodeInvoiceNotEditable:
		return true
	}
	return false
}

// Downgrade moves the subscription's item to the cheaper plan's price without proration: the current period is
// already paid at the old price and the new one is billed from the next period, so no money moves now.
func (p *Provider) Downgrade(ctx context.Context, r billing.ChangeRequest) error {
	price, err := p.priceID(ctx, r.To)
	if err != nil {
		return err
	}
	sub, item, err := p.subscriptionItem(ctx, r.SubscriptionID)
	if err != nil {
		return err
	}
	params := &stripe.SubscriptionUpdateParams{
		Items:             []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(item.ID), Price: stripe.String(price)}},
		ProrationBehavior: stripe.String("none"),
	}
	if r.Resume {
		params.CancelAtPeriodEnd = stripe.Bool(false)
	}
	if _, err := p.sc.V1Subscriptions.Update(ctx, sub.ID, params); err != nil {
		return apiErr("downgrading the subscription", err)
	}
	return nil
}

// Cancel asks Stripe to end the subscription at the end of its period; its customer.subscription.deleted event
// follows then.
func (p *Provider) Cancel(ctx context.Context, customerID, subscriptionID string) error {
	if subscriptionID == "" {
		return errors.New("stripe: cancelling needs a subscription ID")
	}
	if _, err := p.sc.V1Subscriptions.Update(ctx, subscriptionID, &stripe.SubscriptionUpdateParams{
		CancelAtPeriodEnd: stripe.Bool(true),
	}); err != nil {
		return apiErr("cancelling the subscription", err)
	}
	return nil
}

// Renew does nothing: Stripe bills each new period of a subscription itself, and its invoice.paid (or
// invoice.payment_failed) event tells the outcome. The empty Ref says so.
func (p *Provider) Renew(ctx context.Context, r billing.RenewRequest) (billing.Payment, error) {
	return billing.Payment{}, nil
}

// BillOverage adds the overage to the subscription's next invoice as an invoice item and returns the item's ID.
// Its idempotency key is our payment's ID, so that a retried job never bills the same overage twice (Stripe
// keeps idempotency keys for at least 24 hours).
func (p *Provider) BillOverage(ctx context.Context, r billing.OverageRequest) (string, error) {
	if r.AmountCents <= 0 || r.Credits <= 0 {
		return "", fmt.Errorf("stripe: no overage to bill (%d credits, %d cents)", r.Credits, r.AmountCents)
	}
	if r.CustomerID == "" {
		return "", errors.New("stripe: billing overage needs a customer ID")
	}
	params := &stripe.InvoiceItemCreateParams{
		Customer:    stripe.String(r.CustomerID),
		Amount:      stripe.Int64(r.AmountCents),
		Currency:    stripe.String(string(stripe.CurrencyUSD)),
		Description: stripe.String(overageDescription(r)),
		Metadata: map[string]string{
			"payment_id": strconv.FormatInt(r.PaymentID, 10),
			"user_id":    strconv.FormatInt(r.UserID, 10),
		},
	}
	// Without the subscription the item would wait for the customer's next invoice of any kind; with it, it
	// lands on the subscription's next renewal invoice.
	if r.SubscriptionID != "" {
		params.Subscription = stripe.String(r.SubscriptionID)
	}
	if !r.Period.Start.IsZero() && !r.Period.End.Before(r.Period.Start) {
		params.Period = &stripe.InvoiceItemCreatePeriodParams{
			Start: stripe.Int64(r.Period.Start.Unix()),
			End:   stripe.Int64(r.Period.End.Unix()),
		}
	}
	if r.PaymentID != 0 {
		params.SetIdempotencyKey("valuator-overage-" + strconv.FormatInt(r.PaymentID, 10))
	}
	item, err := p.sc.V1InvoiceItems.Create(ctx, params)
	if err != nil {
		return "", apiErr("adding the overage invoice item", err)
	}
	return item.ID, nil
}

// overageDescription is the invoice line the customer reads, such as "Overage: 123 credits at $0.03 (Nov 24 –
// Dec 24, 2026)". The rate is shown only when the amount is a whole number of cents per credit, since a rounded
// rate would not multiply out to the amount billed.
func overageDescription(r billing.OverageRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Overage: %d credit", r.Credits)
	if r.Credits != 1 {
		b.WriteString("s")
	}
	if r.Credits > 0 && r.AmountCents%r.Credits == 0 {
		fmt.Fprintf(&b, " at %s", dollars(r.AmountCents/r.Credits))
	}
	if !r.Period.Start.IsZero() && !r.Period.End.IsZero() {
		s, e := r.Period.Start.UTC(), r.Period.End.UTC()
		if s.Year() == e.Year() {
			fmt.Fprintf(&b, " (%s – %s)", s.Format("Jan 2"), e.Format("Jan 2, 2006"))
		} else {
			fmt.Fprintf(&b, " (%s – %s)", s.Format("Jan 2, 2006"), e.Format("Jan 2, 2006"))
		}
	}
	return b.String()
}

// dollars formats cents as $D.CC.
func dollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%d.%02d", sign, cents/100, cents%100)
}

// subscriptionItem fetches the subscription and its one item. Our subscriptions always have exactly one (the
// plan's price); anything else was changed by hand in the dashboard and is not ours to guess about.
func (p *Provider) subscriptionItem(ctx context.Context, id string) (*stripe.Subscription, *stripe.SubscriptionItem,
	error) {
	if id == "" {
		return nil, nil, errors.New("stripe: changing a plan needs a subscription ID")
	}
	sub, err := p.sc.V1Subscriptions.Retrieve(ctx, id, nil)
	if err != nil {
		return nil, nil, apiErr("reading the subscription", err)
	}
	if sub.Items == nil || len(sub.Items.Data) != 1 {
		n := 0
		if sub.Items != nil {
			n = len(sub.Items.Data)
		}
		return nil, nil, fmt.Errorf("stripe: subscription %s has %d items; a Valuator subscription has one", id, n)
	}
	return sub, sub.Items.Data[0], nil
}

// invoicePayment is the payment a subscription's latest invoice asks for.
//
// In API 2026-03-25.dahlia the invoice has no payment_intent: the client secret is invoice.confirmation_secret
// and the PaymentIntent's ID is in invoice.payments (both expanded by invoiceExpand).
func invoicePayment(inv *stripe.Invoice) (billing.Payment, error) {
	if inv == nil {
		return billing.Payment{}, errors.New("Stripe returned no latest invoice")
	}
	pay := billing.Payment{Ref: paymentIntentID(inv), AmountCents: inv.AmountDue}
	switch {
	case inv.Status == stripe.InvoiceStatusPaid || inv.AmountDue == 0:
		// Paid already (from the saved card, the customer's balance or a coupon): nothing for the browser.
		pay.Status = billing.PaymentSucceeded
		pay.AmountCents = inv.AmountPaid
	case inv.Status == stripe.InvoiceStatusVoid || inv.Status == stripe.InvoiceStatusUncollectible:
		return billing.Payment{}, fmt.Errorf("invoice %s is %s", inv.ID, inv.Status)
	default:
		pay.Status = billing.PaymentPending
		if inv.ConfirmationSecret != nil {
			pay.ClientSecret = inv.ConfirmationSecret.ClientSecret
		}
		if pay.Ref == "" {
			pay.Ref = paymentIntentFromSecret(pay.ClientSecret)
		}
	}
	return pay, nil
}

// paymentIntentID is the invoice's PaymentIntent from its expanded payments list: the default one, or failing
// that the first.
func paymentIntentID(inv *stripe.Invoice) string {
	if inv.Payments == nil {
		return ""
	}
	id := ""
	for _, ip := range inv.Payments.Data {
		if ip == nil || ip.Payment == nil || ip.Payment.Type != stripe.InvoicePaymentPaymentTypePaymentIntent ||
			ip.Payment.PaymentIntent == nil || ip.Payment.PaymentIntent.ID == "" {
			continue
		}
		if ip.IsDefault {
			return ip.Payment.PaymentIntent.ID
		}
		if id == "" {
			id = ip.Payment.PaymentIntent.ID
		}
	}
	return id
}

// paymentIntentFromSecret is the PaymentIntent ID at the front of its client secret ("pi_X_secret_Y"), the form
// Stripe.js itself relies on. It is the fallback for an invoice whose payments list did not name its
// PaymentIntent, since without the ID the payment's webhook events could not be matched to it.
func paymentIntentFromSecret(secret string) string {
	id, _, found := strings.Cut(secret, "_secret_")
	if !found || !strings.HasPrefix(id, "pi_") {
		return ""
	}
	return id
}

func invoiceID(inv *stripe.Invoice) string {
	if inv == nil {
		return ""
	}
	return inv.ID
}

// priceID is the Stripe price of a paid plan. The prices of all paid plans are looked up (and made when missing)
// on the first call, and kept for the life of the Provider.
func (p *Provider) priceID(ctx context.Context, plan billing.Plan) (string, error) {
	if !plan.Paid() {
		return "", fmt.Errorf("stripe: plan %q is free and has no price", plan.ID)
	}
	select {
	case p.priceLock <- struct{}{}:
		defer func() { <-p.priceLock }()
	case <-ctx.Done():
		return "", fmt.Errorf("stripe: waiting for the plans' prices: %w", context.Cause(ctx))
	}
	if p.prices == nil {
		prices, err := p.loadPrices(ctx)
		if err != nil {
			// Nothing is kept, so that the next call tries again.
			return "", err
		}
		p.prices = prices
	}
	id, ok := p.prices[plan.ID]
	if !ok {
		return "", fmt.Errorf("stripe: plan %q is not in the plan table", plan.ID)
	}
	return id, nil
}

// loadPrices finds the price of every paid plan by its lookup key, and makes the missing ones.
func (p *Provider) loadPrices(ctx context.Context) (map[string]string, error) {
	var paid []billing.Plan
	lp := &stripe.PriceListParams{Active: stripe.Bool(true)}
	for _, plan := range billing.Plans() {
		if plan.Paid() {
			paid = append(paid, plan)
			lp.LookupKeys = append(lp.LookupKeys, stripe.String(lookupKeyPrefix+plan.ID))
		}
	}
	lp.Limit = stripe.Int64(int64(len(paid)))
	found := map[string]*stripe.Price{}
	for pr, err := range p.sc.V1Prices.List(ctx, lp).All(ctx) {
		if err != nil {
			return nil, apiErr("looking up the plans' prices", err)
		}
		if pr.LookupKey != "" {
			found[pr.LookupKey] = pr
		}
	}

	prices := make(map[string]string, len(paid))
	for _, plan := range paid {
		key := lookupKeyPrefix + plan.ID
		old := found[key]
		if old != nil && priceMatches(old, plan) {
			prices[plan.ID] = old.ID
			continue
		}
		pr, err := p.createPrice(ctx, plan, key, old)
		if err != nil {
			return nil, err
		}
		prices[plan.ID] = pr.ID
	}
	return prices, nil
}

// priceMatches reports whether a Stripe price bills the plan: its amount, monthly in USD. Stripe prices cannot
// change their amount, so a plan whose price changed in the plan table needs a new Stripe price.
func priceMatches(pr *stripe.Price, plan billing.Plan) bool {
	return pr.UnitAmount == plan.PriceCents && pr.Currency == stripe.CurrencyUSD &&
		pr.Type == stripe.PriceTypeRecurring && pr.Recurring != nil &&
		pr.Recurring.Interval == stripe.PriceRecurringIntervalMonth && pr.Recurring.IntervalCount == 1
}

// createPrice makes the plan's price. When an outdated price holds the lookup key, the new price takes the key
// over (transfer_lookup_key) and joins the old price's product; existing subscriptions keep the old price until
// they change plan. Without an outdated price the key is not transferred, so that two servers starting at once
// cannot both make one: the second gets Stripe's "lookup key already exists" error and finds the price on its
// next try.
func (p *Provider) createPrice(ctx context.Context, plan billing.Plan, key string, old *stripe.Price) (*stripe.Price,
	error) {
	params := &stripe.PriceCreateParams{
		Currency:   stripe.String(string(stripe.CurrencyUSD)),
		UnitAmount: stripe.Int64(plan.PriceCents),
		Recurring:  &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")},
		LookupKey:  stripe.String(key),
		Nickname:   stripe.String("Valuator " + plan.Name + " monthly"),
		Metadata:   map[string]string{"plan": plan.ID},
	}
	if old != nil && old.Product != nil && old.Product.ID != "" {
		params.Product = stripe.String(old.Product.ID)
		params.TransferLookupKey = stripe.Bool(true)
	} else {
		params.ProductData = &stripe.PriceCreateProductDataParams{
			Name:     stripe.String("Valuator " + plan.Name),
			Metadata: map[string]string{"plan": plan.ID},
		}
	}
	pr, err := p.sc.V1Prices.Create(ctx, params)
	if err != nil {
		return nil, apiErr("creating the price of plan "+plan.ID, err)
	}
	p.log.InfoContext(ctx, "stripe: created a price", "plan", plan.ID, "price", pr.ID, "lookupKey", key,
		"amountCents", plan.PriceCents, "replaced", old != nil)
	return pr, nil
}

// apiError is a Stripe API error with what we were doing. Its message is readable, unlike stripe.Error's, which
// is JSON; errors.As still finds the *stripe.Error.
type apiError struct {
	op  string
	err *stripe.Error
}

func (e *apiError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stripe: %s: %s", e.op, e.err.Msg)
	fmt.Fprintf(&b, " (%s", e.err.Type)
	if e.err.Code != "" {
		fmt.Fprintf(&b, " %s", e.err.Code)
	}
	if e.err.Param != "" {
		fmt.Fprintf(&b, ", param %s", e.err.Param)
	}
	if e.err.HTTPStatusCode != 0 {
		fmt.Fprintf(&b, ", status %d", e.err.HTTPStatusCode)
	}
	if e.err.RequestID != "" {
		fmt.Fprintf(&b, ", request %s", e.err.RequestID)
	}
	b.WriteString(")")
	return b.String()
}

func (e *apiError) Unwrap() error { return e.err }

// apiErr turns an error of a Stripe call into ours: a refused card becomes a *billing.CardError with Stripe's own
// words, which the customer sees; any other Stripe error keeps what we were doing.
func apiErr(op string, err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("stripe: %s: %w", op, err)
	}
	if se.Type == stripe.ErrorTypeCard {
		code := string(se.Code)
		if code == "" {
			code = "card_declined"
		}
		return &billing.CardError{Code: code, Message: se.Msg, Field: cardField(se.Param)}
	}
	return &apiError{op: op, err: se}
}

// cardField names the card form's field that Stripe's param points at, in the form's own (camelCase) terms.
func cardField(param string) string {
	switch param {
	case "number", "cvc":
		return param
	case "exp_month":
		return "expMonth"
	case "exp_year":
		return "expYear"
	}
	return ""
}

// stripeLogger passes stripe-go's messages to slog. Its Info messages (one or two per request) go to Debug,
// since the server already logs each request once; its Debug messages are dropped, because they hold whole
// response bodies, client secrets included.
type stripeLogger struct{ log *slog.Logger }

var _ stripe.ContextLeveledLoggerInterface = stripeLogger{}

func (l stripeLogger) Debugf(ctx context.Context, format string, v ...any) {}

func (l stripeLogger) Infof(ctx context.Context, format string, v ...any) {
	l.logf(ctx, slog.LevelDebug, format, v)
}

func (l stripeLogger) Warnf(ctx context.Context, format string, v ...any) {
	l.logf(ctx, slog.LevelWarn, format, v)
}

func (l stripeLogger) Errorf(ctx context.Context, format string, v ...any) {
	l.logf(ctx, slog.LevelError, format, v)
}

func (l stripeLogger) logf(ctx context.Context, level slog.Level, format string, v []any) {
	if ctx == nil {
		ctx = context.Background()
	}
	if l.log.Enabled(ctx, level) {
		l.log.Log(ctx, level, fmt.Sprintf(format, v...))
	}
}

// unixTime is a Stripe timestamp in UTC; 0 is the zero time.
func unixTime(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}
