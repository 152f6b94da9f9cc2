package server

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/credit"
	"valuator/internal/testdb"
)

// TestDemoAccountEndpoint: a development server with a demo account gives its sign-in, which signs in; without one,
// and in production even when given one, the answer is 404.
func TestDemoAccountEndpoint(t *testing.T) {
	demo := &DemoAccount{Email: "demo@valuator.dev", Password: "valuator-demo"}
	withDemo := func(o *appOptions) { o.demo = demo }
	t.Run("development", func(t *testing.T) {
		a := newTestApp(t, testdb.SQLiteURL(t), withDemo)
		a.register(demo.Email, demo.Password, "Demo User")
		r := a.do(req{method: "GET", path: "/api/auth/demo"})
		expectStatus(t, r, http.StatusOK)
		var got DemoAccount
		r.json(t, &got)
		if got != *demo || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET /api/auth/demo = %+v (Cache-Control %q), want %+v, no-store", got, r.header.Get("Cache-Control"), *demo)
		}
		expectStatus(t, a.login(got.Email, got.Password), http.StatusOK)
	})
	for _, tt := range []struct {
		name string
		opts []func(*appOptions)
	}{
		{"development without a demo account", nil},
		{"production", []func(*appOptions){production, withDemo}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestApp(t, testdb.SQLiteURL(t), tt.opts...)
			r := a.do(req{method: "GET", path: "/api/auth/demo"})
			expectStatus(t, r, http.StatusNoContent)
			if len(r.body) != 0 {
				t.Errorf("answer %s, want no body (204)", r.body)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, u := a.register("Jane.Doe@Example.com", "correct-horse", "  Jane Doe ")
		if !strings.HasPrefix(token, account.SessionTokenPrefix) {
			t.Errorf("token %q lacks the %q prefix", token, account.SessionTokenPrefix)
		}
		if u.Email != "Jane.Doe@Example.com" || u.FullName != "Jane Doe" || u.Credits != 100 ||
			u.TotalCreditsEarned != 100 || u.Plan != "free" {
			t.Errorf("user = %+v, want the email as typed, the trimmed name, 100 credits, plan free", u)
		}

		// The 100 credits are the first row of the ledger.
		rows, err := a.db.Ledger(context.Background(), u.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Amount != credit.SignupBonus || rows[0].BalanceAfter != 100 ||
			rows[0].Kind != credit.KindSignupBonus {
			t.Errorf("ledger = %+v, want one +100 signup_bonus row", rows)
		}

		// The token works at once.
		r := a.do(req{method: "GET", path: "/api/user/profile", token: token})
		expectStatus(t, r, http.StatusOK)

		// Emails are compared case-insensitively.
		r = a.do(req{method: "POST", path: "/api/auth/register",
			body: map[string]string{"email": "jane.doe@EXAMPLE.COM", "password": "another-pass", "fullName": "Jane Two"}})
		expectStatus(t, r, http.StatusConflict)
		if e := r.errBody(t); e.Code != "email_taken" || e.Field != "email" ||
			e.Error != "An account with this email already exists" {
			t.Errorf("409 body = %+v", e)
		}
	})
}

func TestRegisterBadInput(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		valid := map[string]any{"email": "jane@example.com", "password": "correct-horse-1", "fullName": "Jane"}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for kk, vv := range valid {
				m[kk] = vv
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		tests := []struct {
			name       string
			rq         req
			status     int
			field, msg string
		}{
			{"short name", req{body: with("fullName", "J")}, 400, "fullName", "Full name must be at least 2 characters"},
			{"blank name", req{body: with("fullName", "   ")}, 400, "fullName", "Full name must be at least 2 characters"},
			{"missing name", req{body: with("fullName", nil)}, 400, "fullName", "Full name must be at least 2 characters"},
			{"bad email", req{body: with("email", "jane@")}, 400, "email", "Invalid email address"},
			{"email with space", req{body: with("email", "ja ne@example.com")}, 400, "email", "Invalid email address"},
			{"missing email", req{body: with("email", nil)}, 400, "email", "Invalid email address"},
			{"short password", req{body: with("password", "1234567")}, 400, "password", "Password must be at least 8 characters"},
			{"huge password", req{body: with("password", strings.Repeat("p", 1025))}, 400, "password", "Password must be at most 1024 characters"},
			{"number for name", req{body: with("fullName", 42)}, 400, "fullName", "fullName must be a string"},
			{"not json", req{raw: "email=jane", contentType: "application/x-www-form-urlencoded"}, 415, "", ""},
			{"malformed json", req{raw: `{"email": "jane@example.com",`}, 400, "body", "The request body is not valid JSON"},
			{"array body", req{raw: `[1,2]`}, 400, "body", "The request body must be a JSON object"},
			{"empty body", req{raw: " "}, 400, "body", "The request body is empty; send a JSON object"},
			{"two objects", req{raw: `{} {}`}, 400, "body", "The request body must hold a single JSON object"},
			{"too large", req{raw: `{"fullName":"` + strings.Repeat("x", 1<<20) + `"}`}, 413, "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.method, tt.rq.path, tt.rq.badRequest = "POST", "/api/auth/register", true
				r := a.do(tt.rq)
				expectStatus(t, r, tt.status)
				e := r.errBody(t)
				if tt.field != "" && (e.Field != tt.field || e.Error != tt.msg || e.Fields[tt.field] != tt.msg) {
					t.Errorf("error = %+v, want field %q with %q", e, tt.field, tt.msg)
				}
			})
		}
		// Every bad field is listed, not only the first.
		r := a.do(req{method: "POST", path: "/api/auth/register", badRequest: true,
			body: map[string]string{"email": "x", "password": "y", "fullName": "z"}})
		expectStatus(t, r, 400)
		if e := r.errBody(t); len(e.Fields) != 3 || e.Field != "fullName" {
			t.Errorf("fields = %v (first %q), want all three with fullName first", e.Fields, e.Field)
		}
		// None of this created an account.
		if r := a.login("jane@example.com", "correct-horse-1"); r.status != http.StatusUnauthorized {
			t.Errorf("bad sign-ups created an account: login status %d", r.status)
		}
	})
}

