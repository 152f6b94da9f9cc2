package server

// The operators' console and the support chat (issue 27), end to end on both databases.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/config"
	"valuator/internal/credit"
	"valuator/internal/officehours"
	"valuator/internal/testdb"
)

// supportHours are the configured office hours of a test app.
func supportHours(t *testing.T, cfg config.Config) officehours.Hours {
	t.Helper()
	h, err := officehours.Parse(cfg.SupportHours)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// operator registers an account and makes it an operator, as `valuator admin add` does.
func (a *testApp) operator(email string) (string, account.User) {
	a.t.Helper()
	token, u := a.register(email, "correct-horse", "Olive Operator")
	if _, err := a.db.SetRole(context.Background(), account.EmailKey(email), account.RoleAdmin, a.clock.Now()); err != nil {
		a.t.Fatal(err)
	}
	return token, u
}

// adminAnswer is the console's success shape.
type adminAnswer[T any] struct {
	Success    bool
	Data       T
	Pagination *struct{ Page, Limit, Total, Pages int64 }
}

func decodeAdmin[T any](t *testing.T, r resp) adminAnswer[T] {
	t.Helper()
	var out adminAnswer[T]
	r.json(t, &out)
	if !out.Success {
		t.Fatalf("answer %s lacks success: true", r.body)
	}
	return out
}

type auditRow struct {
	ID            int64
	AdminID       *int64
	AdminEmail    *string
	Action        string
	AccountID     *int64
	AccountEmail  *string
	Reason        string
	Before, After map[string]any
}

// audit is the operators' audit log of an account, newest first.
func (a *testApp) audit(token string, accountID int64) []auditRow {
	a.t.Helper()
	r := a.do(req{method: "GET", path: fmt.Sprintf("/api/admin/audit?accountId=%d&limit=100", accountID), token: token})
	expectStatus(a.t, r, http.StatusOK)
	return decodeAdmin[[]auditRow](a.t, r).Data
}

// TestAdminRoutesRefuseOthers walks every /api/admin/ route the server registers (read from its route table, so a
// route added later is covered without a change here): without a session 401, as a signed-in customer 403
// "forbidden", and never anything else.
func TestAdminRoutesRefuseOthers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		customer, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var routes []route
		for _, rt := range (&Server{}).routeTable() {
			if strings.HasPrefix(rt.pattern, "/api/admin/") {
				routes = append(routes, rt)
			}
		}
		if len(routes) < 18 {
			t.Fatalf("found %d admin routes; the route table lists 18", len(routes))
		}
		for _, rt := range routes {
			path := rt.pattern
			for _, p := range []string{"{id}", "{paymentId}"} {
				path = strings.ReplaceAll(path, p, "1")
			}
			var body any
			if rt.method == "POST" {
				body = map[string]any{"reason": "because", "amount": 5, "body": "hello"}
			}
			for _, who := range []struct {
				name, token string
				status      int
				code        string
			}{
				{"anonymous", "", http.StatusUnauthorized, "unauthorized"},
				{"customer", customer, http.StatusForbidden, "forbidden"},
			} {
				t.Run(who.name+" "+rt.method+" "+rt.pattern, func(t *testing.T) {
					r := a.do(req{method: rt.method, path: path, token: who.token, body: body})
					expectStatus(t, r, who.status)
					if e := r.errBody(t); e.Code != who.code {
						t.Errorf("code %q, want %q", e.Code, who.code)
					}
				})
			}
		}
	})
}

type adminLedgerRow struct {
	ID, Amount, BalanceAfter     int64
	Kind, Description, Reference string
}

type adminDetail struct {
	Account struct {
		ID                  int64
		Email, Role, Status string
	}
	Balance  struct{ Credits int64 }
	Ledger   []adminLedgerRow
	Payments []struct {
		ID          int64
		Status      string
		Credits     int64
		AmountCents int64
		Refundable  bool
	}
	BatchJobs []struct {
		ID     int64
		Status string
		Held   bool
	}
}

