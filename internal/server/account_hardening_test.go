package server

// Tests of the account hardening: sign-in throttling under parallel guesses, reset tokens kept out of production
// logs, reset-password doing no password work for bad tokens, the process-wide password gate, the email change
// needing the password, reset links revoked by a password change, no second sign-up grant for a closed account's
// email nor for another alias of a mailbox, the password and name rules.

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/credit"
	"valuator/internal/gate"
	"valuator/internal/testdb"
)

// passwordWork counts the password hashing of an account service, and the most computations that ran at once.
type passwordWork struct {
	hashes, verifies atomic.Int64
	inFlight, peak   atomic.Int64
}

// install makes the account service hash and verify through w (the real argon2id, counted).
func (w *passwordWork) install(d *account.Deps) {
	d.HashPassword = func(password string) (string, error) {
		defer w.enter()()
		w.hashes.Add(1)
		return account.HashPassword(password)
	}
	d.VerifyPassword = func(password, encoded string) (bool, error) {
		defer w.enter()()
		w.verifies.Add(1)
		return account.VerifyPassword(password, encoded)
	}
}

func (w *passwordWork) enter() (leave func()) {
	n := w.inFlight.Add(1)
	for {
		old := w.peak.Load()
		if n <= old || w.peak.CompareAndSwap(old, n) {
			break
		}
	}
	return func() { w.inFlight.Add(-1) }
}

func (w *passwordWork) total() int64 { return w.hashes.Load() + w.verifies.Load() }

// trustProxy lets tests choose the client address with X-Forwarded-For.
func trustProxy(o *appOptions) {
	if o.env == nil {
		o.env = map[string]string{}
	}
	o.env["VALUATOR_TRUST_PROXY"] = "true"
}

func (a *testApp) loginFrom(ip, email, password string) resp {
	a.t.Helper()
	return a.do(req{method: "POST", path: "/api/auth/login", header: map[string]string{"X-Forwarded-For": ip},
		body: map[string]string{"email": email, "password": password}})
}

// TestSignInBurstIsThrottledBeforeVerifying: 20 wrong passwords for one email sent at once from one address are
// not all verified (the attempt is counted before the slow verification), and the owner, from another address,
// still signs in (the count is per email at an address and per address, never per email alone).
func TestSignInBurstIsThrottledBeforeVerifying(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		var work passwordWork
		a := newTestApp(t, dbURL, trustProxy, func(o *appOptions) { o.accounts = work.install })
		a.register("jane@example.com", "correct-horse", "Jane Doe")
		a.register("john@example.com", "correct-horse", "John Roe")
		const attacker, owner = "203.0.113.7", "198.51.100.20"

		before := work.verifies.Load()
		statuses := make([]int, 20)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = a.loginFrom(attacker, "jane@example.com", "wrong-horse").status
			}()
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		free := account.SignInFreeFailures + 1
		if count[http.StatusUnauthorized] != free || count[http.StatusTooManyRequests] != 20-free {
			t.Errorf("20 parallel wrong passwords answered %v, want %d x 401 (checked) and %d x 429", count, free, 20-free)
		}
		if got := work.verifies.Load() - before; got > int64(free) {
			t.Errorf("%d passwords verified for the burst, want at most %d", got, free)
		}

		// The owner, elsewhere, is not locked out; the attacker's address is, for this email only.
		expectStatus(t, a.loginFrom(owner, "jane@example.com", "correct-horse"), http.StatusOK)
		expectStatus(t, a.loginFrom(attacker, "jane@example.com", "correct-horse"), http.StatusTooManyRequests)
		expectStatus(t, a.loginFrom(attacker, "john@example.com", "correct-horse"), http.StatusOK)
	})
}

