package person

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"valuator/internal/address"
)

// ImportFields are the fields a people CSV can map columns to (`valuator import people FILE --format csv
// --map field=Column,...`). Columns not mapped are found by their usual names (see importHeaderGuesses).
var ImportFields = []string{"name", "first_name", "middle_name", "last_name", "street_line_1", "street_line_2",
	"city", "state_code", "postal_code", "phone", "line_type", "email", "age_range", "gender", "latitude",
	"longitude", "associated"}

// importHeaderGuesses maps lower-cased, underscore-joined column names to fields. Numbered phone and email
// columns (phone2, phone_3, email2) are recognised separately.
var importHeaderGuesses = map[string]string{
	"name": "name", "full_name": "name", "fullname": "name",
	"first_name": "first_name", "firstname": "first_name", "first": "first_name", "given_name": "first_name",
	"middle_name": "middle_name", "middlename": "middle_name", "middle": "middle_name",
	"last_name": "last_name", "lastname": "last_name", "last": "last_name", "surname": "last_name",
	"street_line_1": "street_line_1", "address": "street_line_1", "street": "street_line_1",
	"street_address": "street_line_1", "address1": "street_line_1", "address_line_1": "street_line_1",
	"street_line_2": "street_line_2", "address2": "street_line_2", "address_line_2": "street_line_2",
	"unit": "street_line_2", "apt": "street_line_2",
	"city": "city", "town": "city",
	"state": "state_code", "state_code": "state_code", "st": "state_code",
	"zip": "postal_code", "zipcode": "postal_code", "zip_code": "postal_code", "postal_code": "postal_code",
	"line_type": "line_type", "phone_type": "line_type",
	"age_range": "age_range", "age": "age_range", "gender": "gender", "sex": "gender",
	"latitude": "latitude", "lat": "latitude", "longitude": "longitude", "lon": "longitude", "lng": "longitude",
	"associated": "associated", "associated_people": "associated", "relatives": "associated",
}

// numberedRe recognises "phone", "phones", "phone2", "phone_2", "email", "emails", "email_3" and the like, each
// a column of phone numbers or emails in its own right.
var numberedRe = regexp.MustCompile(`^(phone|email)(s|_?[0-9]+)?$`)

// RowError is a row that could not be imported: its line in the file (the header is line 1), the field at fault
// and a message a person can act on.
type RowError struct {
	Line    int
	Field   string
	Message string
}

func (e RowError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Message)
}

// ParseCSV reads people from a CSV file with a header row. mapping names the column of a field (field ->
// header, case-insensitive) where the usual names do not apply. Good rows become candidates with a stable ID
// (see CandidateID); bad rows become RowErrors and the import goes on, so one typo does not lose a file. Rows
// that give the same ID as an earlier row are the same person listed twice and are merged into it. The error
// is for a file that cannot be imported at all: empty, not CSV, a mapping that names an unknown field or
// column, or no column to take a last name from.
func ParseCSV(r io.Reader, mapping map[string]string) ([]Candidate, []RowError, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("the file is empty")
		}
		return nil, nil, fmt.Errorf("reading the header: %w", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	cols, err := importColumns(header, mapping)
	if err != nil {
		return nil, nil, err
	}
	var (
		out  []Candidate
		bad  []RowError
		byID = map[string]int{}
	)
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				bad = append(bad, RowError{Line: pe.StartLine, Message: pe.Err.Error()})
				continue
			}
			return nil, nil, err
		}
		// The reader skips blank lines, so the line is where the record starts, not a count of records.
		line, _ := cr.FieldPos(0)
		if blank(row) {
			continue
		}
		c, errs := cols.candidate(row)
		if len(errs) > 0 {
			for _, e := range errs {
				e.Line = line
				bad = append(bad, e)
			}
			continue
		}
		if i, dup := byID[c.ID]; dup {
			out[i] = mergeCandidates(out[i], c)
			continue
		}
		byID[c.ID] = len(out)
		out = append(out, c)
	}
	return out, bad, nil
}

// importCols holds the column index of each field; phone and email may have several columns.
type importCols struct {
	one    map[string]int
	phones []int
	emails []int
}

func importColumns(header []string, mapping map[string]string) (importCols, error) {
	c := importCols{one: map[string]int{}}
	find := func(name string) (int, bool) {
		for i, h := range header {
			if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(name)) {
				return i, true
			}
		}
		return 0, false
	}
	fields := make([]string, 0, len(mapping))
	for f := range mapping {
		fields = append(fields, f)
	}
	// Sorted so that the first error reported for a bad mapping does not depend on map order.
	sort.Strings(fields)
	for _, f := range fields {
		f, name := strings.TrimSpace(f), mapping[f]
		if !validImportField(f) {
			return c, fmt.Errorf("unknown field %q in the mapping (fields: %s)", f, strings.Join(ImportFields, ", "))
		}
		i, ok := find(name)
		if !ok {
			return c, fmt.Errorf("the mapping names column %q for %s, but the file has no such column", name, f)
		}
		switch f {
		case "phone":
			c.phones = append(c.phones, i)
		case "email":
			c.emails = append(c.emails, i)
		default:
			c.one[f] = i
		}
	}
	_, mappedPhone := mapping["phone"]
	_, mappedEmail := mapping["email"]
	for i, h := range header {
		key := strings.ToLower(strings.Join(strings.Fields(strings.NewReplacer("-", " ", ".", " ").Replace(h)), "_"))
		if m := numberedRe.FindStringSubmatch(key); m != nil {
			if m[1] == "phone" && !mappedPhone {
				c.phones = append(c.phones, i)
			}
			if m[1] == "email" && !mappedEmail {
				c.emails = append(c.emails, i)
			}
			continue
		}
		if f, ok := importHeaderGuesses[key]; ok {
			if _, taken := c.one[f]; !taken {
				c.one[f] = i
			}
		}
	}
	_, hasName := c.one["name"]
	_, hasLast := c.one["last_name"]
	if !hasName && !hasLast {
		return c, errors.New("no name or last_name column: map one with --map last_name=COLUMN")
	}
	return c, nil
}

