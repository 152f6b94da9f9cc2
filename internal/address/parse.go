package address

import (
	"fmt"
	"strconv"
	"strings"

	"valuator/internal/apperr"
)

// Parse reads a US street address written on one line, with or without commas:
//
//	"123 n. Main Street Apt 4B, Springfield, IL 62704-1234"
//	"123 Main St Springfield IL 62704"
//	"123 Main St"
//
// City, state and ZIP code are optional; the caller decides which of them it requires. Errors are *apperr.Error
// of kind KindInvalid naming the field to fix: "address" (CodeInvalidAddress, or CodeCannotValue for PO boxes and
// rural route boxes), "city", "state" or "zip".
//
// With commas, the parts are read as street (with its unit), optional unit parts, city, then state and ZIP code.
// Without commas the parser finds the state and ZIP code at the end and ends the street at its suffix, unit or
// highway number; the rest is the city. A street without any of those ("4030 BROADWAY SACRAMENTO CA") is taken to
// be one word long (two for "AVENIDA MARTINA"-style names), because nothing else can tell the street from the
// city. Commas remove the guesswork and are always preferred.
func Parse(line string) (Address, error) {
	if len(line) > maxInputLen {
		return Address{}, invalid(CodeInvalidAddress, fieldAddress, msgTooLong)
	}
	if e := checkSymbols(line, fieldAddress); e != nil {
		return Address{}, e
	}
	segs := tokenize(line)
	if len(segs) == 0 {
		return Address{}, invalid(CodeInvalidAddress, fieldAddress, msgEmpty)
	}
	if e := checkNonStreet(segs); e != nil {
		return Address{}, e
	}
	a, e := parseSegments(segs)
	if e != nil {
		return Address{}, e
	}
	if a.lineLen() > maxLineLen {
		return Address{}, invalid(CodeInvalidAddress, fieldAddress, msgTooLong)
	}
	return a, nil
}

// FromParts builds an address from split fields, as a lookup form or an imported record gives them. street may
// carry the unit ("5201 LAGUNA OAKS DR Unit 140"). When city, state and zip are all empty, street is parsed as a
// whole one-line address, so a caller that put everything in the street field still gets a result.
//
// A ZIP code of 4 (or 8) digits is taken to have lost its leading zero in a spreadsheet and is padded with one
// zero, and one of 3 (or 7) digits with two, but only when the state is empty or one whose ZIP codes begin with
// zero (New England, New Jersey, New York, Puerto Rico, the Virgin Islands); otherwise it is an error.
//
// The error names every bad field in Fields; Code, Field and Message describe the first of address, city, state,
// zip.
func FromParts(street, city, state, zip string) (Address, error) {
	city, state, zip = strings.TrimSpace(city), strings.TrimSpace(state), strings.TrimSpace(zip)
	var a Address
	var cityErr, stateErr, zipErr *apperr.Error

	// The city field first: punctuation alone is no city, and "Springfield, IL" in it names the state too.
	// A unit at its start ("Apt 4 Springfield") belongs to the street and "USA" is no city, as in Parse.
	var cityToks, cityUnits []token
	if len(city) > maxInputLen {
		cityErr = invalid(CodeInvalidCity, fieldCity, msgCityLong)
	} else if checkSymbols(city, fieldCity) != nil {
		cityErr = invalid(CodeInvalidCity, fieldCity, msgCity)
	} else {
		cityToks = flatten(tokenize(city))
		u := unitRunEnd(cityToks, 0)
		if u == len(cityToks) && u > 0 && unitDesignators[cityToks[u-1].s].kind == unitBareAtEnd {
			u--
		}
		cityUnits, cityToks = cityToks[:u], cityToks[u:]
		if countryAtEnd(cityToks) == len(cityToks) {
			cityToks = nil
		}
		if state == "" {
			cityToks = stateFromCity(&a, cityToks)
		}
	}
	if len(cityToks) == 0 && len(cityUnits) == 0 && cityErr == nil && a.State == "" && state == "" && zip == "" {
		return Parse(street)
	}
	if cityErr == nil && len(cityToks) > 0 {
		a.City, cityErr = cityOf(cityToks)
		// Two letters that are no state cannot be a city either ("AA", or "SPRINGFIELD ZZ" with a ZIP code);
		// Parse reads them as a bad state, and here they were typed as the city.
		if cityErr == nil && a.State == "" && notStateWord(cityToks, len(cityToks)-1) && (len(cityToks) == 1 || zip != "") {
			cityErr = invalid(CodeInvalidCity, fieldCity, msgCity)
		}
	}
	if state != "" {
		if code, ok := NormalizeState(state); ok {
			a.State = code
		} else {
			stateErr = invalid(CodeInvalidState, fieldState, msgState)
		}
	}
	if zip != "" {
		if z, z4, ok := zipField(zip, a.State); ok {
			a.ZIP, a.ZIP4 = z, z4
		} else {
			zipErr = invalid(CodeInvalidZIP, fieldZIP, msgZIP)
		}
	}

	// With a ZIP code and nothing else the street field may still end in the city or state, so it is read as the
	// line "street, ZIP" would be.
	if len(cityToks) == 0 && len(cityUnits) == 0 && cityErr == nil && state == "" && a.State == "" && zipErr == nil {
		z := a.ZIP
		if a.ZIP4 != "" {
			z += "-" + a.ZIP4
		}
		return Parse(street + ", " + z)
	}
	var fe fieldErrors
	var segs [][]token
	if len(street) <= maxInputLen {
		segs = tokenize(street)
	}
	switch {
	case len(street) > maxInputLen:
		fe.add(invalid(CodeInvalidAddress, fieldAddress, msgTooLong))
	case len(segs) == 0:
		fe.add(invalid(CodeInvalidAddress, fieldAddress, msgEmpty))
	case checkSymbols(street, fieldAddress) != nil:
		fe.add(checkSymbols(street, fieldAddress))
	case checkNonStreet(segs) != nil:
		fe.add(checkNonStreet(segs))
	case len(cityToks) == 0:
		// Without a city the city may end the street field ("123 Main St Springfield"), read the way Parse
		// reads the street part of a line.
		segs = reorderLeadingUnit(segs)
		if len(cityUnits) > 0 {
			segs = append(segs[:len(segs):len(segs)], cityUnits)
		}
		res, e := finish(segs, a, false)
		if e != nil && e.Field == fieldState && stateErr != nil {
			e = nil
		}
		fe.add(e)
		if e == nil {
			a = res
		}
	default:
		toks := flatten(reorderLeadingUnit(segs))
		fe.add(parseStreet(append(toks[:len(toks):len(toks)], cityUnits...), &a))
	}
	fe.add(cityErr)
	fe.add(stateErr)
	fe.add(zipErr)
	if fe.first == nil && a.lineLen() > maxLineLen {
		fe.add(invalid(CodeInvalidAddress, fieldAddress, msgTooLong))
	}
	if err := fe.err(); err != nil {
		return Address{}, err
	}
	return a, nil
}

