package demo

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"valuator/internal/address"
	"valuator/internal/property"
)

// Property types, as avm.PropertyType names them.
const (
	singleFamily = "Single Family"
	townhouse    = "Townhouse"
	condo        = "Condo"
	multiFamily  = "Multi-Family"
)

// imageFor picks the drawing of a home (web/public/demo-homes/house-N.svg): 1 a craftsman bungalow, 2 a
// two-storey colonial, 3 a modern flat-roofed house, 4 a row of townhouses, 5 a mid-rise condominium building,
// 6 a single-storey ranch. There is no drawing of a duplex or fourplex; they look like the houses of their
// street, and get a house's drawing.
func imageFor(h *property.Home) string {
	n := 6
	switch {
	case h.Type == townhouse:
		n = 4
	case h.Type == condo:
		n = 5
	case h.YearBuilt >= 2005:
		n = 3
	case h.Floors >= 2:
		n = 2
	case h.YearBuilt < 1945 || h.Floors == 1.5:
		n = 1
	}
	return "/demo-homes/house-" + strconv.Itoa(n) + ".svg"
}

// zipGen fills one ZIP code.
type zipGen struct {
	g       *generator
	p       *zipPlan
	r       *rng
	grid    grid
	streets []*street
	weights []float64        // street choice weights (length)
	profile []*streetProfile // per street, drawn on first use
	taken   map[string]bool  // street keys on record in this ZIP
	nowYear int
}

// streetProfile is what the homes of one street share: they were mostly built in one era, to one size and
// standard, on lots of one size.
type streetProfile struct {
	year             int
	size, lot, grade float64
}

// zip generates n homes in one ZIP code.
func (g *generator) zip(p zipPlan, n int) {
	zg := &zipGen{g: g, p: &p, r: newRNG(g.seed, hashKey("homes"), hashKey(p.z.code)), taken: map[string]bool{},
		nowYear: g.now.Year()}
	sh := typeShares[p.z.class]
	nCondo := int(math.Round(float64(n) * sh.condo))
	nTown := int(math.Round(float64(n) * sh.town))
	nMulti := int(math.Round(float64(n) * sh.multi))
	if nCondo > 0 && nCondo < 4 {
		nCondo = 0 // too few units for a building
	}
	nSingle := n - nCondo - nTown - nMulti

	zg.grid = newGrid(zg.r)
	zg.streets = newStreets(zg.r, p.m, p.z, zg.grid, max(6, n/4))
	zg.profile = make([]*streetProfile, len(zg.streets))
	for _, s := range zg.streets {
		zg.weights = append(zg.weights, s.length)
	}

	// Buildings first (they need long runs of frontage), then rows of townhouses, then houses. A building or
	// row that finds no room adds a street and tries again; after many failures the rest become houses, so the
	// count stays exact whatever happens.
	for tries := 0; nCondo >= 4 && tries < 100; tries++ {
		units := 4 + zg.r.intn(9)
		if p.z.class == urbanCore {
			units += zg.r.intn(12)
		}
		if nCondo-units < 4 {
			units = nCondo
		}
		nCondo -= zg.condoBuilding(units)
	}
	for tries := 0; nTown > 0 && tries < 100; tries++ {
		k := min(nTown, 2+zg.r.intn(5))
		nTown -= zg.townRow(k)
	}
	for range nMulti {
		zg.house(multiFamily)
	}
	for range nSingle + nCondo + nTown {
		zg.house(singleFamily)
	}
}

// profileOf returns street i's profile.
func (zg *zipGen) profileOf(i int) *streetProfile {
	if zg.profile[i] == nil {
		r, m := zg.r, zg.p.m
		// Suburban ZIPs were mostly built after the war, inner-ring ones mostly before it.
		w := make([]float64, len(m.eras))
		for j, e := range m.eras {
			w[j] = e.weight
			switch {
			case zg.p.z.class == suburban && e.year < 1945:
				w[j] *= 0.3
			case zg.p.z.class != suburban && e.year > 1970:
				w[j] *= 0.6
			}
		}
		year := m.eras[r.pick(w)].year + int(math.Round(6*r.norm()))
		zg.profile[i] = &streetProfile{year: min(year, zg.nowYear-1), size: math.Exp(0.15 * r.norm()),
			lot: math.Exp(0.25 * r.norm()), grade: 0.5 * r.norm()}
	}
	return zg.profile[i]
}