func (a *testApp) accountDetail(token string, id int64) adminDetail {
	a.t.Helper()
	r := a.do(req{method: "GET", path: fmt.Sprintf("/api/admin/accounts/%d", id), token: token})
	expectStatus(a.t, r, http.StatusOK)
	return decodeAdmin[adminDetail](a.t, r).Data
}

// TestAdminCreditsAndRefund: a grant and a deduction are ledger rows of their own kind naming the operator and
// the reason, each with an audit row; a refund of a paid payment marks it refunded, takes its credits back through
// the ledger and is audited; a second refund, a deduction below zero and bad input are refused.
func TestAdminCreditsAndRefund(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, opUser := a.operator("olive@valuator.test")
		customer, cust := subscribed(t, a, "pat@example.com", "basic", "4242424242424242")

		// Search finds the customer by part of the email, case-insensitively.
		r := a.do(req{method: "GET", path: "/api/admin/accounts?q=PAT%40EXAMPLE", token: op})
		expectStatus(t, r, http.StatusOK)
		found := decodeAdmin[[]struct {
			ID      int64
			Status  string
			Balance struct { // the balance as every surface shows it (billing.BalanceOf), not the ledger's figure
				PlanType         string
				Credits          int64
				OverageRateCents *int64
			}
		}](t, r)
		if len(found.Data) != 1 || found.Data[0].ID != cust || found.Data[0].Status != "active" || found.Pagination.Total != 1 {
			t.Fatalf("search: %s", r.body)
		}
		if b := found.Data[0].Balance; b.PlanType != "basic" || b.Credits != a.credits(customer) || b.OverageRateCents == nil {
			t.Errorf("the row's balance %+v, want the Balance of a basic account with %d credits", b, a.credits(customer))
		}

		before := a.credits(customer)
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/credits", cust), token: op,
			body: map[string]any{"amount": 250, "reason": "Goodwill after the outage"}})
		expectStatus(t, r, http.StatusOK)
		grant := decodeAdmin[struct {
			Balance struct{ Credits int64 }
			Entry   adminLedgerRow
		}](t, r).Data
		if grant.Entry.Kind != credit.KindAdminAdjustment || grant.Entry.Amount != 250 ||
			grant.Entry.BalanceAfter != before+250 ||
			grant.Entry.Description != "Adjustment by olive@valuator.test: Goodwill after the outage" {
			t.Fatalf("grant entry %+v (balance before %d)", grant.Entry, before)
		}
		if got := a.credits(customer); got != before+250 {
			t.Fatalf("balance %d after the grant, want %d", got, before+250)
		}
		// The customer's own ledger shows it too.
		if rows := a.ledger(customer); !hasRow(rows, credit.KindAdminAdjustment, 250) {
			t.Errorf("customer's ledger lacks the adjustment: %+v", rows)
		}

		// A deduction below zero is refused and changes nothing.
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/credits", cust), token: op,
			body: map[string]any{"amount": -(before + 251), "reason": "Too much"}})
		expectField(t, r, http.StatusConflict, "amount")
		if e := r.errBody(t); e.Code != "insufficient_credits" {
			t.Errorf("code %q", e.Code)
		}
		if got := a.credits(customer); got != before+250 {
			t.Fatalf("balance %d after a refused deduction", got)
		}

		// The refund of the paid subscription payment.
		d := a.accountDetail(op, cust)
		if len(d.Payments) != 1 || d.Payments[0].Status != "succeeded" || !d.Payments[0].Refundable {
			t.Fatalf("payments: %+v", d.Payments)
		}
		pay := d.Payments[0]
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/payments/%d/refund", cust, pay.ID), token: op,
			body: map[string]any{"reason": "Charged twice by mistake"}})
		expectStatus(t, r, http.StatusOK)
		ref := decodeAdmin[struct {
			Payment struct {
				Status     string
				Refundable bool
			}
			Balance struct{ Credits int64 }
		}](t, r).Data
		if ref.Payment.Status != "refunded" || ref.Payment.Refundable {
			t.Fatalf("refund answer: %s", r.body)
		}
		if rows := a.ledger(customer); !hasRow(rows, credit.KindRefund, -pay.Credits) {
			t.Errorf("no refund row of -%d: %+v", pay.Credits, rows)
		}
		if got := a.credits(customer); got != before+250-pay.Credits {
			t.Errorf("balance %d after the refund, want %d", got, before+250-pay.Credits)
		}
		if ps := a.paymentsOf(customer); len(ps) != 1 || ps[0].Status != "refunded" {
			t.Errorf("customer's payments: %+v", ps)
		}
		// Refunded once: a second refund is a conflict.
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/payments/%d/refund", cust, pay.ID), token: op,
			body: map[string]any{"reason": "Again"}})
		expectStatus(t, r, http.StatusConflict)

		// The audit log has both actions, newest first, with the operator, the reason, before and after.
		rows := a.audit(op, cust)
		if len(rows) != 2 || rows[0].Action != "refund" || rows[1].Action != "credit_adjustment" {
			t.Fatalf("audit: %+v", rows)
		}
		adj := rows[1]
		if *adj.AdminID != opUser.ID || *adj.AdminEmail != "olive@valuator.test" || *adj.AccountEmail != "pat@example.com" ||
			adj.Reason != "Goodwill after the outage" || adj.Before["balance"] != float64(before) ||
			adj.After["balance"] != float64(before+250) {
			t.Errorf("adjustment's audit row: %+v", adj)
		}
		if rows[0].Before["status"] != "succeeded" || rows[0].After["status"] != "refunded" {
			t.Errorf("refund's audit row: %+v", rows[0])
		}
		// An operator cannot lock themselves out: suspending or closing their own account is refused.
		for _, action := range []string{"suspend", "close"} {
			r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/%s", opUser.ID, action), token: op,
				body: map[string]any{"reason": "Trying it on myself"}})
			if e := expectField(t, r, http.StatusConflict, ""); e.Code != "invalid_state" {
				t.Errorf("%s of the operator's own account: code %q", action, e.Code)
			}
		}
		// Nor another operator (issue 36, M-2): one operator could lock every other out, and only SQL undid it. The
		// role is taken away on the command line first; the second operator stays active and can sign in.
		op2, op2User := a.operator("otto@valuator.test")
		for _, action := range []string{"suspend", "close"} {
			r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/%s", op2User.ID, action), token: op,
				body: map[string]any{"reason": "Rival operator"}})
			if e := expectField(t, r, http.StatusConflict, ""); e.Code != "invalid_state" ||
				!strings.Contains(e.Error, "valuator admin remove otto@valuator.test") {
				t.Errorf("%s of another operator: %+v", action, e)
			}
		}
		if r = a.do(req{method: "GET", path: "/api/admin/accounts", token: op2}); r.status != http.StatusOK {
			t.Errorf("the other operator after the refused suspension: status %d", r.status)
		}
		// No operator changes their own credits (issue 36, L-1: one granted themselves credits without limit); another
		// operator can, audited under their name.
		own := a.credits(op)
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/credits", opUser.ID), token: op,
			body: map[string]any{"amount": 100000, "reason": "For me"}})
		if e := expectField(t, r, http.StatusConflict, ""); e.Code != "invalid_state" || !strings.Contains(e.Error, "another operator") {
			t.Errorf("an operator's grant to themselves: %+v", e)
		}
		if got := a.credits(op); got != own {
			t.Errorf("the operator's balance %d after a refused grant to themselves, want %d", got, own)
		}
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/credits", opUser.ID), token: op2,
			body: map[string]any{"amount": 10, "reason": "Testing the console"}})
		expectStatus(t, r, http.StatusOK)
		if got := a.credits(op); got != own+10 {
			t.Errorf("the operator's balance %d after another operator's grant, want %d", got, own+10)
		}
		// Unknown account and payment.
		r = a.do(req{method: "GET", path: "/api/admin/accounts/999999", token: op})
		if e := expectField(t, r, http.StatusNotFound, ""); e.Code != "account_not_found" {
			t.Errorf("code %q", e.Code)
		}
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/payments/999999/refund", cust), token: op,
			body: map[string]any{"reason": "No such payment"}})
		expectStatus(t, r, http.StatusNotFound)
	})
}