// TestSignInAddressThrottleCountsFailuresOnly: an address (an office behind one IP) that signs in many people is
// not slowed down by their successes, but guessing many emails from it is.
func TestSignInAddressThrottleCountsFailuresOnly(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), trustProxy)
	a.register("jane@example.com", "correct-horse", "Jane Doe")
	const office = "192.0.2.10"
	for i := 0; i < account.AddressFreeFailures+5; i++ {
		expectStatus(t, a.loginFrom(office, "jane@example.com", "correct-horse"), http.StatusOK)
	}
	// Wrong passwords for many emails (one each, so no email's own count is reached) from one address.
	got429 := false
	for i := 0; i < account.AddressFreeFailures+2 && !got429; i++ {
		r := a.loginFrom("192.0.2.99", "user"+strings.Repeat("x", i)+"@example.com", "wrong-horse")
		got429 = r.status == http.StatusTooManyRequests
	}
	if !got429 {
		t.Errorf("%d failed sign-ins from one address were never slowed down", account.AddressFreeFailures+2)
	}
	expectStatus(t, a.loginFrom(office, "jane@example.com", "correct-horse"), http.StatusOK)
}

// TestProductionWithoutSMTPKeepsResetLinksOutOfTheLog: with no mail server in production, the reset email cannot
// be sent; the log says so, without the message's text, whose link would let anyone reading the log take the
// account.
func TestProductionWithoutSMTPKeepsResetLinksOutOfTheLog(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), production, func(o *appOptions) { o.configMailer = true })
	a.register("jane@example.com", "correct-horse", "Jane Doe")
	expectStatus(t, a.do(req{method: "POST", path: "/api/auth/request-password-reset",
		body: map[string]string{"email": "jane@example.com"}}), http.StatusOK)
	msgs := a.mail.all()
	if len(msgs) != 1 {
		t.Fatalf("emails = %+v, want the reset email", msgs)
	}
	m := resetLink.FindStringSubmatch(msgs[0].Text)
	if m == nil {
		t.Fatalf("the reset email holds no link: %q", msgs[0].Text)
	}
	logs := a.logs.String()
	for _, secret := range []string{m[1], m[0], "reset-password?token="} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}
	if !strings.Contains(logs, "email not sent") || !strings.Contains(logs, "Reset your Valuator password") {
		t.Errorf("the log does not say which email was not sent:\n%s", logs)
	}
}

// randomResetToken is a well-formed reset token that was never issued.
func randomResetToken(t *testing.T) string {
	t.Helper()
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		t.Fatal(err)
	}
	return account.ResetTokenPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

// TestResetWithABadTokenDoesNoPasswordWork: reset-password needs no sign-in, so it must not hash the new password
// (argon2id: 19 MiB and tens of milliseconds of a core) before it knows the token is good.
func TestResetWithABadTokenDoesNoPasswordWork(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		var work passwordWork
		a := newTestApp(t, dbURL, func(o *appOptions) { o.accounts = work.install })
		a.register("jane@example.com", "correct-horse", "Jane Doe")
		reset := func(token string) resp {
			return a.do(req{method: "POST", path: "/api/auth/reset-password", badRequest: true,
				body: map[string]string{"token": token, "password": "battery-staple"}})
		}
		requestToken := func() string {
			var res account.ResetRequested
			a.do(req{method: "POST", path: "/api/auth/request-password-reset",
				body: map[string]string{"email": "jane@example.com"}}).json(t, &res)
			return res.ResetToken
		}
		used := requestToken()
		expectStatus(t, reset(used), http.StatusOK)
		expired := requestToken()
		a.clock.Advance(account.ResetTokenTTL)

		before := work.total()
		for _, tt := range []struct{ name, token string }{
			{"never issued", randomResetToken(t)},
			{"another never issued", randomResetToken(t)},
			{"already used", used},
			{"expired", expired},
		} {
			t.Run(tt.name, func(t *testing.T) {
				r := reset(tt.token)
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != "token" || e.Error != account.MsgResetTokenInvalid {
					t.Errorf("error = %+v, want the invalid link message on token", e)
				}
			})
		}
		if got := work.total() - before; got != 0 {
			t.Errorf("bad reset tokens cost %d password hashes, want 0", got)
		}
		// A good token costs exactly one.
		good := requestToken()
		before = work.total()
		expectStatus(t, reset(good), http.StatusOK)
		if got := work.total() - before; got != 1 {
			t.Errorf("a good reset cost %d password hashes, want 1", got)
		}
	})
}

