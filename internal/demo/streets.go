package demo

import (
	"math"
	"slices"
	"strconv"
)

// streetNames are common US street names. Numbered streets ("1st" ... a metro's maxOrdinal) are added to them.
var streetNames = []string{
	"Oak", "Maple", "Cedar", "Pine", "Elm", "Walnut", "Birch", "Willow", "Chestnut", "Spruce", "Hickory", "Magnolia",
	"Park", "Washington", "Lake", "Hill", "Lincoln", "Jefferson", "Madison", "Franklin", "Adams", "Jackson", "Main",
	"Church", "Highland", "Sunset", "Ridge", "River", "Forest", "Meadow", "Valley", "Spring", "Cherry", "Dogwood",
	"Laurel", "Holly", "Aspen", "Sycamore", "Poplar", "Hawthorne", "Evergreen", "Fairview", "Grandview", "Lakeview",
	"Hillcrest", "Woodland", "Garden", "Orchard", "Prospect", "Pleasant", "Mill", "Union", "College", "Greenwood",
	"Ashland", "Wilson", "Monroe", "Grant", "Sherman", "Harrison", "Cleveland", "Taylor", "Clay", "Bell", "Victoria",
	"Chapel", "Hampton", "Kensington", "Belmont", "Brookside", "Linden", "Juniper", "Cypress", "Beacon", "Harbor",
	"Crescent", "Glenwood", "Edgewood", "Rosewood", "Wildwood", "Kingston", "Preston", "Stratford", "Windsor",
	"Canterbury", "Ellis", "Parker", "Carter", "Foster", "Mason", "Cherokee", "Vine", "Locust", "Mulberry",
	"Pecan", "Bluebonnet", "Peachtree", "Ponce", "Highland View", "Magnolia Ridge", "Quail Run", "Fox Hollow",
	"Stonegate", "Meadowbrook", "Riverside", "Clearwater", "Broadway", "Central", "Euclid", "Fairmount", "Arlington",
}

// suffix is a USPS street suffix with its share of named streets and the kind of street it names.
type suffix struct {
	abbr   string
	weight float64
	short  bool // a cul-de-sac or loop: a few hundred feet long, winding
}

var suffixes = []suffix{
	{"St", 0.24, false}, {"Ave", 0.2, false}, {"Dr", 0.13, false}, {"Rd", 0.07, false}, {"Ln", 0.06, false},
	{"Way", 0.06, false}, {"Blvd", 0.02, false}, {"Pkwy", 0.01, false}, {"Trl", 0.02, false},
	{"Ct", 0.06, true}, {"Pl", 0.05, true}, {"Cir", 0.04, true}, {"Ter", 0.02, true}, {"Loop", 0.01, true},
}

var suffixWeights = func() []float64 {
	w := make([]float64, len(suffixes))
	for i, s := range suffixes {
		w[i] = s.weight
	}
	return w
}()

// orientation is which way a street runs.
type orientation uint8

const (
	northSouth orientation = iota
	eastWest
	winding // a drive, lane or court that follows the ground
)

// street is one street of a ZIP code: a straight segment (winding streets are short, so a segment serves) with
// house numbers rising along it, even on one side and odd on the other.
type street struct {
	pre, name, suf, post string
	orient               orientation
	// x0, y0 is the start of the segment in miles east and north of the ZIP centroid, dx, dy its unit direction
	// and length its length in miles.
	x0, y0, dx, dy, length float64
	base                   int // house number at the start
	// used marks the number slots taken on each side; slot k is house number base + 2k (+1 on the odd side).
	used [2]map[int]bool
}

// slotsPerMile: a block of 100 house numbers every eighth of a mile, on each side 50 numbers, so 400 slots a mile.
const slotsPerMile = 400

// raw returns the street line for house number n as a person would type it: "1234 N Oak Ave".
func (s *street) raw(n int) string {
	out := strconv.Itoa(n)
	for _, p := range []string{s.pre, s.name, s.suf, s.post} {
		if p != "" {
			out += " " + p
		}
	}
	return out
}

// number returns the house number of a slot on a side.
func (s *street) number(slot, side int) int { return s.base + 2*slot + side }

// position returns the location of a slot: along the segment, set back 60 feet from the centre line on its side.
func (s *street) position(slot, side int) (x, y float64) {
	along := (float64(slot) + 0.5) / slotsPerMile
	off := 0.0115
	if side == 1 {
		off = -off
	}
	return s.x0 + along*s.dx + off*s.dy, s.y0 + along*s.dy - off*s.dx
}

// slots is how many number slots the street has on a side.
func (s *street) slots() int { return max(1, int(s.length*slotsPerMile)) }

// ordinal writes 1 as "1st", 22 as "22nd", 13 as "13th".
func ordinal(n int) string {
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return strconv.Itoa(n) + suf
}