// TestAdminBadInput: every POST of the console and the chat answers bad input with 400 naming the field, never 500,
// and lists are bounded (a huge page is an empty page, not an error).
func TestAdminBadInput(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) { o.holdJobs = true })
	op, _ := a.operator("olive@valuator.test")
	customer, cust := a.register("jane@example.com", "correct-horse", "Jane Doe")
	acct := fmt.Sprintf("/api/admin/accounts/%d", cust.ID)
	long := strings.Repeat("x", 501)
	for _, tt := range []struct {
		name  string
		rq    req
		field string
	}{
		{"amount 0", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": 0, "reason": "ok ok"}}, "amount"},
		{"amount too large", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": 1_000_001, "reason": "ok ok"}}, "amount"},
		{"amount not whole", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": 1.5, "reason": "ok ok"}}, "amount"},
		{"amount a string", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": "5", "reason": "ok ok"}}, "amount"},
		{"no reason", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": 5}}, "reason"},
		{"reason too short", req{method: "POST", path: acct + "/credits", body: map[string]any{"amount": 5, "reason": "  x "}}, "reason"},
		{"reason too long", req{method: "POST", path: acct + "/suspend", body: map[string]any{"reason": long}}, "reason"},
		{"reason with NUL", req{method: "POST", path: acct + "/suspend", body: map[string]any{"reason": "bad\x00actor"}}, "reason"},
		{"reinstate without reason", req{method: "POST", path: acct + "/reinstate", body: map[string]any{}}, "reason"},
		{"close without reason", req{method: "POST", path: acct + "/close", body: map[string]any{"reason": ""}}, "reason"},
		{"refund without reason", req{method: "POST", path: acct + "/payments/1/refund", body: map[string]any{}}, "reason"},
		{"id not a number", req{method: "POST", path: "/api/admin/accounts/abc/suspend", body: map[string]any{"reason": "abuse"}}, "id"},
		{"id 0", req{method: "GET", path: "/api/admin/accounts/0"}, "id"},
		{"id past int64", req{method: "GET", path: "/api/admin/accounts/99999999999999999999"}, "id"},
		{"page 0", req{method: "GET", path: "/api/admin/accounts?page=0"}, "page"},
		{"limit 101", req{method: "GET", path: "/api/admin/audit?limit=101"}, "limit"},
		{"query with NUL", req{method: "GET", path: "/api/admin/accounts?q=a%00b"}, "q"},
		{"days 0", req{method: "GET", path: "/api/admin/overview?days=0"}, "days"},
		{"days 366", req{method: "GET", path: "/api/admin/overview?days=366"}, "days"},
		{"outcome", req{method: "GET", path: "/api/admin/person-audits?outcome=maybe"}, "outcome"},
		{"flagged", req{method: "GET", path: "/api/admin/person-audits?flagged=yes"}, "flagged"},
		{"to before from", req{method: "GET", path: "/api/admin/person-audits?from=2026-03-02&to=2026-03-01"}, "to"},
		{"inbox status", req{method: "GET", path: "/api/admin/support?status=spam"}, "status"},
		{"empty reply", req{method: "POST", path: "/api/admin/support/conversations/1/reply", body: map[string]any{"body": "  "}}, "body"},
		{"reply too long", req{method: "POST", path: "/api/admin/support/conversations/1/reply",
			body: map[string]any{"body": strings.Repeat("y", 4001)}}, "body"},
		{"customer's empty message", req{method: "POST", path: "/api/support/messages", token: customer,
			body: map[string]any{"body": ""}}, "body"},
		{"customer's message with NUL", req{method: "POST", path: "/api/support/messages", token: customer,
			body: map[string]any{"body": "hi\x00"}}, "body"},
		{"customer's message not a string", req{method: "POST", path: "/api/support/messages", token: customer,
			body: map[string]any{"body": 5}}, "body"},
		{"poll after -1", req{method: "GET", path: "/api/support/messages?after=-1", token: customer}, "after"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rq := tt.rq
			if rq.token == "" {
				rq.token = op
			}
			rq.badRequest = true
			expectField(t, a.do(rq), http.StatusBadRequest, tt.field)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		r := a.do(req{method: "POST", path: acct + "/credits", token: op, raw: "amount=5", contentType: "text/plain",
			badRequest: true})
		expectStatus(t, r, http.StatusUnsupportedMediaType)
	})
	t.Run("a huge page is empty", func(t *testing.T) {
		for _, p := range []string{"/api/admin/accounts", "/api/admin/audit", "/api/admin/person-audits", "/api/admin/opt-outs",
			"/api/admin/support"} {
			r := a.do(req{method: "GET", path: p + "?page=9223372036854775807&limit=100", token: op})
			expectStatus(t, r, http.StatusOK)
			if got := decodeAdmin[[]any](t, r); len(got.Data) != 0 {
				t.Errorf("%s: %s", p, r.body)
			}
		}
	})
}

// TestSuspendedAccount: a suspended account's sign-in, session and API key answer 403 account_suspended; its batch
// job waits, held, and runs once the account is reinstated; its data is kept throughout.
func TestSuspendedAccount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		key := a.createKey(token, "Production", 60)
		job := a.createRowsJob(token, 3)

		r := a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/suspend", u.ID), token: op,
			body: map[string]any{"reason": "Chargeback fraud"}})
		expectStatus(t, r, http.StatusOK)
		if acct := decodeAdmin[struct{ Status string }](t, r).Data; acct.Status != "suspended" {
			t.Fatalf("status %q", acct.Status)
		}

		suspended := func(t *testing.T, r resp) {
			t.Helper()
			expectStatus(t, r, http.StatusForbidden)
			if e := r.errBody(t); e.Code != "account_suspended" || !strings.Contains(e.Error, "suspended") {
				t.Errorf("answer %s", r.body)
			}
		}
		suspended(t, a.do(withKey(req{method: "GET", path: "/api/v1/property/valuation?address=3000+Test+Ave+N&city=Seattle&state=WA&zip=98103"}, key.Value)))
		suspended(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}))
		suspended(t, a.login("jane@example.com", "correct-horse"))
		// A wrong password is still just wrong: the answer tells nothing of the account to a stranger.
		expectStatus(t, a.login("jane@example.com", "wrong-horse-x"), http.StatusUnauthorized)

		// The job is held: the workers start and leave it alone.
		a.startJobs()
		time.Sleep(1500 * time.Millisecond)
		d := a.accountDetail(op, u.ID)
		if len(d.BatchJobs) != 1 || !d.BatchJobs[0].Held || d.BatchJobs[0].Status != "pending" {
			t.Fatalf("batch jobs while suspended: %+v", d.BatchJobs)
		}

		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/reinstate", u.ID), token: op,
			body: map[string]any{"reason": "Bank confirmed the payment"}})
		expectStatus(t, r, http.StatusOK)
		done := a.waitJob(token, job.ID, "completed", "failed")
		if done.Status != "completed" || done.SuccessfulProperties != 3 {
			t.Fatalf("job after reinstatement: %+v", done)
		}
		expectStatus(t, a.do(withKey(req{method: "GET", path: "/api/v1/property/valuation?address=3000+Test+Ave+N&city=Seattle&state=WA&zip=98103"}, key.Value)), http.StatusOK)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusOK)

		rows := a.audit(op, u.ID)
		if len(rows) != 2 || rows[0].Action != "reinstate" || rows[1].Action != "suspend" ||
			rows[1].After["heldJobs"] != float64(1) || rows[0].After["resumedJobs"] != float64(1) {
			t.Errorf("audit: %+v", rows)
		}

		// Closing: the account is closed, its sessions end, its records stay for the console.
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/close", u.ID), token: op,
			body: map[string]any{"reason": "Asked by email to close"}})
		expectStatus(t, r, http.StatusOK)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusUnauthorized)
		if d := a.accountDetail(op, u.ID); d.Account.Status != "closed" || len(d.BatchJobs) != 1 {
			t.Errorf("closed account: %+v", d)
		}
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/accounts/%d/suspend", u.ID), token: op,
			body: map[string]any{"reason": "Too late"}})
		expectStatus(t, r, http.StatusConflict)
	})
}

