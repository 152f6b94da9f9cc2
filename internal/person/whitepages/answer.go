package whitepages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"valuator/internal/person"
)

// answer is the Find Person response body (field names as best known offline; see the package comment).
type answer struct {
	Person   []wpPerson      `json:"person"`
	Error    json.RawMessage `json:"error"`
	Warnings json.RawMessage `json:"warnings"`
}

type wpPerson struct {
	ID                  string        `json:"id"`
	Name                string        `json:"name"`
	Firstname           string        `json:"firstname"`
	Middlename          string        `json:"middlename"`
	Lastname            string        `json:"lastname"`
	AlternateNames      []string      `json:"alternate_names"`
	AgeRange            ageRange      `json:"age_range"`
	Gender              string        `json:"gender"`
	FoundAtAddress      *wpAddress    `json:"found_at_address"`
	CurrentAddresses    []wpAddress   `json:"current_addresses"`
	HistoricalAddresses []wpAddress   `json:"historical_addresses"`
	Phones              []wpPhone     `json:"phones"`
	Emails              []string      `json:"emails"`
	AssociatedPeople    []wpAssociate `json:"associated_people"`
}

type wpAddress struct {
	ID          string     `json:"id"`
	StreetLine1 string     `json:"street_line_1"`
	StreetLine2 string     `json:"street_line_2"`
	City        string     `json:"city"`
	StateCode   string     `json:"state_code"`
	PostalCode  string     `json:"postal_code"`
	LatLong     *wpLatLong `json:"lat_long"`
}

type wpLatLong struct {
	Latitude  *float64 `json:"latitude"`
	Longitude *float64 `json:"longitude"`
	// Accuracy is a word ("RoofTop", "Street") in the examples known; kept raw so a number does not fail the answer.
	Accuracy json.RawMessage `json:"accuracy"`
}

type wpPhone struct {
	PhoneNumber string `json:"phone_number"`
	LineType    string `json:"line_type"`
}

type wpAssociate struct {
	Name      string `json:"name"`
	Firstname string `json:"firstname"`
	Lastname  string `json:"lastname"`
	Relation  string `json:"relation"`
}

// ageRange accepts both shapes seen for age_range: {"from": 30, "to": 34} and a string such as "30-34".
// It keeps the text form ("30-34", "65+" when only from is known).
type ageRange string

func (a *ageRange) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		*a = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = ageRange(strings.TrimSpace(s))
		return nil
	}
	var r struct {
		From *json.Number `json:"from"`
		To   *json.Number `json:"to"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("age_range: %w", err)
	}
	num := func(n *json.Number) string {
		if n == nil || n.String() == "" {
			return ""
		}
		if f, err := n.Float64(); err == nil {
			return strconv.Itoa(int(f))
		}
		return n.String()
	}
	from, to := num(r.From), num(r.To)
	switch {
	case from != "" && to != "":
		*a = ageRange(from + "-" + to)
	case from != "":
		*a = ageRange(from + "+")
	case to != "":
		*a = ageRange("0-" + to)
	default:
		*a = ""
	}
	return nil
}

// decode maps a 200 answer to a Result: the first person is the provider's best match.
func (p *Provider) decode(ctx context.Context, body []byte) (person.Result, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		p.log.ErrorContext(ctx, "whitepages answer is not the expected JSON", "err", err, "bytes", len(body))
		// The decoder's message quotes at most a type name or an offset, never the body, but the body is not
		// ours to show, so the cause is only the decoder's error.
		return person.Result{}, unavailable("The person data provider sent an answer we could not read", err)
	}
	if e := bytes.TrimSpace(a.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		// A 200 carrying an error object; its text is the provider's and is not passed on.
		p.log.ErrorContext(ctx, "whitepages answered with an error object", "bytes", len(e))
		return person.Result{}, unavailable("The person data provider could not answer this request",
			fmt.Errorf("error object in a 200 answer"))
	}
	if len(a.Person) == 0 {
		return person.Result{}, person.ErrNotFound
	}
	r := toResult(a.Person[0])
	// Whitepages orders candidates best first but gives no score; the first is taken, and with several the
	// score says how little the answer alone singles one out.
	r.MatchScore = 1 / float64(len(a.Person))
	r.Ambiguous = len(a.Person) > 1
	return r, nil
}

func toResult(w wpPerson) person.Result {
	name := strings.TrimSpace(w.Name)
	if name == "" {
		name = strings.Join(strings.Fields(strings.Join([]string{w.Firstname, w.Middlename, w.Lastname}, " ")), " ")
	}
	r := person.Result{
		ID:               w.ID,
		Name:             name,
		AlternateNames:   nonNil(w.AlternateNames),
		AgeRange:         string(w.AgeRange),
		Gender:           w.Gender,
		CurrentAddresses: addresses(w.CurrentAddresses),
		HistoricalAddrs:  addresses(w.HistoricalAddresses),
		Phones:           make([]person.Phone, 0, len(w.Phones)),
		Emails:           nonNil(w.Emails),
		AssociatedPeople: make([]person.Associate, 0, len(w.AssociatedPeople)),
		Source:           SourceName,
	}
	if w.FoundAtAddress != nil {
		a := address(*w.FoundAtAddress)
		r.FoundAtAddress = &a
	}
	for _, ph := range w.Phones {
		r.Phones = append(r.Phones, person.Phone{PhoneNumber: ph.PhoneNumber, LineType: ph.LineType})
	}
	for _, as := range w.AssociatedPeople {
		n := strings.TrimSpace(as.Name)
		if n == "" {
			n = strings.TrimSpace(as.Firstname + " " + as.Lastname)
		}
		r.AssociatedPeople = append(r.AssociatedPeople,
			person.Associate{Name: n, Firstname: as.Firstname, Lastname: as.Lastname, Relation: as.Relation})
	}
	return r
}

// nonNil makes absent lists empty, so the JSON result shows [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func addresses(ws []wpAddress) []person.Address {
	out := make([]person.Address, 0, len(ws))
	for _, w := range ws {
		out = append(out, address(w))
	}
	return out
}

func address(w wpAddress) person.Address {
	a := person.Address{StreetLine1: w.StreetLine1, StreetLine2: w.StreetLine2, City: w.City,
		StateCode: w.StateCode, PostalCode: w.PostalCode}
	if ll := w.LatLong; ll != nil && ll.Latitude != nil && ll.Longitude != nil {
		a.LatLong = &person.LatLong{Latitude: *ll.Latitude, Longitude: *ll.Longitude}
	}
	return a
}
