package billing

import (
	"context"
	"strings"
	"testing"
	"time"

	"valuator/internal/apperr"
)

// signatureProvider is a Stripe-mode provider whose webhook parsing only counts its calls (the other methods are
// never reached by HandleWebhook).
type signatureProvider struct {
	Provider
	parsed int
}

func (p *signatureProvider) Mode() string { return ModeStripe }

func (p *signatureProvider) ParseWebhook([]byte, string, time.Time) (Event, error) {
	p.parsed++
	return Event{Type: EventIgnored}, nil
}

// TestWebhookSignatureIsBounded: a Stripe-Signature longer than the contract's maxLength is refused as a bad
// signature (400 naming the header) without being parsed; one within it is parsed.
func TestWebhookSignatureIsBounded(t *testing.T) {
	p := &signatureProvider{}
	s := &Service{Provider: p}
	err := s.HandleWebhook(context.Background(), []byte(`{}`), "t=1,v1="+strings.Repeat("0", MaxSignatureLen))
	e, ok := apperr.As(err)
	if !ok || e.Kind != apperr.KindInvalid || e.Field != "Stripe-Signature" || p.parsed != 0 {
		t.Fatalf("a long signature: %v (parsed %d times), want a 400 naming Stripe-Signature, unparsed", err, p.parsed)
	}
	if err := s.HandleWebhook(context.Background(), []byte(`{}`), "t=1,v1="+strings.Repeat("0", 64)); err != nil || p.parsed != 1 {
		t.Fatalf("a signature of Stripe's size: %v (parsed %d times)", err, p.parsed)
	}
}
