// Package person finds a person by name and address: the query and its validation, the result in the spec's
// snake_case shape (that of Whitepages' Find Person answer), the matching rules as pure functions, and the
// provider interface with its adapters (the local directory in the database; Whitepages in whitepages/).
package person

import "context"

// Query is a person lookup (spec working-screens "Person Lookup"; POST /api/find-person).
type Query struct {
	Name        string `json:"name"`
	StreetLine1 string `json:"street_line_1"`
	City        string `json:"city"`
	StateCode   string `json:"state_code"`
	PostalCode  string `json:"postal_code"`
}

// LatLong is a point.
type LatLong struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

// Address is one address of a person.
type Address struct {
	StreetLine1 string   `json:"street_line_1"`
	StreetLine2 string   `json:"street_line_2"`
	City        string   `json:"city"`
	StateCode   string   `json:"state_code"`
	PostalCode  string   `json:"postal_code"`
	LatLong     *LatLong `json:"lat_long"`
}

// Phone is a phone number: digits as the provider gives them (E.164 or 10 digits) and its line type
// (mobile, landline, voip, ...).
type Phone struct {
	PhoneNumber string `json:"phone_number"`
	LineType    string `json:"line_type"`
}

// Associate is a person related to the result.
type Associate struct {
	Name      string `json:"name"`
	Firstname string `json:"firstname"`
	Lastname  string `json:"lastname"`
	Relation  string `json:"relation"`
}

// Result is a found person, in the spec's snake_case shape.
type Result struct {
	ID               string      `json:"id"`
	Name             string      `json:"name"`
	AlternateNames   []string    `json:"alternate_names"`
	AgeRange         string      `json:"age_range"`
	Gender           string      `json:"gender"`
	FoundAtAddress   *Address    `json:"found_at_address"`
	CurrentAddresses []Address   `json:"current_addresses"`
	HistoricalAddrs  []Address   `json:"historical_addresses"`
	Phones           []Phone     `json:"phones"`
	Emails           []string    `json:"emails"`
	AssociatedPeople []Associate `json:"associated_people"`
	// MatchScore is how well the result matches the query (0-1); Ambiguous says another candidate scored close.
	MatchScore float64 `json:"match_score"`
	Ambiguous  bool    `json:"ambiguous"`
	// Source names where the record came from ("directory", "demo", "whitepages").
	Source string `json:"source"`
}

// Candidate is one record a provider holds, before matching.
type Candidate struct {
	Result
	// FirstName, MiddleName and LastName are the record's name parts (Result.Name is for display).
	FirstName, MiddleName, LastName string
}

// Provider finds people. A miss is ErrNotFound; a provider failure is any other error (never charged).
type Provider interface {
	Name() string
	Find(ctx context.Context, q Query) (Result, error)
}

// ErrNotFound is a query that matches no one.
var ErrNotFound = errNotFound{}

type errNotFound struct{}

func (errNotFound) Error() string { return "person not found" }
