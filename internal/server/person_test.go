package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"valuator/internal/person"
	"valuator/internal/testdb"
)

// directory loads three people: Robert James Smith and Elizabeth Ortiz-Núñez in Seattle, and another Robert
// Smith in Tacoma.
func directory(t *testing.T, a *testApp) {
	t.Helper()
	importPeople(t, a, "Robert,James,Smith,123 Main Street Apt 4,Seattle,WA,98103,206-555-0101,mobile,bob@example.com,45-54,male,Jane Smith (spouse)\n"+
		"Elizabeth,,Ortiz-Núñez,77 Pine St,Seattle,WA,98101,2065550102,landline,liz@example.com,35-44,female,\n"+
		"Robert,,Smith,9 Harbor Rd,Tacoma,WA,98402,2535550103,mobile,,65+,male,\n")
}

// importPeople imports the CSV rows (the importer's columns, without the header) into the directory.
func importPeople(t *testing.T, a *testApp, rows string) {
	t.Helper()
	csvText := "first_name,middle_name,last_name,street_line_1,city,state,zip,phone,line_type,email,age_range,gender,associated\n" + rows
	people, bad, err := person.ParseCSV(strings.NewReader(csvText), nil)
	if err != nil || len(bad) != 0 {
		t.Fatalf("parse: %v %v", err, bad)
	}
	if _, _, err := a.db.ImportPeople(context.Background(), "directory", people, a.clock.Now()); err != nil {
		t.Fatal(err)
	}
}