// grid is a ZIP's house numbering: on a straight street the number follows the position, rising by 800 a mile
// (100 a block) northwards on north-south streets and eastwards on east-west ones, from ns and ew at the
// centroid. So homes on parallel streets at the same latitude carry about the same numbers, as in a city grid.
// Winding streets number from their own start.
type grid struct{ ns, ew int }

// newGrid draws a ZIP's numbering; the numbers at the centroid are high enough that none goes below 100 within
// 1.5 miles of it.
func newGrid(r *rng) grid {
	return grid{ns: 100 * (14 + r.intn(70)), ew: 100 * (14 + r.intn(70))}
}

// newStreets draws the streets of a ZIP code: n of them, with distinct names, laid out within about a mile of
// the centroid.
func newStreets(r *rng, m *metro, z *metroZIP, gr grid, n int) []*street {
	named := r.perm(len(streetNames))
	ordinals := r.perm(m.maxOrdinal)
	streets := make([]*street, 0, n)
	ni, oi := 0, 0
	for len(streets) < n {
		s := &street{used: [2]map[int]bool{{}, {}}}
		// About a third of the streets are numbered in the grid cities, a fifth elsewhere.
		numbered := oi < len(ordinals) && (r.chance(0.2) || (m.style != dirRandom && r.chance(0.15)))
		if !numbered && ni >= len(named) {
			numbered = oi < len(ordinals)
			if !numbered {
				break // every name used: the ZIP has fewer streets than asked for, which the caller allows
			}
		}
		if numbered {
			s.name = ordinal(ordinals[oi] + 1)
			oi++
			s.orient = orientation(r.intn(2))
			switch {
			case m.style == dirSeattle && s.orient == northSouth, m.style == dirGrid && s.orient == eastWest:
				s.suf = "Ave"
			case m.style != dirRandom:
				s.suf = "St"
			default:
				s.suf = []string{"St", "Ave"}[r.intn(2)]
			}
		} else {
			s.name = streetNames[named[ni]]
			ni++
			sf := suffixes[r.pick(suffixWeights)]
			s.suf = sf.abbr
			switch {
			case sf.short || s.suf == "Dr" || s.suf == "Ln" || s.suf == "Trl":
				s.orient = winding
			default:
				s.orient = orientation(r.intn(2))
			}
		}
		s.pre, s.post = directionals(r, m, z, s)

		short := s.orient == winding && slices.Contains([]string{"Ct", "Pl", "Cir", "Ter", "Loop"}, s.suf)
		if short {
			s.length = r.between(0.08, 0.18)
		} else {
			s.length = r.between(0.25, 0.7)
		}
		var angle float64
		switch s.orient {
		case northSouth:
			angle = math.Pi/2 + r.between(-0.03, 0.03)
		case eastWest:
			angle = r.between(-0.03, 0.03)
		default:
			angle = r.between(0, 2*math.Pi)
		}
		s.dx, s.dy = math.Cos(angle), math.Sin(angle)
		// The middle of the segment lies in a disc of 1.05 miles around the centroid, so no home is more than
		// about 1.45 miles from it.
		rad := 1.05 * math.Sqrt(r.float())
		th := r.between(0, 2*math.Pi)
		cx, cy := rad*math.Cos(th), rad*math.Sin(th)
		s.x0, s.y0 = cx-s.dx*s.length/2, cy-s.dy*s.length/2
		switch {
		case s.orient == northSouth:
			s.base = gr.ns + 2*int(math.Round(s.y0*slotsPerMile))
		case s.orient == eastWest:
			s.base = gr.ew + 2*int(math.Round(s.x0*slotsPerMile))
		case short:
			s.base = 100 * (1 + r.intn(60))
		default:
			s.base = 100 * (1 + r.intn(90))
		}
		streets = append(streets, s)
	}
	return streets
}

// directionals returns the pre- and post-directional of a street in its city's style.
func directionals(r *rng, m *metro, z *metroZIP, s *street) (pre, post string) {
	switch m.style {
	case dirSeattle:
		// Seattle: "NW 85th St" (streets run east-west and take the quadrant first), "24th Ave NW".
		if s.suf == "St" && s.orient == eastWest {
			return z.ew, ""
		}
		if s.orient == northSouth || r.chance(0.6) {
			return "", z.ns
		}
		return "", ""
	case dirGrid:
		switch s.orient {
		case northSouth:
			return z.ns, ""
		case eastWest:
			return z.ew, ""
		}
		if r.chance(0.5) {
			return z.ns, ""
		}
		return "", ""
	}
	if r.chance(0.12) {
		return []string{"N", "S", "E", "W"}[r.intn(4)], ""
	}
	return "", ""
}