// parseSegments reads the ZIP code and state from the end, then hands the rest to finish.
func parseSegments(segs [][]token) (Address, *apperr.Error) {
	var a Address
	segs = reorderLeadingUnit(segs)
	segs = dropCountry(segs)
	// The one-word guess of fallbackStreetEnd serves lines written without commas only: whoever writes commas
	// puts one before the city too.
	noCommas := len(segs) == 1

	// The ZIP code is the last word, written 62704, 62704-1234, 627041234 or "62704 1234".
	last := len(segs) - 1
	seg := segs[last]
	n := len(seg)
	zipSameSeg := false
	if n >= 2 && len(seg[n-1].s) == 4 && isDigits(seg[n-1].s) && len(seg[n-2].s) == 5 && isDigits(seg[n-2].s) &&
		zipAllowedAt(segs, last, n-2) {
		a.ZIP, a.ZIP4 = seg[n-2].s, seg[n-1].s
		seg = seg[:n-2]
	} else if z, z4, ok := parseZIP(seg[n-1].s); ok && zipAllowedAt(segs, last, n-1) {
		a.ZIP, a.ZIP4 = z, z4
		seg = seg[:n-1]
	} else if looksNumeric(seg[n-1].s) && badZIPContext(segs, last, n-1) {
		return Address{}, invalid(CodeInvalidZIP, fieldZIP, msgZIP)
	}
	if a.ZIP != "" {
		zipSameSeg = len(seg) > 0
		segs = replaceLast(segs, seg)
		if len(segs) == 0 {
			return Address{}, invalid(CodeInvalidAddress, fieldAddress, msgNoNumber)
		}
		// "…, USA, 62704": the country may also stand before the ZIP code.
		segs = dropCountry(segs)
	}

	// The state is the last word or words of what is left.
	last = len(segs) - 1
	seg = segs[last]
	// The traditional abbreviations (ILL, MISS, IDA) are also words of city names ("MOUNT IDA"), so they count
	// only right before a ZIP code or alone in a part after the city.
	code, w, isCode, ok := stateAtEnd(seg, zipSameSeg || last >= 2)
	if ok && !isCode && !zipSameSeg && w < len(seg) {
		if _, full := stateNames[joinTokens(seg[len(seg)-w:])]; !full {
			ok = false
		}
	}
	if !ok && badStateContext(segs, a.ZIP != "") {
		return Address{}, invalid(CodeInvalidState, fieldState, msgState)
	}
	if ok {
		accept, tentative := false, false
		switch {
		case last > 0 && w < len(seg):
			// "SPRINGFIELD IL" after a comma: the words before the state are the city.
			accept = true
		case last > 0:
			// A state alone in its part. A spelled-out name right after the street ("123 Main St, New York")
			// is more often the city, so it counts as a state only when a ZIP code follows it or another part
			// holds the city.
			accept = isCode || zipSameSeg || last >= 2
		case len(seg)-w >= numberLen(seg)+1:
			// No comma before the state: it needs a street before it, and unless a ZIP code follows it, it is only
			// a guess that must leave a city between it and the street. A code that is also a street word ("CT"
			// Court, "NE" Northeast) is not even guessed without a ZIP code: "500 N MOUNT VERNON CT" is a court,
			// not the city Vernon.
			ambiguous := isCode && ambiguousStateCodes[code]
			accept = zipSameSeg || !ambiguous
			tentative = !zipSameSeg || ambiguous
		}
		if !accept {
			return finish(segs, a, noCommas && a.ZIP != "")
		}
		b := a
		b.State = code
		// A guessed state must leave a city found at a real end of the street (suffix, unit or highway); the
		// one-word guess of fallbackStreetEnd would make one up ("0 A CT" is A Court, not the city A in CT).
		// An unambiguous code ("4030 BROADWAY SACRAMENTO CA") may use the guess.
		guess := noCommas && (!tentative || (isCode && !ambiguousStateCodes[code]))
		res, e := finish(replaceLast(segs, seg[:len(seg)-w]), b, guess)
		if !tentative || (e == nil && keepTentativeState(res, code, isCode, zipSameSeg)) {
			return res, e
		}
	}
	return finish(segs, a, noCommas && a.ZIP != "")
}

// keepTentativeState decides whether a state read from the end of an address without commas really was one.
// "12 OAK CT 06103" is Oak Court and "123 MAIN ST WASHINGTON" is the city of Washington, but
// "123 MAIN ST SPRINGFIELD IL" and "123 MAIN ST CT 06103" name a state.
func keepTentativeState(res Address, code string, isCode, zipSameSeg bool) bool {
	if res.City != "" {
		return true
	}
	if zipSameSeg {
		return res.Suffix != "" || res.PostDir != "" || res.UnitType != ""
	}
	return isCode
}

// finish splits what is left into street and city and parses both. expectCity says that a state or ZIP code was
// found in an address without commas, which is then expected to hold a city before it even when nothing but the
// one-word guess of fallbackStreetEnd can find it.
func finish(segs [][]token, a Address, expectCity bool) (Address, *apperr.Error) {
	if len(segs) == 0 {
		return Address{}, invalid(CodeInvalidAddress, fieldAddress, msgNoNumber)
	}
	// The last part is the city, except for any unit at its start ("APT 4 SPRINGFIELD"); parts between the
	// street and the city are units or a continuation of the street. A last part that holds no city (only a
	// unit, or "USA") gives way to the part before it.
	var city, units []token
	for len(segs) >= 2 && city == nil {
		c := segs[len(segs)-1]
		segs = segs[:len(segs)-1]
		u := unitRunEnd(c, 0)
		// In the city's part a lone UPPER or FRONT is a city word ("UPPER, CT" once CT is taken as the state).
		if u == len(c) && u > 0 && unitDesignators[c[u-1].s].kind == unitBareAtEnd {
			u--
		}
		units = append(c[:u:u], units...)
		if rest := c[u:]; len(rest) > 0 && countryAtEnd(rest) < len(rest) {
			city = rest
		}
	}
	street := make([]token, 0, 16)
	if city == nil {
		// No city part ("123 MAIN ST SPRINGFIELD, APT 4"): the city may end the street part, as in an address
		// without commas.
		e := splitStreet(segs[0], expectCity)
		street = append(street, segs[0][:e]...)
		city = segs[0][e:]
		if countryAtEnd(city) == len(city) {
			city = nil
		}
		segs = segs[1:]
	}
	for _, s := range segs {
		street = append(street, s...)
	}
	street = append(street, units...)
	city = stateFromCity(&a, city)
	if a.State == "" && len(city) > 0 && notStateWord(city, len(city)-1) && (len(city) == 1 || a.ZIP != "") {
		return Address{}, invalid(CodeInvalidState, fieldState, msgState)
	}
	if e := parseStreet(street, &a); e != nil {
		return Address{}, e
	}
	c, e := cityOf(city)
	if e != nil {
		return Address{}, e
	}
	a.City = c
	return a, nil
}

// stateFromCity takes a state left at the end of the city ("LINCOLN NE" once "NE" could not be taken for
// Northeast, or "Springfield IL" typed into a city field), or a lone code where the city would be, as the state,
// as it would be read after a comma. It returns what is left of the city.
func stateFromCity(a *Address, city []token) []token {
	if a.State != "" || len(city) == 0 {
		return city
	}
	if code, w, isCode, ok := stateAtEnd(city, false); ok && (w < len(city) || isCode) {
		a.State = code
		return city[:len(city)-w]
	}
	return city
}

