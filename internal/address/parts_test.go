package address

import (
	"reflect"
	"strings"
	"testing"

	"valuator/internal/apperr"
)

func TestFromParts(t *testing.T) {
	tests := []struct {
		name                     string
		street, city, state, zip string
		want                     string // fields(address), or "!field/code"
	}{
		{"Sacramento record", "3526 HIGH ST", "SACRAMENTO", "CA", "95838", "3526||HIGH|ST||||SACRAMENTO|CA|95838|"},
		{"record with unit", "5201 LAGUNA OAKS DR Unit 140", "ELK GROVE", "CA", "95758",
			"5201||LAGUNA OAKS|DR||UNIT|140|ELK GROVE|CA|95758|"},
		{"typed form", "123 n. Main Street Apt 4B", "springfield", "Illinois", "62704-1234",
			"123|N|MAIN|ST||APT|4B|SPRINGFIELD|IL|62704|1234"},
		{"spreadsheet dropped the zero", "12 Elm St", "Boston", "MA", "2134", "12||ELM|ST||||BOSTON|MA|02134|"},
		{"dropped zero without state", "12 Elm St", "Boston", "", "2134", "12||ELM|ST||||BOSTON||02134|"},
		{"dropped zero of ZIP+4", "12 Elm St", "Boston", "MA", "21341234", "12||ELM|ST||||BOSTON|MA|02134|1234"},
		{"Puerto Rico lost two zeros", "1 Calle Sol", "Adjuntas", "PR", "601", "1||CALLE SOL|||||ADJUNTAS|PR|00601|"},
		{"short ZIP in a state without zero ZIPs", "1 Main St", "Chicago", "IL", "6060", "!zip/invalid_zip"},
		{"three digits in New England", "1 Main St", "Boston", "MA", "213", "!zip/invalid_zip"},
		{"nine digits", "12 Elm St", "Boston", "MA", "021341234", "12||ELM|ST||||BOSTON|MA|02134|1234"},
		{"ZIP+4 with a space", "12 Elm St", "Boston", "MA", "02134 1234", "12||ELM|ST||||BOSTON|MA|02134|1234"},
		{"letters in ZIP", "1 Main St", "Springfield", "IL", "ABCDE", "!zip/invalid_zip"},
		{"six digits", "1 Main St", "Springfield", "IL", "627045", "!zip/invalid_zip"},
		{"dangling hyphen", "1 Main St", "Springfield", "IL", "62704-", "!zip/invalid_zip"},
		{"bad state", "1 Main St", "Springfield", "XX", "62704", "!state/invalid_state"},
		{"military state", "1 Main St", "APO", "AE", "09012", "!state/invalid_state"},
		{"empty street", "", "Springfield", "IL", "62704", "!address/invalid_address"},
		{"PO box", "PO Box 5", "Springfield", "IL", "62704", "!address/cannot_value_address"},
		{"two letters as the city", "1 Main St", "ZZ", "", "", "!city/invalid_city"},
		{"ZIP in the city field", "1 Main St", "62704", "IL", "62704", "!city/invalid_city"},
		{"everything in the street field", "123 Main St Springfield IL 62704", "", "", "",
			"123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
		{"saint city", "1 Main St", "St. Louis", "mo", "63101", "1||MAIN|ST||||ST LOUIS|MO|63101|"},
		{"unit first", "Apt 4B, 123 Main St", "Springfield", "IL", "", "123||MAIN|ST||APT|4B|SPRINGFIELD|IL||"},
		{"unit after a comma", "123 Main St, Apt 4B", "Springfield", "IL", "", "123||MAIN|ST||APT|4B|SPRINGFIELD|IL||"},
		{"street that ends in a city word stays whole", "1 Main St Springfield", "Springfield", "IL", "",
			"1||MAIN ST SPRINGFIELD|||||SPRINGFIELD|IL||"},
		{"DC spelled out", "1600 Pennsylvania Ave NW", "Washington", "Washington, D.C.", "20500",
			"1600||PENNSYLVANIA|AVE|NW|||WASHINGTON|DC|20500|"},
		{"Wisconsin grid", "W156N11100 PILGRIM RD", "GERMANTOWN", "WI", "53022",
			"W156N11100||PILGRIM|RD||||GERMANTOWN|WI|53022|"},
		{"state only", "1 Main St", "", "IL", "", "1||MAIN|ST|||||IL||"},
		{"city in the street field", "123 Main St Springfield", "", "IL", "62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
		{"state in the city field", "123 Main St", "Springfield, IL", "", "62704", "123||MAIN|ST||||SPRINGFIELD|IL|62704|"},
		{"state name as the city", "123 Main St", "New York", "", "", "123||MAIN|ST||||NEW YORK|||"},
		{"a formula", "=1+2", "Seattle", "WA", "98103", "!address/invalid_address"},
		{"a piece of a query", "Maple Rd' OR '1'='1", "Seattle", "WA", "98103", "!address/invalid_address"},
		{"numbers alone", "1 2", "Seattle", "WA", "98103", "!address/invalid_address"},
		{"no house number", "Main St", "Seattle", "WA", "98103", "!address/invalid_address"},
		{"a formula as the city", "1 Main St", "=Seattle", "WA", "98103", "!city/invalid_city"},
		{"Utah grid", "1234 S 500 E", "Salt Lake City", "UT", "84106", "1234|S|500||E|||SALT LAKE CITY|UT|84106|"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := FromParts(tc.street, tc.city, tc.state, tc.zip)
			got := fields(a)
			if err != nil {
				got = errString(t, err)
			}
			if got != tc.want {
				t.Errorf("FromParts(%q, %q, %q, %q)\n got %s\nwant %s", tc.street, tc.city, tc.state, tc.zip, got, tc.want)
			}
		})
	}
}

func TestFromPartsReportsEveryField(t *testing.T) {
	_, err := FromParts("", "Springfield 2", "XX", "1")
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("FromParts error = %v, want an *apperr.Error", err)
	}
	if got, want := e.FieldNames(), []string{"address", "city", "state", "zip"}; !reflect.DeepEqual(got, want) {
		t.Errorf("error fields = %v, want %v", got, want)
	}
	if got, want := e.Field, "address"; got != want {
		t.Errorf("first field = %q, want %q", got, want)
	}
	if got, want := e.Code, CodeInvalidAddress; got != want {
		t.Errorf("code = %q, want %q", got, want)
	}
}

