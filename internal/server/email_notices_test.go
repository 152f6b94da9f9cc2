package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/config"
	"valuator/internal/jobs"
	"valuator/internal/mail"
	"valuator/internal/notify"
	"valuator/internal/ratelimit"
	"valuator/internal/store"
	"valuator/internal/testdb"
	"valuator/internal/testsmtp"
)

// The emails of Settings' switches and of the contact form, end to end: the product queues them, the mail job
// sends them through our SMTP sender to a real SMTP server started by the test (testsmtp), and the test reads
// what that server received.

const (
	mailSecret   = "test-secret-0123456789abcdef-0123456789"
	supportEmail = "help@valuator.test"
	appBaseURL   = "https://valuator.example.com"
	chromeUA     = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	firefoxUA    = "Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0"
	safariUA     = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15"
)

// withMail gives the app the server secret the mail job signs its links with, the device memory of sign-ins, a
// support address, and client addresses from X-Forwarded-For (so a test can sign in from several networks).
func withMail(o *appOptions) {
	if o.env == nil {
		o.env = map[string]string{}
	}
	o.env["VALUATOR_SECRET"] = mailSecret
	o.env["VALUATOR_TRUST_PROXY"] = "true"
	o.env["VALUATOR_SUPPORT_EMAIL"] = supportEmail
	o.accounts = func(d *account.Deps) {
		devices, err := notify.NewDevices(mailSecret)
		if err != nil {
			panic(err)
		}
		d.Devices = devices
	}
}

// mailRig is the mail job's side: our SMTP sender pointed at a test SMTP server, and the links of the emails.
type mailRig struct {
	t      *testing.T
	a      *testApp
	smtp   *testsmtp.Server
	sender mail.Sender
	links  notify.Links
}

func newMailRig(t *testing.T, a *testApp) *mailRig {
	t.Helper()
	srv := testsmtp.Start(t)
	signer, err := notify.NewSigner(mailSecret)
	if err != nil {
		t.Fatal(err)
	}
	return &mailRig{t: t, a: a, smtp: srv,
		sender: mail.SMTP{Config: srv.Config("Valuator <no-reply@valuator.test>"), Timeout: 5 * time.Second},
		links:  notify.Links{BaseURL: appBaseURL, Signer: signer}}
}

// deliver runs the mail job once and returns how many emails it sent.
func (m *mailRig) deliver() int {
	m.t.Helper()
	n, err := jobs.DeliverMail(context.Background(), m.a.db, m.sender, m.links, m.a.clock.Now)
	if err != nil {
		m.t.Fatalf("DeliverMail: %v", err)
	}
	return n
}

// received is what the SMTP server accepted for addr whose subject contains subject.
func (m *mailRig) received(addr, subject string) []testsmtp.Message {
	var out []testsmtp.Message
	for _, msg := range m.smtp.To(addr) {
		if strings.Contains(msg.Header.Get("Subject"), subject) {
			out = append(out, msg)
		}
	}
	return out
}

// from signs up or in from a browser (user agent) on a client address.
func from(ua, ip string) map[string]string {
	return map[string]string{"User-Agent": ua, "X-Forwarded-For": ip}
}

func (a *testApp) registerFrom(email, name string, h map[string]string) (string, account.User) {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/auth/register", header: h,
		body: map[string]string{"email": email, "password": "correct-horse-battery", "fullName": name}})
	expectStatus(a.t, r, http.StatusCreated)
	var auth account.Auth
	r.json(a.t, &auth)
	return auth.Token, auth.User
}

func (a *testApp) signInFrom(email string, h map[string]string) string {
	a.t.Helper()
	r := a.do(req{method: "POST", path: "/api/auth/login", header: h,
		body: map[string]string{"email": email, "password": "correct-horse-battery"}})
	expectStatus(a.t, r, http.StatusOK)
	var auth account.Auth
	r.json(a.t, &auth)
	return auth.Token
}

func (a *testApp) setNotifications(token string, n account.Notifications) {
	a.t.Helper()
	expectStatus(a.t, a.do(req{method: "PUT", path: "/api/user/notifications", token: token, body: n}), http.StatusOK)
}