// replaceLast returns segs with its last segment replaced by seg, or dropped when seg is empty. A '#' left
// dangling by the removal of the words after it goes too.
func replaceLast(segs [][]token, seg []token) [][]token {
	for len(seg) > 0 && seg[len(seg)-1].s == "#" {
		seg = seg[:len(seg)-1]
	}
	out := make([][]token, len(segs))
	copy(out, segs)
	if len(seg) == 0 {
		return out[:len(out)-1]
	}
	out[len(out)-1] = seg
	return out
}

func flatten(segs [][]token) []token {
	if len(segs) == 1 {
		return segs[0]
	}
	var out []token
	for _, s := range segs {
		out = append(out, s...)
	}
	return out
}

// reorderLeadingUnit moves a unit written first ("Apt 4B, 123 Main St") after the street.
func reorderLeadingUnit(segs [][]token) [][]token {
	if len(segs) < 2 || unitRunEnd(segs[0], 0) != len(segs[0]) {
		return segs
	}
	if _, _, ok := houseNumber(segs[1]); !ok {
		return segs
	}
	out := make([][]token, 0, len(segs))
	out = append(out, segs[1], segs[0])
	return append(out, segs[2:]...)
}

// dropCountry removes a trailing "USA" or "United States", either as its own part or right after the ZIP code.
func dropCountry(segs [][]token) [][]token {
	last := segs[len(segs)-1]
	// "USA 62704": the country written before the ZIP code.
	if l := len(last); l >= 2 {
		if _, _, zip := parseZIP(last[l-1].s); zip {
			if c := countryAtEnd(last[:l-1]); c > 0 {
				seg := append(append(make([]token, 0, l-c), last[:l-1-c]...), last[l-1])
				return replaceLast(segs, seg)
			}
		}
	}
	n := countryAtEnd(last)
	if n == 0 {
		return segs
	}
	if n == len(last) {
		if len(segs) > 1 {
			return dropCountry(segs[:len(segs)-1])
		}
		return segs
	}
	if _, _, ok := parseZIP(last[len(last)-n-1].s); ok {
		return replaceLast(segs, last[:len(last)-n])
	}
	return segs
}

func countryAtEnd(seg []token) int {
	n := len(seg)
	at := func(i int) string {
		if i >= 0 && i < n {
			return seg[i].s
		}
		return ""
	}
	switch {
	case at(n-1) == "USA" || at(n-1) == "US":
		return 1
	case at(n-1) == "STATES" && at(n-2) == "UNITED":
		return 2
	case at(n-1) == "AMERICA" && at(n-2) == "OF" && at(n-3) == "STATES" && at(n-4) == "UNITED":
		return 4
	}
	return 0
}

// numberLen is the number of words the house number at the start of seg takes ("123 1/2" takes two), or one
// when seg does not start with a house number.
func numberLen(seg []token) int {
	if _, k, ok := houseNumber(seg); ok {
		return k
	}
	return 1
}

// zipAllowedAt reports whether the word at segs[si][ti] may be a ZIP code: it must not be the house number, the
// number of a unit ("UNIT 10001") or of a highway ("COUNTY ROAD 12345").
func zipAllowedAt(segs [][]token, si, ti int) bool {
	seg := segs[si]
	if si == 0 && ti < numberLen(seg)+1 {
		return false
	}
	if ti == 0 {
		return true
	}
	// FL before five digits is Florida: no building has a floor 33405.
	if p := seg[ti-1].s; p != "FL" {
		if _, ok := unitDesignators[p]; ok {
			return false
		}
	}
	// A highway number is part of the street, which only the first part holds: "FM 1960" is a Texas road but
	// ", FM 96941" is Micronesia and its ZIP code.
	return si > 0 || !highwayEndsAt(seg, 0, ti+1)
}

// badZIPContext reports whether a numeric last word can only have been meant as a ZIP code: it follows a state
// ("IL 6270") or stands alone in a part after the city.
func badZIPContext(segs [][]token, si, ti int) bool {
	seg := segs[si]
	if ti == 0 {
		return si >= 2 && len(seg) == 1
	}
	if si == 0 && ti < numberLen(seg)+2 {
		return false
	}
	// "FL 3" is the third floor and "FM 1960" a Texas road.
	if _, unit := unitDesignators[seg[ti-1].s]; unit {
		return false
	}
	if si == 0 && highwayEndsAt(seg, 0, ti+1) {
		return false
	}
	_, isCode, ok := stateOfWords(seg[ti-1].s, false)
	return ok && isCode
}

// badStateContext reports whether the last word, which is not a state, stands where only a state can: two
// letters alone in a part after a comma ("SPRINGFIELD, ZZ") or right before the ZIP code ("SPRINGFIELD ZZ 62704").
// No US city is named by two letters. finish applies the same rule to a city found without commas, so that an
// address reads the same with and without them.
func badStateContext(segs [][]token, zipFollows bool) bool {
	last := len(segs) - 1
	seg := segs[last]
	if last == 0 || !notStateWord(seg, len(seg)-1) {
		return false
	}
	return len(seg) == 1 || zipFollows
}

// notStateWord reports whether seg[i] is two letters that are not a state code and have no other meaning in an
// address (a suffix such as PL, a directional, a unit designator or the unit number after one).
func notStateWord(seg []token, i int) bool {
	t := seg[i].s
	if len(t) != 2 || !allLetters(t) || stateCodes[t] || isSuffix(t) || isDirectional(t) {
		return false
	}
	if _, unit := unitDesignators[t]; unit {
		return false
	}
	if i > 0 {
		if _, unit := unitDesignators[seg[i-1].s]; unit {
			return false
		}
	}
	return true
}

// stateAtEnd finds the longest state name or code at the end of seg. gpo allows the traditional abbreviations.
func stateAtEnd(seg []token, gpo bool) (code string, words int, isCode bool, ok bool) {
	var buf [64]byte
	for w := 4; w >= 1; w-- {
		if w > len(seg) {
			continue
		}
		b := buf[:0]
		for i := len(seg) - w; i < len(seg); i++ {
			if len(b)+len(seg[i].s)+1 > len(buf) {
				b = nil
				break
			}
			if i > len(seg)-w {
				b = append(b, ' ')
			}
			b = append(b, seg[i].s...)
		}
		if b == nil {
			continue
		}
		if c, isc, found := stateOfWords(string(b), gpo); found {
			// After a unit designator the words are the unit: "APT CA" is apartment CA.
			if w < len(seg) {
				if _, unit := unitDesignators[seg[len(seg)-w-1].s]; unit {
					return "", 0, false, false
				}
			}
			return c, w, isc, true
		}
	}
	return "", 0, false, false
}

func joinTokens(toks []token) string {
	if len(toks) == 1 {
		return toks[0].s
	}
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.s)
	}
	return b.String()
}

// notInAddresses are the characters no US address is written with. They are refused rather than dropped, so that
// a formula ("=1+2") or a piece of a query ("Maple Rd' OR '1'='1") is answered as the input it is, not valued as
// whatever street its letters and digits happen to spell.
const notInAddresses = "=+<>{}[]\\^~*$%!?"