func validImportField(f string) bool {
	for _, x := range ImportFields {
		if x == f {
			return true
		}
	}
	return false
}

func blank(row []string) bool {
	for _, v := range row {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

func cell(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return strings.TrimSpace(row[i])
}

func (c importCols) get(row []string, field string) string {
	i, ok := c.one[field]
	if !ok {
		return ""
	}
	return cell(row, i)
}

// candidate reads one row. It reports every bad field of the row, not just the first, so a person can fix a
// row in one pass.
func (c importCols) candidate(row []string) (Candidate, []RowError) {
	var errs []RowError
	fail := func(field, msg string) { errs = append(errs, RowError{Field: field, Message: msg}) }

	var cand Candidate
	first, middle, last := c.get(row, "first_name"), c.get(row, "middle_name"), c.get(row, "last_name")
	full := c.get(row, "name")
	if last == "" && full != "" {
		// Only a full name: split it, keeping the words as written for display.
		p := ParseName(full)
		if p.Last != "" {
			words := strings.Fields(strings.ReplaceAll(full, ",", " "))
			first, last = displayPart(words, p.First), ""
			last = strings.TrimSpace(lastWords(full, p))
			if p.Middle != "" {
				middle = p.Middle
			}
		}
	}
	if FoldName(last) == "" {
		fail("last_name", "the last name is missing")
	}
	cand.FirstName, cand.MiddleName, cand.LastName = first, middle, last
	cand.Name = full
	if cand.Name == "" {
		cand.Name = strings.Join(strings.Fields(first+" "+middle+" "+last), " ")
	}

	a := Address{StreetLine1: c.get(row, "street_line_1"), StreetLine2: c.get(row, "street_line_2"),
		City: c.get(row, "city")}
	if a.City == "" {
		fail("city", "the city is missing")
	}
	if st := c.get(row, "state_code"); st == "" {
		fail("state_code", "the state is missing")
	} else if code, ok := address.NormalizeState(st); ok {
		a.StateCode = code
	} else {
		fail("state_code", fmt.Sprintf("%q is not a US state", st))
	}
	if z := c.get(row, "postal_code"); z != "" {
		if n, ok := normalizeZIP(z); ok {
			a.PostalCode = n
		} else {
			fail("postal_code", fmt.Sprintf("%q is not a ZIP code (5 digits or ZIP+4)", z))
		}
	}
	lat, lon := c.get(row, "latitude"), c.get(row, "longitude")
	if lat != "" || lon != "" {
		la, err1 := strconv.ParseFloat(lat, 64)
		lo, err2 := strconv.ParseFloat(lon, 64)
		switch {
		case err1 != nil || la < -90 || la > 90:
			fail("latitude", fmt.Sprintf("%q is not a latitude", lat))
		case err2 != nil || lo < -180 || lo > 180:
			fail("longitude", fmt.Sprintf("%q is not a longitude", lon))
		default:
			a.LatLong = &LatLong{Latitude: la, Longitude: lo}
		}
	}
	cand.CurrentAddresses = []Address{a}

	types := splitList(c.get(row, "line_type"))
	var n int
	for _, i := range c.phones {
		for _, p := range splitList(cell(row, i)) {
			digits, ok := NormalizePhone(p)
			if !ok {
				fail("phone", fmt.Sprintf("%q is not a 10-digit US phone number", p))
				continue
			}
			ph := Phone{PhoneNumber: digits}
			// One line type applies to every phone; several are matched to the phones in order.
			switch {
			case len(types) == 1:
				ph.LineType = strings.ToLower(types[0])
			case n < len(types):
				ph.LineType = strings.ToLower(types[n])
			}
			n++
			cand.Phones = append(cand.Phones, ph)
		}
	}
	for _, i := range c.emails {
		for _, e := range splitList(cell(row, i)) {
			if !plausibleEmail(e) {
				fail("email", fmt.Sprintf("%q is not an email address", e))
				continue
			}
			cand.Emails = append(cand.Emails, strings.ToLower(e))
		}
	}
	cand.AgeRange, cand.Gender = c.get(row, "age_range"), c.get(row, "gender")
	cand.AssociatedPeople = ParseAssociates(c.get(row, "associated"))
	if len(errs) > 0 {
		return Candidate{}, errs
	}
	cand.ID = CandidateID(cand.FirstName, cand.LastName, a)
	// Imported people live in the local directory, which is what Source names.
	cand.Source = "directory"
	return cand, nil
}

// displayPart returns the word of words whose folded form is folded, as written.
func displayPart(words []string, folded string) string {
	for _, w := range words {
		if FoldName(w) == folded {
			return w
		}
	}
	return folded
}

// lastWords returns the trailing words of full that make up p.Last, as written ("de la Cruz").
func lastWords(full string, p PersonName) string {
	words := strings.Fields(strings.ReplaceAll(full, ",", " "))
	var kept []string
	for _, w := range words {
		if f := FoldName(w); f != "" && !nameSuffixes[f] {
			kept = append(kept, w)
		}
	}
	for i := range kept {
		if strings.ReplaceAll(FoldName(strings.Join(kept[i:], " ")), " ", "") == p.Last {
			return strings.Join(kept[i:], " ")
		}
	}
	return p.Last
}

// splitList splits a cell holding several values separated by semicolons.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ";") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// NormalizePhone returns the 10 digits of a US phone number written in any common way ("(217) 555-0123",
// "+1 217.555.0123"), or false when it is not one: too few or too many digits, or an area code or exchange
// beginning with 0 or 1, which the North American plan never assigns.
func NormalizePhone(s string) (string, bool) {
	var d []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			d = append(d, s[i])
		}
	}
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 || d[0] < '2' || d[3] < '2' {
		return "", false
	}
	return string(d), true
}

