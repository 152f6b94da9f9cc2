package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"valuator/internal/apperr"
	"valuator/internal/billing"
)

// billingConfigView is GET /api/billing/config.
type billingConfigView struct {
	Mode           string         `json:"mode"`
	PublishableKey string         `json:"publishableKey"`
	Plans          []billing.Plan `json:"plans"`
	LowBalance     int            `json:"lowBalance"`
}

func (s *Server) billingConfig(w http.ResponseWriter, _ *http.Request) {
	key := ""
	if s.billing.Provider != nil {
		key = s.billing.Provider.PublishableKey()
	}
	writeJSON(w, http.StatusOK, billingConfigView{Mode: s.billing.Mode(), PublishableKey: key, Plans: billing.Plans(),
		LowBalance: billing.LowBalance})
}

func (s *Server) getSubscription(w http.ResponseWriter, r *http.Request) {
	v, err := s.billing.Subscription(r.Context(), userFrom(r.Context()).user.ID)
	s.answer(w, r, v, err)
}

func (s *Server) meteredUsage(w http.ResponseWriter, r *http.Request) {
	v, err := s.billing.Usage(r.Context(), userFrom(r.Context()).user.ID)
	s.answer(w, r, v, err)
}

// answer writes v, or err.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// cursorPage is the pagination of the billing lists: newest first, `before` an id for the next page.
type cursorPage struct {
	Limit      int    `json:"limit"`
	HasMore    bool   `json:"hasMore"`
	NextBefore *int64 `json:"nextBefore"`
}

// cursorParams reads limit (1-100, default 10) and before (a positive id) of a billing list.
func cursorParams(r *http.Request) (before int64, limit int, err error) {
	var v apperr.Validation
	limit = 10
	if l := r.URL.Query().Get("limit"); l != "" {
		n, lerr := strconv.Atoi(l)
		v.Check(lerr == nil && n >= 1 && n <= 100, "limit", "limit must be a whole number from 1 to 100")
		limit = min(max(n, 1), 100)
	}
	if b := r.URL.Query().Get("before"); b != "" {
		n, berr := strconv.ParseInt(b, 10, 64)
		v.Check(berr == nil && n >= 1, "before", "before must be a positive whole number (an entry's id)")
		before = n
	}
	return before, limit, v.Err()
}

func nextCursor(more bool, lastID int64) *int64 {
	if !more {
		return nil
	}
	return &lastID
}

type creditHistoryEntry struct {
	ID          int64  `json:"id"`
	Description string `json:"description"`
	CreatedAt   string `json:"createdAt"`
	Amount      int64  `json:"amount"`
	Balance     int64  `json:"balance"`
	Kind        string `json:"kind"`
}

func (s *Server) creditHistory(w http.ResponseWriter, r *http.Request) {
	before, limit, err := cursorParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, more, err := s.accounts.CreditHistory(r.Context(), userFrom(r.Context()).user.ID, before, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]creditHistoryEntry, 0, len(rows))
	var last int64
	for _, e := range rows {
		out = append(out, creditHistoryEntry{ID: e.ID, Description: e.Description, Amount: e.Amount, Balance: e.BalanceAfter,
			Kind: e.Kind, CreatedAt: e.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00")})
		last = e.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out,
		"pagination": cursorPage{Limit: limit, HasMore: more, NextBefore: nextCursor(more, last)}})
}

func (s *Server) listPayments(w http.ResponseWriter, r *http.Request) {
	before, limit, err := cursorParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, more, err := s.billing.Payments(r.Context(), userFrom(r.Context()).user.ID, before, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]billing.PaymentView, 0, len(rows))
	var last int64
	for _, p := range rows {
		out = append(out, billing.ViewPayment(p))
		last = p.ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out,
		"pagination": cursorPage{Limit: limit, HasMore: more, NextBefore: nextCursor(more, last)}})
}

// paymentID reads the {id} of a payment's path.
func paymentID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Invalid("id", "id must be a positive whole number")
	}
	return id, nil
}