// checkSymbols refuses a value holding one of notInAddresses, naming field.
func checkSymbols(s, field string) *apperr.Error {
	i := strings.IndexAny(s, notInAddresses)
	if i < 0 {
		return nil
	}
	if field == fieldCity {
		return invalid(CodeInvalidCity, fieldCity, msgCity)
	}
	return invalid(CodeInvalidAddress, field, fmt.Sprintf(msgSymbol, s[i:i+1]))
}

// hasLetter reports whether any of words holds a letter.
func hasLetter(words []string) bool {
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if isLetter(w[i]) || w[i] >= 0x80 {
				return true
			}
		}
	}
	return false
}

// parseZIP reads 62704, 62704-1234 or 627041234.
func parseZIP(s string) (zip, zip4 string, ok bool) {
	switch {
	case len(s) == 5 && isDigits(s):
		return s, "", true
	case len(s) == 9 && isDigits(s):
		return s[:5], s[5:], true
	case len(s) == 10 && s[5] == '-' && isDigits(s[:5]) && isDigits(s[6:]):
		return s[:5], s[6:], true
	}
	return "", "", false
}

// zipField reads the ZIP code field of FromParts, padding one that lost its leading zeros (see FromParts).
func zipField(s, state string) (zip, zip4 string, ok bool) {
	i := 0
	for i < len(s) && isDigits(s[i:i+1]) {
		i++
	}
	d, rest := s[:i], strings.TrimSpace(s[i:])
	if rest != "" {
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "-"))
		if len(rest) != 4 || !isDigits(rest) {
			return "", "", false
		}
		d += rest
	}
	switch len(d) {
	case 5, 9:
	case 4, 8:
		if state != "" && !zeroZIPStates[state] {
			return "", "", false
		}
		d = "0" + d
	case 3, 7:
		if state != "" && !doubleZeroZIPStates[state] {
			return "", "", false
		}
		d = "00" + d
	default:
		return "", "", false
	}
	if len(d) == 9 {
		return d[:5], d[5:], true
	}
	return d, "", true
}

// cityOf joins the city words. A city never holds digits or a unit: one there means the parts were mixed up,
// and guessing would value the wrong place.
func cityOf(toks []token) (string, *apperr.Error) {
	if len(toks) == 0 {
		return "", nil
	}
	var b strings.Builder
	for _, t := range toks {
		if t.s == "#" || hasDigit(t.s) {
			return "", invalid(CodeInvalidCity, fieldCity, msgCity)
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.s)
	}
	if b.Len() > 64 {
		return "", invalid(CodeInvalidCity, fieldCity, msgCityLong)
	}
	return b.String(), nil
}

// parseStreet reads house number, street name and unit from toks, all of which belong to the street.
func parseStreet(toks []token, a *Address) *apperr.Error {
	if len(toks) == 0 {
		return invalid(CodeInvalidAddress, fieldAddress, msgEmpty)
	}
	num, k, ok := houseNumber(toks)
	if !ok {
		return invalid(CodeInvalidAddress, fieldAddress, msgNoNumber)
	}
	a.Number = num
	groups, ustart := trailingUnits(toks, k)
	a.UnitType, a.UnitNumber = combineUnits(groups)
	r := toks[k:ustart]
	for _, t := range r {
		if t.s == "#" {
			return invalid(CodeInvalidAddress, fieldAddress, msgUnitPlace)
		}
	}
	if len(r) == 0 {
		return invalid(CodeInvalidAddress, fieldAddress, msgNoName)
	}
	// The name words are edited below (EXT), so they are copied out of the shared token array.
	r = append(make([]token, 0, len(r)), r...)

	// A directional at the end is the post-directional, unless it is the letter of a street named by a suffix
	// word alone ("AVENUE N").
	if len(r) >= 2 {
		if d, ok := directionals[r[len(r)-1].s]; ok && !(len(r) == 2 && isSuffix(r[0].s)) {
			a.PostDir = d
			r = r[:len(r)-1]
		}
	}
	// A directional at the start is the pre-directional when a name follows it. "100 N ST" and "100 NORTH ST"
	// keep the directional as the name (N Street in Washington DC and Sacramento is a lettered street, not a
	// direction), and they stay different from each other for the same reason.
	if len(r) >= 2 {
		d, ok := directionals[r[0].s]
		if !ok && r[0].dot && (r[0].s == "NO" || r[0].s == "SO") {
			d, ok = r[0].s[:1], true
		}
		if ok && !(len(r) == 2 && isSuffix(r[1].s)) {
			a.PreDir = d
			r = r[1:]
		}
	}
	// Numbered highways get one spelling ("US HWY 101" and "US-101" are US HIGHWAY 101).
	for h := 0; h < len(r); h++ {
		canon, e, ok := highwayAt(r, h)
		if !ok {
			continue
		}
		words := nameWords(r[:h])
		words = append(words, canon)
		rest := r[e:]
		if len(rest) == 1 && isSuffix(rest[0].s) {
			a.Suffix = suffixes[rest[0].s]
		} else {
			words = append(words, nameWords(rest)...)
		}
		a.Name = strings.Join(words, " ")
		return nil
	}
	// Only the last word can be the suffix, and only when a name comes before it: "THE CIRCLE" and "CIRCLE" are
	// names, "COURT ST" is COURT with suffix ST.
	if len(r) >= 2 {
		if std, ok := suffixes[r[len(r)-1].s]; ok && hasNameWord(r[:len(r)-1]) {
			a.Suffix = std
			r = r[:len(r)-1]
			// "MAIN STREET EXTENSION" and "MAIN ST EXT" are the same street, so the suffix word before EXT is
			// abbreviated too.
			if std == "EXT" && len(r) >= 2 {
				if s2, ok := suffixes[r[len(r)-1].s]; ok {
					r[len(r)-1] = token{s: s2}
				}
			}
		}
	}
	words := nameWords(r)
	// A name of bare numbers is a street only with a suffix ("W 42 ST") or a directional ("1234 S 500 E", the grid
	// of Salt Lake City): "1 2", what is left of "=1+2", is no address.
	if a.Suffix == "" && a.PreDir == "" && a.PostDir == "" && !hasLetter(words) {
		return invalid(CodeInvalidAddress, fieldAddress, msgNoName)
	}
	// "W 42 ST" is W 42ND ST: a street named by a bare number before a suffix is an ordinal.
	if len(words) == 1 && a.Suffix != "" && isDigits(words[0]) && len(words[0]) <= 4 {
		n, _ := strconv.Atoi(words[0])
		if n > 0 {
			words[0] = ordinalString(n)
		}
	}
	a.Name = strings.Join(words, " ")
	return nil
}

// nameWords normalizes street name words: ordinal words become numbers ("TWENTY FIRST" is 21ST) and numeric
// ordinals get their proper ending ("42D" is 42ND).
func nameWords(r []token) []string {
	out := make([]string, 0, len(r)+1)
	for i := 0; i < len(r); i++ {
		s := r[i].s
		if tens, ok := tensWords[s]; ok && i+1 < len(r) {
			if o, ok := ordinalWords[r[i+1].s]; ok && o < 10 {
				out = append(out, ordinalString(tens+o))
				i++
				continue
			}
		}
		if o, ok := ordinalWords[s]; ok {
			s = ordinalString(o)
		} else if n, ok := numericOrdinal(s); ok {
			s = ordinalString(n)
		}
		out = append(out, s)
	}
	return out
}