// findRun finds width free slots in a row on one side of a street, starting at a random slot, and marks them.
// It returns the street, side and first slot, or ok false when the ZIP's streets are full.
func (zg *zipGen) findRun(width int, longOnly bool) (si, side, slot int, ok bool) {
	for try := 0; try < 40; try++ {
		si = zg.r.pick(zg.weights)
		s := zg.streets[si]
		if longOnly && s.orient == winding && s.length < 0.2 {
			continue
		}
		side = zg.r.intn(2)
		n := s.slots()
		if n < width {
			continue
		}
		start := zg.r.intn(n - width + 1)
		for off := 0; off < n-width+1; off++ {
			k := (start + off) % (n - width + 1)
			free := true
			for j := k; j < k+width && free; j++ {
				free = !s.used[side][j]
			}
			if free {
				for j := k; j < k+width; j++ {
					s.used[side][j] = true
				}
				return si, side, k, true
			}
		}
	}
	return 0, 0, 0, false
}

// claim parses the address of a slot (with an optional unit) and checks that its street key is new in the ZIP
// (or, for further units of one building, that it is the building's). It returns the parsed address.
func (zg *zipGen) claim(s *street, side, slot int, unit string, sameBuilding bool) (address.Address, bool) {
	raw := s.raw(s.number(slot, side))
	if unit != "" {
		raw += " " + unit
	}
	a, err := address.FromParts(raw, zg.p.geo.City, zg.p.geo.State, zg.p.geo.Code)
	if err != nil {
		return address.Address{}, false
	}
	if !sameBuilding {
		if zg.taken[a.StreetKey()] {
			return address.Address{}, false
		}
		zg.taken[a.StreetKey()] = true
	}
	return a, true
}

// newHome starts a record at a slot of a street.
func (zg *zipGen) newHome(s *street, side, slot int, a address.Address, typ string) property.Home {
	h := property.NewHome()
	h.Source = Source
	h.ExternalID = fmt.Sprintf("DEMO-%05d", zg.g.first+len(zg.g.homes)+1)
	setAddress(&h, a)
	h.County = zg.p.geo.County
	h.Type = typ
	x, y := s.position(slot, side)
	// A house stands a little off its frontage's centre; the jitter keeps neighbours from lining up exactly.
	x += 0.004 * zg.r.norm()
	y += 0.004 * zg.r.norm()
	h.Lat, h.Lon = zg.p.latLon(x, y)
	h.YearRenov = 0
	return h
}

// add records a finished home with its location and own effect. A streaming generator passes it on and keeps
// only it, for the next unit of a condo building (which takes its coordinates).
func (zg *zipGen) add(h property.Home, x, y, effect float64) {
	g := zg.g
	h.ImageURL = imageFor(&h)
	g.homes = append(g.homes, h)
	g.info = append(g.info, homeInfo{metro: zg.p.m, logLoc: zg.p.logLocation(x, y), effect: effect})
	if g.each == nil {
		return
	}
	last := len(g.homes) - 1
	i := g.first + last
	g.homes[0], g.info[0] = g.homes[last], g.info[last]
	g.homes, g.info, g.first = g.homes[:1], g.info[:1], i
	if g.showcaseAt < 0 && g.isShowcase(i) {
		g.showcaseAt = i
	}
	if g.err == nil {
		g.err = g.each(i)
	}
}

// offset returns a home's position in miles east and north of the ZIP centroid.
func (zg *zipGen) offset(h *property.Home) (x, y float64) {
	y = (h.Lat - zg.p.geo.Lat) * milesPerDegree
	x = (h.Lon - zg.p.geo.Lon) * milesPerDegree * math.Cos(zg.p.geo.Lat*math.Pi/180)
	return x, y
}

