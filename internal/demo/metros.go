package demo

// zipClass says how urban a ZIP code is; it sets the mix of property types, lot sizes and a location premium.
type zipClass uint8

const (
	urbanCore zipClass = iota // downtown and its edge: condo towers, townhouses, small lots
	innerRing                 // older streetcar neighbourhoods
	suburban                  // post-war and newer subdivisions
)

// typeShares is the share of condo units, townhouses and multi-family buildings in a ZIP of each class; the rest
// are single-family houses. Over the ZIPs below they give about 74% houses, 10% condos, 11% townhouses and 5%
// multi-family buildings: a plausible mix of owner-occupied city homes.
var typeShares = [...]struct{ condo, town, multi float64 }{
	urbanCore: {0.38, 0.18, 0.06},
	innerRing: {0.10, 0.12, 0.06},
	suburban:  {0.04, 0.08, 0.03},
}

// classPremium is a location premium (in log price) of central neighbourhoods over the metro level.
var classPremium = [...]float64{urbanCore: 0.10, innerRing: 0.05, suburban: 0}

// classLot scales the metro's typical lot by how urban the ZIP is.
var classLot = [...]float64{urbanCore: 0.6, innerRing: 0.85, suburban: 1.2}

// dirStyle is how a city writes street directionals.
type dirStyle uint8

const (
	// dirRandom: an occasional pre-directional ("N Oak St"), as in most cities.
	dirRandom dirStyle = iota
	// dirGrid: a pre-directional from the ZIP's side of the baseline, by the street's orientation: "N 16th St"
	// and "E Camelback Rd" in Phoenix, "S Gaylord St" in south Denver.
	dirGrid
	// dirSeattle: streets take the quadrant before the name ("NW 85th St"), avenues after it ("24th Ave NW").
	dirSeattle
)

// metroZIP is a real ZIP code of a metro area. ns and ew are the directionals of its north-south and east-west
// streets (dirGrid, dirSeattle); either may be empty.
type metroZIP struct {
	code   string
	class  zipClass
	ns, ew string
}

// era is a period of building with its share of a metro's houses.
type era struct {
	year   int
	weight float64
}

// metro is one demo market. The figures are rough, public, rounded facts about each metro, chosen so that the
// generated medians look familiar to someone who knows the market; they are not statistics of any data set.
type metro struct {
	name string
	// level is the price of a home relative to the same home in King County in 2014-15 (the hedonic model's
	// dollars) at the start of the history, ten years before now: roughly the median price of the metro's
	// ZIP codes then over King County's 2015 median ($450,000).
	level float64
	// target is the median sale price of the last two years that level and growth were set to give: the rough
	// recent median of the metro's generated ZIP codes (TestMetroMedians checks it).
	target float64
	// growth is the annual appreciation of the metro's price index over the ten years.
	growth float64
	// yield scales the gross rental yield: rents are higher relative to prices in the Sun Belt and the
	// Midwest than on the West Coast.
	yield float64
	style dirStyle
	// maxOrdinal is the highest numbered street ("85th"); cities with long numbered grids have more.
	maxOrdinal int
	// sqft and lot are the typical single-family living area and lot in square feet (a house of 1960; newer ones
	// are bigger, inner-city lots smaller); twoStory is the share of
	// houses with two floors or more, basement the share with a basement.
	sqft, lot, twoStory, basement float64
	eras                          []era
	zips                          []metroZIP
}

