package server

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/testdb"
)

func TestProfile(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		jane, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		john, _ := a.register("john@example.com", "correct-horse", "John Roe")

		// Both calls return the same user object, and each token sees only its own account.
		var p1, p2 account.User
		a.do(req{method: "GET", path: "/api/user/profile", token: jane}).json(t, &p1)
		a.do(req{method: "GET", path: "/api/auth/user", token: jane}).json(t, &p2)
		if !reflect.DeepEqual(p1, p2) || p1.Email != "jane@example.com" {
			t.Errorf("profile %+v and auth user %+v differ or are not Jane's", p1, p2)
		}
		var other account.User
		a.do(req{method: "GET", path: "/api/user/profile", token: john}).json(t, &other)
		if other.Email != "john@example.com" || other.ID == p1.ID {
			t.Errorf("John's token returned %+v", other)
		}

		// Not signed in, or a forged token.
		for _, tok := range []string{"", "vs_forged", "not-even-a-token", strings.Repeat("vs_x", 100)} {
			for _, path := range []string{"/api/user/profile", "/api/auth/user"} {
				r := a.do(req{method: "GET", path: path, token: tok})
				expectStatus(t, r, http.StatusUnauthorized)
			}
		}

		// Update.
		r := a.do(req{method: "PUT", path: "/api/user/profile", token: jane,
			body: map[string]any{"fullName": " Jane Q. Doe ", "company": " Acme Realty ", "email": "Jane.Q@Example.com",
				"currentPassword": "correct-horse"}})
		expectStatus(t, r, http.StatusOK)
		var u account.User
		r.json(t, &u)
		if u.FullName != "Jane Q. Doe" || u.Company != "Acme Realty" || u.Email != "Jane.Q@Example.com" {
			t.Errorf("updated user = %+v", u)
		}
		expectStatus(t, a.login("jane.q@example.com", "correct-horse"), http.StatusOK)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusUnauthorized)
		// The old address is free again.
		a.register("jane@example.com", "correct-horse", "Another Jane")

		// Company may be null or absent.
		r = a.do(req{method: "PUT", path: "/api/user/profile", token: jane,
			body: map[string]any{"fullName": "Jane Q. Doe", "company": nil, "email": "Jane.Q@Example.com"}})
		expectStatus(t, r, http.StatusOK)
		r.json(t, &u)
		if u.Company != "" {
			t.Errorf("company = %q after null, want empty", u.Company)
		}

		// Taking John's email, in another case.
		r = a.do(req{method: "PUT", path: "/api/user/profile", token: jane,
			body: map[string]any{"fullName": "Jane", "email": "JOHN@example.com", "currentPassword": "correct-horse"}})
		expectStatus(t, r, http.StatusConflict)
		if e := r.errBody(t); e.Field != "email" || e.Code != "email_taken" {
			t.Errorf("409 = %+v", e)
		}

		for _, tt := range []struct {
			name       string
			body       map[string]any
			field, msg string
		}{
			{"short name", map[string]any{"fullName": "J", "email": "jane@example.com"}, "fullName", "Full name must be at least 2 characters"},
			{"bad email", map[string]any{"fullName": "Jane", "email": "jane.example.com"}, "email", "Please enter a valid email address"},
			{"long company", map[string]any{"fullName": "Jane", "email": "j@example.com", "company": strings.Repeat("c", 201)}, "company", "Company must be at most 200 characters"},
			{"company not a string", map[string]any{"fullName": "Jane", "email": "j@example.com", "company": 7}, "company", "company must be a string"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(req{method: "PUT", path: "/api/user/profile", token: jane, body: tt.body, badRequest: true})
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
					t.Errorf("error = %+v, want %s: %s", e, tt.field, tt.msg)
				}
			})
		}
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/profile",
			body: map[string]any{"fullName": "Jane", "email": "x@example.com"}}), http.StatusUnauthorized)

		// John's account was never touched by any of Jane's calls.
		var after account.User
		a.do(req{method: "GET", path: "/api/user/profile", token: john}).json(t, &after)
		if !reflect.DeepEqual(after, other) {
			t.Errorf("John's profile changed: %+v -> %+v", other, after)
		}
	})
}