// house adds a single-family house or a small multi-family building.
func (zg *zipGen) house(typ string) {
	r := zg.r
	for try := 0; try < 20; try++ {
		si := r.pick(zg.weights)
		prof := zg.profileOf(si)
		h := property.NewHome()
		if typ == multiFamily {
			zg.multiAttrs(&h, prof)
		} else {
			zg.singleAttrs(&h, prof)
		}
		// Frontage: a lot is about 1.6 times deeper than wide; a slot is 13.2 feet.
		width := max(3, int(math.Ceil(math.Sqrt(h.LotSqft/1.6)/13.2)))
		s := zg.streets[si]
		side := r.intn(2)
		n := s.slots()
		if n < width {
			continue
		}
		k := r.intn(n - width + 1)
		free := true
		for j := k; j < k+width && free; j++ {
			free = !s.used[side][j]
		}
		if !free {
			continue
		}
		slot := k + width/2
		a, ok := zg.claim(s, side, slot, "", false)
		if !ok {
			continue
		}
		for j := k; j < k+width; j++ {
			s.used[side][j] = true
		}
		rec := zg.newHome(s, side, slot, a, typ)
		copyAttrs(&rec, &h)
		x, y := zg.offset(&rec)
		zg.add(rec, x, y, homeEffectSD*r.norm())
		return
	}
	// The ZIP's streets are crowded: a new street makes room, which keeps the count exact. It is rare at the
	// default size, where the streets are a tenth full.
	zg.addStreet()
	zg.house(typ)
}

// addStreet lays out one more street in the ZIP.
func (zg *zipGen) addStreet() {
	r := newRNG(zg.g.seed, hashKey("extra"), hashKey(zg.p.z.code), uint64(len(zg.streets)))
	extra := newStreets(r, zg.p.m, zg.p.z, zg.grid, 1)
	for _, s := range extra {
		zg.streets = append(zg.streets, s)
		zg.weights = append(zg.weights, s.length)
		zg.profile = append(zg.profile, nil)
	}
}

// copyAttrs copies the attributes (not the address or location) of src into dst.
func copyAttrs(dst, src *property.Home) {
	dst.Beds, dst.Baths, dst.Sqft, dst.LotSqft, dst.Floors = src.Beds, src.Baths, src.Sqft, src.LotSqft, src.Floors
	dst.YearBuilt, dst.Grade, dst.Condition = src.YearBuilt, src.Grade, src.Condition
	dst.SqftAbove, dst.SqftBase = src.SqftAbove, src.SqftBase
}

func round10(v float64) float64 { return math.Round(v/10) * 10 }

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// halfSteps rounds a bathroom count to a half.
func halfSteps(v float64) float64 { return math.Round(v*2) / 2 }

// condition draws a condition (1-5) for a building of the given age, with King County's shares for older homes.
func (zg *zipGen) condition(age int) float64 {
	if age < 8 {
		if zg.r.chance(0.9) {
			return 3
		}
		return 4
	}
	return float64(1 + zg.r.pick([]float64{0.005, 0.015, 0.62, 0.27, 0.09}))
}

// yearBuilt draws a house's year from its street's era, with an occasional newer house built in its place.
func (zg *zipGen) yearBuilt(prof *streetProfile) int {
	if zg.r.chance(0.07) {
		return zg.nowYear - 1 - zg.r.intn(30)
	}
	return clampYear(prof.year+int(math.Round(4*zg.r.norm())), zg.nowYear)
}

// clampYear keeps a year of building between 1880 and last year: every home stood a full year before now.
func clampYear(year, nowYear int) int { return max(1880, min(year, nowYear-1)) }