func TestLogin(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		_, u := a.register("jane@example.com", "correct-horse", "Jane Doe")

		r := a.login("  JANE@example.com ", "correct-horse")
		expectStatus(t, r, http.StatusOK)
		var auth account.Auth
		r.json(t, &auth)
		if auth.User.ID != u.ID || auth.Token == "" {
			t.Fatalf("login answer = %+v, want user %d and a token", auth, u.ID)
		}

		// A wrong password and an unknown email get the same answer.
		wrongPass := a.login("jane@example.com", "wrong-horse")
		unknown := a.login("nobody@example.com", "wrong-horse")
		expectStatus(t, wrongPass, http.StatusUnauthorized)
		expectStatus(t, unknown, http.StatusUnauthorized)
		e1, e2 := wrongPass.errBody(t), unknown.errBody(t)
		if e1.Error != e2.Error || e1.Code != e2.Code || e1.Error != "Invalid email or password" {
			t.Errorf("wrong password %+v vs unknown email %+v: want the same message", e1, e2)
		}

		// Bad input names the field with the sign-in form's texts.
		for _, tt := range []struct{ email, password, field, msg string }{
			{"jane", "correct-horse", "email", "Invalid email address"},
			{"jane@example.com", "12345", "password", "Password must be at least 6 characters"},
		} {
			r := a.do(req{method: "POST", path: "/api/auth/login", badRequest: true,
				body: map[string]string{"email": tt.email, "password": tt.password}})
			expectStatus(t, r, http.StatusBadRequest)
			if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
				t.Errorf("login(%q, %q) error = %+v, want %s: %s", tt.email, tt.password, e, tt.field, tt.msg)
			}
		}
	})
}

func TestLoginIsSlowedDownAfterRepeatedFailures(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		a.register("jane@example.com", "correct-horse", "Jane Doe")
		// Five free failures plus one that starts the delay.
		for i := 0; i < 6; i++ {
			expectStatus(t, a.login("jane@example.com", "wrong-horse"), http.StatusUnauthorized)
		}
		r := a.login("jane@example.com", "correct-horse")
		expectStatus(t, r, http.StatusTooManyRequests)
		e := r.errBody(t)
		if e.Code != "rate_limited" || e.RetryAfter < 1 || r.header.Get("Retry-After") == "" {
			t.Errorf("429 = %+v, Retry-After %q; want rate_limited with a retry time", e, r.header.Get("Retry-After"))
		}
		// Another account is not affected.
		a.register("john@example.com", "correct-horse", "John Doe")
		expectStatus(t, a.login("john@example.com", "correct-horse"), http.StatusOK)

		// After the wait, the right password works again.
		a.clock.Advance(time.Duration(e.RetryAfter) * time.Second)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusOK)
	})
}

func TestLogoutRevokesTheSession(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var second account.Auth
		a.login("jane@example.com", "correct-horse").json(t, &second)

		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/logout", token: token}), http.StatusNoContent)
		r := a.do(req{method: "GET", path: "/api/user/profile", token: token})
		expectStatus(t, r, http.StatusUnauthorized)
		if e := r.errBody(t); e.Code != "unauthorized" {
			t.Errorf("401 code = %q", e.Code)
		}
		// Only that session ended.
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: second.Token}), http.StatusOK)
		// Logging out again, or without a session, is not an error.
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/logout", token: token}), http.StatusNoContent)
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/logout"}), http.StatusNoContent)
	})
}

func TestSessionsExpire(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		a.clock.Advance(720*time.Hour - time.Second)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusOK)
		a.clock.Advance(time.Second)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusUnauthorized)
	})
}

