package person

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"valuator/internal/address"
	"valuator/internal/apperr"
)

// Length limits of a lookup's fields, in characters. Name and city come from the spec (section 5, "Person
// lookup"); the street limit matches the name's, since no real delivery line is longer.
const (
	MaxNameLen   = 200
	MaxCityLen   = 100
	MaxStreetLen = 200
)

// Messages a person sees. The first four are the spec's texts word for word; the others cover rules the spec
// leaves open and say how to fix the input.
const (
	msgNameRequired  = "Name is required"
	msgCityRequired  = "City is required"
	msgState2Letters = "State must be 2 letters"
	msgStateUpper    = "State must be uppercase"
	msgNameTooLong   = "Name must be at most 200 characters"
	msgCityTooLong   = "City must be at most 100 characters"
	msgStreetTooLong = "Street address must be at most 200 characters"
	msgStateUnknown  = "State must be a US state code, such as CA"
	msgPostalCode    = "ZIP code must be 5 digits or ZIP+4, such as 94107 or 94107-1234"
	msgFullName      = "Enter the first and last name, such as Jennifer Northcott"
	msgFirstInitial  = "Enter the full first name (two letters or more), not an initial, such as Jennifer Northcott"
)

// postalCodeRe accepts the two forms the US Postal Service writes; anything else is more likely a wrong field
// than a ZIP code, so it is refused rather than guessed at.
var postalCodeRe = regexp.MustCompile(`^[0-9]{5}(-[0-9]{4})?$`)

// Validate returns the query with every field trimmed, or an *apperr.Error of kind KindInvalid that names each
// bad field by its JSON name (name, street_line_1, city, state_code, postal_code). The state is not upper-cased
// here: the web form does that as the user types, and the spec has the server refuse lower case with its own
// message, so an API caller learns the rule instead of having its input silently changed.
func (q Query) Validate() (Query, error) {
	q.Name = strings.TrimSpace(q.Name)
	q.StreetLine1 = strings.TrimSpace(q.StreetLine1)
	q.City = strings.TrimSpace(q.City)
	q.StateCode = strings.TrimSpace(q.StateCode)
	q.PostalCode = strings.TrimSpace(q.PostalCode)

	var v apperr.Validation
	v.Check(q.Name != "", "name", msgNameRequired)
	v.Check(utf8.RuneCountInString(q.Name) <= MaxNameLen, "name", msgNameTooLong)
	// A query must single out a person: a last name alone, or a first initial, would let a few queries sweep every
	// namesake of a city (A to Z of an initial), which is what a people-search abuser does.
	if n := ParseName(q.Name); q.Name != "" && n.First == "" {
		v.Add("name", msgFullName)
	} else if q.Name != "" && utf8.RuneCountInString(n.First) < 2 {
		v.Add("name", msgFirstInitial)
	}
	v.Check(utf8.RuneCountInString(q.StreetLine1) <= MaxStreetLen, "street_line_1", msgStreetTooLong)
	v.Check(q.City != "", "city", msgCityRequired)
	v.Check(utf8.RuneCountInString(q.City) <= MaxCityLen, "city", msgCityTooLong)
	v.Check(isTwoLetters(q.StateCode), "state_code", msgState2Letters)
	v.Check(strings.ToUpper(q.StateCode) == q.StateCode, "state_code", msgStateUpper)
	// A well-formed code that names no state ("ZZ") would only ever give a free not-found; saying so is kinder.
	_, known := address.NormalizeState(q.StateCode)
	v.Check(known, "state_code", msgStateUnknown)
	v.Check(q.PostalCode == "" || postalCodeRe.MatchString(q.PostalCode), "postal_code", msgPostalCode)
	if err := v.Err(); err != nil {
		return q, err
	}
	return q, nil
}

// isTwoLetters reports whether s is exactly two ASCII letters, in either case (case is a separate rule with its
// own message).
func isTwoLetters(s string) bool {
	if len(s) != 2 {
		return false
	}
	for i := 0; i < 2; i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Purpose is a permissible purpose a caller declares for a person lookup, as consumer-data law expects.
type Purpose struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Purposes is the fixed list, in the order a form shows it.
var Purposes = []Purpose{
	{ID: "real_estate_transaction", Label: "Real estate transaction"},
	{ID: "identity_verification", Label: "Identity verification"},
	{ID: "fraud_prevention", Label: "Fraud prevention"},
	{ID: "contacting_owner", Label: "Contacting a property owner"},
	{ID: "legal_process", Label: "Service of legal process"},
}

// DefaultPurpose is assumed when a caller declares none: the product serves real estate professionals.
const DefaultPurpose = "real_estate_transaction"

// ValidPurpose reports whether id is one of Purposes.
func ValidPurpose(id string) bool {
	_, ok := PurposeLabel(id)
	return ok
}

// PurposeLabel returns the label of a purpose id.
func PurposeLabel(id string) (string, bool) {
	for _, p := range Purposes {
		if p.ID == id {
			return p.Label, true
		}
	}
	return "", false
}
