package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"valuator/internal/person"
	"valuator/internal/testdb"
)

// Person lookup probed as an attacker would (issue: a privacy regulator would accept it): opt-outs need the emailed
// link and remove exactly one listing; a broke account learns nothing; sweeps are slowed; the audit log is the
// owner's, filterable and formula-safe; the client's request id is only a label.

// namesakes loads three Susan Oakridges in Phoenix, Elizabeth Ashdown with her mother Susan Brightwater as an
// associate, and the mother's own listing.
func namesakes(t *testing.T, a *testApp) {
	t.Helper()
	importPeople(t, a, "Susan,,Oakridge,10 Cactus Rd,Phoenix,AZ,85001,602-555-0110,mobile,,35-44,female,\n"+
		"Susan,,Oakridge,20 Mesa Dr,Phoenix,AZ,85003,602-555-0120,mobile,,45-54,female,\n"+
		"Susan,Jane,Oakridge,30 Palo Verde Ln,Phoenix,AZ,85004,602-555-0130,mobile,,55-64,female,\n"+
		"Elizabeth,,Ashdown,40 Saguaro St,Phoenix,AZ,85006,602-555-0140,mobile,,25-34,female,Susan Brightwater (parent)\n"+
		"Susan,,Brightwater,50 Ocotillo Ave,Phoenix,AZ,85007,602-555-0150,landline,,55-64,female,Elizabeth Ashdown (child)\n")
}

func phoenix(name, street string) map[string]string {
	q := map[string]string{"name": name, "city": "Phoenix", "state_code": "AZ", "purpose": "real_estate_transaction"}
	if street != "" {
		q["street_line_1"] = street
	}
	return q
}

// optOut asks for an opt-out and returns the answer's development link token ("" when no link was sent).
func (a *testApp) optOut(t *testing.T, name, street, email string) (string, string) {
	t.Helper()
	r := a.do(req{method: "POST", path: "/api/person/opt-out", body: map[string]string{"name": name,
		"street_line_1": street, "city": "Phoenix", "state_code": "AZ", "email": email}})
	expectStatus(t, r, http.StatusOK)
	var out struct{ Message, ConfirmURL string }
	r.json(t, &out)
	token := ""
	if _, after, ok := strings.Cut(out.ConfirmURL, "token="); ok {
		token = after
	}
	return out.Message, token
}