// houseNumber reads the house number at the start of toks and reports how many tokens it used. It accepts
// "123", "123A", "123-45" (Queens), "123-A" (as 123A), "123 1/2", "123-1/2", Wisconsin grid numbers ("W156N11100",
// "N1234") and the spelled numbers ONE to TEN. Leading zeros are kept: in Portland, Oregon, 0245 SW Bancroft St
// and 245 SW Bancroft St are different buildings.
func houseNumber(toks []token) (string, int, bool) {
	if len(toks) == 0 {
		return "", 0, false
	}
	s := toks[0].s
	var num string
	switch {
	case len(s) > 12:
	case isDigits(s):
		num = s
	case len(s) >= 2 && isDigits(s[:len(s)-1]) && isLetter(s[len(s)-1]):
		num = s
	case isGridNumber(s):
		num = s
	default:
		if i := strings.IndexByte(s, '-'); i > 0 {
			l, r := s[:i], s[i+1:]
			switch {
			case !isDigits(l):
			case isDigits(r):
				num = s
			case len(r) == 1 && isLetter(r[0]):
				num = l + r
			case isFraction(r):
				return l + " " + r, 1, true
			}
		}
		if w, ok := numberWords[s]; ok && num == "" && len(toks) > 1 {
			num = w
		}
	}
	if num == "" {
		return "", 0, false
	}
	if len(toks) > 1 && isFraction(toks[1].s) && !strings.Contains(num, " ") {
		return num + " " + toks[1].s, 2, true
	}
	return num, 1, true
}

// isGridNumber matches Wisconsin grid house numbers: a direction letter and digits, once or twice.
func isGridNumber(s string) bool {
	parts := 0
	for i := 0; i < len(s); {
		if parts == 2 || !strings.ContainsRune("NSEW", rune(s[i])) {
			return false
		}
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 {
			return false
		}
		parts++
		i = j
	}
	return parts > 0
}

func isFraction(s string) bool {
	i := strings.IndexByte(s, '/')
	return i > 0 && i < len(s)-1 && len(s) <= 7 && isDigits(s[:i]) && isDigits(s[i+1:])
}

// unitGroup is one secondary unit as written: "APT 4B", "BLDG A", "REAR".
type unitGroup struct {
	typ, num string
}

// trailingUnits collects the units at the end of a street, reading backwards, and returns where they start. At
// least one word is left between the house number (which ends at k) and the first unit for the street name.
func trailingUnits(toks []token, k int) ([]unitGroup, int) {
	var groups []unitGroup
	lo := k + 1
	j := len(toks)
	add := func(g unitGroup) { groups = append([]unitGroup{g}, groups...) }
	for j > lo {
		t := toks[j-1].s
		if t == "#" {
			j--
			continue
		}
		if d, ok := unitDesignators[t]; ok && t != "#" &&
			(d.kind == unitBare || (d.kind == unitBareAtEnd && j == len(toks) && len(groups) == 0)) {
			add(unitGroup{d.std, ""})
			j--
			continue
		}
		if validUnitNumber(t) && j-2 >= lo {
			// "APT 4 B" is apartment 4B.
			if p := toks[j-2].s; splitUnitLetter(p, t) && j == len(toks) {
				if g, start, ok := designatedUnit(toks, lo, j-2, p+t); ok {
					add(g)
					j = start
					continue
				}
			}
			if g, start, ok := designatedUnit(toks, lo, j-1, unitNumber(t)); ok {
				add(g)
				j = start
				continue
			}
		}
		if (t == "FLOOR" || t == "FL" || t == "FLR") && j-2 >= lo {
			if n, ok := floorOrdinal(toks[j-2].s); ok {
				add(unitGroup{"FL", strconv.Itoa(n)})
				j -= 2
				continue
			}
		}
		if g, ok := fusedUnit(t); ok {
			add(g)
			j--
			continue
		}
		// Line() writes a '#' unit right after the street, where a designator ending the street takes its
		// number ("STE # 4" is STE 4). When other units stood between them ("STE FL 2 # 4"), the designator
		// takes the number here too, so that the address reads the same from its Line().
		if d, ok := unitDesignators[t]; ok && d.kind == unitNumbered && t != "#" {
			if typ, num := combineUnits(groups); typ == "#" && designatorTakes(d, num) {
				for i := len(groups) - 1; i >= 0; i-- {
					if groups[i].typ == "#" {
						groups[i].typ = d.std
						break
					}
				}
				j--
				continue
			}
		}
		// A bare number after the suffix or post-directional ("123 MAIN ST 4B") is a unit whose designator was
		// left out; Publication 28 writes those with '#'. A highway number ("ROUTE 9") is not one.
		if len(groups) == 0 && j == len(toks) && bareUnitNumber(t) && j-2 >= lo {
			p := toks[j-2].s
			if (isSuffix(p) || isDirectional(p)) && !highwayEndsAt(toks, k, j) {
				add(unitGroup{"#", unitNumber(t)})
				j--
				continue
			}
		}
		break
	}
	return groups, j
}

// splitUnitLetter reports whether num and letter are a unit number written apart ("APT 4 B"). A direction
// letter is left alone: "UNIT 4 W" may be the post-directional, and it is read the same whether written W or WEST.
func splitUnitLetter(num, letter string) bool {
	return len(letter) == 1 && isLetter(letter[0]) && !isDirectional(letter) && isDigits(num) &&
		validUnitNumber(num+letter)
}

// designatedUnit reads the designator written before the unit number num, which starts at toks[at]: "APT 4B",
// "# 4B" or "APT # 4B". It returns the group and where it starts.
func designatedUnit(toks []token, lo, at int, num string) (unitGroup, int, bool) {
	if at-1 < lo {
		return unitGroup{}, 0, false
	}
	p := toks[at-1].s
	if p == "#" {
		if at-2 >= lo {
			if d, ok := unitDesignators[toks[at-2].s]; ok && toks[at-2].s != "#" && designatorTakes(d, num) {
				return unitGroup{d.std, num}, at - 2, true
			}
		}
		return unitGroup{"#", num}, at - 1, true
	}
	if d, ok := unitDesignators[p]; ok && designatorTakes(d, num) {
		return unitGroup{d.std, num}, at - 1, true
	}
	return unitGroup{}, 0, false
}

// unitRunEnd returns the end of the run of unit groups starting at toks[i], or i when there is none.
func unitRunEnd(toks []token, i int) int {
	for i < len(toks) {
		e, ok := unitGroupAt(toks, i)
		if !ok {
			break
		}
		i = e
	}
	return i
}

