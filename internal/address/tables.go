package address

import "strings"

// The tables in this file are read-only after package initialisation, which is what makes Parse safe to call from
// many goroutines at once without locks.

// suffixTable is USPS Publication 28 appendix C1: each line holds the primary street suffix name, the Postal Service
// standard abbreviation, then the commonly used variants. A handful of variants that people write but that C1 does
// not list (CRT, BLV, PKW, EXPWY, TPK) are appended to their lines because batch files are full of them. C1's
// TRAILER (TRLR) is left out: TRLR is also the C2 unit designator, far more common as "TRLR 7", and a suffix TRLR
// could not be told from it when the address is read back.
const suffixTable = `
ALLEY ALY ALLEE ALLY
ANEX ANX ANNEX ANNX
ARCADE ARC
AVENUE AVE AV AVEN AVENU AVN AVNUE
BAYOU BYU BAYOO
BEACH BCH
BEND BND
BLUFF BLF BLUF
BLUFFS BLFS
BOTTOM BTM BOT BOTTM
BOULEVARD BLVD BOUL BOULV BLV
BRANCH BR BRNCH
BRIDGE BRG BRDGE
BROOK BRK
BROOKS BRKS
BURG BG
BURGS BGS
BYPASS BYP BYPA BYPAS BYPS
CAMP CP CMP
CANYON CYN CANYN CNYN
CAPE CPE
CAUSEWAY CSWY CAUSWA
CENTER CTR CEN CENT CENTR CENTRE CNTER CNTR
CENTERS CTRS
CIRCLE CIR CIRC CIRCL CRCL CRCLE
CIRCLES CIRS
CLIFF CLF
CLIFFS CLFS
CLUB CLB
COMMON CMN
COMMONS CMNS
CORNER COR
CORNERS CORS
COURSE CRSE
COURT CT CRT
COURTS CTS
COVE CV
COVES CVS
CREEK CRK
CRESCENT CRES CRSENT CRSNT
CREST CRST
CROSSING XING CRSSNG
CROSSROAD XRD
CROSSROADS XRDS
CURVE CURV
DALE DL
DAM DM
DIVIDE DV DIV DVD
DRIVE DR DRIV DRV
DRIVES DRS
ESTATE EST
ESTATES ESTS
EXPRESSWAY EXPY EXP EXPR EXPRESS EXPW EXPWY
EXTENSION EXT EXTN EXTNSN
EXTENSIONS EXTS
FALL FALL
FALLS FLS
FERRY FRY FRRY
FIELD FLD
FIELDS FLDS
FLAT FLT
FLATS FLTS
FORD FRD
FORDS FRDS
FOREST FRST FORESTS
FORGE FRG FORG
FORGES FRGS
FORK FRK
FORKS FRKS
FORT FT FRT
FREEWAY FWY FREEWY FRWAY FRWY
GARDEN GDN GARDN GRDEN GRDN
GARDENS GDNS GRDNS
GATEWAY GTWY GATEWY GATWAY GTWAY
GLEN GLN
GLENS GLNS
GREEN GRN
GREENS GRNS
GROVE GRV GROV
GROVES GRVS
HARBOR HBR HARB HARBR HRBOR
HARBORS HBRS
HAVEN HVN
HEIGHTS HTS HT
HIGHWAY HWY HIGHWY HIWAY HIWY HWAY
HILL HL
HILLS HLS
HOLLOW HOLW HLLW HOLLOWS HOLWS
INLET INLT
ISLAND IS ISLND
ISLANDS ISS ISLNDS
ISLE ISLE ISLES
JUNCTION JCT JCTION JCTN JUNCTN JUNCTON
JUNCTIONS JCTS JCTNS
KEY KY
KEYS KYS
KNOLL KNL KNOL
KNOLLS KNLS
LAKE LK
LAKES LKS
LAND LAND
LANDING LNDG LNDNG
LANE LN
LIGHT LGT
LIGHTS LGTS
LOAF LF
LOCK LCK
LOCKS LCKS
LODGE LDG LDGE LODG
LOOP LOOP LOOPS
MALL MALL
MANOR MNR
MANORS MNRS
MEADOW MDW
MEADOWS MDWS MEDOWS
MEWS MEWS
MILL ML
MILLS MLS
MISSION MSN MISSN MSSN
MOTORWAY MTWY
MOUNT MT MNT
MOUNTAIN MTN MNTAIN MNTN MOUNTIN MTIN
MOUNTAINS MTNS MNTNS
NECK NCK
ORCHARD ORCH ORCHRD
OVAL OVAL OVL
OVERPASS OPAS
PARK PARK PRK PARKS
PARKWAY PKWY PARKWY PKWAY PKY PARKWAYS PKWYS PKW
PASS PASS
PASSAGE PSGE
PATH PATH PATHS
PIKE PIKE PIKES
PINE PNE
PINES PNES
PLACE PL
PLAIN PLN
PLAINS PLNS
PLAZA PLZ PLZA
POINT PT
POINTS PTS
PORT PRT
PORTS PRTS
PRAIRIE PR PRR
RADIAL RADL RAD RADIEL
RAMP RAMP
RANCH RNCH RANCHES RNCHS
RAPID RPD
RAPIDS RPDS
REST RST
RIDGE RDG RDGE
RIDGES RDGS
RIVER RIV RVR RIVR
ROAD RD
ROADS RDS
ROUTE RTE
ROW ROW
RUE RUE
RUN RUN
SHOAL SHL
SHOALS SHLS
SHORE SHR SHOAR
SHORES SHRS SHOARS
SKYWAY SKWY
SPRING SPG SPNG SPRNG
SPRINGS SPGS SPNGS SPRNGS
SPUR SPUR SPURS
SQUARE SQ SQR SQRE SQU
SQUARES SQS SQRS
STATION STA STATN STN
STRAVENUE STRA STRAV STRAVEN STRAVN STRVN STRVNUE
STREAM STRM STREME
STREET ST STRT STR
STREETS STS
SUMMIT SMT SUMIT SUMITT
TERRACE TER TERR
THROUGHWAY TRWY
TRACE TRCE TRACES
TRACK TRAK TRACKS TRK TRKS
TRAFFICWAY TRFY
TRAIL TRL TRAILS TRLS
TUNNEL TUNL TUNEL TUNLS TUNNELS TUNNL
TURNPIKE TPKE TRNPK TURNPK TPK
UNDERPASS UPAS
UNION UN
UNIONS UNS
VALLEY VLY VALLY VLLY
VALLEYS VLYS
VIADUCT VIA VDCT VIADCT
VIEW VW
VIEWS VWS
VILLAGE VLG VILL VILLAG VILLG VILLIAGE
VILLAGES VLGS
VILLE VL
VISTA VIS VIST VST VSTA
WALK WALK WALKS
WALL WALL
WAY WAY WY
WAYS WAYS
WELL WL
WELLS WLS
`