func TestOptOutNeedsTheLinkAndRemovesOneListing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		namesakes(t, a)
		token, _ := a.register("searcher@example.com", "correct-horse", "Sam Searcher")
		find := func(q map[string]string) int {
			t.Helper()
			return a.do(req{method: "POST", path: "/api/find-person", token: token, body: q}).status
		}
		// foundAt is the street of the listing a lookup finds ("" for a miss): a lookup may find a namesake at
		// another street, which is not the listing asked about.
		foundAt := func(q map[string]string) string {
			t.Helper()
			r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: q})
			var hit struct{ Data person.Result }
			if r.status != http.StatusOK {
				return ""
			}
			r.json(t, &hit)
			return hit.Data.FoundAtAddress.StreetLine1
		}
		const sameAnswer = "If we hold a listing that matches, we have sent a confirmation link to vandal@example.com."

		// A made-up street: the same answer, no link, nobody removed (it removed all three Susans before). A
		// nickname alone on a made-up street neither.
		msg, link := a.optOut(t, "Susan Oakridge", "999 Nowhere Blvd", "vandal@example.com")
		if link != "" || !strings.HasPrefix(msg, sameAnswer) {
			t.Errorf("made-up street: %q, link %q; want the same answer and no link", msg, link)
		}
		msg, link = a.optOut(t, "Liz Ashdown", "1 Fake St", "vandal@example.com")
		if link != "" || !strings.HasPrefix(msg, sameAnswer) {
			t.Errorf("nickname on a made-up street: %q, link %q", msg, link)
		}
		for _, street := range []string{"10 Cactus Rd", "20 Mesa Dr", "30 Palo Verde Ln"} {
			if got := find(phoenix("Susan Oakridge", street)); got != http.StatusOK {
				t.Errorf("Susan Oakridge at %s after made-up opt-outs: %d", street, got)
			}
		}
		if mails := a.mail.all(); len(mails) != 0 {
			t.Errorf("%d emails sent for requests that matched nobody", len(mails))
		}

		// The real one, not confirmed: nobody is removed.
		_, link = a.optOut(t, "Susan Oakridge", "20 Mesa Drive", "susan@example.com")
		if link == "" {
			t.Fatal("no link for a strict match")
		}
		if got := find(phoenix("Susan Oakridge", "20 Mesa Dr")); got != http.StatusOK {
			t.Errorf("removed before the link was used: %d", got)
		}
		mails := a.mail.all()
		if len(mails) != 1 || mails[0].To != "susan@example.com" || !strings.Contains(mails[0].Text, link) {
			t.Fatalf("emails %+v, want one to susan@example.com with the link", mails)
		}

		// Confirmed: exactly that one of the three namesakes is gone; the link works once.
		confirm := func(tok string) resp {
			return a.do(req{method: "POST", path: "/api/person/opt-out/confirm", body: map[string]string{"token": tok}})
		}
		r := confirm(link)
		expectStatus(t, r, http.StatusOK)
		var done struct{ Listing struct{ Name, City string } }
		r.json(t, &done)
		if done.Listing.Name != "Susan Oakridge" || done.Listing.City != "Phoenix" {
			t.Errorf("confirmed listing %+v", done.Listing)
		}
		if got := foundAt(phoenix("Susan Oakridge", "20 Mesa Dr")); got == "20 Mesa Dr" {
			t.Errorf("the opted-out Susan is still found")
		}
		for _, street := range []string{"10 Cactus Rd", "30 Palo Verde Ln"} {
			if got := foundAt(phoenix("Susan Oakridge", street)); got != street {
				t.Errorf("the namesake at %s was removed too (found %q)", street, got)
			}
		}
		expectStatus(t, confirm(link), http.StatusGone)
		expectStatus(t, a.do(req{method: "POST", path: "/api/person/opt-out/confirm", badRequest: true,
			body: map[string]string{"token": "not-a-token"}}), http.StatusBadRequest)

		// A link not used within 24 hours expires.
		_, late := a.optOut(t, "Susan Oakridge", "10 Cactus Rd", "susan2@example.com")
		a.clock.Advance(person.OptOutTTL + time.Minute)
		expectStatus(t, confirm(late), http.StatusGone)
		var auth struct{ Token string }
		a.login("searcher@example.com", "correct-horse").json(t, &auth)
		token = auth.Token
		if got := find(phoenix("Susan Oakridge", "10 Cactus Rd")); got != http.StatusOK {
			t.Errorf("an expired link removed a listing: %d", got)
		}

		// The opted-out mother disappears from her daughter's associated people too.
		_, link = a.optOut(t, "Susan Brightwater", "50 Ocotillo Ave", "mom@example.com")
		expectStatus(t, confirm(link), http.StatusOK)
		r = a.do(req{method: "POST", path: "/api/find-person", token: token, body: phoenix("Elizabeth Ashdown", "")})
		expectStatus(t, r, http.StatusOK)
		var hit struct{ Data person.Result }
		r.json(t, &hit)
		if len(hit.Data.AssociatedPeople) != 0 {
			t.Errorf("the opted-out parent is still named: %+v", hit.Data.AssociatedPeople)
		}

		// The opt-out log holds every request, the listing it matched and whether it was confirmed.
		var logged, confirmed int
		if err := a.db.SQL().QueryRow(`SELECT COUNT(*), COUNT(confirmed_at) FROM person_optout_requests`).Scan(&logged,
			&confirmed); err != nil {
			t.Fatal(err)
		}
		if logged != 5 || confirmed != 2 {
			t.Errorf("opt-out log: %d requests, %d confirmed; want 5 and 2", logged, confirmed)
		}
	})
}

