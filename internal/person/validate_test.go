package person

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
)

func TestValidate(t *testing.T) {
	ok := Query{Name: "Robert Smith", City: "Springfield", StateCode: "IL"}
	with := func(f func(*Query)) Query { q := ok; f(&q); return q }
	tests := []struct {
		name      string
		q         Query
		wantField string
		wantMsg   string
	}{
		{"minimal", ok, "", ""},
		{"all fields", with(func(q *Query) { q.StreetLine1, q.PostalCode = "123 Main St", "62704-1234" }), "", ""},
		{"name missing", with(func(q *Query) { q.Name = "  " }), "name", "Name is required"},
		{"name too long", with(func(q *Query) { q.Name = strings.Repeat("a", 201) }), "name", "Name must be at most 200 characters"},
		{"name 200 accented", with(func(q *Query) { q.Name = strings.Repeat("é", 99) + " " + strings.Repeat("é", 100) }), "", ""},
		{"last name only", with(func(q *Query) { q.Name = "Smith" }), "name", msgFullName},
		{"first initial", with(func(q *Query) { q.Name = "R Smith" }), "name", msgFirstInitial},
		{"first initial with a dot", with(func(q *Query) { q.Name = "R. J. Smith" }), "name", msgFirstInitial},
		{"reversed with an initial", with(func(q *Query) { q.Name = "Smith, R" }), "name", msgFirstInitial},
		{"two-letter first name", with(func(q *Query) { q.Name = "Al Smith" }), "", ""},
		{"city missing", with(func(q *Query) { q.City = "" }), "city", "City is required"},
		{"city too long", with(func(q *Query) { q.City = strings.Repeat("a", 101) }), "city", "City must be at most 100 characters"},
		{"state missing", with(func(q *Query) { q.StateCode = "" }), "state_code", "State must be 2 letters"},
		{"state three letters", with(func(q *Query) { q.StateCode = "ILL" }), "state_code", "State must be 2 letters"},
		{"state digits", with(func(q *Query) { q.StateCode = "12" }), "state_code", "State must be 2 letters"},
		{"state lower case", with(func(q *Query) { q.StateCode = "il" }), "state_code", "State must be uppercase"},
		{"state mixed case", with(func(q *Query) { q.StateCode = "Il" }), "state_code", "State must be uppercase"},
		{"state unknown", with(func(q *Query) { q.StateCode = "ZZ" }), "state_code", msgStateUnknown},
		{"street too long", with(func(q *Query) { q.StreetLine1 = strings.Repeat("a", 201) }), "street_line_1", msgStreetTooLong},
		{"zip four digits", with(func(q *Query) { q.PostalCode = "6270" }), "postal_code", msgPostalCode},
		{"zip letters", with(func(q *Query) { q.PostalCode = "ABCDE" }), "postal_code", msgPostalCode},
		{"zip plus four without hyphen", with(func(q *Query) { q.PostalCode = "627041234" }), "postal_code", msgPostalCode},
		{"zip trimmed", with(func(q *Query) { q.PostalCode = " 62704 " }), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.q.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.KindInvalid {
				t.Fatalf("got %v, want an invalid-input error", err)
			}
			if e.Field != tt.wantField || e.Message != tt.wantMsg {
				t.Errorf("got %s %q, want %s %q", e.Field, e.Message, tt.wantField, tt.wantMsg)
			}
		})
	}
}

func TestValidateTrimsAndReportsEveryField(t *testing.T) {
	got, err := Query{Name: " Bob Jones ", StreetLine1: " 1 Main St ", City: " Peoria ", StateCode: " IL ", PostalCode: " 61602 "}.Validate()
	if err != nil {
		t.Fatal(err)
	}
	want := Query{Name: "Bob Jones", StreetLine1: "1 Main St", City: "Peoria", StateCode: "IL", PostalCode: "61602"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	_, err = Query{StateCode: "x", PostalCode: "1"}.Validate()
	e, _ := apperr.As(err)
	if e == nil {
		t.Fatal("got no error, want one")
	}
	if got, want := strings.Join(e.FieldNames(), ","), "city,name,postal_code,state_code"; got != want {
		t.Errorf("got fields %s, want %s", got, want)
	}
}

func TestPurposes(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"real_estate_transaction", true}, {"identity_verification", true}, {"fraud_prevention", true},
		{"contacting_owner", true}, {"legal_process", true}, {"", false}, {"marketing", false},
		{"Real_Estate_Transaction", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if got := ValidPurpose(tt.id); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if !ValidPurpose(DefaultPurpose) {
		t.Errorf("DefaultPurpose %q is not in Purposes", DefaultPurpose)
	}
	if got, _ := PurposeLabel("contacting_owner"); got != "Contacting a property owner" {
		t.Errorf("got label %q", got)
	}
}