func TestNotifications(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, u := a.register("jane@example.com", "correct-horse", "Jane Doe")
		if u.Notifications != account.DefaultNotifications {
			t.Errorf("new account notifications = %+v, want %+v", u.Notifications, account.DefaultNotifications)
		}
		want := account.Notifications{EmailNotifications: false, UsageAlerts: true, WeeklyReports: true, MarketingEmails: false}
		r := a.do(req{method: "PUT", path: "/api/user/notifications", token: token, body: want})
		expectStatus(t, r, http.StatusOK)
		var got account.User
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &got)
		if got.Notifications != want {
			t.Errorf("stored %+v, want %+v", got.Notifications, want)
		}

		r = a.do(req{method: "PUT", path: "/api/user/notifications", token: token, badRequest: true,
			body: map[string]bool{"emailNotifications": true}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "usageAlerts" || len(e.Fields) != 3 {
			t.Errorf("missing preferences: %+v", e)
		}
		r = a.do(req{method: "PUT", path: "/api/user/notifications", token: token, badRequest: true,
			raw: `{"emailNotifications":"yes","usageAlerts":true,"weeklyReports":true,"marketingEmails":true}`})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "emailNotifications" {
			t.Errorf("wrong type: %+v", e)
		}
		expectStatus(t, a.do(req{method: "PUT", path: "/api/user/notifications", body: want}), http.StatusUnauthorized)
	})
}

func TestCloseAccount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		johnToken, _ := a.register("john@example.com", "correct-horse", "John Roe")

		r := a.do(req{method: "DELETE", path: "/api/user", token: token, body: map[string]string{"password": "wrong-horse"}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "password" {
			t.Errorf("wrong password: %+v", e)
		}
		r = a.do(req{method: "DELETE", path: "/api/user", token: token, badRequest: true, body: map[string]string{}})
		expectStatus(t, r, http.StatusBadRequest)
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", body: map[string]string{"password": "correct-horse"}}),
			http.StatusUnauthorized)

		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: token,
			body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusUnauthorized)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusUnauthorized)
		// The address can sign up again, as a new account, but without a second sign-up grant (free credits
		// are not farmed by closing and re-registering; TestClosedAccountEmailGetsNoSecondSignupGrant).
		_, again := a.register("jane@example.com", "correct-horse", "Jane Again")
		if again.Credits != 0 {
			t.Errorf("new account credits = %d, want 0", again.Credits)
		}
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: johnToken}), http.StatusOK)
	})
}

func TestContact(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		valid := map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
			"company": "Analytical Engines", "subject": "partnership", "message": "Let's talk about an integration."}
		r := a.do(req{method: "POST", path: "/api/contact", body: valid})
		expectStatus(t, r, http.StatusCreated)
		var receipt struct {
			ID      int64  `json:"id"`
			Message string `json:"message"`
		}
		r.json(t, &receipt)
		if receipt.ID == 0 || receipt.Message != "Thanks for reaching out. We'll reply within 24 hours." {
			t.Errorf("receipt = %+v", receipt)
		}
		// Signed in works too.
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		expectStatus(t, a.do(req{method: "POST", path: "/api/contact", token: token, body: valid}), http.StatusCreated)

		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for kk, vv := range valid {
				m[kk] = vv
			}
			m[k] = v
			return m
		}
		for _, tt := range []struct {
			name       string
			body       map[string]any
			field, msg string
		}{
			{"no first name", with("firstName", " "), "firstName", "First name is required"},
			{"no last name", with("lastName", ""), "lastName", "Last name is required"},
			{"no email", with("email", ""), "email", "Email is required"},
			{"bad email", with("email", "ada@"), "email", "Please enter a valid email address"},
			{"no subject", with("subject", ""), "subject", "Subject is required"},
			{"unknown subject", with("subject", "sales"), "subject", "Please choose a subject from the list"},
			{"no message", with("message", "   "), "message", "Message is required"},
			{"long message", with("message", strings.Repeat("m", 5001)), "message", "Message must be at most 5000 characters"},
			{"message reversed by a bidi override", with("message", "Please refund \u202esd321 tnuocca\u202c now"), "message",
				"Message must not contain text-direction control characters"},
			{"message with a bell", with("message", "Hello\a"), "message", "Message must not contain control characters other than tabs and line breaks"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				// A network may send the form a few times a minute, refused ones included: a minute passes
				// between cases (the test's clock, not a sleep).
				a.clock.Advance(time.Minute)
				r := a.do(req{method: "POST", path: "/api/contact", body: tt.body, badRequest: true})
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
					t.Errorf("error = %+v, want %s: %s", e, tt.field, tt.msg)
				}
			})
		}
	})
}

func TestFormsAreRateLimitedPerClient(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	body := map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com",
		"subject": "general", "message": "Hello"}
	for i := 0; i < 10; i++ {
		expectStatus(t, a.do(req{method: "POST", path: "/api/contact", body: body}), http.StatusCreated)
	}
	r := a.do(req{method: "POST", path: "/api/contact", body: body})
	expectStatus(t, r, http.StatusTooManyRequests)
	if e := r.errBody(t); e.RetryAfter < 1 || r.header.Get("Retry-After") != fmt.Sprint(e.RetryAfter) {
		t.Errorf("429 = %+v with Retry-After %q", e, r.header.Get("Retry-After"))
	}
	// The limit is per form: sign-up still works.
	a.register("jane@example.com", "correct-horse", "Jane Doe")
}