// metros are the demo markets. Each level, applied to the generated homes (a little smaller and plainer than
// King County's typical sale), and ten years of its appreciation give the metro's target: the recent median
// sale price of its generated ZIP codes, near the real recent medians of those neighbourhoods (Seattle's north
// end about $900k; central Austin and Denver about $620k; in-town Atlanta and Raleigh about $500k; central
// Phoenix about $480k; central Columbus about $345k). TestMetroMedians holds the generated medians to within
// 20% of the targets.
var metros = []metro{
	{
		name: "Seattle", level: 1.40, target: 900000, growth: 0.045, yield: 0.95, style: dirSeattle, maxOrdinal: 85,
		sqft: 1800, lot: 5000, twoStory: 0.45, basement: 0.45,
		eras: []era{{1910, 0.25}, {1928, 0.2}, {1950, 0.25}, {1978, 0.1}, {2008, 0.2}},
		zips: []metroZIP{
			{"98103", innerRing, "N", "N"}, {"98107", innerRing, "NW", "NW"}, {"98115", suburban, "NE", "NE"},
			{"98117", suburban, "NW", "NW"}, {"98122", urbanCore, "E", "E"}, {"98199", suburban, "W", "W"},
			{"98105", innerRing, "NE", "NE"}, {"98126", suburban, "SW", "SW"},
		},
	},
	{
		name: "Austin", level: 0.79, target: 620000, growth: 0.055, yield: 1.0, style: dirRandom, maxOrdinal: 20,
		sqft: 1900, lot: 7500, twoStory: 0.35, basement: 0.02,
		eras: []era{{1940, 0.15}, {1960, 0.2}, {1982, 0.25}, {2000, 0.2}, {2015, 0.2}},
		zips: []metroZIP{
			{"78701", urbanCore, "", ""}, {"78702", innerRing, "", ""}, {"78703", innerRing, "", ""},
			{"78704", innerRing, "", ""}, {"78745", suburban, "", ""}, {"78731", suburban, "", ""},
			{"78751", innerRing, "", ""}, {"78757", suburban, "", ""},
		},
	},
	{
		name: "Denver", level: 0.97, target: 620000, growth: 0.05, yield: 0.97, style: dirGrid, maxOrdinal: 50,
		sqft: 1700, lot: 6250, twoStory: 0.4, basement: 0.55,
		eras: []era{{1900, 0.2}, {1925, 0.2}, {1952, 0.3}, {1975, 0.1}, {2010, 0.2}},
		zips: []metroZIP{
			{"80202", urbanCore, "", ""}, {"80205", innerRing, "", "E"}, {"80206", innerRing, "", "E"},
			{"80210", innerRing, "S", "E"}, {"80211", innerRing, "", "W"}, {"80218", urbanCore, "", "E"},
			{"80220", suburban, "", "E"}, {"80219", suburban, "S", "W"},
		},
	},
	{
		name: "Atlanta", level: 0.61, target: 500000, growth: 0.06, yield: 1.05, style: dirRandom, maxOrdinal: 18,
		sqft: 2100, lot: 9000, twoStory: 0.45, basement: 0.3,
		eras: []era{{1915, 0.2}, {1938, 0.2}, {1958, 0.2}, {1990, 0.15}, {2012, 0.25}},
		zips: []metroZIP{
			{"30308", urbanCore, "", ""}, {"30306", innerRing, "", ""}, {"30307", innerRing, "", ""},
			{"30309", urbanCore, "", ""}, {"30312", innerRing, "", ""}, {"30316", suburban, "", ""},
			{"30318", suburban, "", ""}, {"30305", suburban, "", ""},
		},
	},
	{
		name: "Phoenix", level: 0.57, target: 480000, growth: 0.07, yield: 1.02, style: dirGrid, maxOrdinal: 60,
		sqft: 1750, lot: 7500, twoStory: 0.15, basement: 0.02,
		eras: []era{{1935, 0.1}, {1955, 0.3}, {1972, 0.25}, {1990, 0.15}, {2012, 0.2}},
		zips: []metroZIP{
			{"85004", urbanCore, "N", "E"}, {"85006", innerRing, "N", "E"}, {"85008", suburban, "N", "E"},
			{"85012", innerRing, "N", "W"}, {"85014", suburban, "N", "E"}, {"85016", suburban, "N", "E"},
			{"85018", suburban, "N", "E"}, {"85020", suburban, "N", "E"},
		},
	},
	{
		name: "Columbus", level: 0.465, target: 345000, growth: 0.065, yield: 1.08, style: dirRandom, maxOrdinal: 20,
		sqft: 1650, lot: 6500, twoStory: 0.5, basement: 0.6,
		eras: []era{{1900, 0.2}, {1925, 0.25}, {1955, 0.3}, {1985, 0.1}, {2012, 0.15}},
		zips: []metroZIP{
			{"43215", urbanCore, "", ""}, {"43201", innerRing, "", ""}, {"43202", innerRing, "", ""},
			{"43206", innerRing, "", ""}, {"43214", suburban, "", ""}, {"43209", suburban, "", ""},
			{"43221", suburban, "", ""}, {"43220", suburban, "", ""},
		},
	},
	{
		name: "Raleigh", level: 0.56, target: 500000, growth: 0.06, yield: 1.0, style: dirRandom, maxOrdinal: 12,
		sqft: 2100, lot: 11000, twoStory: 0.45, basement: 0.08,
		eras: []era{{1935, 0.1}, {1962, 0.25}, {1985, 0.25}, {2002, 0.2}, {2016, 0.2}},
		zips: []metroZIP{
			{"27605", urbanCore, "", ""}, {"27603", innerRing, "", ""}, {"27604", suburban, "", ""},
			{"27607", innerRing, "", ""}, {"27608", innerRing, "", ""}, {"27609", suburban, "", ""},
			{"27612", suburban, "", ""}, {"27615", suburban, "", ""},
		},
	},
}

// MetroTruth is what the generator knows of a demo metro, for tests that measure an estimate against it.
type MetroTruth struct {
	Name string
	ZIPs []string
	// Growth is the annual appreciation of the metro's price index (the same every year).
	Growth float64
}

// Metros are the demo metros as the generator made them.
func Metros() []MetroTruth {
	out := make([]MetroTruth, len(metros))
	for i, m := range metros {
		out[i] = MetroTruth{Name: m.name, Growth: m.growth}
		for _, z := range m.zips {
			out[i].ZIPs = append(out[i].ZIPs, z.code)
		}
	}
	return out
}