// TestResetPasswordIsRateLimitedPerAddress: like the other unauthenticated forms, setting a password with a reset
// link is limited per client address (a person never comes near the limit).
func TestResetPasswordIsRateLimitedPerAddress(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), trustProxy)
	send := func(ip string) resp {
		return a.do(req{method: "POST", path: "/api/auth/reset-password", badRequest: true,
			header: map[string]string{"X-Forwarded-For": ip},
			body:   map[string]string{"token": randomResetToken(t), "password": "battery-staple"}})
	}
	for i := 0; i < setPasswordLimit.Burst; i++ {
		expectStatus(t, send("203.0.113.7"), http.StatusBadRequest)
	}
	r := send("203.0.113.7")
	expectStatus(t, r, http.StatusTooManyRequests)
	if e := r.errBody(t); e.Code != "rate_limited" || e.RetryAfter < 1 || r.header.Get("Retry-After") == "" {
		t.Errorf("429 = %+v with Retry-After %q", e, r.header.Get("Retry-After"))
	}
	expectStatus(t, send("198.51.100.20"), http.StatusBadRequest)
}

// TestPasswordHashingStaysWithinTheGate: sign-ups, sign-ins, password changes, resets and closings at once never
// run more password computations than the gate has slots.
func TestPasswordHashingStaysWithinTheGate(t *testing.T) {
	var work passwordWork
	g := gate.New(2)
	a := newTestApp(t, testdb.SQLiteURL(t), trustProxy, func(o *appOptions) {
		o.accounts = func(d *account.Deps) {
			work.install(d)
			d.PasswordGate = g
			// Long enough that nothing is refused on a loaded machine: this test is about the bound, not the wait.
			d.PasswordWait = time.Minute
		}
	})
	tokens := make([]string, 6)
	for i := range tokens {
		tokens[i], _ = a.register(string(rune('a'+i))+"-user@example.com", "correct-horse", "User Name")
	}
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	for i := 0; i < 6; i++ {
		email := string(rune('a'+i)) + "-user@example.com"
		ip := "192.0.2." + string(rune('1'+i))
		run(func() {
			a.do(req{method: "POST", path: "/api/auth/register", header: map[string]string{"X-Forwarded-For": ip},
				body: map[string]string{"email": "new-" + email, "password": "correct-horse", "fullName": "New User"}})
		})
		run(func() { a.loginFrom(ip, email, "correct-horse") })
		run(func() { a.loginFrom(ip, "nobody-"+email, "correct-horse") })
		run(func() {
			a.do(req{method: "POST", path: "/api/auth/change-password", token: tokens[i],
				body: map[string]string{"currentPassword": "correct-horse", "newPassword": "battery-staple"}})
		})
	}
	wg.Wait()
	if work.total() < 24 {
		t.Fatalf("only %d password computations ran, want at least 24", work.total())
	}
	if peak := work.peak.Load(); peak > int64(g.Size()) {
		t.Errorf("%d password computations ran at once, want at most the gate's %d", peak, g.Size())
	}
	if g.InUse() != 0 {
		t.Errorf("%d gate slots still taken after every request ended", g.InUse())
	}
}

