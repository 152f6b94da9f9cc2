package server

// The support chat's limits (issue 36): the per-account message limits and the conversation's size cap (M-3), polls
// that carry only newer messages (M-3), and text-direction controls refused in messages and operators' reasons
// (L-3). End to end on both databases; time is the harness's clock, moved forward, never slept.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"valuator/internal/testdb"
)

// storedMessages counts every support message in the database, the customer's and the team's.
func (a *testApp) storedMessages() int {
	a.t.Helper()
	var n int
	if err := a.db.SQL().QueryRow(`SELECT COUNT(*) FROM support_messages`).Scan(&n); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// chat posts a customer's message.
func (a *testApp) chat(token, body string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/support/messages", token: token, body: map[string]any{"body": body}})
}

// expectChatLimited checks a 429 of the chat: the one error shape, Retry-After as the body says, and a sentence
// that says when the customer can write again.
func expectChatLimited(t *testing.T, r resp, retryAfter int, says string) {
	t.Helper()
	expectStatus(t, r, http.StatusTooManyRequests)
	e := r.errBody(t)
	if e.Code != "rate_limited" || e.RetryAfter != retryAfter || r.header.Get("Retry-After") != strconv.Itoa(retryAfter) ||
		!strings.Contains(e.Error, says) {
		t.Fatalf("429 %s (Retry-After %q), want retryAfter %d and %q", r.body, r.header.Get("Retry-After"), retryAfter, says)
	}
}

// TestSupportChatMinuteLimit: an account writes 10 messages in a minute; the 11th is 429, says when it can write
// again and is not stored; once the first message is a minute old it can write again. The operators' replies are
// not limited.
func TestSupportChatMinuteLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		customer, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")

		for i := range 10 {
			r := a.chat(customer, fmt.Sprintf("Message %d", i+1))
			expectStatus(t, r, http.StatusOK)
			a.clock.Advance(time.Second)
		}
		// 10 s after the first: it leaves the minute in 50 s.
		expectChatLimited(t, a.chat(customer, "Message 11"), 50,
			"You have sent 10 messages in the last minute, the most the support chat takes. You can write again in 50 seconds.")
		if n := a.storedMessages(); n != 10 {
			t.Fatalf("%d messages stored after a refused 11th, want 10", n)
		}
		a.clock.Advance(49 * time.Second)
		expectChatLimited(t, a.chat(customer, "Message 11"), 1, "You can write again in 1 second.")
		a.clock.Advance(time.Second)
		expectStatus(t, a.chat(customer, "Message 11"), http.StatusOK)
		// The second message is still in the minute: the next one waits for it.
		expectChatLimited(t, a.chat(customer, "Message 12"), 1, "in 1 second.")

		// The team answers as often as it needs to.
		r := a.do(req{method: "GET", path: "/api/admin/support", token: op})
		expectStatus(t, r, http.StatusOK)
		convID := decodeAdmin[[]struct{ ID int64 }](t, r).Data[0].ID
		for i := range 15 {
			expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/reply", convID),
				token: op, body: map[string]any{"body": fmt.Sprintf("Reply %d", i+1)}}), http.StatusOK)
		}
		if n := a.storedMessages(); n != 26 {
			t.Errorf("%d messages stored, want 11 of the customer's and 15 replies", n)
		}
	})
}

// TestSupportChatDayLimit: 200 messages paced under the minute's limit (one every 6 s) fill the day; the 201st is
// 429 until the first is 24 hours old, and is not stored.
func TestSupportChatDayLimit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		customer, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		for i := range 200 {
			expectStatus(t, a.chat(customer, fmt.Sprintf("Line %d", i+1)), http.StatusOK)
			a.clock.Advance(6 * time.Second)
		}
		// 200 × 6 s = 20 minutes after the first message, which leaves the day in 23 h 40 min.
		expectChatLimited(t, a.chat(customer, "Line 201"), 23*3600+40*60,
			"You have sent 200 messages in the last 24 hours, the most the support chat takes. You can write again in 23 hours 40 minutes.")
		if n := a.storedMessages(); n != 200 {
			t.Fatalf("%d messages stored after a refused 201st, want 200", n)
		}
		a.clock.Advance(23*time.Hour + 39*time.Minute)
		expectChatLimited(t, a.chat(customer, "Line 201"), 60, "You can write again in 60 seconds.")
		a.clock.Advance(time.Minute)
		expectStatus(t, a.chat(customer, "Line 201"), http.StatusOK)
		// The second message, sent 6 s after the first, holds the next one back for 6 s.
		expectChatLimited(t, a.chat(customer, "Line 202"), 6, "in the last 24 hours")
		if n := a.storedMessages(); n != 201 {
			t.Errorf("%d messages stored, want 201", n)
		}
	})
}