// unitGroupAt reads one unit group starting at toks[i], reading forwards.
func unitGroupAt(toks []token, i int) (int, bool) {
	n := len(toks)
	t := toks[i].s
	next := func(k int) string {
		if i+k < n {
			return toks[i+k].s
		}
		return ""
	}
	if d, ok := unitDesignators[t]; ok {
		if t != "#" && next(1) == "#" && validUnitNumber(next(2)) && designatorTakes(d, next(2)) {
			return i + 3, true
		}
		if validUnitNumber(next(1)) && designatorTakes(d, next(1)) {
			// "APT 4 B" at the end is apartment 4B.
			if d.kind == unitNumbered && i+3 == n && splitUnitLetter(next(1), next(2)) {
				return i + 3, true
			}
			return i + 2, true
		}
		if d.kind == unitBare || (d.kind == unitBareAtEnd && i+1 == n) {
			return i + 1, true
		}
		return i, false
	}
	// "3RD FL" is the third floor, unless FL has a number of its own ("3RD FL A" is floor A after a street
	// named 3RD, as trailingUnits reads it).
	if _, ok := floorOrdinal(t); ok && (next(1) == "FLOOR" || next(1) == "FL" || next(1) == "FLR") &&
		!(validUnitNumber(next(2)) || next(2) == "#") {
		return i + 2, true
	}
	if _, ok := fusedUnit(t); ok {
		return i + 1, true
	}
	return i, false
}

// fusedDesignators are the designators people write joined to the number ("APT4B", "STE200").
var fusedDesignators = []string{"APARTMENT", "APT", "SUITE", "STE", "UNIT", "ROOM", "RM", "BLDG", "SPC", "LOT", "TRLR"}

func fusedUnit(t string) (unitGroup, bool) {
	// Every fused form starts with one of these letters and holds a digit; most words are ruled out here.
	if len(t) < 3 || !strings.ContainsRune("ASURBLT", rune(t[0])) || !hasDigit(t) {
		return unitGroup{}, false
	}
	for _, p := range fusedDesignators {
		if len(t) > len(p) && strings.HasPrefix(t, p) && isDigit(t[len(p)]) && validUnitNumber(t[len(p):]) {
			return unitGroup{unitDesignators[p].std, t[len(p):]}, true
		}
	}
	return unitGroup{}, false
}

// designatorTakes reports whether unit number s fits designator d. KEY and STOP are also ordinary words ("KEY
// WEST"), so they need a number with a digit.
func designatorTakes(d unitDesignator, s string) bool {
	switch d.std {
	case "KEY", "STOP":
		return hasDigit(s)
	case "FL":
		// "FL 33405" is Florida and its ZIP code; no building has that many floors.
		_, _, zip := parseZIP(s)
		return !zip
	}
	return true
}

// bareUnitNumber reports whether s can be a unit number written without a designator: it has a digit and is
// not an ordinal, which after a directional names a street ("S 3RD").
func bareUnitNumber(s string) bool {
	return hasDigit(s) && validUnitNumber(s) && !isOrdinal(s)
}

// unitNumber writes a unit number: as given, except that a spelled-out direction is abbreviated ("UNIT WEST" is
// UNIT W, like the "UNIT E" of county records).
func unitNumber(s string) string {
	if d, ok := directionals[s]; ok {
		return d
	}
	return s
}

// validUnitNumber accepts "4B", "114", "A", "78HIGH", "A-2", "1/2", "WEST": a short word with a digit, one or
// two letters that are not a suffix or designator abbreviation ("ST", "FL"), or a direction.
func validUnitNumber(s string) bool {
	if len(s) > 2 && isDirectional(s) {
		return true
	}
	if s == "" || len(s) > 16 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
		case c >= 'A' && c <= 'Z', c == '-', c == '/':
		default:
			return false
		}
	}
	if digit {
		// "3RD" is a street name or a floor ("3RD FL"), never an apartment; "2D" is an apartment.
		n := leadingDigits(s)
		switch s[n:] {
		case "ST", "ND", "RD", "TH":
			return n == 0
		}
		return true
	}
	if len(s) > 2 || strings.ContainsAny(s, "-/") {
		return false
	}
	if len(s) == 1 {
		return true
	}
	_, unit := unitDesignators[s]
	return !isSuffix(s) && !unit
}

// combineUnits reduces the units of one address to a single designator and number. Matching needs one unit
// identifier, and the most specific one identifies the dwelling, so:
//   - a building prefixes the number ("BLDG A APT 2" is APT A-2), because apartment 2 of building B is another
//     home;
//   - a floor is dropped when a suite or apartment is given (suite numbers carry the floor);
//   - a numbered unit wins over a bare one ("REAR APT 2" is APT 2), and a named designator over '#';
//   - otherwise the last unit written wins.
func combineUnits(groups []unitGroup) (string, string) {
	if len(groups) == 0 {
		return "", ""
	}
	var bldg []string
	var main, floor, bare *unitGroup
	for i := range groups {
		g := &groups[i]
		switch {
		case g.num == "":
			bare = g
		case g.typ == "BLDG":
			bldg = append(bldg, g.num)
		case g.typ == "FL":
			floor = g
		case g.typ == "#" && main != nil && main.typ != "#":
			// A named designator says more than '#'.
		default:
			main = g
		}
	}
	if main == nil {
		main = floor
	}
	if main == nil {
		if len(bldg) > 0 {
			if num := strings.Join(bldg, "-"); validUnitNumber(num) {
				return "BLDG", num
			}
			return "BLDG", bldg[len(bldg)-1]
		}
		return bare.typ, ""
	}
	if len(bldg) == 0 {
		return main.typ, main.num
	}
	// A combination too long to be read back as one unit number keeps only the unit.
	if num := strings.Join(bldg, "-") + "-" + main.num; validUnitNumber(num) {
		return main.typ, num
	}
	return main.typ, main.num
}

// splitStreet finds where the street ends in an address part that also holds the city. It returns the index of
// the first city word (len(toks) when there is no city). The street ends after its units if it has any;
// otherwise after the last thoroughfare suffix that cannot begin a city name ("RD" in "STONE MILL RD MILL
// VALLEY"), else after the first suffix or highway number, each with its post-directional and units.
func splitStreet(toks []token, expectCity bool) int {
	e := streetEnd(toks, expectCity)
	// A lone direction is never a city; it is the post-directional ("0 AAA 0 S").
	if e == len(toks)-1 && isDirectional(toks[e].s) {
		return len(toks)
	}
	return e
}

func streetEnd(toks []token, expectCity bool) int {
	n := len(toks)
	_, k, ok := houseNumber(toks)
	if !ok || k >= n {
		return n
	}
	// A city has no digits and no unit, so a place where the street could end is a candidate only if none
	// follows it.
	cityFrom := n
	for cityFrom > k {
		t := toks[cityFrom-1].s
		if hasDigit(t) || t == "#" {
			break
		}
		if e, ok := unitGroupAt(toks, cityFrom-1); ok && e > cityFrom-1 {
			break
		}
		cityFrom--
	}
	first, strong := -1, -1
	for i := k; i < n; i++ {
		if i > k {
			// A unit ends the street, unless the street goes on after it: "123 MAIN #4 ST" has its unit in the
			// wrong place, which parseStreet reports.
			if e := unitRunEnd(toks, i); e > i && e >= cityFrom && (e == n || !streetGoesOn(toks, e)) {
				return e
			}
		}
		if _, e, ok := highwayAt(toks, i); ok {
			if e := extendStreet(toks, e); e >= cityFrom {
				strong = e
				if first < 0 {
					first = e
				}
			}
			i = e - 1
			continue
		}
		if i > k && isSuffix(toks[i].s) && hasNameWord(toks[k:i]) {
			e := extendStreet(toks, i+1)
			if e < cityFrom {
				continue
			}
			if first < 0 {
				first = e
			}
			if isStrongSuffix(toks, i) {
				strong = e
			}
		}
	}
	switch {
	case strong >= 0:
		return strong
	case first >= 0:
		return first
	case !expectCity:
		return n
	}
	return max(fallbackStreetEnd(toks, k), cityFrom)
}