// TestPasswordGateSaturatedAnswers429: a request that cannot get a slot in time is told to come back (429 with
// Retry-After), rather than queued without end.
func TestPasswordGateSaturatedAnswers429(t *testing.T) {
	entered, unblock := make(chan struct{}), make(chan struct{})
	var blockNext atomic.Bool
	a := newTestApp(t, testdb.SQLiteURL(t), func(o *appOptions) {
		o.accounts = func(d *account.Deps) {
			d.PasswordGate = gate.New(1)
			d.PasswordWait = 50 * time.Millisecond
			d.HashPassword = func(password string) (string, error) {
				if blockNext.CompareAndSwap(true, false) {
					close(entered)
					<-unblock
				}
				return account.HashPassword(password)
			}
		}
	})
	a.register("jane@example.com", "correct-horse", "Jane Doe")
	// The blocked sign-up must end even if the test fails half way, or the server's Close would wait for it.
	var once sync.Once
	release := func() { once.Do(func() { close(unblock) }) }
	t.Cleanup(release)

	blockNext.Store(true)
	done := make(chan resp)
	go func() {
		done <- a.do(req{method: "POST", path: "/api/auth/register",
			body: map[string]string{"email": "john@example.com", "password": "correct-horse", "fullName": "John Roe"}})
	}()
	<-entered // john's sign-up holds the only slot
	r := a.login("jane@example.com", "correct-horse")
	expectStatus(t, r, http.StatusTooManyRequests)
	if e := r.errBody(t); e.Code != "rate_limited" || r.header.Get("Retry-After") == "" {
		t.Errorf("429 = %+v with Retry-After %q", e, r.header.Get("Retry-After"))
	}
	release()
	expectStatus(t, <-done, http.StatusCreated)
	// The refused sign-in was not counted as a failure, and the slot is free again.
	expectStatus(t, a.login("jane@example.com", "correct-horse"), http.StatusOK)
}

// TestEmailChangeNeedsThePasswordAndTellsTheOldAddress: a session alone (a stolen one) cannot move the account to
// another address; the owner's address hears of every change.
func TestEmailChangeNeedsThePasswordAndTellsTheOldAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		profile := func(body map[string]any) resp {
			return a.do(req{method: "PUT", path: "/api/user/profile", token: token, body: body, badRequest: true})
		}
		newEmail := map[string]any{"fullName": "Jane Doe", "email": "thief@example.net"}

		for _, tt := range []struct {
			name, password, msg string
		}{
			{"no password", "", account.MsgCurrentForEmail},
			{"wrong password", "wrong-horse", account.MsgCurrentIncorrect},
		} {
			t.Run(tt.name, func(t *testing.T) {
				body := map[string]any{"fullName": "Jane Doe", "email": "thief@example.net"}
				if tt.password != "" {
					body["currentPassword"] = tt.password
				}
				r := profile(body)
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != "currentPassword" || e.Error != tt.msg || e.Fields["currentPassword"] != tt.msg {
					t.Errorf("error = %+v, want currentPassword: %s", e, tt.msg)
				}
			})
		}
		// Wrong passwords are throttled like the other password checks of a signed-in user.
		limited := false
		for i := 0; i < 10 && !limited; i++ {
			newEmail["currentPassword"] = "wrong-horse"
			limited = profile(newEmail).status == http.StatusTooManyRequests
		}
		if !limited {
			t.Error("10 wrong passwords in a row were never slowed down")
		}
		a.clock.Advance(15 * time.Minute)
		if n := len(a.mail.all()); n != 0 {
			t.Fatalf("%d emails sent before any change", n)
		}

		// Name and company, or the email's case, change without the password and without a notice.
		r := profile(map[string]any{"fullName": "Jane Q. Doe", "company": "Acme", "email": "Jane@Example.com"})
		expectStatus(t, r, http.StatusOK)
		if n := len(a.mail.all()); n != 0 {
			t.Errorf("%d emails sent for a change that kept the address", n)
		}

		// With the password, the email changes and the old address is told.
		newEmail["currentPassword"] = "correct-horse"
		r = profile(newEmail)
		expectStatus(t, r, http.StatusOK)
		var u account.User
		r.json(t, &u)
		if u.Email != "thief@example.net" {
			t.Errorf("email = %q after the change", u.Email)
		}
		msgs := a.mail.all()
		if len(msgs) != 1 || msgs[0].To != "Jane@Example.com" ||
			!strings.Contains(msgs[0].Subject, "email address of your Valuator account was changed") ||
			!strings.Contains(msgs[0].Text, "thief@example.net") {
			t.Fatalf("emails = %+v, want one notice to the old address naming the new one", msgs)
		}
		expectStatus(t, a.login("thief@example.net", "correct-horse"), http.StatusOK)
	})
}

