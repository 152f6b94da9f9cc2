package address

// stateNames maps the spelled-out names of the states, the District of Columbia and the territories the Postal
// Service delivers to (and some common alternative spellings) to their two-letter codes. The armed forces codes
// AA, AE and AP are left out on purpose: they are military mail routes, not places where a property can be
// valued.
var stateNames = map[string]string{
	"ALABAMA": "AL", "ALASKA": "AK", "ARIZONA": "AZ", "ARKANSAS": "AR", "CALIFORNIA": "CA", "COLORADO": "CO",
	"CONNECTICUT": "CT", "DELAWARE": "DE", "FLORIDA": "FL", "GEORGIA": "GA", "HAWAII": "HI", "IDAHO": "ID",
	"ILLINOIS": "IL", "INDIANA": "IN", "IOWA": "IA", "KANSAS": "KS", "KENTUCKY": "KY", "LOUISIANA": "LA",
	"MAINE": "ME", "MARYLAND": "MD", "MASSACHUSETTS": "MA", "MICHIGAN": "MI", "MINNESOTA": "MN",
	"MISSISSIPPI": "MS", "MISSOURI": "MO", "MONTANA": "MT", "NEBRASKA": "NE", "NEVADA": "NV",
	"NEW HAMPSHIRE": "NH", "NEW JERSEY": "NJ", "NEW MEXICO": "NM", "NEW YORK": "NY", "NORTH CAROLINA": "NC",
	"NORTH DAKOTA": "ND", "OHIO": "OH", "OKLAHOMA": "OK", "OREGON": "OR", "PENNSYLVANIA": "PA",
	"RHODE ISLAND": "RI", "SOUTH CAROLINA": "SC", "SOUTH DAKOTA": "SD", "TENNESSEE": "TN", "TEXAS": "TX",
	"UTAH": "UT", "VERMONT": "VT", "VIRGINIA": "VA", "WASHINGTON": "WA", "WEST VIRGINIA": "WV",
	"WISCONSIN": "WI", "WYOMING": "WY",
	"DISTRICT OF COLUMBIA": "DC",
	"AMERICAN SAMOA":       "AS", "GUAM": "GU", "NORTHERN MARIANA ISLANDS": "MP", "NORTHERN MARIANAS": "MP",
	"PUERTO RICO": "PR", "VIRGIN ISLANDS": "VI", "US VIRGIN ISLANDS": "VI", "U S VIRGIN ISLANDS": "VI",
	"UNITED STATES VIRGIN ISLANDS": "VI", "FEDERATED STATES OF MICRONESIA": "FM", "MICRONESIA": "FM",
	"MARSHALL ISLANDS": "MH", "PALAU": "PW",
}

// stateAbbreviations are the traditional (Government Printing Office) abbreviations still common on older records
// ("Ill.", "Calif.", "Mass."). Several of them are also ordinary words (MISS, WASH, DEL, IND), so Parse accepts
// them only where a state is certain, right before a ZIP code or in a comma-separated part of their own.
var stateAbbreviations = map[string]string{
	"ALA": "AL", "ARIZ": "AZ", "ARK": "AR", "CAL": "CA", "CALIF": "CA", "COLO": "CO", "CONN": "CT", "DEL": "DE",
	"FLA": "FL", "IDA": "ID", "ILL": "IL", "IND": "IN", "KAN": "KS", "KANS": "KS", "MASS": "MA", "MICH": "MI",
	"MINN": "MN", "MISS": "MS", "MONT": "MT", "NEB": "NE", "NEBR": "NE", "NEV": "NV", "N MEX": "NM",
	"N DAK": "ND", "S DAK": "SD", "N CAR": "NC", "S CAR": "SC", "OKLA": "OK", "ORE": "OR", "OREG": "OR",
	"PENN": "PA", "PENNA": "PA", "TENN": "TN", "TEX": "TX", "WASH": "WA", "WIS": "WI", "WISC": "WI",
	"W VA": "WV", "WYO": "WY",
}

// stateCodes is the set of valid two-letter codes.
var stateCodes = func() map[string]bool {
	m := make(map[string]bool, 64)
	for _, c := range stateNames {
		m[c] = true
	}
	return m
}()

// ambiguousStateCodes are the codes that are also a street suffix, directional or unit designator (CT is Court,
// NE is Northeast, FL is Floor, KY is Key, MT is Mount, PR is Prairie, WY is Way). At the end of an address
// without commas the parser reads them as a state only when a city sits between them and the street.
var ambiguousStateCodes = func() map[string]bool {
	m := map[string]bool{}
	for c := range stateCodes {
		_, suf := suffixes[c]
		_, dir := directionals[c]
		_, unit := unitDesignators[c]
		if suf || dir || unit {
			m[c] = true
		}
	}
	return m
}()

// NormalizeState returns the two-letter code of a US state, the District of Columbia or a territory, given its code
// or name in any case, with or without periods: "Illinois", "ill.", "IL" and "il" all give "IL", and
// "District of Columbia" gives "DC". It reports false for anything else, including the empty string.
func NormalizeState(s string) (string, bool) {
	k := stateLookupKey(s)
	if k == "" {
		return "", false
	}
	if len(k) == 2 && stateCodes[k] {
		return k, true
	}
	if c, ok := stateNames[k]; ok {
		return c, true
	}
	if c, ok := stateAbbreviations[k]; ok {
		return c, true
	}
	// "Washington, D.C." typed into a state field is DC. It is not in stateNames because at the end of an address
	// line WASHINGTON is the city.
	if k == "WASHINGTON DC" || k == "WASHINGTON D C" {
		return "DC", true
	}
	// "N. Y." and "D C" are a code written as two single letters.
	if len(k) == 3 && k[1] == ' ' {
		if c := k[:1] + k[2:]; stateCodes[c] {
			return c, true
		}
	}
	return "", false
}

// stateLookupKey upper-cases s, drops periods and collapses every other run of non-letters into one space, which
// is the form the state tables are keyed by.
func stateLookupKey(s string) string {
	if len(s) > 64 {
		return ""
	}
	var b [64]byte
	n := 0
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
			fallthrough
		case c >= 'A' && c <= 'Z':
			if space && n > 0 {
				b[n] = ' '
				n++
			}
			space = false
			b[n] = c
			n++
		case c == '.' || c == '\'':
			// "D.C." is DC, not "D C".
		default:
			space = true
		}
	}
	return string(b[:n])
}

// stateOfWords looks words up as a state written in full, as a code, or (when gpo is true) as a traditional
// abbreviation. It returns the code and whether the match was a two-letter code.
func stateOfWords(words string, gpo bool) (code string, isCode bool, ok bool) {
	if len(words) == 2 && stateCodes[words] {
		return words, true, true
	}
	if c, ok := stateNames[words]; ok {
		return c, false, true
	}
	if gpo {
		if c, ok := stateAbbreviations[words]; ok {
			return c, false, true
		}
	}
	return "", false, false
}

// zeroZIPStates are the states and territories whose ZIP codes begin with 0. A ZIP code that lost its leading
// zero in a spreadsheet can only belong to one of them, so FromParts pads a short ZIP code only when the state is
// one of these or not given.
var zeroZIPStates = map[string]bool{
	"CT": true, "MA": true, "ME": true, "NH": true, "NJ": true, "NY": true, "PR": true, "RI": true, "VT": true,
	"VI": true,
}

// doubleZeroZIPStates are those whose ZIP codes can begin with 00 (Holtsville NY 005xx, Puerto Rico 006xx-009xx
// and the Virgin Islands 008xx).
var doubleZeroZIPStates = map[string]bool{"NY": true, "PR": true, "VI": true}