func TestSplitFullAddress(t *testing.T) {
	tests := []struct {
		in                       string
		street, city, state, zip string
	}{
		{"123 Main St, Springfield, IL 62704", "123 Main St", "Springfield", "IL", "62704"},
		{"123 Main St, Springfield, IL, 62704", "123 Main St", "Springfield", "IL", "62704"},
		{"123 Main St, Springfield, IL 62704-1234", "123 Main St", "Springfield", "IL", "62704-1234"},
		{"123 Main St, Springfield, Illinois, 62704", "123 Main St", "Springfield", "Illinois", "62704"},
		{"123 Main St, Springfield, Illinois 62704", "123 Main St", "Springfield", "Illinois", "62704"},
		{"123 Main St, Springfield, Illinois", "123 Main St", "Springfield", "Illinois", ""},
		{"123 Main St, Apt 4B, Springfield, IL 62704", "123 Main St Apt 4B", "Springfield", "IL", "62704"},
		{"123 Main St, Springfield IL 62704", "123 Main St", "Springfield", "IL", "62704"},
		{"123 Main St, Springfield, IL", "123 Main St", "Springfield", "IL", ""},
		{"123 Main St, Springfield", "123 Main St", "Springfield", "", ""},
		{"123 Main St, Springfield, 62704", "123 Main St", "Springfield", "", "62704"},
		{"12 Elm St, Boston, MA 2134", "12 Elm St", "Boston", "MA", "2134"},
		{"123 Main St, Springfield, IL 62704, USA", "123 Main St", "Springfield", "IL", "62704"},
		{"  123  Main St ,  Springfield , il 62704 ", "123 Main St", "Springfield", "il", "62704"},
		{"3526 HIGH ST, SACRAMENTO, CA, 95838", "3526 HIGH ST", "SACRAMENTO", "CA", "95838"},
		{"5201 LAGUNA OAKS DR Unit 140, ELK GROVE, CA 95758", "5201 LAGUNA OAKS DR Unit 140", "ELK GROVE", "CA", "95758"},
		{"123 Main St Springfield IL 62704", "123 MAIN ST", "SPRINGFIELD", "IL", "62704"},
		{"123 Main St Apt 4 Springfield IL 62704-1234", "123 MAIN ST APT 4", "SPRINGFIELD", "IL", "62704-1234"},
		{"PO Box 5", "PO Box 5", "", "", ""},
		{"", "", "", "", ""},
		{" , , ", "", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			street, city, state, zip := SplitFullAddress(tc.in)
			got := []string{street, city, state, zip}
			want := []string{tc.street, tc.city, tc.state, tc.zip}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("SplitFullAddress(%q)\n got %q\nwant %q", tc.in, got, want)
			}
		})
	}
}