// TestChangePasswordRevokesResetLinks: a reset link sent before a password change cannot undo it.
func TestChangePasswordRevokesResetLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		var res account.ResetRequested
		a.do(req{method: "POST", path: "/api/auth/request-password-reset",
			body: map[string]string{"email": "jane@example.com"}}).json(t, &res)
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/change-password", token: token,
			body: map[string]string{"currentPassword": "correct-horse", "newPassword": "battery-staple"}}), http.StatusOK)

		r := a.do(req{method: "POST", path: "/api/auth/reset-password", badRequest: true,
			body: map[string]string{"token": res.ResetToken, "password": "thief-was-here"}})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "token" {
			t.Errorf("error = %+v, want the token refused", e)
		}
		expectStatus(t, a.login("jane@example.com", "battery-staple"), http.StatusOK)
	})
}

// TestClosedAccountEmailGetsNoSecondSignupGrant: closing an account and signing up again with its address (in any
// case) is allowed, but grants no free credits the second time; the ledger says why.
func TestClosedAccountEmailGetsNoSecondSignupGrant(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		closeAccount := func(token string) {
			t.Helper()
			expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: token,
				body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)
		}
		first, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		closeAccount(first)

		res := a.signUp("JANE@example.com", "Jane Again")
		again, u := res.Token, res.User
		if u.Credits != 0 || u.TotalCreditsEarned != 0 {
			t.Errorf("second account: credits %d, earned %d; want 0 and 0", u.Credits, u.TotalCreditsEarned)
		}
		if w := res.Welcome; w == nil || w.Credits != 0 || w.Message == nil || *w.Message != account.MsgNoSignupBonus {
			t.Errorf("second account's welcome = %s, want 0 credits and %q", welcomeString(w), account.MsgNoSignupBonus)
		}
		rows, err := a.db.Ledger(context.Background(), u.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].Amount != 0 || rows[0].BalanceAfter != 0 || rows[0].Kind != credit.KindSignupBonus ||
			rows[0].Description != account.MsgNoSignupBonus {
			t.Errorf("ledger = %+v, want one 0-credit sign-up row saying why", rows)
		}
		// Closing the same address twice works, and the third account gets nothing either.
		closeAccount(again)
		_, third := a.register("jane@example.com", "correct-horse", "Jane Third")
		if third.Credits != 0 {
			t.Errorf("third account credits = %d, want 0", third.Credits)
		}
		// Another address still gets its grant.
		_, john := a.register("john@example.com", "correct-horse", "John Roe")
		if john.Credits != credit.SignupBonus {
			t.Errorf("a new address got %d credits, want %d", john.Credits, credit.SignupBonus)
		}
	})
}

// signUp registers an account (password "correct-horse") and returns the whole answer, welcome included.
func (a *testApp) signUp(email, name string) account.Auth {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/auth/register",
		body: map[string]string{"email": email, "password": "correct-horse", "fullName": name}})
	expectStatus(a.t, r, http.StatusCreated)
	var auth account.Auth
	r.json(a.t, &auth)
	return auth
}

func welcomeString(w *account.Welcome) string {
	switch {
	case w == nil:
		return "none"
	case w.Message == nil:
		return fmt.Sprintf("%d credits, no message", w.Credits)
	default:
		return fmt.Sprintf("%d credits, %q", w.Credits, *w.Message)
	}
}

