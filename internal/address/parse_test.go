package address

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
)

// fields renders an address as the want strings of parseCases write it:
// NUMBER|PREDIR|NAME|SUFFIX|POSTDIR|UNITTYPE|UNITNUMBER|CITY|STATE|ZIP|ZIP4.
func fields(a Address) string {
	return strings.Join([]string{a.Number, a.PreDir, a.Name, a.Suffix, a.PostDir, a.UnitType, a.UnitNumber,
		a.City, a.State, a.ZIP, a.ZIP4}, "|")
}

// errString renders an error as "!field/code", the form parseCases use for expected errors.
func errString(t *testing.T, err error) string {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("error %v (%T) is not an *apperr.Error", err, err)
	}
	if e.Kind != apperr.KindInvalid {
		t.Errorf("error kind = %v, want KindInvalid", e.Kind)
	}
	if e.Message == "" || e.Fields[e.Field] != e.Message {
		t.Errorf("error message %q, fields %v: want a message repeated under Fields[%q]", e.Message, e.Fields, e.Field)
	}
	return "!" + e.Field + "/" + e.Code
}

type parseCase struct {
	in   string
	want string // fields(address), or "!field/code" for an error
}

// parseCases are real-world forms of addresses from many states, as people type them, as county records and MLS
// exports hold them, and as spreadsheets mangle them.
var parseCases = []parseCase{
	// The forms of the brief and the basic shapes.
	{"123 n. Main Street Apt 4B, Springfield, IL 62704-1234", "123|N|MAIN|ST||APT|4B|SPRINGFIELD|IL|62704|1234"},
	{"123 Main St Springfield IL 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St", "123||MAIN|ST|||||||"},
	{"  123   main    st  ", "123||MAIN|ST|||||||"},
	{"123 MAIN ST.", "123||MAIN|ST|||||||"},
	{"123 Main Street, Springfield, Illinois 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 main st, springfield, il 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St,Springfield,IL,62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St, Springfield, IL, 62704-1234", "123||MAIN|ST||||SPRINGFIELD|IL|62704|1234"},
	{"123 Main St Springfield IL 627041234", "123||MAIN|ST||||SPRINGFIELD|IL|62704|1234"},
	{"123 Main St, Springfield, IL 62704 1234", "123||MAIN|ST||||SPRINGFIELD|IL|62704|1234"},
	{"123 Main St, Springfield, IL 62704, USA", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St, Springfield, IL 62704 USA", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St, Springfield, IL 62704, United States", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St., Springfield, Ill. 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St, Springfield, Illinois", "123||MAIN|ST||||SPRINGFIELD|IL||"},
	{"123 Main St Springfield Illinois", "123||MAIN|ST||||SPRINGFIELD|IL||"},
	{"123 Main St, Springfield", "123||MAIN|ST||||SPRINGFIELD|||"},
	{"123 Main St, IL 62704", "123||MAIN|ST|||||IL|62704|"},
	{"123 Main St, 62704", "123||MAIN|ST||||||62704|"},
	{"123 Main St Springfield, IL 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St\nSpringfield, IL 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
	{"123 Main St; Springfield; IL; 62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},

	// Sacramento 2008 sales records: upper case, "Unit N", odd street types.
	{"3526 HIGH ST, SACRAMENTO, CA 95838", "3526||HIGH|ST||||SACRAMENTO|CA|95838|"},
	{"3526 HIGH ST SACRAMENTO CA 95838", "3526||HIGH|ST||||SACRAMENTO|CA|95838|"},
	{"51 OMAHA CT, SACRAMENTO, CA 95823", "51||OMAHA|CT||||SACRAMENTO|CA|95823|"},
	{"2805 JANETTE WAY, SACRAMENTO, CA 95815", "2805||JANETTE|WAY||||SACRAMENTO|CA|95815|"},
	{"11150 TRINITY RIVER DR Unit 114, RANCHO CORDOVA, CA 95670", "11150||TRINITY RIVER|DR||UNIT|114|RANCHO CORDOVA|CA|95670|"},
	{"207 ORANGE BLOSSOM CIR Unit C, FOLSOM, CA 95630", "207||ORANGE BLOSSOM|CIR||UNIT|C|FOLSOM|CA|95630|"},
	{"3715 TALLYHO DR Unit 78HIGH, SACRAMENTO, CA 95826", "3715||TALLYHO|DR||UNIT|78HIGH|SACRAMENTO|CA|95826|"},
	{"739 E WOODSIDE LN Unit E, SACRAMENTO, CA 95825", "739|E|WOODSIDE|LN||UNIT|E|SACRAMENTO|CA|95825|"},
	{"3240 S ST, SACRAMENTO, CA 95816", "3240||S|ST||||SACRAMENTO|CA|95816|"},
	{"3 E ST, SACRAMENTO, CA 95814", "3||E|ST||||SACRAMENTO|CA|95814|"},
	{"15300 MURIETA SOUTH PKWY, RANCHO MURIETA, CA 95683", "15300||MURIETA SOUTH|PKWY||||RANCHO MURIETA|CA|95683|"},
	{"9970 STATE HIGHWAY 193, PLACERVILLE, CA 95667", "9970||STATE HIGHWAY 193|||||PLACERVILLE|CA|95667|"},
	{"9970 STATE HIGHWAY 193 PLACERVILLE CA 95667", "9970||STATE HIGHWAY 193|||||PLACERVILLE|CA|95667|"},
	{"2733 DANA LOOP, EL DORADO HILLS, CA 95762", "2733||DANA|LOOP||||EL DORADO HILLS|CA|95762|"},
	{"4030 BROADWAY, SACRAMENTO, CA 95817", "4030||BROADWAY|||||SACRAMENTO|CA|95817|"},
	{"4030 BROADWAY SACRAMENTO CA 95817", "4030||BROADWAY|||||SACRAMENTO|CA|95817|"},
	{"3128 VIA GRANDE, SACRAMENTO, CA 95825", "3128||VIA GRANDE|||||SACRAMENTO|CA|95825|"},
	{"1322 SUTTER WALK, SACRAMENTO, CA 95816", "1322||SUTTER|WALK||||SACRAMENTO|CA|95816|"},
	{"5890 TT TRAK, FORESTHILL, CA 95631", "5890||TT|TRAK||||FORESTHILL|CA|95631|"},
	{"281 SPYGLASS HL, ROSEVILLE, CA 95678", "281||SPYGLASS|HL||||ROSEVILLE|CA|95678|"},
	{"3720 VISTA DE MADERA, LINCOLN, CA 95648", "3720||VISTA DE MADERA|||||LINCOLN|CA|95648|"},
	{"1813 AVENIDA MARTINA, ROSEVILLE, CA 95747", "1813||AVENIDA MARTINA|||||ROSEVILLE|CA|95747|"},
	{"1813 AVENIDA MARTINA ROSEVILLE CA 95747", "1813||AVENIDA MARTINA|||||ROSEVILLE|CA|95747|"},
	{"6306 CONEJO, RANCHO MURIETA, CA 95683", "6306||CONEJO|||||RANCHO MURIETA|CA|95683|"},
	{"2341 BIG STRIKE TRL, COOL, CA 95614", "2341||BIG STRIKE|TRL||||COOL|CA|95614|"},
	{"4800 WESTLAKE PKWY Unit 2109, SACRAMENTO, CA 95835", "4800||WESTLAKE|PKWY||UNIT|2109|SACRAMENTO|CA|95835|"},
	{"5201 LAGUNA OAKS DR Unit 140 ELK GROVE CA 95758", "5201||LAGUNA OAKS|DR||UNIT|140|ELK GROVE|CA|95758|"},
	{"11281 STANFORD COURT LN Unit 604, GOLD RIVER, CA 95670", "11281||STANFORD COURT|LN||UNIT|604|GOLD RIVER|CA|95670|"},
	{"5050 RHODE ISLAND DR Unit 4, SACRAMENTO, CA 95841", "5050||RHODE ISLAND|DR||UNIT|4|SACRAMENTO|CA|95841|"},
	{"5050 RHODE ISLAND DR Unit 4 SACRAMENTO CA 95841", "5050||RHODE ISLAND|DR||UNIT|4|SACRAMENTO|CA|95841|"},
	{"1675 VERNON ST Unit 8, ROSEVILLE, CA 95678", "1675||VERNON|ST||UNIT|8|ROSEVILLE|CA|95678|"},

	// Units in all their spellings.
	{"123 Main St #4B", "123||MAIN|ST||#|4B||||"},
	{"123 Main St # 4B", "123||MAIN|ST||#|4B||||"},
	{"123 Main St Apt 4B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St Apt. #4B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St Apartment 4B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St Unit 4B", "123||MAIN|ST||UNIT|4B||||"},
	{"123 Main St Apt 4-B", "123||MAIN|ST||APT|4-B||||"},
	{"123 Main St Apt 4 B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St Apt4B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St 4B", "123||MAIN|ST||#|4B||||"},
	{"123 Main St, Apt 4B", "123||MAIN|ST||APT|4B||||"},
	{"123 Main St, #4B, Springfield, IL 62704", "123||MAIN|ST||#|4B|SPRINGFIELD|IL|62704|"},
	{"123 Main St, Apt 4B Springfield, IL 62704", "123||MAIN|ST||APT|4B|SPRINGFIELD|IL|62704|"},
	{"Apt 4B, 123 Main St, Springfield, IL 62704", "123||MAIN|ST||APT|4B|SPRINGFIELD|IL|62704|"},
	{"100 Congress Ave Ste 200, Austin, TX 78701", "100||CONGRESS|AVE||STE|200|AUSTIN|TX|78701|"},
	{"100 Congress Ave Suite 200, Austin, TX 78701", "100||CONGRESS|AVE||STE|200|AUSTIN|TX|78701|"},
	{"100 Congress Avenue, Suite 200, Austin, TX 78701", "100||CONGRESS|AVE||STE|200|AUSTIN|TX|78701|"},
	{"100 Congress Ave Ste 200 Austin TX 78701", "100||CONGRESS|AVE||STE|200|AUSTIN|TX|78701|"},
	{"350 N Orleans St Fl 3, Chicago, IL 60654", "350|N|ORLEANS|ST||FL|3|CHICAGO|IL|60654|"},
	{"350 N Orleans St 3rd Floor, Chicago, IL 60654", "350|N|ORLEANS|ST||FL|3|CHICAGO|IL|60654|"},
	{"350 N Orleans St, Third Floor, Chicago, IL 60654", "350|N|ORLEANS|ST||FL|3|CHICAGO|IL|60654|"},
	{"350 N Orleans St Ste 300 3rd Floor, Chicago, IL 60654", "350|N|ORLEANS|ST||STE|300|CHICAGO|IL|60654|"},
	{"1600 Amphitheatre Pkwy Bldg 40, Mountain View, CA 94043", "1600||AMPHITHEATRE|PKWY||BLDG|40|MOUNTAIN VIEW|CA|94043|"},
	{"2200 Mission College Blvd Bldg A Apt 2, Santa Clara, CA 95054", "2200||MISSION COLLEGE|BLVD||APT|A-2|SANTA CLARA|CA|95054|"},
	{"2200 Mission College Blvd Apt 2 Bldg A, Santa Clara, CA 95054", "2200||MISSION COLLEGE|BLVD||APT|A-2|SANTA CLARA|CA|95054|"},
	{"55 Water St Rm 1203, New York, NY 10041", "55||WATER|ST||RM|1203|NEW YORK|NY|10041|"},
	{"4500 N Lake Shore Dr Apt 12C Chicago IL 60640", "4500|N|LAKE SHORE|DR||APT|12C|CHICAGO|IL|60640|"},
	{"123 Main St Rear, Springfield, IL", "123||MAIN|ST||REAR||SPRINGFIELD|IL||"},
	{"123 Main St Penthouse", "123||MAIN|ST||PH|||||"},
	{"123 Main St Bsmt", "123||MAIN|ST||BSMT|||||"},
	{"77 Broad St Upper, Bridgeport, CT 06604", "77||BROAD|ST||UPPR||BRIDGEPORT|CT|06604|"},
	{"12 Pine St Ste. 300", "12||PINE|ST||STE|300||||"},
	{"12 Pine St Lot 14, Tucson, AZ 85705", "12||PINE|ST||LOT|14|TUCSON|AZ|85705|"},
	{"890 E Main St Spc 12, Mesa, AZ 85203", "890|E|MAIN|ST||SPC|12|MESA|AZ|85203|"},
	{"890 E Main St Sp 12, Mesa, AZ 85203", "890|E|MAIN|ST||SPC|12|MESA|AZ|85203|"},
	{"1420 Sunset Blvd Trlr 7, Kalispell, MT 59901", "1420||SUNSET|BLVD||TRLR|7|KALISPELL|MT|59901|"},
	{"123 Main St N Apt 4", "123||MAIN|ST|N|APT|4||||"},
	{"123 Main St Unit West", "123||MAIN|ST||UNIT|W||||"},
	{"123 Main St Apt 04", "123||MAIN|ST||APT|04||||"},
	{"500 W Madison St Suite 1000 Chicago IL 60661", "500|W|MADISON|ST||STE|1000|CHICAGO|IL|60661|"},
	{"1 Infinite Loop Bldg 2 Fl 3", "1||INFINITE|LOOP||FL|2-3||||"},

	// Directionals before and after.
	{"123 West Main Street", "123|W|MAIN|ST|||||||"},
	{"123 W. Main St.", "123|W|MAIN|ST|||||||"},
	{"123 Main St NW, Washington, DC 20001", "123||MAIN|ST|NW|||WASHINGTON|DC|20001|"},
	{"1600 Pennsylvania Ave NW, Washington, DC 20500", "1600||PENNSYLVANIA|AVE|NW|||WASHINGTON|DC|20500|"},
	{"1600 Pennsylvania Avenue Northwest Washington DC 20500", "1600||PENNSYLVANIA|AVE|NW|||WASHINGTON|DC|20500|"},
	{"100 N St NW, Washington, DC 20001", "100||N|ST|NW|||WASHINGTON|DC|20001|"},
	{"100 North St", "100||NORTH|ST|||||||"},
	{"100 N St", "100||N|ST|||||||"},
	{"500 E North Ave, Baltimore, MD 21202", "500|E|NORTH|AVE||||BALTIMORE|MD|21202|"},
	{"1234 S 500 E, Salt Lake City, UT 84102", "1234|S|500||E|||SALT LAKE CITY|UT|84102|"},
	{"2100 N.E. Broadway St, Portland, OR 97232", "2100|NE|BROADWAY|ST||||PORTLAND|OR|97232|"},
	{"2100 Northeast Broadway, Portland, OR 97232", "2100|NE|BROADWAY|||||PORTLAND|OR|97232|"},
	{"0245 SW Bancroft St, Portland, OR 97239", "0245|SW|BANCROFT|ST||||PORTLAND|OR|97239|"},
	{"123 No. Main St", "123|N|MAIN|ST|||||||"},
	{"123 So. Main St", "123|S|MAIN|ST|||||||"},
	{"123 No Name Rd", "123||NO NAME|RD|||||||"},
	{"123 North Shore Dr", "123|N|SHORE|DR|||||||"},
	{"100 Main St N", "100||MAIN|ST|N||||||"},
	{"100 Main Street North", "100||MAIN|ST|N||||||"},
	{"100 Avenue N, Brooklyn, NY 11230", "100||AVENUE N|||||BROOKLYN|NY|11230|"},
	{"15 Southwest Pkwy", "15||SOUTHWEST|PKWY|||||||"},
	{"3000 S Dixie Hwy, West Palm Beach, FL 33405", "3000|S|DIXIE|HWY||||WEST PALM BEACH|FL|33405|"},
	{"10 Main St West Palm Beach FL 33401", "10||MAIN|ST||||WEST PALM BEACH|FL|33401|"},

	// Which word is the suffix.
	{"100 Park Ave, New York, NY 10017", "100||PARK|AVE||||NEW YORK|NY|10017|"},
	{"100 Court St, Brooklyn, NY 11201", "100||COURT|ST||||BROOKLYN|NY|11201|"},
	{"7 The Circle, Greenwich, CT 06830", "7||THE CIRCLE|||||GREENWICH|CT|06830|"},
	{"45 Circle Dr", "45||CIRCLE|DR|||||||"},
	{"45 Circle", "45||CIRCLE||||||||"},
	{"1211 Avenue of the Americas", "1211||AVENUE OF THE AMERICAS||||||||"},
	{"1211 Avenue of the Americas, New York, NY 10036", "1211||AVENUE OF THE AMERICAS|||||NEW YORK|NY|10036|"},
	{"1211 Avenue of the Americas New York NY 10036", "1211||AVENUE OF THE AMERICAS|||||NEW YORK|NY|10036|"},
	{"88 Lake Shore Dr", "88||LAKE SHORE|DR|||||||"},
	{"12 Old Mill Rd", "12||OLD MILL|RD|||||||"},
	{"300 Boylston Street, Boston, MA 02116", "300||BOYLSTON|ST||||BOSTON|MA|02116|"},
	{"1 Main Street Extension", "1||MAIN ST|EXT|||||||"},
	{"1 Main St Ext", "1||MAIN ST|EXT|||||||"},
	{"221 Martin Luther King Jr. Blvd, Savannah, GA 31401", "221||MARTIN LUTHER KING JR|BLVD||||SAVANNAH|GA|31401|"},
	{"77 Massachusetts Ave, Cambridge, MA 02139", "77||MASSACHUSETTS|AVE||||CAMBRIDGE|MA|02139|"},
	{"77 Massachusetts Ave Cambridge MA 02139", "77||MASSACHUSETTS|AVE||||CAMBRIDGE|MA|02139|"},
	{"10 Elm Avenu", "10||ELM|AVE|||||||"},
	{"10 Elm Av", "10||ELM|AVE|||||||"},
	{"10 Elm Strt", "10||ELM|ST|||||||"},
	{"10 Elm Crt", "10||ELM|CT|||||||"},
	{"55 Ocean Blvd., Palm Beach, FL 33480", "55||OCEAN|BLVD||||PALM BEACH|FL|33480|"},
	{"55 Ocean Boulevard Palm Beach FL 33480", "55||OCEAN|BLVD||||PALM BEACH|FL|33480|"},
	{"25 Forest Hill Park Rd", "25||FOREST HILL PARK|RD|||||||"},
	{"8 Hillside Terr", "8||HILLSIDE|TER|||||||"},
	{"4 Cherry Hill Ct, Cherry Hill, NJ 08002", "4||CHERRY HILL|CT||||CHERRY HILL|NJ|08002|"},
	{"19 Spring Valley Rd Spring Valley NY 10977", "19||SPRING VALLEY|RD||||SPRING VALLEY|NY|10977|"},
	{"500 Grove St Grove City PA 16127", "500||GROVE|ST||||GROVE CITY|PA|16127|"},
	{"123 Stone Mill Rd Mill Valley CA 94941", "123||STONE MILL|RD||||MILL VALLEY|CA|94941|"},
	{"123 Main St St Louis MO 63101", "123||MAIN|ST||||ST LOUIS|MO|63101|"},
	{"123 Main St Saint Louis MO 63101", "123||MAIN|ST||||SAINT LOUIS|MO|63101|"},
	{"123 Main St, St. Louis, MO 63101", "123||MAIN|ST||||ST LOUIS|MO|63101|"},
	{"1 Main St Ft Myers FL 33901", "1||MAIN|ST||||FT MYERS|FL|33901|"},
	{"1 Elm St Mount Vernon NY 10550", "1||ELM|ST||||MOUNT VERNON|NY|10550|"},
	{"1100 Duval St Key West FL 33040", "1100||DUVAL|ST||||KEY WEST|FL|33040|"},
	{"4 Upper Valley Rd", "4||UPPER VALLEY|RD|||||||"},
	{"123 Main St Upper Darby PA 19082", "123||MAIN|ST||||UPPER DARBY|PA|19082|"},
	{"6 Oak Dr Mountlake Terrace WA 98043", "6||OAK|DR||||MOUNTLAKE TERRACE|WA|98043|"},
	{"40 Saint James Pl", "40||SAINT JAMES|PL|||||||"},
	{"12 Wilkes-Barre Blvd", "12||WILKES BARRE|BLVD|||||||"},
	{"7 O'Brien Rd", "7||OBRIEN|RD|||||||"},
	{"1 Cañada Rd, Woodside, CA 94062", "1||CANADA|RD||||WOODSIDE|CA|94062|"},

	// Ordinal street names.
	{"123 First Street", "123||1ST|ST|||||||"},
	{"123 1st St", "123||1ST|ST|||||||"},
	{"42 Second Ave", "42||2ND|AVE|||||||"},
	{"9 Twentieth St", "9||20TH|ST|||||||"},
	{"200 W Twenty-First St", "200|W|21ST|ST|||||||"},
	{"200 W 42nd St, New York, NY 10036", "200|W|42ND|ST||||NEW YORK|NY|10036|"},
	{"200 W 42 St", "200|W|42ND|ST|||||||"},
	{"15 E 3d St", "15|E|3RD|ST|||||||"},
	{"350 5th Ave New York NY 10118", "350||5TH|AVE||||NEW YORK|NY|10118|"},
	{"1 Fifth Avenue", "1||5TH|AVE|||||||"},
	{"2000 N Eleventh St", "2000|N|11TH|ST|||||||"},
	{"401 SW 113th Ave", "401|SW|113TH|AVE|||||||"},

	// Highways, county roads, routes.
	{"9970 State Hwy 193", "9970||STATE HIGHWAY 193||||||||"},
	{"1200 US Hwy 101, Arcata, CA 95521", "1200||US HIGHWAY 101|||||ARCATA|CA|95521|"},
	{"1200 U.S. Highway 101 N", "1200||US HIGHWAY 101||N||||||"},
	{"1200 US-101", "1200||US HIGHWAY 101||||||||"},
	{"1200 US 101 Arcata CA 95521", "1200||US HIGHWAY 101|||||ARCATA|CA|95521|"},
	{"500 Interstate 5", "500||INTERSTATE 5||||||||"},
	{"500 I-5", "500||INTERSTATE 5||||||||"},
	{"12 County Road 12, Elizabeth, CO 80107", "12||COUNTY ROAD 12|||||ELIZABETH|CO|80107|"},
	{"12 CR 12", "12||COUNTY ROAD 12||||||||"},
	{"12 Co Rd 12", "12||COUNTY ROAD 12||||||||"},
	{"12 CR-12 Elizabeth CO 80107", "12||COUNTY ROAD 12|||||ELIZABETH|CO|80107|"},
	{"4321 FM 1960 W, Houston, TX 77069", "4321||FARM TO MARKET ROAD 1960||W|||HOUSTON|TX|77069|"},
	{"4321 Farm to Market Road 1960 West", "4321||FARM TO MARKET ROAD 1960||W||||||"},
	{"8 Route 66", "8||ROUTE 66||||||||"},
	{"8 Rt. 9W, Newburgh, NY 12550", "8||ROUTE 9W|||||NEWBURGH|NY|12550|"},
	{"N1234 County Highway K, Lake Geneva, WI 53147", "N1234||COUNTY HIGHWAY K|||||LAKE GENEVA|WI|53147|"},
	{"100 Highway 50 E", "100||HIGHWAY 50||E||||||"},
	{"17000 Pacific Coast Hwy, Pacific Palisades, CA 90272", "17000||PACIFIC COAST|HWY||||PACIFIC PALISADES|CA|90272|"},
	{"2100 State Route 1", "2100||STATE ROUTE 1||||||||"},
	{"2100 SR-1", "2100||STATE ROUTE 1||||||||"},
	{"5 Old Route 9", "5||OLD ROUTE 9||||||||"},
	{"5 Route 9 Apt 3", "5||ROUTE 9|||APT|3||||"},

	// House numbers.
	{"123 1/2 Main St", "123 1/2||MAIN|ST|||||||"},
	{"123½ Main St", "123 1/2||MAIN|ST|||||||"},
	{"123-1/2 Main St", "123 1/2||MAIN|ST|||||||"},
	{"123-45 Queens Blvd, Forest Hills, NY 11375", "123-45||QUEENS|BLVD||||FOREST HILLS|NY|11375|"},
	{"123A Main St", "123A||MAIN|ST|||||||"},
	{"123-A Main St", "123A||MAIN|ST|||||||"},
	{"One Apple Park Way, Cupertino, CA 95014", "1||APPLE PARK|WAY||||CUPERTINO|CA|95014|"},
	{"1234Main St", "1234||MAIN|ST|||||||"},
	{"W156N11100 Pilgrim Rd, Germantown, WI 53022", "W156N11100||PILGRIM|RD||||GERMANTOWN|WI|53022|"},
	{"N95W18000 Appleton Ave, Menomonee Falls, WI 53051", "N95W18000||APPLETON|AVE||||MENOMONEE FALLS|WI|53051|"},
	{"0 Main St", "0||MAIN|ST|||||||"},

	// States in every form, territories, and the codes that are also street words.
	{"500 Fifth Ave, New York, new york 10110", "500||5TH|AVE||||NEW YORK|NY|10110|"},
	{"1 Main St, Hartford, Connecticut 06103", "1||MAIN|ST||||HARTFORD|CT|06103|"},
	{"1 Main St Hartford CT 06103", "1||MAIN|ST||||HARTFORD|CT|06103|"},
	{"1 Main St Hartford, CT", "1||MAIN|ST||||HARTFORD|CT||"},
	{"500 N Mount Vernon Ct", "500|N|MOUNT VERNON|CT|||||||"},
	{"1 Main St, Washington, District of Columbia 20001", "1||MAIN|ST||||WASHINGTON|DC|20001|"},
	{"100 Calle Loiza, San Juan, PR 00911", "100||CALLE LOIZA|||||SAN JUAN|PR|00911|"},
	{"100 Calle Loiza San Juan Puerto Rico 00911", "100||CALLE LOIZA|||||SAN JUAN|PR|00911|"},
	{"1 Marine Dr, Hagatna, GU 96910", "1||MARINE|DR||||HAGATNA|GU|96910|"},
	{"5 Main St, Charlotte Amalie, VI 00802", "5||MAIN|ST||||CHARLOTTE AMALIE|VI|00802|"},
	{"1 Main St, Charleston, West Virginia 25301", "1||MAIN|ST||||CHARLESTON|WV|25301|"},
	{"1 Main St Charleston WV 25301", "1||MAIN|ST||||CHARLESTON|WV|25301|"},
	{"1 Main St, Anchorage, ak 99501", "1||MAIN|ST||||ANCHORAGE|AK|99501|"},
	{"1 Main St, Honolulu, Hawaii, 96813", "1||MAIN|ST||||HONOLULU|HI|96813|"},
	{"1 Main St, Boise, ID", "1||MAIN|ST||||BOISE|ID||"},
	{"1 Main St, Mount Ida", "1||MAIN|ST||||MOUNT IDA|||"},
	{"1 Main St, Mount Ida, Ark.", "1||MAIN|ST||||MOUNT IDA|AR||"},
	{"1 Main St, Kansas City, Kansas 66101", "1||MAIN|ST||||KANSAS CITY|KS|66101|"},
	{"1 Main St, New York, NY", "1||MAIN|ST||||NEW YORK|NY||"},
	{"123 Main St, New York", "123||MAIN|ST||||NEW YORK|||"},
	{"123 Main St, new york, new york 10001", "123||MAIN|ST||||NEW YORK|NY|10001|"},
	{"12 Oak Ct", "12||OAK|CT|||||||"},
	{"12 Oak Ct 06103", "12||OAK|CT||||||06103|"},
	{"123 Main St NE", "123||MAIN|ST|NE||||||"},
	{"123 Main St NE Washington DC 20002", "123||MAIN|ST|NE|||WASHINGTON|DC|20002|"},
	{"123 Main St Lincoln NE 68508", "123||MAIN|ST||||LINCOLN|NE|68508|"},
	{"123 Main St Lincoln, NE", "123||MAIN|ST||||LINCOLN|NE||"},
	{"123 Main St Lincoln NE", "123||MAIN|ST||||LINCOLN|NE||"},
	{"123 Main St Hartford CT", "123||MAIN ST HARTFORD|CT|||||||"},
	{"1 Main St Billings MT 59101", "1||MAIN|ST||||BILLINGS|MT|59101|"},
	{"45 Elm St, Louisville, KY 40202", "45||ELM|ST||||LOUISVILLE|KY|40202|"},
	{"800 Brickell Ave Miami FL 33131", "800||BRICKELL|AVE||||MIAMI|FL|33131|"},
	{"1 Main St 3rd Fl", "1||MAIN|ST||FL|3||||"},
	{"2 Prairie Pr", "2||PRAIRIE|PR|||||||"},
	{"9 Buffalo Wy", "9||BUFFALO|WAY|||||||"},
	{"1 Main St Cheyenne WY 82001", "1||MAIN|ST||||CHEYENNE|WY|82001|"},
	{"1 Main St, Mc Lean, VA 22101", "1||MAIN|ST||||MC LEAN|VA|22101|"},
	{"2 Market St, Winston-Salem, NC 27101", "2||MARKET|ST||||WINSTON SALEM|NC|27101|"},

	// Not a street address, or not an address at all.
	{"", "!address/invalid_address"},
	{"   ", "!address/invalid_address"},
	{",,,", "!address/invalid_address"},
	{"garbage", "!address/invalid_address"},
	{"Main Street", "!address/invalid_address"},
	{"Main St, Springfield, IL 62704", "!address/invalid_address"},
	{"123", "!address/invalid_address"},
	{"123, Springfield, IL", "!address/invalid_address"},
	{"#4B", "!address/invalid_address"},
	{"#", "!address/invalid_address"},
	{"123 Main #4 St", "!address/invalid_address"},
	{"# , #", "!address/invalid_address"},
	{"Apt 4B", "!address/invalid_address"},
	{"IL 62704", "!address/invalid_address"},
	{strings.Repeat("123 Main St ", 40), "!address/invalid_address"},
	{strings.Repeat("x", 2000), "!address/invalid_address"},
	{"P.O. Box 123, Springfield, IL 62704", "!address/cannot_value_address"},
	{"PO BOX 123", "!address/cannot_value_address"},
	{"po box 123", "!address/cannot_value_address"},
	{"P O Box 123", "!address/cannot_value_address"},
	{"POBox 123", "!address/cannot_value_address"},
	{"Post Office Box 77", "!address/cannot_value_address"},
	{"POB 55, Austin, TX 78701", "!address/cannot_value_address"},
	{"Box 12, Wilson, WY 83014", "!address/cannot_value_address"},
	{"123 Main St, PO Box 9", "!address/cannot_value_address"},
	{"PO, Box 9, Springfield, IL", "!address/cannot_value_address"},
	{"P.O.B. 55", "!address/cannot_value_address"},
	{"RR 2 Box 15, Jasper, AR 72641", "!address/cannot_value_address"},
	{"Rural Route 2, Jasper, AR 72641", "!address/cannot_value_address"},
	{"RR2 Box 15", "!address/cannot_value_address"},
	{"R.R. 2 Box 15", "!address/cannot_value_address"},
	{"RFD 3, Bangor, ME 04401", "!address/cannot_value_address"},
	{"HC 1 Box 3, Marfa, TX 79843", "!address/cannot_value_address"},
	{"HCR 68 Box 12", "!address/cannot_value_address"},
	{"Highway Contract Route 1 Box 7", "!address/cannot_value_address"},
	{"Rt 3 Box 210, Dothan, AL 36301", "!address/cannot_value_address"},
	{"General Delivery, Juneau, AK 99801", "!address/cannot_value_address"},
	{"123 Main St, Springfield, XX 62704", "!state/invalid_state"},
	{"123 Main St, Springfield, ZZ", "!state/invalid_state"},
	{"123 Main St Springfield ZZ 62704", "!state/invalid_state"},
	{"123 Main St, Springfield, IL 6270", "!zip/invalid_zip"},
	{"123 Main St, Springfield, IL 627045", "!zip/invalid_zip"},
	{"123 Main St, Springfield, IL, 6270", "!zip/invalid_zip"},
	{"123 Main St Springfield IL 62704-12", "!zip/invalid_zip"},
	{"123 Main St, 62704 Springfield, IL", "!city/invalid_city"},
	// Input that is not an address: a formula, a piece of a query, numbers alone, a street without a number.
	{"=1+2", "!address/invalid_address"},
	{"=1+2, Seattle, WA 98103", "!address/invalid_address"},
	{"Maple Rd' OR '1'='1, Seattle, WA 98103", "!address/invalid_address"},
	{"<script>1 Main St</script>", "!address/invalid_address"},
	{"1 2, Seattle, WA 98103", "!address/invalid_address"},
	{"1 2 3", "!address/invalid_address"},
	{"Main St, Seattle, WA 98103", "!address/invalid_address"},

	// Things that look like the errors above but are streets.
	{"123 Box Elder Rd", "123||BOX ELDER|RD|||||||"},
	{"123 Main St, Box Elder, SD 57719", "123||MAIN|ST||||BOX ELDER|SD|57719|"},
	{"12345 RR 620 N, Austin, TX 78750", "12345||RR 620||N|||AUSTIN|TX|78750|"},
	{"400 Post Office Sq", "400||POST OFFICE|SQ|||||||"},
	// A street named by a number alone is one with a directional (the grids of Utah) or a suffix.
	{"1234 S 500 E, Salt Lake City, UT 84106", "1234|S|500||E|||SALT LAKE CITY|UT|84106|"},
	{"1234 500 E", "1234||500||E||||||"},
	{"55 O'Farrell St (rear), San Francisco, CA 94102", "55||OFARRELL|ST||REAR||SAN FRANCISCO|CA|94102|"},
}

func TestParseCasesCount(t *testing.T) {
	if got, want := len(parseCases), 200; got < want {
		t.Errorf("len(parseCases) = %d, want at least %d", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.in, func(t *testing.T) {
			a, err := Parse(c.in)
			got := fields(a)
			if err != nil {
				got = errString(t, err)
			}
			if got != c.want {
				t.Fatalf("Parse(%q)\n got %s\nwant %s", c.in, got, c.want)
			}
			if err != nil {
				return
			}
			// The normalized line must read back as the same address.
			line := a.Line()
			b, err := Parse(line)
			if err != nil {
				t.Fatalf("Parse(Line() = %q): %v", line, err)
			}
			if fields(b) != fields(a) {
				t.Errorf("Parse(Line() = %q)\n got %s\nwant %s", line, fields(b), fields(a))
			}
		})
	}
}