// TestSupportRoundTrip: a customer writes, an operator sees it unread first in the inbox beside a contact-form
// message, replies while the customer is looking (no email) and again after the customer went away (emailed
// through the outbox to a real SMTP server), and the customer's poll brings both replies.
func TestSupportRoundTrip(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withMail, func(o *appOptions) { o.holdJobs = true })
		rig := newMailRig(t, a)
		op, _ := a.operator("olive@valuator.test")
		customer, custUser := a.register("jane@example.com", "correct-horse", "Jane Doe")
		cust := custUser.ID

		r := a.do(req{method: "GET", path: "/api/support", token: customer})
		expectStatus(t, r, http.StatusOK)
		panel := decodeAdmin[struct {
			Hours struct {
				Text     string
				Open     bool
				NextOpen *time.Time
			}
			Conversation *struct{ ID int64 }
		}](t, r).Data
		// 2026-03-01 12:00 UTC is a Sunday: closed, opening Monday 9 AM Pacific (17:00 UTC).
		if panel.Hours.Text != "Mon–Fri 9 AM–6 PM PT" || panel.Hours.Open || panel.Conversation != nil ||
			panel.Hours.NextOpen == nil || !panel.Hours.NextOpen.Equal(time.Date(2026, 3, 2, 17, 0, 0, 0, time.UTC)) {
			t.Fatalf("panel: %s", r.body)
		}

		r = a.do(req{method: "POST", path: "/api/support/messages", token: customer,
			body: map[string]any{"body": "My batch job is stuck at 40%."}})
		expectStatus(t, r, http.StatusOK)
		first := decodeAdmin[struct {
			ID   int64
			From string
		}](t, r).Data
		// A contact-form message, older, read later.
		expectStatus(t, a.do(req{method: "POST", path: "/api/contact", body: map[string]any{"firstName": "Sam",
			"lastName": "Lee", "email": "sam@example.com", "subject": "billing", "message": "Do you invoice yearly?"}}),
			http.StatusCreated)

		type inboxItem struct {
			Type     string
			ID       int64
			Unread   bool
			Preview  string
			Subject  *string
			Assignee *struct{ Email string }
		}
		inbox := func() []inboxItem {
			r := a.do(req{method: "GET", path: "/api/admin/support?status=all", token: op})
			expectStatus(t, r, http.StatusOK)
			return decodeAdmin[[]inboxItem](t, r).Data
		}
		items := inbox()
		if len(items) != 2 || !items[0].Unread || !items[1].Unread {
			t.Fatalf("inbox: %+v", items)
		}
		var conv, contactItem inboxItem
		for _, it := range items {
			if it.Type == "conversation" {
				conv = it
			} else {
				contactItem = it
			}
		}
		if conv.Preview != "My batch job is stuck at 40%." || contactItem.Subject == nil || *contactItem.Subject != "Billing Question" {
			t.Fatalf("inbox items: %+v", items)
		}

		// Opening the conversation reads it; the contact message, still unread, now comes first.
		expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf("/api/admin/support/conversations/%d", conv.ID), token: op}), http.StatusOK)
		if items := inbox(); items[0].Type != "contact" || items[1].Unread {
			t.Errorf("inbox after reading: %+v", items)
		}
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/assign", conv.ID), token: op})
		expectStatus(t, r, http.StatusOK)

		// The customer is looking (they just wrote): the reply is not emailed.
		r = a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/reply", conv.ID), token: op,
			body: map[string]any{"body": "Looking into it now."}})
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "GET", path: fmt.Sprintf("/api/support/messages?after=%d", first.ID), token: customer})
		expectStatus(t, r, http.StatusOK)
		got := decodeAdmin[[]struct{ From, Body, AuthorName string }](t, r).Data
		if len(got) != 1 || got[0].From != "team" || got[0].Body != "Looking into it now." || got[0].AuthorName != "Olive Operator" {
			t.Fatalf("poll: %s", r.body)
		}
		if n := rig.deliver(); len(rig.received("jane@example.com", "replied")) != 0 {
			t.Fatalf("a reply to a customer who was looking was emailed (%d sent)", n)
		}

		// Three minutes without a poll: the next reply is emailed too.
		a.clock.Advance(3 * time.Minute)
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/reply", conv.ID), token: op,
			body: map[string]any{"body": "Fixed: your job has finished."}}), http.StatusOK)
		rig.deliver()
		mails := rig.received("jane@example.com", "Valuator support replied")
		if len(mails) != 1 || !strings.Contains(mails[0].Body, "Fixed: your job has finished.") {
			t.Fatalf("emails to the customer: %+v", rig.smtp.To("jane@example.com"))
		}

		r = a.do(req{method: "GET", path: "/api/support", token: customer})
		if c := decodeAdmin[struct {
			Conversation struct {
				Status   string
				Messages []struct{ From string }
			}
		}](t, r).Data.Conversation; len(c.Messages) != 3 || c.Status != "open" {
			t.Fatalf("conversation: %s", r.body)
		}

		// Closing: the customer's next message opens a new conversation.
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/close", conv.ID), token: op}), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/reply", conv.ID), token: op,
			body: map[string]any{"body": "One more thing"}}), http.StatusConflict)
		expectStatus(t, a.do(req{method: "POST", path: "/api/support/messages", token: customer,
			body: map[string]any{"body": "Another question"}}), http.StatusOK)
		if items := inbox(); len(items) != 3 {
			t.Errorf("inbox after a new conversation: %+v", items)
		}
		expectStatus(t, a.do(req{method: "GET", path: fmt.Sprintf("/api/admin/support/contact/%d", contactItem.ID), token: op}), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/contact/%d/close", contactItem.ID), token: op}), http.StatusOK)

		actions := []string{}
		for _, row := range a.audit(op, cust) {
			actions = append(actions, row.Action)
		}
		if strings.Join(actions, ",") != "support_close,support_reply,support_reply,support_assign" {
			t.Errorf("audit of the conversation: %v", actions)
		}
	})
}