// The batch path (SplitFullAddress then FromParts) must agree with Parse on addresses written with commas.
func TestSplitFullAddressAgreesWithParse(t *testing.T) {
	for _, c := range parseCases {
		if strings.HasPrefix(c.want, "!") || strings.Count(c.in, ",") < 2 {
			continue
		}
		t.Run(c.in, func(t *testing.T) {
			want, _ := Parse(c.in)
			got, err := FromParts(SplitFullAddress(c.in))
			if err != nil {
				t.Fatalf("FromParts(SplitFullAddress(%q)): %v", c.in, err)
			}
			if fields(got) != fields(want) {
				t.Errorf("FromParts(SplitFullAddress(%q))\n got %s\nwant %s", c.in, fields(got), fields(want))
			}
		})
	}
}

func TestNormalizeState(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"Illinois", "IL", true}, {"ill", "IL", true}, {"Ill.", "IL", true}, {"IL", "IL", true}, {"il", "IL", true},
		{" il ", "IL", true}, {"new york", "NY", true}, {"NEW  YORK", "NY", true}, {"N.Y.", "NY", true},
		{"N Y", "NY", true}, {"District of Columbia", "DC", true}, {"D.C.", "DC", true},
		{"Washington DC", "DC", true}, {"Washington", "WA", true}, {"Puerto Rico", "PR", true},
		{"guam", "GU", true}, {"U.S. Virgin Islands", "VI", true}, {"Virgin Islands", "VI", true},
		{"American Samoa", "AS", true}, {"Northern Mariana Islands", "MP", true}, {"Calif.", "CA", true},
		{"Mass", "MA", true}, {"Penna.", "PA", true}, {"W. Va.", "WV", true}, {"Rhode Island", "RI", true},
		{"XX", "", false}, {"", "", false}, {"AE", "", false}, {"Ontario", "", false}, {"Illinoiss", "", false},
		{"12", "", false}, {strings.Repeat("A", 100), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := NormalizeState(tc.in)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("NormalizeState(%q) = %q, %v, want %q, %v", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestNormalizeStateCoversEveryState(t *testing.T) {
	codes := strings.Fields(`AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ
		NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR AS GU MP VI FM MH PW`)
	if got, want := len(codes), 59; got != want {
		t.Fatalf("test lists %d codes, want %d", got, want)
	}
	for _, c := range codes {
		for _, in := range []string{c, strings.ToLower(c)} {
			if got, ok := NormalizeState(in); !ok || got != c {
				t.Errorf("NormalizeState(%q) = %q, %v, want %q, true", in, got, ok, c)
			}
		}
	}
	names := 0
	for name, code := range stateNames {
		if got, ok := NormalizeState(strings.ToLower(name)); !ok || got != code {
			t.Errorf("NormalizeState(%q) = %q, %v, want %q, true", strings.ToLower(name), got, ok, code)
		}
		names++
	}
	if names < 59 {
		t.Errorf("stateNames has %d names, want at least one per code", names)
	}
}