// singleAttrs draws a single-family house.
func (zg *zipGen) singleAttrs(h *property.Home, prof *streetProfile) {
	r, m := zg.r, zg.p.m
	year := zg.yearBuilt(prof)
	era := clamp(1+0.005*float64(year-1960), 0.8, 1.35) // newer houses are bigger
	sqft := round10(clamp(m.sqft*prof.size*era*math.Exp(0.25*r.norm()), 620, 6800))
	minBeds := 2.0
	if sqft < 900 {
		minBeds = 1
	}
	beds := clamp(math.Round(1.8+sqft/1150+0.6*r.norm()), minBeds, 6)
	newer := 0.0
	if year >= 1990 {
		newer = 0.3
	}
	baths := clamp(halfSteps(0.4+sqft/1100+newer+0.35*r.norm()), 1, min(beds+1, 6))
	lot := round10(clamp(m.lot*classLot[zg.p.z.class]*prof.lot*math.Exp(0.3*r.norm()), 1800, 60000))
	p2 := m.twoStory
	if year >= 1990 {
		p2 += 0.25
	}
	floors := 1.0
	switch {
	case year < 1950 && r.chance(0.25):
		floors = 1.5
	case r.chance(p2):
		floors = 2
		if zg.p.z.class == urbanCore && r.chance(0.1) {
			floors = 3
		}
	}
	// King County's grades: 7 for the typical house, about one step for each doubling of the living area
	// and each forty years newer.
	grade := clamp(math.Round(7.4+2.1*math.Log(sqft/1900)+0.012*float64(year-1970)+prof.grade+0.4*r.norm()), 4, 12)
	h.YearBuilt, h.Sqft, h.Beds, h.Baths = float64(year), sqft, beds, baths
	h.LotSqft, h.Floors, h.Grade = lot, floors, grade
	h.Condition = zg.condition(zg.nowYear - year)
	zg.basement(h, year)
}

// basement splits the living area into above ground and basement, by the metro's share of basements.
func (zg *zipGen) basement(h *property.Home, year int) {
	p := zg.p.m.basement
	if year >= 1990 {
		p *= 0.6
	}
	h.SqftAbove, h.SqftBase = h.Sqft, 0
	if zg.r.chance(p) {
		h.SqftBase = round10(h.Sqft * zg.r.between(0.25, 0.45))
		h.SqftAbove = h.Sqft - h.SqftBase
	}
}

// multiAttrs draws a duplex, triplex or fourplex: mostly older buildings, a little below the street's
// standard.
func (zg *zipGen) multiAttrs(h *property.Home, prof *streetProfile) {
	r, m := zg.r, zg.p.m
	units := 2 + r.pick([]float64{0.6, 0.2, 0.2})
	year := clampYear(prof.year-5+int(math.Round(8*r.norm())), zg.nowYear)
	sqft := round10(float64(units) * r.between(750, 1150))
	beds := float64(units * (1 + r.pick([]float64{0.3, 0.55, 0.15})))
	baths := float64(units)
	if r.chance(0.3) {
		baths += float64(units) / 2
	}
	lot := round10(m.lot * classLot[zg.p.z.class] * r.between(0.9, 1.6))
	floors := 2.0
	switch {
	case units == 2 && r.chance(0.3):
		floors = 1
	case units == 4 && r.chance(0.2):
		floors = 3
	}
	grade := clamp(math.Round(6.8+prof.grade+0.4*r.norm()), 5, 9)
	h.YearBuilt, h.Sqft, h.Beds, h.Baths = float64(year), sqft, beds, baths
	h.LotSqft, h.Floors, h.Grade = lot, floors, grade
	h.Condition = zg.condition(zg.nowYear - year)
	zg.basement(h, year)
}

// townRow adds a row of k townhouses side by side, each with its own house number, and returns how many it
// added.
func (zg *zipGen) townRow(k int) int {
	r := zg.r
	si, side, slot, ok := zg.findRun(2*k, true)
	if !ok {
		zg.addStreet()
		return 0
	}
	s := zg.streets[si]
	prof := zg.profileOf(si)
	year := zg.nowYear - 1 - r.intn(30)
	if r.chance(0.3) {
		year = min(max(prof.year, 1965)+int(math.Round(5*r.norm())), zg.nowYear-1)
	}
	size := math.Exp(0.15 * r.norm())
	gradeBase := 7.5 + 0.01*float64(year-1995) + prof.grade
	floors := 2.0
	if r.chance(0.3) {
		floors = 3
	}
	effect := 0.6 * homeEffectSD * r.norm() // the builder's: shared by the row
	added := 0
	for j := range k {
		a, ok := zg.claim(s, side, slot+2*j, "", false)
		if !ok {
			continue
		}
		h := zg.newHome(s, side, slot+2*j, a, townhouse)
		sqft := round10(clamp(1550*size*math.Exp(0.12*r.norm()), 900, 3200))
		h.YearBuilt, h.Sqft, h.Floors = float64(year), sqft, floors
		h.Beds = clamp(math.Round(1+sqft/700+0.4*r.norm()), 2, 4)
		h.Baths = clamp(halfSteps(1.5+(sqft-1400)/1200+0.25*r.norm()), 1.5, 3.5)
		h.LotSqft = round10(r.between(1000, 2800))
		h.Grade = clamp(math.Round(gradeBase+2*math.Log(sqft/1550)+0.4*r.norm()), 6, 11)
		h.Condition = zg.condition(zg.nowYear - year)
		h.SqftAbove, h.SqftBase = sqft, 0
		x, y := zg.offset(&h)
		zg.add(h, x, y, effect+0.8*homeEffectSD*r.norm())
		added++
	}
	return added
}