// paymentReceipt answers a receipt only for money that moved: a pending, declined, expired or cancelled payment
// has none (404), so that nobody holds a "receipt" for a charge that never happened.
func (s *Server) paymentReceipt(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	id, err := paymentID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.billing.Payment(r.Context(), u.ID, id)
	if err == nil && !billing.HasReceipt(p.Status) {
		err = apperr.NotFound("receipt_not_found", fmt.Sprintf("Payment #%d has no receipt: it was %s, so no money moved.",
			p.ID, billing.StatusText(p.Status)))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="valuator-receipt-%d.html"`, p.ID))
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(billing.Receipt(p, u.FullName, u.Email))
}

func (s *Server) prorationPreview(w http.ResponseWriter, r *http.Request) {
	v, err := s.billing.Proration(r.Context(), userFrom(r.Context()).user.ID, r.URL.Query().Get("planType"))
	s.answer(w, r, v, err)
}

type subscribeInput struct {
	PlanType        string `json:"planType"`
	PaymentMethodID string `json:"paymentMethodId"`
}

func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) {
	var in subscribeInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.billing.Subscribe(r.Context(), userFrom(r.Context()).user.ID, in.PlanType, in.PaymentMethodID)
	s.answer(w, r, v, err)
}

func (s *Server) changePlan(w http.ResponseWriter, r *http.Request) {
	var in subscribeInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.billing.ChangePlan(r.Context(), userFrom(r.Context()).user.ID, in.PlanType)
	s.answer(w, r, v, err)
}

func (s *Server) cancelSubscription(w http.ResponseWriter, r *http.Request) {
	v, err := s.billing.Cancel(r.Context(), userFrom(r.Context()).user.ID)
	s.answer(w, r, v, err)
}

// maxWebhookBody bounds a Stripe event (Stripe's are a few KB; their documented maximum is far below this).
const maxWebhookBody = 512 << 10

func (s *Server) stripeWebhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	if err != nil {
		s.writeError(w, r, jsonError(err))
		return
	}
	if err := s.billing.HandleWebhook(r.Context(), payload, r.Header.Get("Stripe-Signature")); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"received": true})
}

type testCardInput struct {
	Number   string `json:"number"`
	ExpMonth int    `json:"expMonth"`
	ExpYear  int    `json:"expYear"`
	CVC      string `json:"cvc"`
	Name     string `json:"name"`
}

func (s *Server) createTestPaymentMethod(w http.ResponseWriter, r *http.Request) {
	var in testCardInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var v apperr.Validation
	v.Check(len(in.Number) <= 32, "number", "Your card number is invalid.")
	v.Check(len(in.CVC) <= 8, "cvc", "Your card's security code is invalid.")
	v.Check(len(in.Name) <= 200, "name", "The name on the card must be at most 200 characters.")
	if err := v.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	pm, err := s.billing.CreateTestCard(r.Context(), userFrom(r.Context()).user.ID, billing.TestCardInput{
		Number: in.Number, ExpMonth: in.ExpMonth, ExpYear: in.ExpYear, CVC: in.CVC})
	s.answer(w, r, pm, err)
}

type testConfirmInput struct {
	ClientSecret    string `json:"clientSecret"`
	PaymentMethodID string `json:"paymentMethodId"`
	Authentication  string `json:"authentication"`
}

func (s *Server) confirmTestPayment(w http.ResponseWriter, r *http.Request) {
	var in testConfirmInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var v apperr.Validation
	v.Check(in.ClientSecret != "" && len(in.ClientSecret) <= 255, "clientSecret", "clientSecret is required")
	v.Check(len(in.PaymentMethodID) <= 255, "paymentMethodId", "paymentMethodId must be at most 255 characters")
	v.Check(in.Authentication == "" || in.Authentication == billing.AuthComplete || in.Authentication == billing.AuthFail,
		"authentication", "authentication must be complete or fail")
	v.Check(in.Authentication == "" || in.PaymentMethodID == "", "authentication",
		"Send either authentication (to answer the bank) or paymentMethodId (to pay with a card), not both")
	if err := v.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.billing.ConfirmTestPayment(r.Context(), userFrom(r.Context()).user.ID, billing.TestConfirmation{
		ClientSecret: in.ClientSecret, PaymentMethodID: in.PaymentMethodID, Authentication: in.Authentication})
	s.answer(w, r, res, err)
}

// withdrawPayment closes one of the user's open payments (the card form was closed).
func (s *Server) withdrawPayment(w http.ResponseWriter, r *http.Request) {
	id, err := paymentID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.billing.WithdrawPayment(r.Context(), userFrom(r.Context()).user.ID, id)
	s.answer(w, r, billing.ViewPayment(p), err)
}

type paymentMethodInput struct {
	PaymentMethodID string `json:"paymentMethodId"`
}

// updatePaymentMethod replaces the card on file.
func (s *Server) updatePaymentMethod(w http.ResponseWriter, r *http.Request) {
	var in paymentMethodInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	v, err := s.billing.UpdateCard(r.Context(), userFrom(r.Context()).user.ID, in.PaymentMethodID)
	s.answer(w, r, v, err)
}

type overageLimitView struct {
	OverageLimit *float64 `json:"overageLimit"`
}

func (s *Server) getOverageLimit(w http.ResponseWriter, r *http.Request) {
	limit, err := s.billing.OverageLimit(r.Context(), userFrom(r.Context()).user.ID)
	s.answer(w, r, overageLimitView{OverageLimit: billing.DollarsPtr(limit)}, err)
}

func (s *Server) setOverageLimit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Limit json.RawMessage `json:"limit"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	cents, err := s.billing.SetOverageLimit(r.Context(), userFrom(r.Context()).user.ID, in.Limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, overageLimitView{OverageLimit: billing.DollarsPtr(cents)})
}
