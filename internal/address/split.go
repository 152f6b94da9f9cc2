package address

import "strings"

// SplitFullAddress splits an address held in one spreadsheet column into street, city, state and zip, by the
// batch upload rule of the spec: "A full address in one column is split by commas into street, city, state and
// zip. State is two capital letters, otherwise the second-to-last part. Zip is 5 or 5+4 digits."
//
// Concretely: the first part is the street. The zip is the last word of the last part when it is numeric (a
// malformed one is still returned so that FromParts can report it, or pad one that lost its leading zero). The
// state is the two-letter word then ending the last part (lower case is accepted too); else the whole last part
// when it is a state name ("Illinois 62704"); else, when the last part held only the zip, the part before it.
// The city is the rest of the state's part ("Springfield IL 62704"), or else the last part left; parts between
// the street and the city (a unit written in its own column-part) are appended to the street.
//
// The results are trimmed but not normalized; pass them to FromParts. Without commas the line is parsed with
// Parse and its normalized parts are returned (or the whole line as the street when Parse fails, so FromParts
// reports the problem).
func SplitFullAddress(s string) (street, city, state, zip string) {
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) > 1 && isCountryPart(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	// A unit written first ("Apt 4B, 123 Main St, ...") goes after the street, as in Parse.
	if len(parts) > 2 && isUnitText(parts[0]) && leadingDigits(parts[1]) > 0 {
		parts[0], parts[1] = parts[1]+" "+parts[0], ""
		parts = append(parts[:1], parts[2:]...)
	}
	switch len(parts) {
	case 0:
		return "", "", "", ""
	case 1:
		a, err := Parse(parts[0])
		if err != nil {
			return parts[0], "", "", ""
		}
		z := a.ZIP
		if a.ZIP4 != "" {
			z += "-" + a.ZIP4
		}
		return joinNonEmpty(" ", a.Street(), a.Unit()), a.City, a.State, z
	}

	last := strings.Fields(parts[len(parts)-1])
	if n := len(last); n > 1 && isCountryPart(last[n-1]) && looksNumeric(last[n-2]) {
		last = last[:n-1]
	}
	if n := len(last); n > 1 && len(last[n-1]) == 4 && isDigits(last[n-1]) && len(last[n-2]) == 5 && isDigits(last[n-2]) {
		// "62704 1234" is ZIP+4 written with a space.
		zip = last[n-2] + "-" + last[n-1]
		last = last[:n-2]
	} else if w := last[n-1]; looksNumeric(w) {
		zip = w
		last = last[:n-1]
	}
	rest := parts[:len(parts)-1] // every part but the last
	remainder := ""              // what is left of the last part once zip and state are taken
	switch {
	case len(last) > 0 && isTwoLetterState(last[len(last)-1]):
		state = last[len(last)-1]
		remainder = strings.Join(last[:len(last)-1], " ")
	case len(last) > 0 && len(parts) >= 3 && isStateName(strings.Join(last, " ")):
		state = strings.Join(last, " ")
	case len(last) == 0 && len(rest) >= 3:
		// The last part held only the zip: the state is the part before it.
		state = rest[len(rest)-1]
		rest = rest[:len(rest)-1]
	default:
		remainder = strings.Join(last, " ")
	}
	if remainder != "" {
		rest = append(rest[:len(rest):len(rest)], remainder)
	}
	street = rest[0]
	if len(rest) >= 2 {
		city = rest[len(rest)-1]
		if len(rest) > 2 {
			street = strings.Join(rest[:len(rest)-1], " ")
		}
		// A unit at the start of the city part ("Apt 4B Springfield") belongs to the street.
		words := strings.Fields(city)
		for k := len(words) - 1; k >= 1; k-- {
			if unit := strings.Join(words[:k], " "); isUnitText(unit) {
				street += " " + unit
				city = strings.Join(words[k:], " ")
				break
			}
		}
	}
	return street, city, state, zip
}

// isUnitText reports whether s is nothing but secondary units ("Apt 4B", "#12", "Bldg A Ste 2").
func isUnitText(s string) bool {
	segs := tokenize(s)
	if len(segs) != 1 {
		return false
	}
	return unitRunEnd(segs[0], 0) == len(segs[0])
}

func isCountryPart(p string) bool {
	switch strings.ToUpper(strings.ReplaceAll(p, ".", "")) {
	case "USA", "US", "UNITED STATES", "UNITED STATES OF AMERICA", "U S A", "U S":
		return true
	}
	return false
}

// isTwoLetterState reports whether w is a two-letter state code in either case.
func isTwoLetterState(w string) bool {
	if len(w) != 2 {
		return false
	}
	_, ok := NormalizeState(w)
	return ok
}

// isStateName reports whether p names a state in full or by a traditional abbreviation.
func isStateName(p string) bool {
	_, ok := NormalizeState(p)
	return ok
}