// condoBuilding adds a building with units condo units on record and returns how many it added.
func (zg *zipGen) condoBuilding(units int) int {
	r, cls := zg.r, zg.p.z.class
	si, side, slot, ok := zg.findRun(6, true)
	if !ok {
		zg.addStreet()
		return 0
	}
	s := zg.streets[si]
	slot += 3
	if _, ok := zg.claim(s, side, slot, "", false); !ok {
		return 0
	}
	// Mid-rise walk-ups and garden condos everywhere; towers downtown.
	stories := 3 + r.intn(4)
	if cls == urbanCore && r.chance(0.35) {
		stories = 8 + r.intn(18)
	}
	var year int
	switch r.pick([]float64{0.5, 0.3, 0.2}) {
	case 0:
		year = zg.nowYear - 1 - r.intn(26)
	case 1:
		year = 1970 + r.intn(30)
	default:
		year = 1920 + r.intn(50) // an older building converted to condos
	}
	gradeBase := 7.5 + 0.4*r.norm()
	if cls == urbanCore {
		gradeBase += 0.5
	}
	if stories >= 8 {
		gradeBase += 0.7
	}
	medianSqft := 950.0
	if cls == urbanCore {
		medianSqft = 850
	}
	effect := 0.65 * homeEffectSD * r.norm() // the building's, shared by its units

	// Units are numbered by floor: "APT 3B" (third floor, second door) or "UNIT 304".
	perFloor := max(2, (units+stories-1)/stories+r.intn(3))
	var labels []string
	unitStyle := r.intn(2)
	for f := 1; f <= stories; f++ {
		for d := 1; d <= perFloor; d++ {
			if unitStyle == 0 {
				labels = append(labels, "Apt "+strconv.Itoa(f)+string(rune('A'+d-1)))
			} else {
				labels = append(labels, "Unit "+strconv.Itoa(f*100+d))
			}
		}
	}
	pick := r.perm(len(labels))[:min(units, len(labels))]
	slices.Sort(pick)
	added := 0
	for _, li := range pick {
		a, ok := zg.claim(s, side, slot, labels[li], true)
		if !ok {
			continue
		}
		h := zg.newHome(s, side, slot, a, condo)
		if added > 0 {
			// One building, one point: every unit sits at the first unit's coordinates.
			prev := zg.g.homes[len(zg.g.homes)-1]
			h.Lat, h.Lon = prev.Lat, prev.Lon
		}
		sqft := round10(clamp(medianSqft*math.Exp(0.3*r.norm()), 420, 2600))
		switch {
		case sqft < 600 && r.chance(0.7):
			h.Beds = 0 // a studio
		default:
			h.Beds = clamp(math.Round(sqft/600), 1, 3)
		}
		h.Baths = clamp(halfSteps(0.5+sqft/900+0.2*r.norm()), 1, 3)
		h.Sqft, h.YearBuilt, h.Floors = sqft, float64(year), 1
		h.SqftAbove, h.SqftBase = sqft, 0
		h.Grade = clamp(math.Round(gradeBase+1.5*math.Log(sqft/medianSqft)+0.3*r.norm()), 6, 12)
		h.Condition = zg.condition(zg.nowYear - year)
		x, y := zg.offset(&h)
		zg.add(h, x, y, effect+0.76*homeEffectSD*r.norm())
		added++
	}
	return added
}
