package notify

import (
	"context"
	"errors"
	"testing"
	"time"

	"valuator/internal/mail"
)

// memOutbox is an outbox in memory, to see what the deliverer decides for each mail.
type memOutbox struct {
	due      []Queued
	done     map[int64]string
	retryAt  map[int64]time.Time
	problems map[int64]string
}

func (o *memOutbox) ClaimMail(_ context.Context, _ time.Time, _ time.Duration, limit int) ([]Queued, error) {
	n := min(limit, len(o.due))
	out := o.due[:n]
	o.due = o.due[n:]
	return out, nil
}

func (o *memOutbox) MailDone(_ context.Context, id int64, outcome string, _ time.Time) error {
	o.done[id] = outcome
	return nil
}

func (o *memOutbox) MailRetry(_ context.Context, id int64, problem string, next time.Time) error {
	o.retryAt[id], o.problems[id] = next, problem
	return nil
}

type refusingSender struct{ sent []mail.Message }

func (s *refusingSender) Send(_ context.Context, m mail.Message) error {
	if m.To == "down@example.com" {
		return errors.New("451 try again later")
	}
	s.sent = append(s.sent, m)
	return nil
}

// TestDeliverDecidesEachMail: a mail whose switch is off, whose account is closed or that went stale is not sent;
// one the server refuses is put back with a backoff until its last attempt, then given up; the rest are sent. A
// mail under no switch (the sign-in alert, a security notice) is sent with the switches off.
func TestDeliverDecidesEachMail(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	signIn := NewSignIn(7, Device{Hash: "h", Family: "Firefox on Linux", Network: "198.51.100.0/24"}, now)
	q := func(id int64, mut func(*Queued)) Queued {
		m := Queued{ID: id, Kind: signIn.Kind, UserID: 7, Topic: TopicAccount, Payload: signIn.Payload, CreatedAt: now,
			Attempts: 1, AccountEmail: "jane@example.com", FullName: "Jane", Open: true, Wanted: true}
		mut(&m)
		return m
	}
	ob := &memOutbox{done: map[int64]string{}, retryAt: map[int64]time.Time{}, problems: map[int64]string{}}
	ob.due = []Queued{
		q(1, func(*Queued) {}),
		q(2, func(m *Queued) { m.Wanted = false }),
		q(3, func(m *Queued) { m.Open = false }),
		q(4, func(m *Queued) { m.CreatedAt = now.Add(-8 * 24 * time.Hour) }),
		q(5, func(m *Queued) { m.AccountEmail = "down@example.com"; m.Attempts = 3 }),
		q(6, func(m *Queued) { m.AccountEmail = "down@example.com"; m.Attempts = MaxAttempts }),
		q(7, func(m *Queued) { m.Kind = "no_such_kind" }),
		q(8, func(m *Queued) { m.Topic, m.Wanted = signIn.Topic, false }),
	}
	s := &refusingSender{}
	d := &Deliverer{Outbox: ob, Sender: s, Links: Links{BaseURL: "https://v.test"}, Now: func() time.Time { return now }}
	sent, err := d.Deliver(context.Background())
	if err != nil || sent != 2 || len(s.sent) != 2 {
		t.Fatalf("Deliver = %d, %v (%d sent); want 2", sent, err, len(s.sent))
	}
	want := map[int64]string{1: "sent", 8: "sent", 2: "off", 3: "closed", 4: "expired", 6: "failed: 451 try again later",
		7: `failed: mail 7: unknown kind "no_such_kind"`}
	for id, w := range want {
		if ob.done[id] != w {
			t.Errorf("mail %d: %q, want %q", id, ob.done[id], w)
		}
	}
	if _, done := ob.done[5]; done || !ob.retryAt[5].Equal(now.Add(4*time.Minute)) || ob.problems[5] == "" {
		t.Errorf("mail 5 (third attempt refused): done %v, retry at %v (%q); want a retry in 4 minutes", done,
			ob.retryAt[5], ob.problems[5])
	}
}

// TestMoneyMailsNeverGoStale: a week-old notice of a refund or a receipt delayed by a mail server that was down is
// still sent (it is still true), unlike a week-old sign-in alert; a receipt goes with the switch off, a notice does
// not.
func TestMoneyMailsNeverGoStale(t *testing.T) {
	now := time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)
	old := now.Add(-8 * 24 * time.Hour)
	refund := NewRefund(7, Refund{PaymentID: 3, Description: "Basic plan, first month", RefundedCents: 3000,
		PaidCents: 3000, Full: true, Plan: "basic", At: old})
	receipt := NewReceipt(7, Receipt{PaymentID: 3, Kind: "subscription", Plan: "basic", AmountCents: 3000, PaidAt: old})
	q := func(id int64, m Mail, wanted bool) Queued {
		return Queued{ID: id, Kind: m.Kind, UserID: 7, Topic: m.Topic, Payload: m.Payload, CreatedAt: m.CreatedAt,
			Attempts: 1, AccountEmail: "jane@example.com", FullName: "Jane", Open: true, Wanted: wanted}
	}
	ob := &memOutbox{done: map[int64]string{}, retryAt: map[int64]time.Time{}, problems: map[int64]string{}}
	ob.due = []Queued{q(1, refund, true), q(2, receipt, false), q(3, refund, false)}
	s := &refusingSender{}
	d := &Deliverer{Outbox: ob, Sender: s, Links: Links{BaseURL: "https://v.test"}, Now: func() time.Time { return now }}
	if _, err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := map[int64]string{1: "sent", 2: "sent", 3: "off"}; len(ob.done) != 3 || ob.done[1] != want[1] ||
		ob.done[2] != want[2] || ob.done[3] != want[3] {
		t.Errorf("outcomes %v, want %v", ob.done, want)
	}
	if receipt.Topic != "" || refund.Topic != TopicAccount || receipt.Key != "receipt:3" || refund.Key != "refund:3:3000" {
		t.Errorf("receipt %q/%q, refund %q/%q", receipt.Topic, receipt.Key, refund.Topic, refund.Key)
	}
}