func (a *testApp) notifications(token string) account.Notifications {
	a.t.Helper()
	var u account.User
	r := a.do(req{method: "GET", path: "/api/user/profile", token: token})
	expectStatus(a.t, r, http.StatusOK)
	r.json(a.t, &u)
	return u.Notifications
}

var unsubscribeLink = regexp.MustCompile(`https://valuator\.example\.com/unsubscribe\?token=(\S+)`)

// unsubscribeToken is the token of an email's unsubscribe link (in its text), checked against its
// List-Unsubscribe header.
func unsubscribeToken(t *testing.T, msg testsmtp.Message) string {
	t.Helper()
	m := unsubscribeLink.FindStringSubmatch(msg.Body)
	if m == nil {
		t.Fatalf("no unsubscribe link in:\n%s", msg.Body)
	}
	tok, err := url.QueryUnescape(m[1])
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := "<" + appBaseURL + "/api/unsubscribe?token=" + m[1] + ">"
	if got := msg.Header.Get("List-Unsubscribe"); got != wantHeader {
		t.Errorf("List-Unsubscribe = %q, want %q", got, wantHeader)
	}
	if got := msg.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post = %q, want List-Unsubscribe=One-Click (RFC 8058)", got)
	}
	return tok
}

// TestSignInAlertOnANewDeviceOnly: signing in from a browser and network the account has not used sends an alert
// that says when, which browser family and roughly where (the /24, never the address), and how to change the
// password; the registration's own browser and a known one send nothing, and neither does any sign-in while
// "Email notifications" is off.
func TestSignInAlertOnANewDeviceOnly(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withMail)
		m := newMailRig(t, a)
		token, jane := a.registerFrom("jane@example.com", "Jane Doe", from(chromeUA, "203.0.113.7"))

		// The browser she signed up in, on the same network (another address of the /24): known.
		a.signInFrom("jane@example.com", from(chromeUA, "203.0.113.99"))
		if n := m.deliver(); n != 0 {
			t.Fatalf("a sign-in from the registration's browser sent %d emails: %v", n, m.smtp.Messages())
		}

		// Firefox on another network: new.
		a.clock.Advance(time.Hour)
		a.signInFrom("jane@example.com", from(firefoxUA, "198.51.100.44"))
		if n := m.deliver(); n != 1 {
			t.Fatalf("a sign-in from a new device sent %d emails, want 1", n)
		}
		got := m.received("jane@example.com", "New sign-in")
		if len(got) != 1 {
			t.Fatalf("emails to jane: %d, want 1 sign-in alert", len(got))
		}
		body := got[0].Body
		for _, want := range []string{"Hello Jane Doe", "Firefox on Linux", "198.51.100.0/24",
			"Sunday, March 1, 2026 at 13:00 UTC", appBaseURL + "/settings", appBaseURL + "/forgot-password",
			"change your password"} {
			if !strings.Contains(body, want) {
				t.Errorf("sign-in alert lacks %q:\n%s", want, body)
			}
		}
		if strings.Contains(body, "198.51.100.44") || strings.Contains(got[0].Header.Get("Subject"), "198.51.100.44") {
			t.Errorf("the alert gives the full address:\n%s", body)
		}
		// A security notice: no unsubscribe link, no List-Unsubscribe header (issue 36, L-7).
		if unsubscribeLink.MatchString(body) || got[0].Header.Get("List-Unsubscribe") != "" ||
			!strings.Contains(body, "This is a security notice") {
			t.Errorf("the sign-in alert offers an unsubscribe:\n%s", body)
		}

		// The same browser and network again: known now.
		a.signInFrom("jane@example.com", from(firefoxUA, "198.51.100.45"))
		if n := m.deliver(); n != 0 {
			t.Errorf("a sign-in from a known device sent %d emails", n)
		}

		// "Email notifications" turned off by the never-expiring link of any batch email (as whoever holds one
		// could) does not silence the alert of a new device (issue 36, L-7).
		signer, err := notify.NewSigner(mailSecret)
		if err != nil {
			t.Fatal(err)
		}
		expectStatus(t, a.do(req{method: "POST", path: "/api/unsubscribe",
			body: map[string]string{"token": signer.Token(jane.ID, notify.TopicAccount)}}), http.StatusOK)
		if n := a.notifications(token); n.EmailNotifications {
			t.Fatalf("the link did not turn Email notifications off: %+v", n)
		}
		a.signInFrom("jane@example.com", from(safariUA, "192.0.2.10"))
		if n := m.deliver(); n != 1 {
			t.Errorf("a new device with Email notifications off sent %d emails, want the alert", n)
		}
		if got := m.received("jane@example.com", "New sign-in"); len(got) != 2 {
			t.Errorf("%d sign-in alerts, want 2", len(got))
		}
		// Only the hashes of devices are stored.
		var n int
		if err := a.db.SQL().QueryRow(`SELECT COUNT(*) FROM known_devices WHERE device_hash LIKE '%198.51%'
			OR device_hash LIKE '%Firefox%'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("known_devices holds a readable device (%d rows, %v)", n, err)
		}
	})
}

// TestBatchResultEmailedOncePerOutcome: a job that stops for lack of credits and, retried, completes, sends two
// emails, one per outcome, each with the counts, the credits used and a link to the job; sending again sends
// nothing more.
func TestBatchResultEmailedOncePerOutcome(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle, withMail)
		m := newMailRig(t, a)
		token, u := a.registerFrom("jane@example.com", "Jane Doe", from(chromeUA, "203.0.113.7"))
		spendTo(t, a, u.ID, 7)
		r := a.do(multipartReq(t, "POST", "/api/jobs", token, "homes.csv", batchCSV(30), nil))
		expectStatus(t, r, http.StatusCreated)
		var j jobAnswer
		r.json(t, &j)
		stopped := a.waitJob(token, j.ID, "failed", "completed")
		if stopped.Status != "failed" {
			t.Fatalf("job = %+v, want failed for lack of credits", stopped)
		}
		m.deliver()
		m.deliver()
		first := m.received("jane@example.com", fmt.Sprintf("Batch job #%d", j.ID))
		if len(first) != 1 {
			t.Fatalf("%d emails about the stopped job, want 1", len(first))
		}
		notValued := stopped.TotalProperties - stopped.ProcessedProperties
		body := first[0].Body
		for _, want := range []string{
			fmt.Sprintf("Batch job #%d stopped: out of credits", j.ID),
			fmt.Sprintf("Properties in the file:            %d", stopped.TotalProperties),
			fmt.Sprintf("Valued:                            %d", stopped.SuccessfulProperties),
			fmt.Sprintf("Could not be valued (not charged): %d", stopped.FailedProperties),
			fmt.Sprintf("Not valued for lack of credits:    %d", notValued),
			"Credits used:                      7",
			fmt.Sprintf("%s/batch-upload?job=%d", appBaseURL, j.ID),
		} {
			if !strings.Contains(first[0].Header.Get("Subject")+"\n"+body, want) {
				t.Errorf("batch email lacks %q:\n%s", want, body)
			}
		}
		if notValued == 0 {
			t.Errorf("the stopped job left no row for lack of credits: %+v", stopped)
		}
		unsubscribeToken(t, first[0])

		if _, err := a.db.Grant(context.Background(), u.ID, 50, "test", "top-up", "", a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		expectStatus(t, a.do(req{method: "POST", path: fmt.Sprintf("/api/jobs/%d/retry", j.ID), token: token}), http.StatusOK)
		done := a.waitJob(token, j.ID, "completed", "failed")
		m.deliver()
		m.deliver()
		all := m.received("jane@example.com", fmt.Sprintf("Batch job #%d", j.ID))
		if len(all) != 2 {
			t.Fatalf("%d emails about the job, want 2 (one per outcome)", len(all))
		}
		want := fmt.Sprintf("Batch job #%d finished: %d of %d valued", j.ID, done.SuccessfulProperties, done.TotalProperties)
		if got := all[1].Header.Get("Subject"); got != want {
			t.Errorf("subject = %q, want %q", got, want)
		}
		if !strings.Contains(all[1].Body, fmt.Sprintf("Credits used:                      %d", done.CreditsUsed)) {
			t.Errorf("completed email lacks the credits used (%d):\n%s", done.CreditsUsed, all[1].Body)
		}
	})
}

// TestWeeklyReport: on Monday the report of the week before goes to each open account with the switch on and any
// activity that week, with its calls, credits, success rate and top endpoints; a quiet week, or the switch off,
// gets none; and running the job twice, or twice at once, queues one report per account and week.
func TestWeeklyReport(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withSeattle, withMail)
		m := newMailRig(t, a)
		weekly := account.Notifications{EmailNotifications: true, UsageAlerts: true, WeeklyReports: true}
		jane, _ := a.registerFrom("jane@example.com", "Jane Doe", from(chromeUA, "203.0.113.7"))
		quiet, _ := a.registerFrom("quiet@example.com", "Quiet Quinn", from(chromeUA, "203.0.113.8"))
		off, _ := a.registerFrom("off@example.com", "Off Olga", from(chromeUA, "203.0.113.9"))
		a.setNotifications(jane, weekly)
		a.setNotifications(quiet, weekly)

		// Sunday, March 1, 2026 (the last day of ISO week 9): jane makes 3 valuations and 1 bad call; off uses
		// the API too.
		key := a.createKey(jane, "Main", 100)
		for range 3 {
			expectStatus(t, a.public(key.Value, fortieth), http.StatusOK)
		}
		expectStatus(t, a.public(key.Value, url.Values{"address": {"1000 N 40th St"}}), http.StatusBadRequest)
		offKey := a.createKey(off, "Main", 100)
		expectStatus(t, a.public(offKey.Value, fortieth), http.StatusOK)

		// Monday 09:00: a call of the new week does not count in last week's report.
		a.clock.Advance(21 * time.Hour)
		expectStatus(t, a.public(key.Value, fortieth), http.StatusOK)

		var wg sync.WaitGroup
		counts := make([]int, 2)
		for i := range counts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := jobs.QueueWeeklyReports(context.Background(), a.db, a.clock.Now())
				if err != nil {
					t.Error(err)
				}
				counts[i] = n
			}()
		}
		wg.Wait()
		again, err := jobs.QueueWeeklyReports(context.Background(), a.db, a.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if counts[0]+counts[1] != 1 || again != 0 {
			t.Fatalf("reports queued: %v at once, then %d; want 1 in all", counts, again)
		}
		m.deliver()
		m.deliver()
		if got := m.smtp.Messages(); len(got) != 1 || got[0].To[0] != "jane@example.com" {
			t.Fatalf("emails sent: %d (%v), want one, to jane", len(got), got)
		}
		got := m.received("jane@example.com", "Your Valuator week")[0]
		if s := got.Header.Get("Subject"); s != "Your Valuator week (Feb 23 to Mar 1, 2026): 4 calls, 3 credits" {
			t.Errorf("subject = %q", s)
		}
		for _, want := range []string{"from Monday February 23 to Sunday March 1, 2026", "Calls:         4",
			"Credits used:  3", "Success rate:  75.0% (3 of 4 calls answered 2xx)", "GET /api/v1/property/valuation",
			appBaseURL + "/reporting"} {
			if !strings.Contains(got.Body, want) {
				t.Errorf("weekly report lacks %q:\n%s", want, got.Body)
			}
		}

		// The report's unsubscribe link turns the weekly report off without a session; the other switches stay.
		tok := unsubscribeToken(t, got)
		r := a.do(req{method: "POST", path: "/api/unsubscribe", body: map[string]string{"token": tok}})
		expectStatus(t, r, http.StatusOK)
		var res struct{ Switch, Label, Message string }
		r.json(t, &res)
		if res.Switch != "weeklyReports" || res.Label != "Weekly usage report" {
			t.Errorf("unsubscribe answer = %+v", res)
		}
		if n := a.notifications(jane); n != (account.Notifications{EmailNotifications: true, UsageAlerts: true}) {
			t.Errorf("after unsubscribing, notifications = %+v; want only the weekly report off", n)
		}
		// Twice is harmless.
		expectStatus(t, a.do(req{method: "POST", path: "/api/unsubscribe", body: map[string]string{"token": tok}}), http.StatusOK)
	})
}

// TestUnsubscribeOneClickAndBadTokens: a mail client's one-click unsubscribe (RFC 8058: a form post of
// "List-Unsubscribe=One-Click" to the List-Unsubscribe URL) turns the switch off; a token that is missing,
// malformed, altered or carries a NUL is a 400 naming token, and nothing changes.
func TestUnsubscribeOneClickAndBadTokens(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withMail)
		token, jane := a.registerFrom("jane@example.com", "Jane Doe", from(chromeUA, "203.0.113.7"))
		// The token an "Email notifications" email (a batch result) carries; its links are checked by
		// TestBatchResultEmailedOncePerOutcome. The sign-in alert has none (a security notice).
		signer, err := notify.NewSigner(mailSecret)
		if err != nil {
			t.Fatal(err)
		}
		tok := signer.Token(jane.ID, notify.TopicAccount)
		want := account.Notifications{EmailNotifications: true, UsageAlerts: true}

		// Altered tokens: another account, another switch, a changed signature.
		other := strings.Replace(tok, fmt.Sprintf(".%d.", 1), ".2.", 1)
		sw := strings.Replace(tok, "emailNotifications", "usageAlerts", 1)
		sig := tok[:len(tok)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(tok, "A")]
		for name, rq := range map[string]req{
			"missing token":           {body: map[string]any{}},
			"empty token":             {body: map[string]string{"token": ""}},
			"garbage token":           {body: map[string]string{"token": "hello"}},
			"another account":         {body: map[string]string{"token": other}},
			"another switch":          {body: map[string]string{"token": sw}},
			"signature":               {body: map[string]string{"token": sig}},
			"token not text":          {raw: `{"token": 42}`, badRequest: true},
			"NUL in token":            {raw: `{"token": "` + tok + `\u0000"}`, badRequest: true},
			"one-click without token": {raw: "List-Unsubscribe=One-Click", contentType: "application/x-www-form-urlencoded"},
			"one-click bad token": {path: "/api/unsubscribe?token=" + url.QueryEscape(sig), raw: "List-Unsubscribe=One-Click",
				contentType: "application/x-www-form-urlencoded"},
		} {
			rq.method = "POST"
			if rq.path == "" {
				rq.path = "/api/unsubscribe"
			}
			r := a.do(rq)
			if r.status != http.StatusBadRequest {
				t.Errorf("%s: status %d, want 400; body %s", name, r.status, r.body)
				continue
			}
			if e := r.errBody(t); e.Field != "token" {
				t.Errorf("%s: error names %q, want token: %s", name, e.Field, r.body)
			}
		}
		huge := a.do(req{method: "POST", path: "/api/unsubscribe", raw: `{"token": "` + strings.Repeat("A", 2<<20) + `"}`,
			badRequest: true})
		if huge.status != http.StatusRequestEntityTooLarge {
			t.Errorf("a huge body: status %d, want 413", huge.status)
		}
		plain := a.do(req{method: "POST", path: "/api/unsubscribe", raw: tok, contentType: "text/plain", badRequest: true})
		if plain.status != http.StatusUnsupportedMediaType {
			t.Errorf("a text/plain body: status %d, want 415", plain.status)
		}
		if got := a.notifications(token); got != want {
			t.Fatalf("bad tokens changed the notifications: %+v", got)
		}

		// A browser that opens the List-Unsubscribe URL is sent to the page, which asks first: nothing changes.
		noRedirect := *a.srv.Client()
		noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := noRedirect.Get(a.srv.URL + "/api/unsubscribe?token=" + url.QueryEscape(tok))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/unsubscribe?token="+url.QueryEscape(tok) {
			t.Errorf("GET of the List-Unsubscribe URL: %d to %q, want 303 to the page", res.StatusCode, loc)
		}
		if got := a.notifications(token); got != want {
			t.Fatalf("opening the link changed the notifications: %+v", got)
		}

		// The one-click post: no session, the form body, the token in the URL.
		r := a.do(req{method: "POST", path: "/api/unsubscribe?token=" + url.QueryEscape(tok), raw: "List-Unsubscribe=One-Click",
			contentType: "application/x-www-form-urlencoded"})
		expectStatus(t, r, http.StatusOK)
		if got := a.notifications(token); got.EmailNotifications || !got.UsageAlerts {
			t.Errorf("after one-click, notifications = %+v; want emailNotifications off only", got)
		}
	})
}

// TestContactReachesAPerson: a contact message is emailed to the support address with Reply-To set to the sender,
// and the sender gets an acknowledgement that repeats none of the text; with the mail server down the answer does
// not wait, and the emails go out once it is back.
func TestContactReachesAPerson(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, withMail)
		m := newMailRig(t, a)
		m.smtp.SetDown(true)
		body := map[string]any{"firstName": "Jane", "lastName": "Doe", "email": "jane@example.com",
			"company": "Acme Realty", "subject": "technical", "message": "My batch job is stuck at 40%.\n.\nThanks"}
		r := a.do(req{method: "POST", path: "/api/contact", body: body})
		expectStatus(t, r, http.StatusCreated)

		if n := m.deliver(); n != 0 {
			t.Fatalf("%d emails sent with the mail server down", n)
		}
		m.smtp.SetDown(false)
		if n := m.deliver(); n != 0 {
			t.Errorf("%d emails sent before their retry time", n)
		}
		a.clock.Advance(2 * time.Minute)
		if n := m.deliver(); n != 2 {
			t.Fatalf("%d emails sent once the mail server was back, want 2", n)
		}

		toSupport := m.smtp.To(supportEmail)
		if len(toSupport) != 1 {
			t.Fatalf("%d emails to support, want 1", len(toSupport))
		}
		msg := toSupport[0]
		if got := msg.Header.Get("Reply-To"); got != "jane@example.com" {
			t.Errorf("Reply-To = %q, want the sender", got)
		}
		for _, want := range []string{"Jane Doe <jane@example.com>", "Acme Realty", "Technical Support",
			"My batch job is stuck at 40%.\n.\nThanks"} {
			if !strings.Contains(msg.Body, want) {
				t.Errorf("support email lacks %q:\n%s", want, msg.Body)
			}
		}
		ack := m.smtp.To("jane@example.com")
		if len(ack) != 1 || ack[0].Header.Get("Subject") != "We received your message" {
			t.Fatalf("acknowledgements to the sender: %v", ack)
		}
		if strings.Contains(ack[0].Body, "stuck") || strings.Contains(ack[0].Body, "Jane") ||
			!strings.Contains(ack[0].Body, "Technical Support") || !strings.Contains(ack[0].Body, "within 24 hours") {
			t.Errorf("acknowledgement:\n%s", ack[0].Body)
		}
		if ack[0].Header.Get("List-Unsubscribe") != "" {
			t.Errorf("the one-off acknowledgement has a List-Unsubscribe header")
		}

		// An address gets at most 3 acknowledgements a day; every message still reaches support.
		for range 4 {
			expectStatus(t, a.do(req{method: "POST", path: "/api/contact", body: body}), http.StatusCreated)
		}
		m.deliver()
		if got := len(m.smtp.To(supportEmail)); got != 5 {
			t.Errorf("%d emails to support, want 5", got)
		}
		if got := len(m.smtp.To("jane@example.com")); got != 3 {
			t.Errorf("%d acknowledgements to one address, want 3", got)
		}
	})
}

// TestContactFromAPriorityPlanIsMarked: a message sent signed in from a plan with priority support (the pricing
// page's "Priority email support") reaches support marked "Priority" with the plan; a Free account's and a signed-out
// sender's are not marked.
func TestContactFromAPriorityPlanIsMarked(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withMail)
	m := newMailRig(t, a)
	pro, u := a.register("pro@example.com", "correct-horse", "Pat Pro")
	setPlan(t, a, u.ID, "professional", -1)
	free, _ := a.register("free@example.com", "correct-horse", "Fran Free")
	send := func(token, email, first string) {
		body := map[string]any{"firstName": first, "lastName": "Doe", "email": email, "subject": "billing",
			"message": "A question about my invoice."}
		expectStatus(t, a.do(req{method: "POST", path: "/api/contact", token: token, body: body}), http.StatusCreated)
	}
	send(pro, "pro@example.com", "Pat")
	send(free, "free@example.com", "Fran")
	send("", "anon@example.com", "Ann")
	m.deliver()
	subjects := map[string]string{}
	for _, msg := range m.smtp.To(supportEmail) {
		subjects[msg.Header.Get("Reply-To")] = msg.Header.Get("Subject")
	}
	if got := subjects["pro@example.com"]; !strings.HasPrefix(got, "[Priority: Professional] Contact #") {
		t.Errorf("the Professional account's message: subject %q", got)
	}
	for _, from := range []string{"free@example.com", "anon@example.com"} {
		if got := subjects[from]; !strings.HasPrefix(got, "Contact #") {
			t.Errorf("%s's message: subject %q, want no priority mark", from, got)
		}
	}
}

// TestSiteNamesTheSupportAddress: the public pages learn the configured support address and the support chat's
// office hours from GET /api/site.
func TestSiteNamesTheSupportAddress(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t), withMail)
	r := a.do(req{method: "GET", path: "/api/site"})
	expectStatus(t, r, http.StatusOK)
	var site struct{ SupportEmail, SupportHours string }
	r.json(t, &site)
	if site.SupportEmail != supportEmail {
		t.Errorf("supportEmail = %q, want %q", site.SupportEmail, supportEmail)
	}
	// The default office hours (config), as the Contact page states them.
	if site.SupportHours != "Mon–Fri 9 AM–6 PM PT" {
		t.Errorf("supportHours = %q, want the configured hours", site.SupportHours)
	}
}

// TestSiteStatesTheHoursWithoutTheChat: a server built without the support chat (the examples and benchmark tools
// build one) states the configured office hours too.
func TestSiteStatesTheHoursWithoutTheChat(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"VALUATOR_DATABASE_URL": testdb.SQLiteURL(t), "VALUATOR_DATA_DIR": t.TempDir(),
			"VALUATOR_SUPPORT_HOURS": "Mon-Thu 08:00-16:00 America/New_York"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	h := New(Deps{Config: cfg, Logger: log, OpenAPI: []byte("{}"), FormLimiter: ratelimit.NewMemory(nil),
		APILimiter: ratelimit.NewMemory(nil)})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/site", nil))
	var site struct{ SupportHours string }
	if err := json.Unmarshal(w.Body.Bytes(), &site); w.Code != http.StatusOK || err != nil {
		t.Fatalf("GET /api/site = %d %s (%v), want 200", w.Code, w.Body, err)
	}
	if site.SupportHours != "Mon–Thu 8 AM–4 PM ET" {
		t.Errorf("supportHours = %q, want the configured hours", site.SupportHours)
	}
}

// TestOutboxRowsAreUnique: the outbox's unique key holds in the database itself.
func TestOutboxRowsAreUnique(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		ctx := context.Background()
		mm := notify.Mail{Kind: notify.KindContactAck, Key: "contact:1:ack", To: "a@b.co", Payload: []byte(`{}`),
			CreatedAt: a.clock.Now()}
		for i, want := range []bool{true, false} {
			if ok, err := a.db.QueueMail(ctx, mm); err != nil || ok != want {
				t.Errorf("QueueMail #%d = %v, %v; want %v", i+1, ok, err, want)
			}
		}
		var outcomes []store.MailOutcome
		outcomes, err := a.db.MailOutcomes(ctx)
		if err != nil || len(outcomes) != 1 {
			t.Errorf("outbox = %v, %v", outcomes, err)
		}
	})
}