// suffixes maps every spelling in suffixTable to its standard abbreviation, and suffixFullWords holds the primary
// (spelled out) names so the parser can tell "COURT" from "CT". They are built by variable initialisation rather
// than init() so that other tables derived from them (ambiguousStateCodes) see them filled.
var suffixes, suffixFullWords = buildSuffixes()

func buildSuffixes() (map[string]string, map[string]bool) {
	all := make(map[string]string, 600)
	full := make(map[string]bool, 220)
	for _, line := range strings.Split(suffixTable, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		full[f[0]] = true
		for _, w := range f {
			// The first line that lists a spelling wins, so a variant shared by two lines keeps the meaning of the
			// earlier, more common one.
			if _, dup := all[w]; !dup {
				all[w] = f[1]
			}
		}
	}
	return all, full
}

// thoroughfareSuffixes are the standard abbreviations of street types that almost never begin or end a city
// name. When an address has no commas, the parser prefers to end the street at the last one of these, so
// "123 STONE MILL RD MILL VALLEY" ends at RD, not at MILL.
var thoroughfareSuffixes = map[string]bool{
	"ALY": true, "AVE": true, "BLVD": true, "BYP": true, "CIR": true, "CSWY": true, "CT": true, "CTS": true,
	"DR": true, "DRS": true, "EXPY": true, "EXT": true, "FWY": true, "HWY": true, "LN": true, "LOOP": true,
	"PATH": true, "PKWY": true, "PL": true, "PLZ": true, "RD": true, "RDS": true, "ROW": true, "RTE": true,
	"RUN": true, "SQ": true, "ST": true, "STS": true, "TER": true, "TPKE": true, "TRL": true, "TRWY": true,
	"WALK": true, "WAY": true, "XING": true,
}

