package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"valuator/internal/account"
	"valuator/internal/jobs"
	"valuator/internal/store"
	"valuator/internal/testdb"
)

// Closed accounts are erased account.ErasureAfterYears after they were closed (the Privacy Policy's "retention"
// promise): these tests use the whole product to leave an account's data in every place it goes, then look for it
// in every column of every table.

// referenceTables hold the market and the people directory, which exist apart from any account (a searched home is
// a record there before and after the search); they are not searched for an account's strings. Every other table,
// one added later too, is.
var referenceTables = map[string]bool{"properties": true, "sales": true, "rentals": true, "people": true,
	"avm_models": true}

// tableColumns lists every table of the database (but SQLite's own) with its columns, by name.
func tableColumns(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	query := `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()
		ORDER BY table_name, ordinal_position`
	if db.Dialect() == store.SQLite {
		query = `SELECT m.name, c.name FROM sqlite_master m JOIN pragma_table_info(m.name) c
			WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid`
	}
	rows, err := db.SQL().QueryContext(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		out[table] = append(out[table], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// tableRows reads every row of table as text, one string per column ("" for NULL).
func tableRows(t *testing.T, db *store.DB, table string, cols []string) [][]string {
	t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = fmt.Sprintf(`CAST("%s" AS TEXT)`, c)
	}
	rows, err := db.SQL().QueryContext(context.Background(), `SELECT `+strings.Join(exprs, ", ")+` FROM "`+table+`"`)
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := make([]*string, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			if v != nil {
				row[i] = *v
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// findStrings searches every column of every table but the reference tables for each needle (ignoring case) and
// counts the cells holding it, by "table.column: needle".
func findStrings(t *testing.T, db *store.DB, needles []string) map[string]int {
	t.Helper()
	hits := map[string]int{}
	for table, cols := range tableColumns(t, db) {
		if referenceTables[table] {
			continue
		}
		for _, row := range tableRows(t, db, table, cols) {
			for i, cell := range row {
				cell = strings.ToLower(cell)
				for _, n := range needles {
					if strings.Contains(cell, strings.ToLower(n)) {
						hits[table+"."+cols[i]+": "+n]++
					}
				}
			}
		}
	}
	return hits
}

// dumpDatabase is every row of every table but the queue's own and the reference tables, as sorted text, to
// compare the database before and after a step.
func dumpDatabase(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, cols := range tableColumns(t, db) {
		if referenceTables[table] || strings.HasPrefix(table, "river_") {
			continue
		}
		var rows []string
		for _, r := range tableRows(t, db, table, cols) {
			rows = append(rows, strings.Join(r, "\x1f"))
		}
		sort.Strings(rows)
		out[table] = rows
	}
	return out
}

// queryStrings runs a query and returns its rows, each as its columns' text joined.
func queryStrings(t *testing.T, db *store.DB, query string, args ...any) []string {
	t.Helper()
	if db.Dialect() == store.Postgres {
		n := 0
		var b strings.Builder
		for _, r := range query {
			if r == '?' {
				n++
				fmt.Fprintf(&b, "$%d", n)
				continue
			}
			b.WriteRune(r)
		}
		query = b.String()
	}
	rows, err := db.SQL().QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]*string, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			if v != nil {
				parts[i] = *v
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// persona is an account the test fills with data, and the strings of that data that are the person's own.
type persona struct {
	email, name, token string
	id                 int64
	needles            []string
}

// TestClosedAccountIsErasedAfterTwoYears: an account closed two years and a day ago, used in every way the product
// offers (a company, an API key, valuations of homes on record and not, a person lookup, a batch job with a webhook,
// a kept preview, signed-in and signed-out contact messages, a password reset, a paid subscription), is erased: no
// cell of any table holds its email, name, company, searched addresses, the names it looked up, its file names or
// webhook; its sessions, reset links, batch files and rows and test cards are gone; its ledger keeps every amount,
// kind, date and reference, and its payments their amounts and status. An account closed two years less a day ago
// and an open account keep every string they had. A second run changes nothing. The erased account cannot sign in
// nor use its key, and its email signs up again as a new account (without a second welcome grant).
func TestClosedAccountIsErasedAfterTwoYears(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		ctx := context.Background()
		a := newTestApp(t, dbURL, withSeattle, func(o *appOptions) { o.holdJobs = true })
		directory(t, a)
		a.startJobs()
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
		defer hook.Close()
		t0 := a.clock.Now()

		signUp := func(email, name, company string) persona {
			t.Helper()
			token, u := a.register(email, "correct-horse", name)
			expectStatus(t, a.do(req{method: "PUT", path: "/api/user/profile", token: token,
				body: map[string]any{"fullName": name, "company": company, "email": email}}), http.StatusOK)
			return persona{email: email, name: name, token: token, id: u.ID, needles: []string{email, name, company}}
		}
		lookup := func(p *persona, address string, status int) {
			t.Helper()
			r := a.do(req{method: "POST", path: "/api/property/lookup", token: p.token, body: map[string]any{
				"address": address, "city": "Seattle", "state": "WA", "zip": "98103",
				"propertyType": "Single Family", "squareFeet": 1800}})
			expectStatus(t, r, status)
			p.needles = append(p.needles, address)
		}
		findPerson := func(p *persona, name, street string) {
			t.Helper()
			body := map[string]string{"name": name, "city": "Seattle", "state_code": "WA", "purpose": "real_estate_transaction"}
			if street != "" {
				body["street_line_1"] = street
			}
			expectStatus(t, a.do(req{method: "POST", path: "/api/find-person", token: p.token, body: body}), http.StatusOK)
			p.needles = append(p.needles, name)
		}
		contactUs := func(p persona, token, text string) {
			t.Helper()
			first, last, _ := strings.Cut(p.name, " ")
			expectStatus(t, a.do(req{method: "POST", path: "/api/contact", token: token, body: map[string]string{
				"firstName": first, "lastName": last, "email": p.email, "subject": "general", "message": text}}), http.StatusCreated)
		}

		// Janet: everything, closed at t0.
		janet := signUp("Janet.Erase@example.com", "Janet Eraseme", "Eraseme Holdings")
		key := a.createKey(janet.token, "Janet Laptop Key", 60)
		janet.needles = append(janet.needles, "Janet Laptop Key", "Bob Smith", "123 MAIN ST",
			"Robert James Smith", "janet-portfolio", "777 Erasure Way", "janet-hook", "janet-preview", "Topeka Nowhere Rd",
			"jr-client-7")
		lookup(&janet, "1000 N 40th St", http.StatusOK)    // on record: charged
		lookup(&janet, "8080 Erasure Pl N", http.StatusOK) // not on record, valued from the attributes: charged
		expectStatus(t, a.public(key.Value, url.Values{"address": {"5 Topeka Nowhere Rd"}, "city": {"Topeka"},
			"state": {"KS"}, "zip": {"66603"}}), http.StatusNotFound) // free, in the history
		r := a.do(req{method: "POST", path: "/api/find-person", token: janet.token,
			header: map[string]string{"X-Request-Id": "jr-client-7"},
			body: map[string]string{"name": "Bob Smith", "street_line_1": "123 MAIN ST #4", "city": "Seattle",
				"state_code": "WA", "purpose": "real_estate_transaction"}})
		expectStatus(t, r, http.StatusOK)
		job := a.do(multipartReq(t, "POST", "/api/jobs", janet.token, "janet-portfolio.csv",
			[]byte("Address,City,State,Zip\n3000 Test Ave N,Seattle,WA,98103\n777 Erasure Way,Topeka,KS,66603\n"),
			map[string]string{"webhookUrl": hook.URL + "/janet-hook"}))
		expectStatus(t, job, http.StatusCreated)
		var j jobAnswer
		job.json(t, &j)
		a.waitJob(janet.token, j.ID, "completed")
		_, pr := a.preview(janet.token, "janet-preview.csv", []byte("Address,City,State,Zip\n777 Erasure Way,Topeka,KS,66603\n"))
		expectStatus(t, pr, http.StatusOK)
		contactUs(janet, janet.token, "Janet here, about 777 Erasure Way")
		contactUs(janet, "", "Janet again, signed out")
		expectStatus(t, a.do(req{method: "POST", path: "/api/auth/request-password-reset",
			body: map[string]string{"email": janet.email}}), http.StatusOK)
		card := a.card(janet.token, "4242424242424242")
		r = a.do(req{method: "POST", path: "/api/billing/subscribe", token: janet.token,
			body: map[string]string{"planType": "basic", "paymentMethodId": card}})
		expectStatus(t, r, http.StatusOK)
		var sub struct{ ClientSecret string }
		r.json(t, &sub)
		expectStatus(t, a.pay(janet.token, sub.ClientSecret, card), http.StatusOK)
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: janet.token,
			body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)

		// The data went where the test says: Janet's strings are in these columns before the erasure. Read now, before
		// the clock moves on: a day later the batch purge may rightly remove the finished job's rows and the preview.
		before := findStrings(t, a.db, janet.needles)
		for _, where := range []string{
			"users.email: Janet.Erase@example.com", "users.full_name: Janet Eraseme", "users.company: Eraseme Holdings",
			"api_keys.name: Janet Laptop Key", "usage_records.property_address: 8080 Erasure Pl N",
			"usage_records.property_address: Topeka Nowhere Rd", "usage_records.request_data: 8080 Erasure Pl N",
			"credit_ledger.description: 8080 Erasure Pl N", "credit_ledger.description: 1000 N 40th St",
			"credit_ledger.description: Robert James Smith", "person_lookups.query: Bob Smith",
			"person_lookups.query: 123 MAIN ST", "person_lookups.client_request_id: jr-client-7",
			"batch_jobs.file_name: janet-portfolio", "batch_jobs.webhook_url: janet-hook",
			"batch_files.file_name: janet-preview", "batch_rows.input: 777 Erasure Way",
			"contact_messages.email: Janet.Erase@example.com", "contact_messages.message: 777 Erasure Way",
		} {
			if before[where] == 0 {
				t.Errorf("before the erasure, no %q: the test did not put the data where it says (found %v)", where, before)
			}
		}

		// Roger: closed two days later, so two years less a day before the erasure.
		a.clock.Advance(48 * time.Hour)
		roger := signUp("roger.recent@example.com", "Roger Recentclose", "Recent Ltd")
		lookup(&roger, "9090 Recent Pl N", http.StatusOK)
		contactUs(roger, roger.token, "Roger here")
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: roger.token,
			body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)

		// Olive: open.
		olive := signUp("olive.open@example.com", "Olive Openaccount", "Open Estates")
		a.createKey(olive.token, "Olive Key", 60)
		olive.needles = append(olive.needles, "Olive Key")
		lookup(&olive, "7070 Open Pl N", http.StatusOK)
		findPerson(&olive, "liz ortiz-nunez", "")
		contactUs(olive, olive.token, "Olive here")

		rogerBefore, oliveBefore := findStrings(t, a.db, roger.needles), findStrings(t, a.db, olive.needles)
		ledger := `SELECT id, amount, balance_after, kind, reference, created_at FROM credit_ledger WHERE user_id = ? ORDER BY id`
		payments := `SELECT id, kind, plan, amount_cents, credits, status, description, created_at FROM payments
			WHERE user_id = ? ORDER BY id`
		ledgerBefore, paymentsBefore := queryStrings(t, a.db, ledger, janet.id), queryStrings(t, a.db, payments, janet.id)
		if len(paymentsBefore) == 0 || len(ledgerBefore) < 5 {
			t.Fatalf("Janet has payments %v and ledger %v: too little to test", paymentsBefore, ledgerBefore)
		}
		sum := `SELECT SUM(amount), COUNT(*) FROM credit_ledger WHERE user_id = ?`
		sumBefore := queryStrings(t, a.db, sum, janet.id)

		// Two years and a day after Janet closed. The workers are stopped, so that only the erasure writes.
		stop, done := context.WithTimeout(ctx, 10*time.Second)
		defer done()
		if err := a.queue.Stop(stop); err != nil {
			t.Fatal(err)
		}
		a.clock.Advance(t0.AddDate(account.ErasureAfterYears, 0, 1).Sub(a.clock.Now()))
		n, err := jobs.EraseClosedAccounts(ctx, a.db, a.clock.Now(), nil)
		if err != nil || n != 1 {
			t.Fatalf("EraseClosedAccounts = %d, %v; want 1 (Janet)", n, err)
		}

		if left := findStrings(t, a.db, janet.needles); len(left) != 0 {
			t.Errorf("after the erasure, Janet's data is still in %v", left)
		}
		for _, q := range []string{
			`SELECT COUNT(*) FROM sessions WHERE user_id = ?`, `SELECT COUNT(*) FROM password_resets WHERE user_id = ?`,
			`SELECT COUNT(*) FROM batch_files WHERE user_id = ?`, `SELECT COUNT(*) FROM test_cards WHERE user_id = ?`,
			`SELECT COUNT(*) FROM known_devices WHERE user_id = ?`,
			`SELECT COUNT(*) FROM batch_rows WHERE job_id IN (SELECT id FROM batch_jobs WHERE user_id = ?)`,
			`SELECT COUNT(*) FROM subscriptions WHERE user_id = ? AND (card_last4 <> '' OR card_brand <> '' OR payment_method_ref <> '')`,
			`SELECT COUNT(*) FROM payments WHERE user_id = ? AND (payment_method_ref <> '' OR secret_hash IS NOT NULL)`,
			`SELECT COUNT(*) FROM users WHERE id = ? AND (password_hash <> '' OR erased_at IS NULL)`,
		} {
			if got := queryStrings(t, a.db, q, janet.id); got[0] != "0" {
				t.Errorf("%s: %s, want 0", q, got[0])
			}
		}
		if got := queryStrings(t, a.db, ledger, janet.id); fmt.Sprint(got) != fmt.Sprint(ledgerBefore) {
			t.Errorf("Janet's ledger changed:\n got %v\nwant %v", got, ledgerBefore)
		}
		if got := queryStrings(t, a.db, sum, janet.id); fmt.Sprint(got) != fmt.Sprint(sumBefore) {
			t.Errorf("Janet's ledger sum and count %v, want %v", got, sumBefore)
		}
		if got := queryStrings(t, a.db, payments, janet.id); fmt.Sprint(got) != fmt.Sprint(paymentsBefore) {
			t.Errorf("Janet's payments changed:\n got %v\nwant %v", got, paymentsBefore)
		}
		if got := findStrings(t, a.db, roger.needles); fmt.Sprint(got) != fmt.Sprint(rogerBefore) {
			t.Errorf("Roger, closed two years less a day ago, changed:\n got %v\nwant %v", got, rogerBefore)
		}
		if got := findStrings(t, a.db, olive.needles); fmt.Sprint(got) != fmt.Sprint(oliveBefore) {
			t.Errorf("Olive's open account changed:\n got %v\nwant %v", got, oliveBefore)
		}

		// Again: nothing more.
		dump := dumpDatabase(t, a.db)
		if n, err := jobs.EraseClosedAccounts(ctx, a.db, a.clock.Now(), nil); err != nil || n != 0 {
			t.Errorf("a second run erased %d (%v), want 0", n, err)
		}
		if again := dumpDatabase(t, a.db); fmt.Sprint(again) != fmt.Sprint(dump) {
			t.Error("a second run changed the database")
		}

		// Janet cannot sign in, by her address or the placeholder, nor use her key; her address signs up again.
		expectStatus(t, a.login(janet.email, "correct-horse"), http.StatusUnauthorized)
		expectStatus(t, a.login(account.ErasedEmail(janet.id), "correct-horse"), http.StatusUnauthorized)
		expectStatus(t, a.do(req{method: "GET", path: "/api/auth/user", token: janet.token}), http.StatusUnauthorized)
		expectStatus(t, a.public(key.Value, url.Values{"address": {"1000 N 40th St"}, "city": {"Seattle"},
			"state": {"WA"}, "zip": {"98103"}}), http.StatusUnauthorized)
		expectStatus(t, a.login(olive.email, "correct-horse"), http.StatusOK)
		_, again := a.register(janet.email, "correct-horse", "Janet Again")
		if again.ID == janet.id || again.Credits != 0 {
			t.Errorf("signed up again: %+v, want a new account without a second welcome grant", again)
		}
		if n, err := jobs.EraseClosedAccounts(ctx, a.db, a.clock.Now(), nil); err != nil || n != 0 {
			t.Errorf("with the new account open, a run erased %d (%v), want 0", n, err)
		}
		expectStatus(t, a.login(janet.email, "correct-horse"), http.StatusOK)
	})
}

// TestRetentionJobErasesOnItsOwn: the retention job is one of the queue's periodic jobs and goes by the queue's
// clock: started two years and a day after an account was closed, the workers erase it without being asked.
func TestRetentionJobErasesOnItsOwn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL, func(o *appOptions) { o.holdJobs = true })
		token, u := a.register("gone@example.com", "correct-horse", "Gone Away")
		expectStatus(t, a.do(req{method: "DELETE", path: "/api/user", token: token,
			body: map[string]string{"password": "correct-horse"}}), http.StatusNoContent)
		a.clock.Advance(a.clock.Now().AddDate(account.ErasureAfterYears, 0, 1).Sub(a.clock.Now()))
		a.startJobs()
		deadline := time.Now().Add(20 * time.Second)
		for {
			got := queryStrings(t, a.db, `SELECT email FROM users WHERE id = ? AND erased_at IS NOT NULL`, u.ID)
			if len(got) == 1 && got[0] == account.ErasedEmail(u.ID) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the account was not erased by the periodic job within 20 s: %v", got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}