// extendStreet moves the end of a street past its post-directional and units.
func extendStreet(toks []token, e int) int {
	n := len(toks)
	if e < n && isDirectional(toks[e].s) {
		// An abbreviated direction after the suffix is the post-directional, and so is a spelled-out
		// NORTHWEST; a spelled-out NORTH, SOUTH, EAST or WEST followed by more words more often begins the city
		// ("WEST PALM BEACH", "NORTH LAS VEGAS", "EAST ORANGE").
		if s := toks[e].s; len(s) <= 2 || len(directionals[s]) == 2 || e+1 == n || unitRunEnd(toks, e+1) > e+1 {
			e++
		}
	}
	if e < n {
		if u := unitRunEnd(toks, e); u > e {
			return u
		}
		if bareUnitNumber(toks[e].s) {
			return e + 1
		}
	}
	return e
}

// streetGoesOn reports whether toks[i] continues a street: a thoroughfare suffix or the start of a numbered
// highway, however it is spelled.
func streetGoesOn(toks []token, i int) bool {
	if isStrongSuffix(toks, i) {
		return true
	}
	_, _, ok := highwayAt(toks, i)
	return ok
}

// isStrongSuffix reports whether toks[i] is a thoroughfare type that does not occur in city names, so the street
// can safely end there.
func isStrongSuffix(toks []token, i int) bool {
	raw := toks[i].s
	if !thoroughfareSuffixes[suffixes[raw]] {
		return false
	}
	if suffixFullWords[raw] && !strongFullWords[raw] {
		return false
	}
	// "ST LOUIS" is Saint Louis.
	if raw == "ST" && i+1 < len(toks) && plainWord(toks[i+1].s) {
		return false
	}
	return true
}

// plainWord is a word with no role in a street: not a suffix, directional or unit designator, and no digits.
func plainWord(s string) bool {
	if hasDigit(s) || isSuffix(s) || isDirectional(s) {
		return false
	}
	_, unit := unitDesignators[s]
	return !unit
}

// fallbackStreetEnd ends a street that has no suffix, unit or highway number after its first name word, taking
// a pre-directional and Spanish-style names ("AVENIDA MARTINA", "CAMINO DEL RIO", "AVENUE OF THE AMERICAS").
func fallbackStreetEnd(toks []token, k int) int {
	n := len(toks)
	e := k
	if e < n-1 && isDirectional(toks[e].s) {
		e++
	}
	if e >= n {
		return n
	}
	lead := leadingStreetTypes[toks[e].s]
	e++
	if lead && e < n && !nameConnectors[toks[e].s] {
		e++
	}
	for e < n && nameConnectors[toks[e].s] {
		for e < n && nameConnectors[toks[e].s] {
			e++
		}
		if e < n {
			e++
		}
	}
	return extendStreet(toks, e)
}

func isHighwayWord(s string) bool {
	switch s {
	case "HWY", "HIGHWAY", "HIWAY", "HWAY", "HIGHWY", "HIWY":
		return true
	}
	return false
}

func isRouteWord(s string) bool { return s == "RT" || s == "RTE" || s == "ROUTE" }

func isRoadWord(s string) bool { return s == "RD" || s == "ROAD" }

// highwayAt reads a numbered highway starting at toks[i] and returns its standard spelling and where it ends:
// "US HWY 101" and "US 101" are US HIGHWAY 101, "STATE HWY 193" is STATE HIGHWAY 193, "SR 1" is STATE ROUTE 1,
// "CR 12" and "CO RD 12" are COUNTY ROAD 12, "I-5" is INTERSTATE 5, "FM 1960" is FARM TO MARKET ROAD 1960,
// "HWY 50" is HIGHWAY 50 and "RT 9" is ROUTE 9.
func highwayAt(toks []token, i int) (string, int, bool) {
	n := len(toks)
	w := func(j int) string {
		if j < n {
			return toks[j].s
		}
		return ""
	}
	var prefix string
	numeric := false
	j := i
	switch s := w(i); s {
	case "US", "U":
		j = i + 1
		if s == "U" {
			if w(j) != "S" {
				return "", 0, false
			}
			j++
		}
		if isHighwayWord(w(j)) || isRouteWord(w(j)) {
			j++
		}
		prefix, numeric = "US HIGHWAY", true
	case "STATE", "ST":
		switch x := w(i + 1); {
		case isHighwayWord(x):
			prefix = "STATE HIGHWAY"
		case isRouteWord(x):
			prefix = "STATE ROUTE"
		case isRoadWord(x):
			prefix = "STATE ROAD"
		default:
			return "", 0, false
		}
		j = i + 2
	case "SR":
		prefix, j = "STATE ROUTE", i+1
	case "SH":
		prefix, j = "STATE HIGHWAY", i+1
	case "COUNTY", "CO", "CNTY", "TOWNSHIP", "TWP":
		base := "COUNTY"
		if s == "TOWNSHIP" || s == "TWP" {
			base = "TOWNSHIP"
		}
		switch x := w(i + 1); {
		case isRoadWord(x):
			prefix = base + " ROAD"
		case isHighwayWord(x):
			prefix = base + " HIGHWAY"
		case isRouteWord(x):
			prefix = base + " ROUTE"
		default:
			return "", 0, false
		}
		j = i + 2
	case "CR":
		prefix, j = "COUNTY ROAD", i+1
	case "INTERSTATE", "I", "IH":
		j = i + 1
		if isHighwayWord(w(j)) {
			j++
		}
		prefix, numeric = "INTERSTATE", true
	case "FM":
		j = i + 1
		if isRoadWord(w(j)) {
			j++
		}
		prefix = "FARM TO MARKET ROAD"
	case "FARM":
		if w(i+1) != "TO" || w(i+2) != "MARKET" {
			return "", 0, false
		}
		j = i + 3
		if isRoadWord(w(j)) {
			j++
		}
		prefix = "FARM TO MARKET ROAD"
	case "RANCH":
		if !isRoadWord(w(i + 1)) {
			return "", 0, false
		}
		prefix, j = "RANCH ROAD", i+2
	default:
		switch {
		case isHighwayWord(s):
			prefix = "HIGHWAY"
		case isRouteWord(s):
			prefix = "ROUTE"
		default:
			return "", 0, false
		}
		j = i + 1
	}
	d := w(j)
	if !highwayDesignator(d, numeric) {
		return "", 0, false
	}
	return prefix + " " + d, j + 1, true
}

// highwayDesignator accepts a route number ("101", "9W", "25A") or, where routes are lettered (Wisconsin and
// Missouri: "COUNTY ROAD K", "HIGHWAY KK"), one or two letters that are not a suffix or directional.
func highwayDesignator(d string, numeric bool) bool {
	if d == "" || len(d) > 6 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) && !isLetter(d[i]) {
			return false
		}
	}
	if isDigit(d[0]) {
		// "SH 3RD" is a street named 3RD, but "ROUTE 9D" is a route.
		n := leadingDigits(d)
		switch d[n:] {
		case "ST", "ND", "RD", "TH":
			return false
		}
		return true
	}
	if numeric || hasDigit(d) || len(d) > 2 {
		return false
	}
	_, unit := unitDesignators[d]
	return !isSuffix(d) && !isDirectional(d) && !unit
}