// strongFullWords are the spelled-out thoroughfare types that do not occur as words of US city names. Spelled-out
// words that do (CIRCLE in Circle Pines, TERRACE in Mountlake Terrace, SQUARE in Newtown Square, TRAIL) are left
// out so that the city keeps them.
var strongFullWords = map[string]bool{
	"ALLEY": true, "AVENUE": true, "BOULEVARD": true, "BYPASS": true, "COURT": true, "DRIVE": true,
	"EXPRESSWAY": true, "EXTENSION": true, "FREEWAY": true, "HIGHWAY": true, "LANE": true, "LOOP": true,
	"PARKWAY": true, "PATH": true, "PLACE": true, "ROAD": true, "ROW": true, "RUN": true, "STREET": true,
	"TURNPIKE": true, "WALK": true, "WAY": true,
}

// directionals maps the spellings of the eight directions to the Publication 28 abbreviation.
var directionals = map[string]string{
	"N": "N", "S": "S", "E": "E", "W": "W", "NE": "NE", "NW": "NW", "SE": "SE", "SW": "SW",
	"NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W",
	"NORTHEAST": "NE", "NORTHWEST": "NW", "SOUTHEAST": "SE", "SOUTHWEST": "SW",
}

// unitKind says whether a secondary unit designator needs a number after it.
type unitKind uint8

const (
	// unitNumbered designators (APT, STE, UNIT, ...) are only a unit when a number follows.
	unitNumbered unitKind = iota + 1
	// unitBare designators (REAR, BSMT, PH, ...) stand alone and may still take a number.
	unitBare
	// unitBareAtEnd designators are spelled-out words that also begin city names (UPPER Darby, FRONT Royal,
	// LOWER Lake), so they count as a unit only as the last word of the street.
	unitBareAtEnd
)

type unitDesignator struct {
	std  string
	kind unitKind
}

// unitDesignators is USPS Publication 28 appendix C2 (secondary unit designators) plus common variants such as
// SUITE's misspelling SUIT, BLD for building and SP for a mobile-home space.
var unitDesignators = map[string]unitDesignator{
	"APARTMENT": {"APT", unitNumbered}, "APT": {"APT", unitNumbered}, "APTS": {"APT", unitNumbered},
	"BUILDING": {"BLDG", unitNumbered}, "BLDG": {"BLDG", unitNumbered}, "BLD": {"BLDG", unitNumbered},
	"DEPARTMENT": {"DEPT", unitNumbered}, "DEPT": {"DEPT", unitNumbered},
	"FLOOR": {"FL", unitNumbered}, "FL": {"FL", unitNumbered}, "FLR": {"FL", unitNumbered},
	"HANGAR": {"HNGR", unitNumbered}, "HANGER": {"HNGR", unitNumbered}, "HNGR": {"HNGR", unitNumbered},
	"KEY":  {"KEY", unitNumbered},
	"LOT":  {"LOT", unitNumbered},
	"PIER": {"PIER", unitNumbered},
	"ROOM": {"RM", unitNumbered}, "RM": {"RM", unitNumbered},
	"SLIP":  {"SLIP", unitNumbered},
	"SPACE": {"SPC", unitNumbered}, "SPC": {"SPC", unitNumbered}, "SP": {"SPC", unitNumbered},
	"STOP":  {"STOP", unitNumbered},
	"SUITE": {"STE", unitNumbered}, "STE": {"STE", unitNumbered}, "SUIT": {"STE", unitNumbered},
	"TRAILER": {"TRLR", unitNumbered}, "TRLR": {"TRLR", unitNumbered},
	"UNIT": {"UNIT", unitNumbered}, "UNT": {"UNIT", unitNumbered},
	"#":        {"#", unitNumbered},
	"BASEMENT": {"BSMT", unitBare}, "BSMT": {"BSMT", unitBare},
	"FRNT": {"FRNT", unitBare}, "LBBY": {"LBBY", unitBare}, "LOWR": {"LOWR", unitBare}, "OFC": {"OFC", unitBare},
	"PENTHOUSE": {"PH", unitBare}, "PH": {"PH", unitBare},
	"REAR": {"REAR", unitBare}, "UPPR": {"UPPR", unitBare},
	"FRONT": {"FRNT", unitBareAtEnd}, "LOBBY": {"LBBY", unitBareAtEnd}, "LOWER": {"LOWR", unitBareAtEnd},
	"OFFICE": {"OFC", unitBareAtEnd}, "SIDE": {"SIDE", unitBareAtEnd}, "UPPER": {"UPPR", unitBareAtEnd},
}