// TestWelcomeCreditsOncePerMailbox: the welcome credits go to a mailbox once. After farm@x.com, its aliases
// (farm+1@, farm+2@, FARM+@) get 0; after farm@googlemail.com, f.a.r.m@gmail.com gets 0; other mailboxes get 100.
// The sign-up still succeeds, and its answer and the account's credit history say why; sign-in answers carry no
// welcome.
func TestWelcomeCreditsOncePerMailbox(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		mailboxHad := func(mailbox string) string {
			return "No welcome credits: this mailbox (" + mailbox + ") already received them. " +
				"Choose a plan on the Billing page for more credits."
		}
		for _, tt := range []struct {
			email   string
			credits int64
			message string // "" for null
		}{
			{"farm@x.com", credit.SignupBonus, ""},
			{"farm+1@x.com", 0, mailboxHad("farm@x.com")},
			{"farm+2@x.com", 0, mailboxHad("farm@x.com")},
			{"FARM+@X.com", 0, mailboxHad("farm@x.com")},
			{"farm@googlemail.com", credit.SignupBonus, ""},
			{"f.a.r.m@gmail.com", 0, mailboxHad("farm@gmail.com")},
			{"Fa.rm+work@GoogleMail.com", 0, mailboxHad("farm@gmail.com")},
			{"f.a.r.m@x.com", credit.SignupBonus, ""}, // dots count outside gmail
			{"jane@gmail.com", credit.SignupBonus, ""},
			{"farm@y.com", credit.SignupBonus, ""},
		} {
			res := a.signUp(tt.email, "Farmer Jones")
			w := res.Welcome
			ok := w != nil && w.Credits == tt.credits && res.User.Credits == tt.credits &&
				res.User.TotalCreditsEarned == tt.credits
			if tt.message == "" {
				ok = ok && w.Message == nil
			} else {
				ok = ok && w.Message != nil && *w.Message == tt.message
			}
			if !ok {
				t.Errorf("%s: welcome %s, credits %d; want %d credits and message %q", tt.email, welcomeString(w),
					res.User.Credits, tt.credits, tt.message)
			}
			rows, err := a.db.Ledger(context.Background(), res.User.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			wantDescription := tt.message
			if wantDescription == "" {
				wantDescription = "Welcome bonus: free credits"
			}
			if len(rows) != 1 || rows[0].Amount != tt.credits || rows[0].Kind != credit.KindSignupBonus ||
				rows[0].Description != wantDescription {
				t.Errorf("%s: ledger = %+v, want one sign-up row of %d saying %q", tt.email, rows, tt.credits,
					wantDescription)
			}
		}

		// The answer carries "message": null when the credits were given, as the spec's WelcomeGrant says.
		r := a.do(req{method: "POST", path: "/api/auth/register",
			body: map[string]string{"email": "new@z.com", "password": "correct-horse", "fullName": "New Person"}})
		expectStatus(t, r, http.StatusCreated)
		if !strings.Contains(string(r.body), `"welcome":{"credits":100,"message":null}`) {
			t.Errorf("register answer = %s, want welcome {credits: 100, message: null}", r.body)
		}
		// Sign-in answers have no welcome.
		r = a.login("farm+1@x.com", "correct-horse")
		expectStatus(t, r, http.StatusOK)
		if strings.Contains(string(r.body), "welcome") {
			t.Errorf("login answer = %s, want no welcome", r.body)
		}
	})
}

// TestParallelAliasSignupsGrantOnce: ten sign-ups with aliases of one mailbox at once all succeed, and exactly one
// of them gets the welcome credits. The decision is the database's (one mailbox row, inserted in the sign-up's
// transaction), so it holds whatever the interleaving.
func TestParallelAliasSignupsGrantOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		const n = 10
		var wg sync.WaitGroup
		answers := make([]account.Auth, n)
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := fmt.Sprintf(`{"email":"a+%d@x.com","password":"correct-horse","fullName":"Alias %d"}`, i+1, i+1)
				res, err := a.srv.Client().Post(a.srv.URL+"/api/auth/register", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer res.Body.Close()
				statuses[i] = res.StatusCode
				if err := json.NewDecoder(res.Body).Decode(&answers[i]); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		granted, credits := 0, int64(0)
		for i, auth := range answers {
			if statuses[i] != http.StatusCreated || auth.Welcome == nil {
				t.Fatalf("sign-up %d: status %d, welcome %s; want 201 with a welcome", i+1, statuses[i],
					welcomeString(auth.Welcome))
			}
			credits += auth.User.Credits
			if auth.Welcome.Credits > 0 {
				granted++
			} else if auth.Welcome.Message == nil || !strings.Contains(*auth.Welcome.Message, "(a@x.com)") {
				t.Errorf("sign-up %d: welcome %s, want the reason naming a@x.com", i+1, welcomeString(auth.Welcome))
			}
		}
		if granted != 1 || credits != credit.SignupBonus {
			t.Errorf("%d of %d alias sign-ups got welcome credits, %d credits in all; want exactly 1 and %d",
				granted, n, credits, credit.SignupBonus)
		}
	})
}