func TestChangePassword(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var other account.Auth
		a.login("jane@example.com", "correct-horse").json(t, &other)
		path := "/api/auth/change-password"

		for _, tt := range []struct {
			name, current, next string
			field, msg          string
		}{
			{"missing current", "", "new-password", "currentPassword", "Current password is required"},
			{"short new", "correct-horse", "short", "newPassword", "New password must be at least 8 characters"},
			{"wrong current", "wrong-horse", "new-password", "currentPassword", "Current password is incorrect"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(req{method: "POST", path: path, token: token, badRequest: true,
					body: map[string]string{"currentPassword": tt.current, "newPassword": tt.next}})
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
					t.Errorf("error = %+v, want %s: %s", e, tt.field, tt.msg)
				}
			})
		}
		expectStatus(t, a.do(req{method: "POST", path: path,
			body: map[string]string{"currentPassword": "correct-horse", "newPassword": "battery-staple"}}), http.StatusUnauthorized)

		r := a.do(req{method: "POST", path: path, token: token,
			body: map[string]string{"currentPassword": "correct-horse", "newPassword": "battery-staple"}})
		expectStatus(t, r, http.StatusOK)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusUnauthorized)
		expectStatus(t, a.login("jane@example.com", "battery-staple"), http.StatusOK)
		// The session that changed it stays; the other one is signed out.
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusOK)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: other.Token}), http.StatusUnauthorized)
	})
}

var resetLink = regexp.MustCompile(`https://valuator\.example\.com/reset-password\?token=(vr_[A-Za-z0-9_-]+)`)

func TestPasswordResetAnswersTheSameForUnknownEmails(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url, production)
		a.register("jane@example.com", "correct-horse", "Jane Doe")
		known := a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "JANE@example.com"}})
		unknown := a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "nobody@example.com"}})
		expectStatus(t, known, http.StatusOK)
		expectStatus(t, unknown, http.StatusOK)
		if !bytes.Equal(known.body, unknown.body) {
			t.Errorf("answers differ:\nknown:   %s\nunknown: %s", known.body, unknown.body)
		}
		if strings.Contains(string(known.body), "resetToken") {
			t.Errorf("production answer reveals the token: %s", known.body)
		}
		msgs := a.mail.all()
		if len(msgs) != 1 || msgs[0].To != "jane@example.com" || !resetLink.MatchString(msgs[0].Text) {
			t.Fatalf("emails = %+v, want one reset link to jane@example.com", msgs)
		}
	})
}

func TestPasswordReset(t *testing.T) {
	testdb.Each(t, func(t *testing.T, url string) {
		a := newTestApp(t, url)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		request := func() string {
			r := a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "jane@example.com"}})
			expectStatus(t, r, http.StatusOK)
			var res account.ResetRequested
			r.json(t, &res)
			if res.Message != account.MsgResetSent || !strings.HasPrefix(res.ResetToken, account.ResetTokenPrefix) {
				t.Fatalf("development answer = %+v, want the message and a token", res)
			}
			return res.ResetToken
		}
		reset := func(tok, pw string) resp {
			return a.do(req{method: "POST", path: "/api/auth/reset-password", badRequest: true,
				body: map[string]string{"token": tok, "password": pw}})
		}
		resetToken := request()

		// Bad input.
		expectStatus(t, reset(resetToken, "short"), http.StatusBadRequest)
		r := reset("", "battery-staple")
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "token" {
			t.Errorf("missing token: field = %q", e.Field)
		}
		expectStatus(t, reset("vr_not-a-real-token", "battery-staple"), http.StatusBadRequest)
		expectStatus(t, reset("garbage", "battery-staple"), http.StatusBadRequest)

		// It works, signs every session out, and works only once.
		expectStatus(t, reset(resetToken, "battery-staple"), http.StatusOK)
		expectStatus(t, a.do(req{method: "GET", path: "/api/user/profile", token: token}), http.StatusUnauthorized)
		expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusUnauthorized)
		expectStatus(t, a.login("jane@example.com", "battery-staple"), http.StatusOK)
		r = reset(resetToken, "another-one")
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "token" || e.Error != account.MsgResetTokenInvalid {
			t.Errorf("reused token: %+v", e)
		}

		// A link expires after one hour.
		late := request()
		a.clock.Advance(time.Hour)
		expectStatus(t, reset(late, "too-late-pass"), http.StatusBadRequest)

		// The email field is checked.
		r = a.do(req{method: "POST", path: "/api/auth/request-password-reset", badRequest: true, body: map[string]string{"email": ""}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "email" || e.Error != account.MsgEmailRequired {
			t.Errorf("empty email: %+v", e)
		}
	})
}

func TestPasswordResetEmailsAreCappedSilently(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), production)
	a.register("jane@example.com", "correct-horse", "Jane Doe")
	for i := 0; i < 8; i++ {
		r := a.do(req{method: "POST", path: "/api/auth/request-password-reset", body: map[string]string{"email": "jane@example.com"}})
		expectStatus(t, r, http.StatusOK)
	}
	if n := len(a.mail.all()); n != 5 {
		t.Errorf("sent %d reset emails to one address in an hour, want 5", n)
	}
}