// normalizeZIP accepts 12345, 12345-6789 and 123456789, and gives the first two as written, the last with its
// hyphen.
func normalizeZIP(z string) (string, bool) {
	digits := strings.ReplaceAll(z, "-", "")
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", false
		}
	}
	switch {
	case len(digits) == 5 && len(z) == 5:
		return z, true
	case len(digits) == 9 && (len(z) == 9 || (len(z) == 10 && z[5] == '-')):
		return digits[:5] + "-" + digits[5:], true
	}
	return "", false
}

// plausibleEmail checks the shape only: something, an @, and a domain with a dot. Whether the mailbox exists
// is not ours to know.
func plausibleEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	return at > 0 && strings.Contains(s[at+1:], ".") && !strings.ContainsAny(s, " \t,<>")
}

// associateRe reads one associated person: a name with an optional relation in parentheses.
var associateRe = regexp.MustCompile(`^\s*([^()]+?)\s*(?:\(([^()]*)\))?\s*$`)

// ParseAssociates reads "Jane Doe (spouse); John Doe Jr (son); Ann Lee" into associated people. The first and
// last names are the name's first and last words as written.
func ParseAssociates(s string) []Associate {
	var out []Associate
	for _, part := range splitList(s) {
		m := associateRe.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		a := Associate{Name: m[1], Relation: strings.ToLower(strings.TrimSpace(m[2]))}
		if p := ParseName(m[1]); p.Last != "" {
			words := strings.Fields(m[1])
			a.Firstname = displayPart(words, p.First)
			a.Lastname = lastWords(m[1], p)
			if p.First == "" {
				a.Firstname = ""
			}
		}
		out = append(out, a)
	}
	return out
}

// CandidateID is a stable identifier of a person at an address: a hash of the folded first and last name and
// the normalised address (street, unit, city, state, ZIP code). Importing the same file twice, or the same
// person written with other case, accents or street abbreviations, gives the same ID, so a store can upsert by it.
func CandidateID(first, last string, a Address) string {
	p := placeOf(a.StreetLine1, a.StreetLine2, a.City, a.StateCode, a.PostalCode)
	n := nameFromParts(first, "", last)
	key := strings.Join([]string{n.First, n.Last, p.street, p.unit, p.city, p.state, p.zip}, "|")
	sum := sha256.Sum256([]byte(key))
	return "p_" + hex.EncodeToString(sum[:10])
}

// mergeCandidates adds to a what b knows that a does not: phones, emails, associates and empty details.
func mergeCandidates(a, b Candidate) Candidate {
	for _, p := range b.Phones {
		if !containsPhone(a.Phones, p.PhoneNumber) {
			a.Phones = append(a.Phones, p)
		}
	}
	for _, e := range b.Emails {
		if !containsString(a.Emails, e) {
			a.Emails = append(a.Emails, e)
		}
	}
	for _, x := range b.AssociatedPeople {
		dup := false
		for _, y := range a.AssociatedPeople {
			dup = dup || FoldName(x.Name) == FoldName(y.Name)
		}
		if !dup {
			a.AssociatedPeople = append(a.AssociatedPeople, x)
		}
	}
	if a.MiddleName == "" {
		a.MiddleName = b.MiddleName
	}
	if a.AgeRange == "" {
		a.AgeRange = b.AgeRange
	}
	if a.Gender == "" {
		a.Gender = b.Gender
	}
	return a
}

func containsPhone(ps []Phone, n string) bool {
	for _, p := range ps {
		if p.PhoneNumber == n {
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