func TestPersonLookupChargesOnlyHits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, dbURL string) {
		a := newTestApp(t, dbURL)
		directory(t, a)
		token, _ := a.register("jane@example.com", "correct-horse", "Jane Doe")
		find := func(body map[string]string) resp {
			return a.do(req{method: "POST", path: "/api/find-person", token: token, body: body})
		}

		// A nickname and a differently written address find Robert James Smith: 5 credits.
		r := find(map[string]string{"name": "Bob Smith", "street_line_1": "123 MAIN ST #4", "city": "Seattle",
			"state_code": "WA", "purpose": "real_estate_transaction"})
		expectStatus(t, r, http.StatusOK)
		var hit struct {
			Data person.Result
			Meta struct{ CreditsUsed, CreditsRemaining int64 }
		}
		r.json(t, &hit)
		if hit.Data.Name != "Robert James Smith" || hit.Meta.CreditsUsed != 5 || hit.Meta.CreditsRemaining != 95 ||
			len(hit.Data.Phones) != 1 || hit.Data.Phones[0].PhoneNumber != "2065550101" {
			t.Fatalf("hit %+v", hit)
		}
		// Accents and case: found.
		expectStatus(t, find(map[string]string{"name": "liz ortiz-nunez", "city": "Seattle", "state_code": "WA",
			"purpose": "identity_verification"}), http.StatusOK)
		// A miss is free.
		r = find(map[string]string{"name": "Nobody Here", "city": "Seattle", "state_code": "WA", "purpose": "fraud_prevention"})
		expectStatus(t, r, http.StatusNotFound)
		// Bad input names the field with the spec's text, and is free.
		for _, tt := range []struct {
			body  map[string]string
			field string
			msg   string
		}{
			{map[string]string{"city": "Seattle", "state_code": "WA", "purpose": "fraud_prevention"}, "name", "Name is required"},
			{map[string]string{"name": "Bob Smith", "state_code": "WA", "purpose": "fraud_prevention"}, "city", "City is required"},
			{map[string]string{"name": "Bob Smith", "city": "Seattle", "state_code": "W", "purpose": "fraud_prevention"}, "state_code", "State must be 2 letters"},
			{map[string]string{"name": "Bob Smith", "city": "Seattle", "state_code": "wa", "purpose": "fraud_prevention"}, "state_code", "State must be uppercase"},
			{map[string]string{"name": "Bob Smith", "city": "Seattle", "state_code": "WA", "purpose": "curiosity"}, "purpose", ""},
			{map[string]string{"name": "Bob\x00", "city": "Seattle", "state_code": "WA", "purpose": "fraud_prevention"}, "name", ""},
		} {
			r := a.do(req{method: "POST", path: "/api/find-person", token: token, body: tt.body, badRequest: true})
			expectStatus(t, r, http.StatusBadRequest)
			e := r.errBody(t)
			if e.Field != tt.field || (tt.msg != "" && e.Error != tt.msg) {
				t.Errorf("%v: %s %q, want %s %q", tt.body, e.Field, e.Error, tt.field, tt.msg)
			}
		}
		var me struct{ Credits int64 }
		a.do(req{method: "GET", path: "/api/user/profile", token: token}).json(t, &me)
		if me.Credits != 90 {
			t.Errorf("credits %d, want 100 - 5 - 5", me.Credits)
		}

		// The public endpoint: same rules, rate-limit headers, and the lookup in history as a person lookup.
		k := a.createKey(token, "People", 100)
		q := url.Values{"name": {"Robert Smith"}, "city": {"Tacoma"}, "state_code": {"WA"}}
		rq, _ := http.NewRequest("GET", a.srv.URL+"/api/v1/person?"+q.Encode(), nil)
		rq.Header.Set("x-api-key", k.Value)
		res, err := a.srv.Client().Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("x-ratelimit-limit") == "" {
			t.Errorf("public person: %d, headers %v", res.StatusCode, res.Header)
		}
		var hist struct {
			Data []struct {
				ApiService  string
				CreditsUsed int64
			}
		}
		a.do(req{method: "GET", path: "/api/usage/history?limit=50", token: token}).json(t, &hist)
		charged, lookups := int64(0), 0
		for _, h := range hist.Data {
			if h.ApiService == "person_lookup" {
				lookups++
				charged += h.CreditsUsed
			}
		}
		// Nine: the body with a NUL is refused at the edge, before it is a lookup (as on every endpoint).
		if lookups != 9 || charged != 15 {
			t.Errorf("history: %d person lookups charged %d, want 9 and 15", lookups, charged)
		}

		// The audit log: this user's nine lookups; another user sees none of them.
		var audit struct {
			Data []struct{ Outcome, Purpose string }
		}
		a.do(req{method: "GET", path: "/api/person/audit?limit=100", token: token}).json(t, &audit)
		if len(audit.Data) != 9 || audit.Data[0].Outcome != "found" || audit.Data[0].Purpose != "real_estate_transaction" {
			t.Errorf("audit %+v", audit.Data)
		}
		csvResp := a.do(req{method: "GET", path: "/api/person/audit?format=csv", token: token})
		expectStatus(t, csvResp, http.StatusOK)
		if n := strings.Count(string(csvResp.body), "\n"); n != 10 {
			t.Errorf("audit CSV has %d lines, want a header and 9", n)
		}
		other, _ := a.register("sam@example.com", "correct-horse", "Sam Roe")
		a.do(req{method: "GET", path: "/api/person/audit", token: other}).json(t, &audit)
		if len(audit.Data) != 0 {
			t.Errorf("another user sees %d audit rows", len(audit.Data))
		}

		// Opt-out: Robert James Smith asks to be removed and confirms with the emailed link; he is not found any
		// more, nor imported again.
		r = a.do(req{method: "POST", path: "/api/person/opt-out", body: map[string]string{"name": "Robert Smith",
			"street_line_1": "123 Main St Apt 4", "city": "Seattle", "state_code": "WA", "postal_code": "98103",
			"email": "bob@example.com"}})
		expectStatus(t, r, http.StatusOK)
		var requested struct{ ConfirmURL string }
		r.json(t, &requested)
		optOutToken := requested.ConfirmURL[strings.Index(requested.ConfirmURL, "token=")+len("token="):]
		expectStatus(t, a.do(req{method: "POST", path: "/api/person/opt-out/confirm", body: map[string]string{"token": optOutToken}}),
			http.StatusOK)
		expectStatus(t, find(map[string]string{"name": "Bob Smith", "street_line_1": "123 MAIN ST #4", "city": "Seattle",
			"state_code": "WA", "purpose": "real_estate_transaction"}), http.StatusNotFound)
		directory(t, a)
		expectStatus(t, find(map[string]string{"name": "Bob Smith", "street_line_1": "123 MAIN ST #4", "city": "Seattle",
			"state_code": "WA", "purpose": "real_estate_transaction"}), http.StatusNotFound)
		// The other Robert Smith, in Tacoma, is still there.
		expectStatus(t, find(map[string]string{"name": "Robert Smith", "city": "Tacoma", "state_code": "WA",
			"purpose": "real_estate_transaction"}), http.StatusOK)
		expectStatus(t, a.do(req{method: "POST", path: "/api/person/opt-out", badRequest: true, body: map[string]string{
			"name": "Robert Smith", "city": "Seattle", "state_code": "WA", "email": "bob@example.com"}}), http.StatusBadRequest)
	})
}