// TestNewPasswordRules: register, change-password and reset-password refuse the most common passwords (in any
// case), passwords of spaces only, and the account's email or its local part, saying why.
func TestNewPasswordRules(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		const email = "janedoe99@example.com"
		token, _ := a.register(email, "correct-horse", "Jane Doe")
		var res account.ResetRequested
		a.do(req{method: "POST", path: "/api/auth/request-password-reset",
			body: map[string]string{"email": email}}).json(t, &res)

		forms := []struct {
			name  string
			field string
			noun  string
			send  func(password string) resp
		}{
			{"register", "password", "Password", func(pw string) resp {
				return a.do(req{method: "POST", path: "/api/auth/register", badRequest: true,
					body: map[string]string{"email": email, "password": pw, "fullName": "Jane Doe"}})
			}},
			{"change-password", "newPassword", "New password", func(pw string) resp {
				return a.do(req{method: "POST", path: "/api/auth/change-password", token: token, badRequest: true,
					body: map[string]string{"currentPassword": "correct-horse", "newPassword": pw}})
			}},
			{"reset-password", "password", "Password", func(pw string) resp {
				return a.do(req{method: "POST", path: "/api/auth/reset-password", badRequest: true,
					body: map[string]string{"token": res.ResetToken, "password": pw}})
			}},
		}
		for _, f := range forms {
			for _, tt := range []struct {
				name, password, msg string
			}{
				{"common", "baseball", account.MsgPasswordCommon},
				{"common in another case", "BaseBall", account.MsgPasswordCommon},
				{"common with spaces around", " iloveyou ", account.MsgPasswordCommon},
				{"only spaces", "          ", f.noun + " must not be only spaces"},
				{"the email", "JaneDoe99@Example.com", f.noun + " must not be your email address"},
				{"the email's local part", "JANEDOE99", f.noun + " must not be your email address"},
				// The check at the edge (decodeJSON) names the field as the API does.
				{"NUL", "correct\x00horse", f.field + " must not contain NUL characters"},
			} {
				t.Run(f.name+"/"+tt.name, func(t *testing.T) {
					r := f.send(tt.password)
					expectStatus(t, r, http.StatusBadRequest)
					if e := r.errBody(t); e.Field != f.field || e.Error != tt.msg {
						t.Errorf("error = %+v, want %s: %s", e, f.field, tt.msg)
					}
				})
			}
		}
		// None of it changed the password or used the reset link.
		expectStatus(t, a.login(email, "correct-horse"), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/reset-password",
			body: map[string]string{"token": res.ResetToken, "password": "battery-staple"}}), http.StatusOK)

		// Sign-in never applies the rules: an account made before them keeps working with its password.
		hash, err := account.HashPassword("baseball")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.db.CreateUser(context.Background(), account.NewUser{Email: "old@example.com",
			EmailKey: "old@example.com", PasswordHash: hash, FullName: "Old Timer", CreatedAt: a.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		expectStatus(t, a.login("old@example.com", "baseball"), http.StatusOK)
	})
}