// TestSupportConversationCap: a conversation keeps at most 100,000 characters. A message longer than the room left
// is refused (409 conversation_full naming body) and one that fits is stored; a full conversation refuses even one
// character, but the team can still answer it, and once closed the customer's next message opens a new one.
func TestSupportConversationCap(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		customer, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		post := func(body string) resp {
			t.Helper()
			a.clock.Advance(7 * time.Second) // under the minute's limit
			return a.chat(customer, body)
		}
		// 24 messages of 4,000 characters (some of them not ASCII: characters are counted, not bytes), then 3,000.
		for range 24 {
			expectStatus(t, post(strings.Repeat("é", 2000)+strings.Repeat("x", 2000)), http.StatusOK)
		}
		expectStatus(t, post(strings.Repeat("y", 3000)), http.StatusOK)
		full := func(r resp, says string) {
			t.Helper()
			e := expectField(t, r, http.StatusConflict, "body")
			if e.Code != "conversation_full" || !strings.Contains(e.Error, says) {
				t.Fatalf("answer %s, want conversation_full saying %q", r.body, says)
			}
		}
		full(post(strings.Repeat("z", 1001)), "body is 1,001 characters, and this conversation has room for 1,000 more")
		expectStatus(t, post(strings.Repeat("z", 1000)), http.StatusOK)
		full(post("x"), "This conversation is full: a conversation keeps at most 500 messages and 100,000 characters.")
		if n := a.storedMessages(); n != 26 {
			t.Fatalf("%d messages stored, want 26", n)
		}

		r := a.do(req{method: "GET", path: "/api/admin/support", token: op})
		expectStatus(t, r, http.StatusOK)
		conv := decodeAdmin[[]struct{ ID int64 }](t, r).Data[0].ID
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/reply", conv),
			token: op, body: map[string]any{"body": "We have read all of it; closing this one."}}), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/admin/support/conversations/%d/close", conv),
			token: op}), http.StatusOK)
		expectStatus(t, post("A new question"), http.StatusOK)
		r = a.do(req{method: "GET", path: "/api/support", token: customer})
		expectStatus(t, r, http.StatusOK)
		got := decodeAdmin[struct {
			Conversation struct {
				ID       int64
				Messages []struct{ Body string }
			}
		}](t, r).Data.Conversation
		if got.ID == conv || len(got.Messages) != 1 || got.Messages[0].Body != "A new question" {
			t.Errorf("after closing the full conversation: %s", r.body)
		}
	})
}

// TestSupportPollsAfter: the customer's poll (GET /api/support/messages) and the operator's conversation
// (GET /api/admin/support/conversations/{id}) with after carry only the newer messages; bad after values are 400
// naming after on both routes, never a 500.
func TestSupportPollsAfter(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		customer, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var ids []int64
		for _, body := range []string{"one", "two", "three"} {
			r := a.chat(customer, body)
			expectStatus(t, r, http.StatusOK)
			ids = append(ids, decodeAdmin[struct{ ID int64 }](t, r).Data.ID)
		}
		r := a.do(req{method: "GET", path: "/api/admin/support", token: op})
		expectStatus(t, r, http.StatusOK)
		conv := fmt.Sprintf("/api/admin/support/conversations/%d", decodeAdmin[[]struct{ ID int64 }](t, r).Data[0].ID)
		r = a.do(req{method: "POST", path: conv + "/reply", token: op, body: map[string]any{"body": "four"}})
		expectStatus(t, r, http.StatusOK)
		ids = append(ids, decodeAdmin[struct{ ID int64 }](t, r).Data.ID)

		bodies := func(ms []struct{ Body string }) string {
			out := []string{}
			for _, m := range ms {
				out = append(out, m.Body)
			}
			return strings.Join(out, ",")
		}
		for _, tt := range []struct {
			after string
			want  string
		}{
			{"", "one,two,three,four"},
			{"0", "one,two,three,four"},
			{"000", "one,two,three,four"},
			{strconv.FormatInt(ids[1], 10), "three,four"},
			{strconv.FormatInt(ids[3], 10), ""},
			{"9223372036854775807", ""},
		} {
			q := ""
			if tt.after != "" {
				q = "?after=" + tt.after
			}
			r := a.do(req{method: "GET", path: "/api/support/messages" + q, token: customer})
			expectStatus(t, r, http.StatusOK)
			if got := bodies(decodeAdmin[[]struct{ Body string }](t, r).Data); got != tt.want {
				t.Errorf("customer's poll after %q: %q, want %q", tt.after, got, tt.want)
			}
			r = a.do(req{method: "GET", path: conv + q, token: op})
			expectStatus(t, r, http.StatusOK)
			c := decodeAdmin[struct {
				Status   string
				Messages []struct{ Body string }
			}](t, r).Data
			if got := bodies(c.Messages); got != tt.want || c.Status != "open" {
				t.Errorf("operator's conversation after %q: %q (status %q), want %q", tt.after, got, c.Status, tt.want)
			}
		}

		for _, bad := range []string{"-1", "abc", "1.5", "+5", "0x10", "%205", "1%00", "%00",
			"9223372036854775808", "99999999999999999999999999"} {
			for _, rq := range []req{
				{method: "GET", path: "/api/support/messages?after=" + bad, token: customer},
				{method: "GET", path: conv + "?after=" + bad, token: op},
			} {
				t.Run(rq.path, func(t *testing.T) {
					rq.badRequest = true
					e := expectField(t, a.do(rq), http.StatusBadRequest, "after")
					if !strings.Contains(e.Error, "after must be the id of the last message shown") {
						t.Errorf("message %q", e.Error)
					}
				})
			}
		}
	})
}