// ordinalWords spells out the ordinal street names people write in words, so "FIRST ST" and "1ST ST" agree.
var ordinalWords = map[string]int{
	"FIRST": 1, "SECOND": 2, "THIRD": 3, "FOURTH": 4, "FIFTH": 5, "SIXTH": 6, "SEVENTH": 7, "EIGHTH": 8,
	"NINTH": 9, "TENTH": 10, "ELEVENTH": 11, "TWELFTH": 12, "THIRTEENTH": 13, "FOURTEENTH": 14,
	"FIFTEENTH": 15, "SIXTEENTH": 16, "SEVENTEENTH": 17, "EIGHTEENTH": 18, "NINETEENTH": 19, "TWENTIETH": 20,
	"THIRTIETH": 30, "FORTIETH": 40, "FIFTIETH": 50, "SIXTIETH": 60, "SEVENTIETH": 70, "EIGHTIETH": 80,
	"NINETIETH": 90, "HUNDREDTH": 100,
}

// tensWords combine with a following ordinal word: "TWENTY FIRST" is 21ST.
var tensWords = map[string]int{
	"TWENTY": 20, "THIRTY": 30, "FORTY": 40, "FIFTY": 50, "SIXTY": 60, "SEVENTY": 70, "EIGHTY": 80, "NINETY": 90,
}

// numberWords are the house numbers that are sometimes spelled out ("One Apple Park Way").
var numberWords = map[string]string{
	"ONE": "1", "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5", "SIX": "6", "SEVEN": "7", "EIGHT": "8",
	"NINE": "9", "TEN": "10",
}

// nameConnectors join the words of a street named without a suffix ("AVENUE OF THE AMERICAS", "VISTA DE MADERA");
// they are used only when an address without commas has no suffix to end the street at.
var nameConnectors = map[string]bool{
	"OF": true, "THE": true, "DE": true, "DEL": true, "LA": true, "LAS": true, "LOS": true, "EL": true,
	"DU": true, "DES": true, "LE": true, "DA": true, "DI": true, "DOS": true, "Y": true,
}

// leadingStreetTypes are words that begin a street name the way a suffix ends one (Spanish and French street
// types, and suffix words used as a prefix). They make "AVENIDA MARTINA" one name when nothing else marks the end
// of the street.
var leadingStreetTypes = map[string]bool{
	"AVENIDA": true, "AVENUE": true, "BOULEVARD": true, "CALLE": true, "CALLEJON": true, "CAMINITO": true,
	"CAMINO": true, "CARRETERA": true, "CIRCULO": true, "ENTRADA": true, "PASEO": true, "PLAZA": true,
	"RUE": true, "VIA": true, "VISTA": true, "CALZADA": true, "SENDA": true, "VEREDA": true,
}

// keyWords are the abbreviations applied to street name words and city words inside match keys only, so that
// "MOUNT VERNON AVE" matches "MT VERNON AVE" and "SAINT LOUIS" matches "ST LOUIS" while the fields keep what was
// written.
var keyWords = map[string]string{
	"SAINT": "ST", "SAINTE": "STE", "FORT": "FT", "MOUNT": "MT", "JUNIOR": "JR",
}

// cityKeyWords extends keyWords for city names, where abbreviations like "CLEVELAND HTS" and "COLORADO SPGS" are
// common in county and MLS records.
var cityKeyWords = map[string]string{
	"SAINT": "ST", "SAINTE": "STE", "FORT": "FT", "MOUNT": "MT", "POINT": "PT", "HEIGHTS": "HTS",
	"SPRINGS": "SPGS", "TOWNSHIP": "TWP", "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W",
}