// TestAccountTextRules: names are one line without control or text-direction characters, and no string of the
// account bodies that PostgreSQL cannot store reaches it (a 400 naming the field, never a 500).
func TestAccountTextRules(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		const control = "must not contain control characters or line breaks"
		const bidi = "must not contain text-direction control characters"
		// NUL is refused at the edge (decodeJSON), for every body, naming the field as the API does.
		const nul = "must not contain NUL characters"
		register := func(email, name string) req {
			return req{method: "POST", path: "/api/auth/register",
				body: map[string]string{"email": email, "password": "correct-horse", "fullName": name}}
		}
		profile := func(body map[string]any) req {
			return req{method: "PUT", path: "/api/user/profile", token: token, body: body}
		}
		for _, tt := range []struct {
			name       string
			rq         req
			field, msg string
		}{
			{"register name with a line break", register("new@example.com", "Jane\nDoe"), "fullName", "Full name " + control},
			{"register name with a bidi override", register("new@example.com", "Jane \u202eeoD"), "fullName", "Full name " + bidi},
			{"register name with NUL", register("new@example.com", "Jane\x00Doe"), "fullName", "fullName " + nul},
			{"register email with NUL", register("new\x00@example.com", "Jane Doe"), "email", "email " + nul},
			{"register email with a control character", register("new\x07@example.com", "Jane Doe"), "email", account.MsgEmailInvalid},
			// Addresses that read as another's (issue 36, L-2): each was a new account with the welcome credits.
			{"register email with a zero-width space", register("jane\u200b@example.com", "Jane Doe"), "email", account.MsgEmailInvalid},
			{"register email with a soft hyphen", register("ja\u00adne@example.com", "Jane Doe"), "email", account.MsgEmailInvalid},
			{"register email with a Cyrillic a", register("j\u0430ne@example.com", "Jane Doe"), "email", account.MsgEmailInvalid},
			{"profile email with a Cyrillic a", profile(map[string]any{"fullName": "Jane Doe", "email": "j\u0430ne@example.com"}), "email", account.MsgProfileEmail},
			{"login email with NUL", req{method: "POST", path: "/api/auth/login",
				body: map[string]string{"email": "jane\x00@example.com", "password": "correct-horse"}}, "email", "email " + nul},
			{"reset request email with NUL", req{method: "POST", path: "/api/auth/request-password-reset",
				body: map[string]string{"email": "jane\x00@example.com"}}, "email", "email " + nul},
			{"profile name with a tab", profile(map[string]any{"fullName": "Jane\tDoe", "email": "jane@example.com"}), "fullName", "Full name " + control},
			{"profile name with an isolate", profile(map[string]any{"fullName": "Jane \u2066Doe", "email": "jane@example.com"}), "fullName", "Full name " + bidi},
			{"profile company with NUL", profile(map[string]any{"fullName": "Jane Doe", "company": "Acme\x00", "email": "jane@example.com"}), "company", "company " + nul},
			{"profile company with a line break", profile(map[string]any{"fullName": "Jane Doe", "company": "Acme\u2028Realty", "email": "jane@example.com"}), "company", "Company " + control},
			{"profile email with NUL", profile(map[string]any{"fullName": "Jane Doe", "email": "jane\x00@example.com"}), "email", "email " + nul},
		} {
			t.Run(tt.name, func(t *testing.T) {
				tt.rq.badRequest = true
				r := a.do(tt.rq)
				expectStatus(t, r, http.StatusBadRequest)
				if e := r.errBody(t); e.Field != tt.field || e.Error != tt.msg {
					t.Errorf("error = %+v, want %s: %s", e, tt.field, tt.msg)
				}
			})
		}
		// Right-to-left names keep their plain direction marks.
		r := a.do(profile(map[string]any{"fullName": "\u200fנועה כהן", "email": "jane@example.com"}))
		expectStatus(t, r, http.StatusOK)

		// A browser's User-Agent is stored with the session: bytes that are not UTF-8 must not break sign-in.
		r = a.do(req{method: "POST", path: "/api/auth/login", header: map[string]string{"User-Agent": "Agent/\xff\xfe " + strings.Repeat("é", 200)},
			body: map[string]string{"email": "jane@example.com", "password": "correct-horse"}})
		expectStatus(t, r, http.StatusOK)
	})
}