// TestSupportBidiControlsRefused: text-direction controls are refused, 400 naming the field, in a customer's
// message (POST /api/support/messages), an operator's reply (POST /api/admin/support/conversations/{id}/reply) and
// an operator's reason for the audit log (POST /api/admin/accounts/{id}/credits, /suspend, /close and
// /payments/{paymentId}/refund); nothing is stored. A reason over two lines is still taken.
func TestSupportBidiControlsRefused(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		op, _ := a.operator("olive@valuator.test")
		customer, cust := a.register("jane@example.com", "correct-horse", "Jane Doe")
		acct := fmt.Sprintf("/api/admin/accounts/%d", cust.ID)
		r := a.chat(customer, "Hello")
		expectStatus(t, r, http.StatusOK)
		r = a.do(req{method: "GET", path: "/api/admin/support", token: op})
		expectStatus(t, r, http.StatusOK)
		conv := fmt.Sprintf("/api/admin/support/conversations/%d", decodeAdmin[[]struct{ ID int64 }](t, r).Data[0].ID)
		const bidi = "must not contain text-direction control characters"

		for _, tt := range []struct {
			name  string
			rq    req
			field string
		}{
			{"message with a right-to-left override", req{method: "POST", path: "/api/support/messages", token: customer,
				body: map[string]any{"body": "Refund me \u202e001$ gnitiaw"}}, "body"},
			{"message with an isolate", req{method: "POST", path: "/api/support/messages", token: customer,
				body: map[string]any{"body": "see \u2067invoice\u2069"}}, "body"},
			{"message with an embedding", req{method: "POST", path: "/api/support/messages", token: customer,
				body: map[string]any{"body": "\u202bhello\u202c"}}, "body"},
			{"reply with a left-to-right override", req{method: "POST", path: conv + "/reply", token: op,
				body: map[string]any{"body": "Done \u202dtoday"}}, "body"},
			{"credit reason with a right-to-left override", req{method: "POST", path: acct + "/credits", token: op,
				body: map[string]any{"amount": 500, "reason": "Goodwill \u202e005 rof"}}, "reason"},
			{"suspension reason with an isolate", req{method: "POST", path: acct + "/suspend", token: op,
				body: map[string]any{"reason": "Fraud \u2066confirmed\u2069"}}, "reason"},
			{"closure reason with a first-strong isolate", req{method: "POST", path: acct + "/close", token: op,
				body: map[string]any{"reason": "Asked \u2068by email"}}, "reason"},
			{"refund reason with a right-to-left override", req{method: "POST", path: acct + "/payments/1/refund", token: op,
				body: map[string]any{"reason": "Duplicate \u202echarge"}}, "reason"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				e := expectField(t, a.do(tt.rq), http.StatusBadRequest, tt.field)
				if want := tt.field + " " + bidi; e.Fields[tt.field] != want {
					t.Errorf("message %q, want %q", e.Fields[tt.field], want)
				}
			})
		}
		if n := a.storedMessages(); n != 1 {
			t.Errorf("%d messages stored, want only the first", n)
		}
		if rows := a.audit(op, cust.ID); len(rows) != 0 {
			t.Errorf("audit rows after refused reasons: %+v", rows)
		}
		// A reason on two lines, and a message with a right-to-left mark (which names and messages in Hebrew or
		// Arabic use), are fine.
		expectStatus(t, a.do(req{method: "POST", path: acct + "/credits", token: op,
			body: map[string]any{"amount": 5, "reason": "Goodwill:\nthe outage of March 1"}}), http.StatusOK)
		expectStatus(t, a.chat(customer, "\u05e9\u05dc\u05d5\u05dd\u200f"), http.StatusOK)
		if rows := a.audit(op, cust.ID); len(rows) != 1 || rows[0].Reason != "Goodwill:\nthe outage of March 1" {
			t.Errorf("audit: %+v", rows)
		}
	})
}