// highwayEndsAt reports whether a numbered highway starting at or after lo ends exactly at j.
func highwayEndsAt(toks []token, lo, j int) bool {
	for h := max(lo, j-5); h < j-1; h++ {
		if _, e, ok := highwayAt(toks[:j], h); ok && e == j {
			return true
		}
	}
	return false
}

// checkNonStreet rejects PO boxes, rural route and highway contract route boxes and general delivery: they are
// mail addresses, not places, and a valuation of them would be a valuation of nothing. The PO box words are looked
// for across commas ("PO, BOX 5" is still a box); the route forms only where a house number would be, at the
// start of a part.
func checkNonStreet(segs [][]token) *apperr.Error {
	flat := flatten(segs)
	i := 0
	for _, seg := range segs {
		for j := range seg {
			if e := nonStreetAt(flat, i, seg, j); e != nil {
				return e
			}
			if isRuralRoute(seg, j) {
				return invalid(CodeCannotValue, fieldAddress, msgRural)
			}
			i++
		}
	}
	return nil
}

// nonStreetAt matches the PO box and general delivery forms starting at toks[i], which is seg[j]. Words joined
// by BOX are looked for across commas; a bare number ("PO 12", "BOX 12") only within the part, at its start.
func nonStreetAt(toks []token, i int, seg []token, j int) *apperr.Error {
	at := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k].s
		}
		return ""
	}
	// number reports whether seg[j+k] holds a digit and seg[j] opens its part.
	number := func(k int) bool { return j == 0 && j+k < len(seg) && hasDigit(seg[j+k].s) }
	box := false
	switch at(0) {
	case "POBOX", "POSTBOX":
		box = true
	case "PO":
		box = at(1) == "BOX" || (at(1) == "B" && hasDigit(at(2))) || number(1)
	case "P":
		box = at(1) == "O" && (at(2) == "BOX" || (at(2) == "B" && hasDigit(at(3))) || number(2))
	case "POB":
		box = hasDigit(at(1))
	case "POST":
		box = at(1) == "BOX" || (at(1) == "OFFICE" && (at(2) == "BOX" || hasDigit(at(2))))
	case "BOX", "DRAWER":
		box = number(1)
	case "GENERAL":
		if at(1) == "DELIVERY" {
			return invalid(CodeCannotValue, fieldAddress, msgDelivery)
		}
	}
	if box {
		return invalid(CodeCannotValue, fieldAddress, msgPOBox)
	}
	return nil
}

// isRuralRoute matches "RR 2 BOX 15", "RR2", "RURAL ROUTE 2", "RFD 3", "HC 1 BOX 3", "HCR 68", "HIGHWAY CONTRACT
// ROUTE 1" and "STAR ROUTE" where a house number would be (the start of a part), and "<route> N BOX M" anywhere.
func isRuralRoute(seg []token, i int) bool {
	at := func(k int) string {
		if i+k < len(seg) {
			return seg[i+k].s
		}
		return ""
	}
	s := at(0)
	if routeBoxWord(s) && hasDigit(at(1)) && at(2) == "BOX" {
		return true
	}
	if fused := fusedRouteNumber(s); fused != "" && at(1) == "BOX" {
		return true
	}
	if i != 0 {
		return false
	}
	// Each form needs its route number, so that a city or street that merely starts with these words is left
	// alone.
	numberAfter := func(k int) bool {
		for ; i+k < len(seg) && k < 6; k++ {
			if hasDigit(at(k)) {
				return true
			}
			switch at(k) {
			case "ROUTE", "RTE", "RT", "FREE", "DELIVERY", "CONTRACT", "BOX", "NO":
			default:
				return false
			}
		}
		return false
	}
	switch s {
	case "RR", "RFD", "HC", "HCR":
		return numberAfter(1)
	case "R":
		return (at(1) == "R" && numberAfter(2)) || (at(1) == "F" && at(2) == "D" && numberAfter(3))
	case "RURAL":
		return (isRouteWord(at(1)) || at(1) == "FREE" || at(1) == "DELIVERY") && numberAfter(1)
	case "HIGHWAY":
		return at(1) == "CONTRACT" && numberAfter(1)
	case "STAR":
		return isRouteWord(at(1)) && numberAfter(1)
	}
	switch fusedRouteNumber(s) {
	case "RR", "RFD", "HC", "HCR":
		return true
	}
	return false
}

func routeBoxWord(s string) bool {
	switch s {
	case "RR", "RFD", "HC", "HCR", "RT", "RTE", "ROUTE":
		return true
	}
	return false
}

// fusedRouteNumber returns the route prefix of a word like "RR2" or "HC1", or "".
func fusedRouteNumber(s string) string {
	if len(s) < 3 || (s[0] != 'R' && s[0] != 'H') || !isDigit(s[len(s)-1]) {
		return ""
	}
	for _, p := range [...]string{"RFD", "HCR", "RTE", "RR", "HC", "RT"} {
		if len(s) > len(p) && strings.HasPrefix(s, p) && isDigits(s[len(p):]) {
			return p
		}
	}
	return ""
}

func isSuffix(s string) bool {
	_, ok := suffixes[s]
	return ok
}

func isDirectional(s string) bool {
	_, ok := directionals[s]
	return ok
}

// hasNameWord reports whether toks hold a word that can name a street on its own ("THE" cannot).
func hasNameWord(toks []token) bool {
	for _, t := range toks {
		if t.s != "THE" {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' }

// looksNumeric reports whether s is digits and hyphens only, as a mistyped ZIP code would be.
func looksNumeric(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		switch {
		case isDigit(s[i]):
			digit = true
		case s[i] == '-':
		default:
			return false
		}
	}
	return digit
}

// numericOrdinal reads "1ST", "42ND", "3RD", "4TH" and the old forms "2D", "3D".
func numericOrdinal(s string) (int, bool) {
	d := leadingDigits(s)
	if d == 0 || d > 6 {
		return 0, false
	}
	switch s[d:] {
	case "ST", "ND", "RD", "TH", "D":
		n, err := strconv.Atoi(s[:d])
		return n, err == nil
	}
	return 0, false
}

// ordinal reads a numeric or spelled-out ordinal ("3RD", "THIRD").
func ordinal(s string) (int, bool) {
	if n, ok := ordinalWords[s]; ok {
		return n, true
	}
	return numericOrdinal(s)
}

// floorOrdinal reads the ordinal of "3RD FLOOR". No building has a thousand floors, and a number that long after
// FL would be read back as a Florida ZIP code.
func floorOrdinal(s string) (int, bool) {
	n, ok := ordinal(s)
	return n, ok && n > 0 && n < 1000
}

func isOrdinal(s string) bool {
	_, ok := ordinal(s)
	return ok
}

// ordinalString writes n with its English ordinal ending: 1ST, 2ND, 3RD, 11TH, 21ST.
func ordinalString(n int) string {
	suffix := "TH"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "ST"
		case 2:
			suffix = "ND"
		case 3:
			suffix = "RD"
		}
	}
	return strconv.Itoa(n) + suffix
}