func TestOptOutLimits(t *testing.T) {
	a := newTestApp(t, testdb.SQLiteURL(t))
	namesakes(t, a)
	// Others' requests do not use up a listing's links (issue 36, L-5: the fourth mailbox's request sent nothing,
	// silently): each mailbox gets its own three a day, and the fourth request from one is told so.
	for i := range 4 {
		msg, link := a.optOut(t, "Susan Oakridge", "10 Cactus Rd", fmt.Sprintf("s%d@example.com", i))
		if link == "" || !strings.HasPrefix(msg, "If we hold a listing") {
			t.Errorf("request %d: link %q, message %q", i+1, link, msg)
		}
	}
	for range person.OptOutsPerListingPerDay - 1 {
		if _, link := a.optOut(t, "Susan Oakridge", "10 Cactus Rd", "s0@example.com"); link == "" {
			t.Error("a mailbox's second or third link for the listing was not sent")
		}
	}
	r := a.do(req{method: "POST", path: "/api/person/opt-out", body: map[string]string{"name": "Susan Oakridge",
		"street_line_1": "10 Cactus Rd", "city": "Phoenix", "state_code": "AZ", "email": "s0@example.com"}})
	expectStatus(t, r, http.StatusTooManyRequests)
	if e := r.errBody(t); e.Error != person.MsgOptOutListingLimit || e.RetryAfter < 1 {
		t.Errorf("a mailbox's fourth request for the listing: %+v", e)
	}
	// A mailbox gets five requests a day, whatever they name (the form's own limit per network, 10 in 10 minutes,
	// is let through by the clock).
	a.clock.Advance(10 * time.Minute)
	for i := range person.OptOutsPerEmailPerDay {
		a.optOut(t, fmt.Sprintf("Nobody Number%c", 'a'+i), "1 Main St", "flood@example.com")
	}
	r = a.do(req{method: "POST", path: "/api/person/opt-out", body: map[string]string{"name": "Nobody Else",
		"street_line_1": "1 Main St", "city": "Phoenix", "state_code": "AZ", "email": "flood@example.com"}})
	expectStatus(t, r, http.StatusTooManyRequests)
	// Bad input names the field.
	a.clock.Advance(10 * time.Minute)
	for _, tt := range []struct {
		body  map[string]string
		field string
	}{
		{map[string]string{"name": "Susan Oakridge", "street_line_1": "10 Cactus Rd", "city": "Phoenix", "state_code": "AZ",
			"email": "not-an-email"}, "email"},
		{map[string]string{"name": "S Oakridge", "street_line_1": "10 Cactus Rd", "city": "Phoenix", "state_code": "AZ",
			"email": "s@example.com"}, "name"},
		{map[string]string{"name": "Susan Oakridge\x00", "street_line_1": "10 Cactus Rd", "city": "Phoenix",
			"state_code": "AZ", "email": "s@example.com"}, "name"},
	} {
		r := a.do(req{method: "POST", path: "/api/person/opt-out", body: tt.body, badRequest: true})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != tt.field {
			t.Errorf("%v: field %q, want %q", tt.body, e.Field, tt.field)
		}
	}
}

func TestPersonLookupIsNoOracle(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		namesakes(t, a)
		token, u := a.register("broke@example.com", "correct-horse", "Bea Broke")
		spendAll(t, a, u.ID)
		answer := func(q map[string]string) (int, string) {
			t.Helper()
			r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: q})
			var body map[string]any
			_ = json.Unmarshal(r.body, &body)
			delete(body, "requestId")
			b, _ := json.Marshal(body)
			return r.status, string(b)
		}
		listedStatus, listed := answer(phoenix("Susan Oakridge", "10 Cactus Rd"))
		unlistedStatus, unlisted := answer(phoenix("Nobody Anywhere", "10 Cactus Rd"))
		if listedStatus != http.StatusPaymentRequired || unlistedStatus != listedStatus || listed != unlisted {
			t.Errorf("a broke account: listed %d %s, unlisted %d %s; want the same 402", listedStatus, listed,
				unlistedStatus, unlisted)
		}

		// An initial alone is a 400 naming name (A to Z would sweep a surname).
		r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: phoenix("S Oakridge", ""),
			badRequest: true})
		expectStatus(t, r, http.StatusBadRequest)
		if e := r.errBody(t); e.Field != "name" || !strings.Contains(e.Error, "not an initial") {
			t.Errorf("an initial: %+v", e)
		}
	})
}

