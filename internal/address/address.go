// Package address parses and normalizes US street addresses so that differently written forms of one address
// match: "123 n. Main Street Apt 4B" and "123 N MAIN ST # 4B" give the same StreetKey and UnitKey.
//
// Normalization follows USPS Publication 28: upper case, punctuation removed (except the hyphen and fraction of a
// house number and the hyphen of a unit number), accents folded, standard suffix (appendix C1), directional and
// unit designator (appendix C2) abbreviations. The package is pure: no I/O, and its tables never change after
// initialisation, so it is safe for concurrent use.
//
// Decisions on the cases Publication 28 leaves to the reader:
//   - A directional that is the whole street name stays the name: "100 NORTH ST" is name NORTH and "100 N ST"
//     is name N (N Street in Washington DC and Sacramento is a lettered street), and the two do not match. A
//     directional followed by a name is the pre-directional: "123 WEST MAIN ST" is W MAIN ST, and so is
//     "123 NORTH SHORE DR" N SHORE DR. "NO." and "SO." (with the period) are N and S; "NO NAME RD" is a name.
//   - Only the last word before the post-directional and unit can be the suffix, and only after a name word:
//     "PARK AVE" is PARK + AVE, "COURT ST" is COURT + ST; "AVENUE OF THE AMERICAS", "THE CIRCLE" and "AVENUE N"
//     have no suffix. "MAIN STREET EXTENSION" is MAIN ST + EXT. TRAILER is not read as a suffix (see
//     suffixTable).
//   - Ordinal words become numbers (FIRST is 1ST, TWENTY-FIRST 21ST, up to NINETIETH and HUNDREDTH), "42D" is
//     42ND, and a street named by a bare number before a suffix gets its ending ("W 42 ST" is W 42ND ST).
//   - Numbered highways have one spelling: US HIGHWAY 101, STATE HIGHWAY 12, STATE ROUTE 1, STATE ROAD 7,
//     COUNTY ROAD 12 (also "CR 12", "CO RD 12"), COUNTY HIGHWAY K, INTERSTATE 5, HIGHWAY 50, ROUTE 66, FARM TO
//     MARKET ROAD 1960, TOWNSHIP ROAD 3. They are street names like any other.
//   - House numbers are kept as written, leading zeros included: in Portland, Oregon, 0245 SW BANCROFT ST and
//     245 SW BANCROFT ST are different buildings. "123A" and "123-45" (Queens) stay, "123-A" is 123A,
//     "123 1/2", "123½" and "123-1/2" are "123 1/2", Wisconsin grid numbers ("W156N11100") stay, and ONE to TEN
//     spelled out are numbers ("One Apple Park Way").
//   - Units: "#4B", "# 4B", "APT 4B", "APT. #4B", "APT4B", "APT 4 B" and "UNIT WEST" (UNIT W) are read, also
//     written before the street ("Apt 4B, 123 Main St"); "3RD FLOOR" is FL 3; a number after the suffix with no
//     designator ("123 MAIN ST 4B") is "# 4B" as Publication 28 writes it. UnitNumber keeps a hyphen as written
//     ("4-B"); UnitKey drops the designator, hyphens and leading zeros, so APT 4B, UNIT 4-B, # 4B and STE 04B
//     all match. Several units combine into one (see combineUnits): "BLDG A APT 2" is APT A-2. A '#' unit in
//     the middle of the street ("123 MAIN #4 ST") is an error rather than a guess.
//   - The city keeps SAINT or ST (FORT or FT, MOUNT or MT) as written; CityKey maps them to one form.
//   - The state is a code or a name in any case, DC and the territories included, and the old abbreviations
//     (ILL., CALIF.) before a ZIP code or after a comma. Armed forces codes (AA, AE, AP) are not states: they
//     are not places. A code that is also a street word (CT Court, NE Northeast, FL Floor, KY Key, MT Mount, PR
//     Prairie, WY Way) is read as a state only after a comma or before a ZIP code.
//   - ZIP codes are 62704, 62704-1234, 627041234 or "62704 1234". FromParts also pads a ZIP code that lost its
//     leading zeros in a spreadsheet, where the state allows it; Parse does not, since a typed line has no
//     spreadsheet to blame.
//   - Input that is not an address is an error rather than a guess: a character no address is written with
//     (= + < > { } [ ] \ ^ ~ * $ % ! ?), so that a formula ("=1+2") or a piece of a query is not read as the
//     street its digits spell, and a street name of bare numbers without a suffix or directional ("1 2"; the
//     grid streets of Utah, "1234 S 500 E", have directionals).
//   - PO boxes, rural route and highway contract route boxes and general delivery are CodeCannotValue errors,
//     even next to a street address: the caller should send the property's street address alone.
//   - Without commas the boundary between street and city is a guess (see Parse); with commas it is not, and
//     Parse(a.Line()) gives back a. Without commas it gives back at least the same StreetKey, UnitKey, NameKey
//     and ZIP code.
package address

import "strings"