// TestAdminOverviewAndCompliance: the overview and the compliance views answer from the database on both dialects.
func TestAdminOverviewAndCompliance(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		subscribed(t, a, "pat@example.com", "professional", "4242424242424242")
		r := a.do(req{method: "GET", path: "/api/admin/overview?days=7", token: op})
		expectStatus(t, r, http.StatusOK)
		o := decodeAdmin[struct {
			PayingByPlan  map[string]int64
			MRRCents      int64
			SignupsPerDay []struct {
				Date  string
				Count int64
			}
			CreditsSold int64
		}](t, r).Data
		if o.PayingByPlan["professional"] != 1 || o.MRRCents != 12500 || len(o.SignupsPerDay) != 7 ||
			o.SignupsPerDay[6].Date != "2026-03-01" || o.SignupsPerDay[6].Count != 2 || o.CreditsSold != 5000 {
			t.Errorf("overview: %s", r.body)
		}
		for _, p := range []string{"/api/admin/person-audits?flagged=true&outcome=miss&from=2026-01-01&to=2026-03-01",
			"/api/admin/opt-outs", "/api/admin/audit"} {
			expectStatus(t, a.do(req{method: "GET", path: p, token: op}), http.StatusOK)
		}
		// The profile tells the web app who is an operator.
		var me struct{ Role string }
		a.do(req{method: "GET", path: "/api/auth/user", token: op}).json(t, &me)
		if me.Role != "admin" {
			t.Errorf("role %q", me.Role)
		}
	})
}