func TestPersonLookupBurstAndSweepsAreSlowed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		namesakes(t, a)
		token, _ := a.register("burst@example.com", "correct-horse", "Bo Burst")
		// 150 lookups in one burst on the Free plan: at most its 60 a minute are answered, the rest get 429 with
		// the rate-limit headers (all 150 were answered before).
		body, _ := json.Marshal(phoenix("Susan Oakridge", "10 Cactus Rd"))
		var limited, answered int
		for _, ans := range a.parallelAnswers(150, func() *http.Request {
			return a.postJSON("/api/find-person", token, json.RawMessage(body))
		}) {
			switch ans.status {
			case http.StatusTooManyRequests:
				limited++
			case http.StatusOK, http.StatusPaymentRequired:
				answered++
			default:
				t.Errorf("burst: %d %s", ans.status, ans.body)
			}
		}
		if answered > 60 || limited < 90 {
			t.Errorf("150 in a burst: %d answered, %d limited; want at most 60 answered", answered, limited)
		}
		r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: phoenix("Susan Oakridge", "")})
		if r.header.Get("x-ratelimit-limit") != "60" || r.header.Get("Retry-After") == "" {
			t.Errorf("headers of a limited lookup: %v", r.header)
		}

		// Misses: after 50 in an hour the account is slowed, even for a name that would be a hit, and the refusal
		// is in the audit log for the operator.
		a.clock.Advance(time.Minute)
		sweeper, _ := a.register("sweep@example.com", "correct-horse", "Sy Sweep")
		for i := range person.MissesPerHour {
			r := a.do(req{method: "POST", path: "/api/find-person", token: sweeper,
				body: phoenix(fmt.Sprintf("Nobody Number%d", i), "")})
			expectStatus(t, r, http.StatusNotFound)
		}
		a.clock.Advance(time.Minute)
		r = a.do(req{method: "POST", path: "/api/find-person", token: sweeper, body: phoenix("Susan Oakridge", "10 Cactus Rd")})
		expectStatus(t, r, http.StatusTooManyRequests)
		if e := r.errBody(t); e.RetryAfter <= 0 || !strings.Contains(e.Error, "found nobody") {
			t.Errorf("slowed: %+v", e)
		}
		var audit struct{ Data []struct{ Outcome string } }
		a.do(req{method: "GET", path: "/api/person/audit?limit=1", token: sweeper}).json(t, &audit)
		if len(audit.Data) != 1 || audit.Data[0].Outcome != "rate_limited" {
			t.Errorf("the slowed lookup in the audit log: %+v", audit.Data)
		}
		// An hour after the first miss the account may look up again.
		a.clock.Advance(time.Hour)
		expectStatus(t, a.do(req{method: "POST", path: "/api/find-person", token: sweeper,
			body: phoenix("Susan Oakridge", "10 Cactus Rd")}), http.StatusOK)
	})
}