// Address is a parsed, normalized US street address. Every field is upper case; empty means not given.
type Address struct {
	Number     string // house number as normalized: "123", "123-45", "123 1/2", "123A", "W156N11100"
	PreDir     string // N S E W NE NW SE SW, or ""
	Name       string // street name: "MAIN", "MARTIN LUTHER KING JR", "1ST", "COUNTY ROAD 12"
	Suffix     string // USPS Publication 28 standard suffix abbreviation: ST, AVE, BLVD, DR, ...
	PostDir    string // N S E W NE NW SE SW, or ""
	UnitType   string // USPS Publication 28 secondary unit designator: APT, STE, UNIT, BLDG, FL, "#", REAR, ...
	UnitNumber string // "4B"; empty for designators that stand alone (REAR, BSMT)
	City       string
	State      string // two-letter code
	ZIP        string // 5 digits, or ""
	ZIP4       string // 4 digits, or ""
}

// Street returns the delivery line without the unit: "123 N MAIN ST".
func (a Address) Street() string {
	return joinNonEmpty(" ", a.Number, a.PreDir, a.Name, a.Suffix, a.PostDir)
}

// Unit returns the unit as Publication 28 writes it: "APT 4B", "# 4B", "REAR", or "" when there is none.
func (a Address) Unit() string {
	switch {
	case a.UnitNumber == "":
		return a.UnitType
	case a.UnitType == "":
		return "# " + a.UnitNumber
	}
	return a.UnitType + " " + a.UnitNumber
}

// Line returns the whole address on one line, "123 N MAIN ST APT 4B, SPRINGFIELD, IL 62704-1234", leaving out
// the parts that are empty. Parse reads it back as the same address (see the package documentation).
func (a Address) Line() string {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(a.Street())
	if u := a.Unit(); u != "" {
		b.WriteByte(' ')
		b.WriteString(u)
	}
	if a.City != "" {
		b.WriteString(", ")
		b.WriteString(a.City)
	}
	zip := a.ZIP
	if zip != "" && a.ZIP4 != "" {
		zip += "-" + a.ZIP4
	}
	if last := joinNonEmpty(" ", a.State, zip); last != "" {
		b.WriteString(", ")
		b.WriteString(last)
	}
	return b.String()
}

// lineLen is len(a.Line()), counted without building the line.
func (a Address) lineLen() int {
	n := 0
	for _, f := range [...]string{a.Number, a.PreDir, a.Name, a.Suffix, a.PostDir, a.UnitType, a.UnitNumber,
		a.City, a.State, a.ZIP, a.ZIP4} {
		n += len(f) + 2
	}
	return n
}

// StreetKey identifies the building: "123|N|MAIN|ST|" (number|predir|name|suffix|postdir), without unit, city or
// ZIP code, which the caller compares separately as it needs. The name part drops spaces and abbreviates SAINT,
// MOUNT and FORT, so "LAKE SHORE DR" matches "LAKESHORE DR" and "MOUNT VERNON AVE" matches "MT VERNON AVE". It is
// "" for an address without number and name.
func (a Address) StreetKey() string {
	if a.Number == "" && a.Name == "" {
		return ""
	}
	return a.Number + "|" + a.PreDir + "|" + nameKey(a.Name) + "|" + a.Suffix + "|" + a.PostDir
}

// NameKey is StreetKey without suffix and post-directional, "123|N|MAIN", for a fuzzy fallback when the suffix is
// missing or different ("123 MAIN" and "123 MAIN AVE" for "123 MAIN ST").
func (a Address) NameKey() string {
	if a.Number == "" && a.Name == "" {
		return ""
	}
	return a.Number + "|" + a.PreDir + "|" + nameKey(a.Name)
}

// UnitKey identifies the unit within the building regardless of how its designator was written: APT 4B, UNIT
// 4-B, # 4B, STE 04B and 4B all give "4B". A unit without a number is identified by its designator ("REAR"). It
// is "" when there is no unit.
func (a Address) UnitKey() string {
	if a.UnitNumber == "" {
		return a.UnitType
	}
	s := strings.ReplaceAll(a.UnitNumber, "-", "")
	// "04B" and "4B" are the same door; a lone "0" stays.
	for len(s) > 1 && s[0] == '0' && isDigit(s[1]) {
		s = s[1:]
	}
	return s
}

// CityKey is the city for matching: spaces removed and SAINT, FORT, MOUNT, POINT, NORTH, SOUTH, EAST, WEST,
// HEIGHTS, SPRINGS and TOWNSHIP abbreviated, so "SAINT LOUIS", "ST LOUIS" and "ST. LOUIS" all give "STLOUIS" and
// "MC LEAN" matches "MCLEAN".
func (a Address) CityKey() string {
	if a.City == "" {
		return ""
	}
	words := strings.Fields(a.City)
	var b strings.Builder
	b.Grow(len(a.City))
	for _, w := range words {
		// A city called just "NORTH" keeps its name; in "NORTH LAS VEGAS" the direction is abbreviated.
		if k, ok := cityKeyWords[w]; ok && !(len(words) == 1 && isDirectional(w)) {
			w = k
		}
		b.WriteString(w)
	}
	return b.String()
}

// nameKey writes a street name for matching: spaces removed and SAINT, MOUNT, FORT, JUNIOR abbreviated.
func nameKey(name string) string {
	if strings.IndexByte(name, ' ') < 0 {
		if k, ok := keyWords[name]; ok {
			return k
		}
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	for _, w := range strings.Fields(name) {
		if k, ok := keyWords[w]; ok {
			w = k
		}
		b.WriteString(w)
	}
	return b.String()
}

func joinNonEmpty(sep string, parts ...string) string {
	n := 0
	for _, p := range parts {
		if p != "" {
			n += len(p) + len(sep)
		}
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}