func TestAuditLogFiltersAndRequestIDs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		namesakes(t, a)
		token, _ := a.register("audit@example.com", "correct-horse", "Ada Audit")
		key := a.createKey(token, "=HYPERLINK(\"evil\")", 100)
		// A dashboard hit with the caller's own X-Request-Id, a public-API miss a day later for another purpose.
		r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: phoenix("Susan Oakridge", "10 Cactus Rd"),
			header: map[string]string{"X-Request-Id": "mine-123"}})
		expectStatus(t, r, http.StatusOK)
		serverID := r.header.Get("X-Request-Id")
		if serverID == "mine-123" || len(serverID) != 26 || r.header.Get("X-Client-Request-Id") != "mine-123" {
			t.Errorf("request ids: X-Request-Id %q, X-Client-Request-Id %q", serverID, r.header.Get("X-Client-Request-Id"))
		}
		a.clock.Advance(24 * time.Hour)
		r = a.do(req{method: "GET", path: "/api/v1/person?name=%3DCMD%20Nobody&city=Phoenix&state_code=AZ&purpose=fraud_prevention",
			header: map[string]string{"x-api-key": key.Value}})
		expectStatus(t, r, http.StatusNotFound)

		type entry struct {
			Via, Outcome, Purpose, RequestID string
			APIKeyName, ClientRequestID      *string
			Credits                          int64
			Query                            struct{ Name string }
		}
		var page struct{ Data []entry }
		a.do(req{method: "GET", path: "/api/person/audit", token: token}).json(t, &page)
		if len(page.Data) != 2 {
			t.Fatalf("audit %+v", page.Data)
		}
		miss, hit := page.Data[0], page.Data[1]
		if hit.Via != "dashboard" || hit.Outcome != "found" || hit.Credits != 5 || hit.RequestID != serverID ||
			hit.ClientRequestID == nil || *hit.ClientRequestID != "mine-123" || hit.Query.Name != "Susan Oakridge" {
			t.Errorf("the hit: %+v", hit)
		}
		if miss.Via != "api_key" || miss.APIKeyName == nil || miss.Outcome != "not_found" || miss.Credits != 0 {
			t.Errorf("the miss: %+v", miss)
		}
		var hist struct {
			Data []struct {
				RequestID       string
				ClientRequestID *string
			}
		}
		a.do(req{method: "GET", path: "/api/usage/history", token: token}).json(t, &hist)
		last := hist.Data[len(hist.Data)-1]
		if last.RequestID != serverID || last.ClientRequestID == nil || *last.ClientRequestID != "mine-123" {
			t.Errorf("usage record ids: %+v", last)
		}

		// Filters: by purpose, by day.
		count := func(query string) int {
			var p struct{ Data []entry }
			a.do(req{method: "GET", path: "/api/person/audit?" + query, token: token}).json(t, &p)
			return len(p.Data)
		}
		day := a.clock.Now().Format(time.DateOnly)
		for q, want := range map[string]int{"purpose=fraud_prevention": 1, "purpose=legal_process": 0,
			"from=" + day: 1, "to=" + day: 2, "from=" + day + "&to=" + day: 1} {
			if got := count(q); got != want {
				t.Errorf("audit?%s: %d rows, want %d", q, got, want)
			}
		}
		for _, q := range []string{"from=yesterday", "purpose=gossip", "from=2026-03-05&to=2026-03-01"} {
			r := a.do(req{method: "GET", path: "/api/person/audit?" + q, token: token, badRequest: true})
			expectStatus(t, r, http.StatusBadRequest)
		}

		// The CSV export: every row, formula-safe (the key's name and the query's name start with '=').
		r = a.do(req{method: "GET", path: "/api/person/audit?format=csv&purpose=fraud_prevention", token: token})
		expectStatus(t, r, http.StatusOK)
		lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], `'=HYPERLINK`) || !strings.Contains(lines[1], `'=CMD Nobody`) {
			t.Errorf("CSV:\n%s", r.body)
		}
	})
}

func TestDemoResidentOnlyInDevelopment(t *testing.T) {
	withDemo := func(t *testing.T, a *testApp) {
		t.Helper()
		people := person.DemoResidents([]person.Address{{StreetLine1: "5873 River Dr N", City: "Seattle", StateCode: "WA",
			PostalCode: "98103"}}, 1)
		if _, _, err := a.db.ImportPeople(context.Background(), "demo", people, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	dev := newTestApp(t, testdb.SQLiteURL(t))
	token, _ := dev.register("dev@example.com", "correct-horse", "Dee Dev")
	expectStatus(t, dev.do(req{method: "GET", path: "/api/person/demo-resident", token: token}), http.StatusNotFound)
	withDemo(t, dev)
	r := dev.do(req{method: "GET", path: "/api/person/demo-resident", token: token})
	expectStatus(t, r, http.StatusOK)
	var q person.Query
	r.json(t, &q)
	if q.StreetLine1 != "5873 River Dr N" || q.Name == "" {
		t.Errorf("demo resident %+v", q)
	}
	// The resident it names is a hit.
	q2 := map[string]string{"name": q.Name, "street_line_1": q.StreetLine1, "city": q.City, "state_code": q.StateCode,
		"postal_code": q.PostalCode, "purpose": "real_estate_transaction"}
	expectStatus(t, dev.do(req{method: "POST", path: "/api/find-person", token: token, body: q2}), http.StatusOK)

	prod := newTestApp(t, testdb.SQLiteURL(t), production)
	withDemo(t, prod)
	token, _ = prod.register("prod@example.com", "correct-horse", "Pru Prod")
	expectStatus(t, prod.do(req{method: "GET", path: "/api/person/demo-resident", token: token}), http.StatusNotFound)
}
