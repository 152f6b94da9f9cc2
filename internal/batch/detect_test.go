package batch

import (
	"reflect"
	"strings"
	"testing"

	"valuator/internal/apperr"
)

// The spec's heuristics, one rule at a time (section 5, "Column detection heuristics").
func TestDetectColumn(t *testing.T) {
	streets := []string{"7006 Maple Rd", "12 Beacon St"}
	cities := []string{"Seattle", "St. Louis", "Winston-Salem", "Coeur d'Alene", "Española"}
	tests := []struct {
		name    string
		samples []string
		typ     ColumnType
		conf    float64
	}{
		// Names with words that mean something other than the address: unknown, 0.1, whatever the values.
		{"Estimated Value", nil, TypeUnknown, 0.1},
		{"List Price", []string{"350000"}, TypeUnknown, 0.1},
		{"LISTPRICE", nil, TypeUnknown, 0.1},
		{"Rent", nil, TypeUnknown, 0.1},
		{"Monthly Rent", nil, TypeUnknown, 0.1},
		{"Living Area Acres", nil, TypeUnknown, 0.1},
		{"Bedroom Count Estimate", []string{"3"}, TypeUnknown, 0.1},
		{"Year Renovated", nil, TypeUnknown, 0.1},
		{"ID", nil, TypeUnknown, 0.1},
		{"Property ID", streets, TypeUnknown, 0.1},
		{"propertyId", nil, TypeUnknown, 0.1},
		{"Notes", []string{"Seattle"}, TypeUnknown, 0.1},
		{"Owner", []string{"Jane Smith"}, TypeUnknown, 0.1},
		{"Owner Address", streets, TypeUnknown, 0.1},
		{"Listing Date", nil, TypeUnknown, 0.1},
		{"MLS #", nil, TypeUnknown, 0.1},
		{"Parcel Number", nil, TypeUnknown, 0.1},
		{"APN", nil, TypeUnknown, 0.1},
		{"Sale Date", nil, TypeUnknown, 0.1},
		{"Tax Amount", nil, TypeUnknown, 0.1},
		{"Lot Size", nil, TypeUnknown, 0.1},
		{"Acres", nil, TypeUnknown, 0.1},
		{"Phone", nil, TypeUnknown, 0.1},
		{"Email Address", []string{"a@b.com"}, TypeUnknown, 0.1},
		{"E-mail", nil, TypeUnknown, 0.1},
		{"Name", []string{"Jane Smith"}, TypeUnknown, 0.1},
		{"First Name", []string{"Jane"}, TypeUnknown, 0.1},
		{"County", []string{"King", "Pierce"}, TypeUnknown, 0.1},
		{"Country", []string{"USA"}, TypeUnknown, 0.1},
		{"Listing Type", []string{"Sale", "Rent"}, TypeUnknown, 0.1},
		{"Type", []string{"Condo", "Townhouse"}, TypeUnknown, 0.1},
		// The facts of a home not on record, by name (beyond the spec, which has only the address types).
		{"Property Type", []string{"Condo", "Townhouse"}, TypePropertyType, 0.9},
		{"propertyType", nil, TypePropertyType, 0.9},
		{"Home Type", nil, TypePropertyType, 0.9},
		{"SqFt", nil, TypeSquareFeet, 0.9},
		{"Square Feet", nil, TypeSquareFeet, 0.9},
		{"squareFeet", nil, TypeSquareFeet, 0.9},
		{"sqft_living", nil, TypeSquareFeet, 0.9},
		{"Living Area", nil, TypeSquareFeet, 0.9},
		{"Bedrooms", []string{"3"}, TypeBedrooms, 0.9},
		{"Beds", nil, TypeBedrooms, 0.9},
		{"Baths", nil, TypeBathrooms, 0.9},
		{"bathrooms", nil, TypeBathrooms, 0.9},
		{"Year Built", nil, TypeYearBuilt, 0.9},
		{"yearBuilt", nil, TypeYearBuilt, 0.9},
		{"sqft_lot", nil, TypeLotSize, 0.9},
		{"Lot Sq Ft", nil, TypeLotSize, 0.9},
		{"Status", []string{"Active"}, TypeUnknown, 0.1},
		// Whole words only: "id" is not in "residence", nor "rent" in "current".
		{"Residence", streets, TypeAddress, 0.9},
		{"Current Address", streets, TypeAddress, 0.9},
		// fullAddress: a sample with at least 3 comma parts.
		{"Location", []string{"7006 Maple Rd, Seattle, WA 98103"}, TypeFullAddress, 0.95},
		{"Property Address", []string{"7006 Maple Rd", "1 Main St, Springfield, IL 62704"}, TypeFullAddress, 0.95},
		{"Column 1", []string{"7006 Maple Rd\nSeattle, WA 98103"}, TypeFullAddress, 0.95},
		{"Address", []string{"Apt 4, 7006 Maple Rd"}, TypeAddress, 0.9}, // two parts only
		{"Full Address", []string{"7006 Maple Rd Seattle WA 98103"}, TypeFullAddress, 0.95},
		// address: by name, or a sample starting with digits then letters.
		{"Address", nil, TypeAddress, 0.9},
		{"street", nil, TypeAddress, 0.9},
		{"street_address", nil, TypeAddress, 0.9},
		{"Street Address", nil, TypeAddress, 0.9},
		{"Property Address", streets, TypeAddress, 0.9},
		{"Addr1", nil, TypeAddress, 0.9},
		{"ADDRESS_LINE_1", nil, TypeAddress, 0.9},
		{"Street Name", []string{"Maple"}, TypeAddress, 0.9},
		{"Column 1", []string{"", "Main St", "123 Main St"}, TypeAddress, 0.9},
		{"Site", []string{"123A Main St", "123-45 Queens Blvd"}, TypeAddress, 0.9},
		{"Site", []string{"98103"}, TypeUnknown, 0.01}, // digits without letters
		// city: by name, or letters-only samples of length 3 to 49.
		{"City", nil, TypeCity, 0.85},
		{"town", nil, TypeCity, 0.85},
		{"City Name", []string{"Seattle"}, TypeCity, 0.85},
		{"Column 2", cities, TypeCity, 0.85},
		{"Column 2", []string{"Seattle", "Seattle 2"}, TypeUnknown, 0.01},
		{"Column 2", []string{"Seattle", strings.Repeat("a", 50)}, TypeUnknown, 0.01},
		// state: by name, or two-letter samples.
		{"State", []string{"Washington"}, TypeState, 0.8},
		{"ST", nil, TypeState, 0.8},
		{"st", nil, TypeState, 0.8},
		{"Province", nil, TypeState, 0.8},
		{"State/Province", nil, TypeState, 0.8},
		{"Column 3", []string{"WA", "or", "CA"}, TypeState, 0.8},
		{"Column 3", []string{"WA", "Ore"}, TypeUnknown, 0.01}, // neither all two letters nor all 3 or more
		// zip: by name (0.95), or code-like names with 5 or 5+4 digit samples (0.8).
		{"Zip", nil, TypeZIP, 0.95},
		{"zipcode", nil, TypeZIP, 0.95},
		{"zip_code", nil, TypeZIP, 0.95},
		{"postal_code", nil, TypeZIP, 0.95},
		{"Postal Code", nil, TypeZIP, 0.95},
		{"ZIP Code", []string{"98103"}, TypeZIP, 0.95},
		{"ZIP+4", nil, TypeZIP, 0.95},
		{"Zip5", nil, TypeZIP, 0.95},
		{"Code", []string{"98103", "02134-1234"}, TypeZIP, 0.8},
		{"Post Code", []string{"98103"}, TypeZIP, 0.95},
		{"Code", []string{"98103", "A1B"}, TypeUnknown, 0.01},
		{"Column 4", []string{"98103"}, TypeUnknown, 0.01}, // digits alone need a code-like name
		// Nothing matched.
		{"Whatever", nil, TypeUnknown, 0.01},
		{"", []string{"$350,000"}, TypeUnknown, 0.01},
	}
	for _, tt := range tests {
		got := detectColumn(tt.name, tt.samples)
		if got.Type != tt.typ || got.Confidence != tt.conf || got.Column != tt.name {
			t.Errorf("detectColumn(%q, %q) = %s %.2f, want %s %.2f", tt.name, tt.samples, got.Type,
				got.Confidence, tt.typ, tt.conf)
		}
	}
}

func table(headers []string, rows ...[]string) *Table {
	t := &Table{Headers: headers, Rows: rows}
	for i := range rows {
		t.Line = append(t.Line, i+2)
	}
	return t
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		tbl  *Table
		want Mapping
	}{
		{"split columns", table([]string{"Property ID", "Street Address", "City", "State", "Zip", "Price"},
			[]string{"17", "7006 Maple Rd", "Seattle", "WA", "98103", "350000"}),
			Mapping{"Property ID": TypeIgnore, "Street Address": TypeAddress, "City": TypeCity, "State": TypeState,
				"Zip": TypeZIP, "Price": TypeIgnore}},
		{"unnamed columns by their values", table([]string{"Column 1", "Column 2", "Column 3", "Code"},
			[]string{"7006 Maple Rd", "Seattle", "WA", "98103"}, []string{"1 Main St", "Springfield", "IL", "62704"}),
			Mapping{"Column 1": TypeAddress, "Column 2": TypeCity, "Column 3": TypeState, "Code": TypeZIP}},
		{"a type already taken makes the column ignored", table([]string{"Town", "City", "Address", "Street"},
			[]string{"Seattle", "Seattle", "1 Main St", "1 Main St"}),
			Mapping{"Town": TypeCity, "City": TypeIgnore, "Address": TypeAddress, "Street": TypeIgnore}},
		{"higher confidence wins whatever the column order", table([]string{"Code", "Zip"},
			[]string{"98103", "98103"}),
			Mapping{"Code": TypeIgnore, "Zip": TypeZIP}},
		{"full address and split columns", table([]string{"Full Address", "Street Address", "City", "State", "ZIP Code"},
			[]string{"7006 Maple Rd, Seattle, WA 98103", "", "", "", ""}),
			Mapping{"Full Address": TypeFullAddress, "Street Address": TypeAddress, "City": TypeCity,
				"State": TypeState, "ZIP Code": TypeZIP}},
		{"one address column without commas becomes the full address", table([]string{"Address", "Notes"},
			[]string{"7006 Maple Rd Seattle WA 98103", "x"}, []string{"1 Main St Springfield IL 62704", "y"}),
			Mapping{"Address": TypeFullAddress, "Notes": TypeIgnore}},
		{"a street alone stays a street", table([]string{"Address"}, []string{"7006 Maple Rd"}),
			Mapping{"Address": TypeAddress}},
		{"below 0.6 nothing is assigned", table([]string{"Whatever", "Price"}, []string{"x", "1"}),
			Mapping{"Whatever": TypeIgnore, "Price": TypeIgnore}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, dets := Detect(tt.tbl)
			if !reflect.DeepEqual(m, tt.want) {
				t.Errorf("mapping = %v, want %v", m, tt.want)
			}
			if len(dets) != len(tt.tbl.Headers) {
				t.Fatalf("%d detections for %d columns", len(dets), len(tt.tbl.Headers))
			}
			for i, d := range dets {
				if d.Column != tt.tbl.Headers[i] {
					t.Errorf("detection %d is of %q", i, d.Column)
				}
			}
		})
	}
	// The detections keep what was detected: an unknown column is "unknown", though mapped to ignore.
	_, dets := Detect(table([]string{"Price", "Town", "City"}, []string{"1", "Seattle", "Seattle"}))
	want := []Detection{{"Price", TypeUnknown, 0.1}, {"Town", TypeCity, 0.85}, {"City", TypeCity, 0.85}}
	if !reflect.DeepEqual(dets, want) {
		t.Errorf("detections = %v, want %v", dets, want)
	}
}

func TestDetectSamplesFirstTenNonEmpty(t *testing.T) {
	tbl := &Table{Headers: []string{"Column 1"}}
	for range 5 {
		tbl.Rows = append(tbl.Rows, []string{""})
	}
	for range 10 {
		tbl.Rows = append(tbl.Rows, []string{"WA"})
	}
	tbl.Rows = append(tbl.Rows, []string{"Washington"}) // the 11th value is not looked at
	if got := columnSamples(tbl, 0); len(got) != 10 {
		t.Errorf("samples = %q", got)
	}
	if _, dets := Detect(tbl); dets[0].Type != TypeState {
		t.Errorf("detection = %v", dets[0])
	}
}

func TestParseName(t *testing.T) {
	for in, want := range map[string]string{"PropertyID": "property_id", "property_id": "property_id",
		"Property ID": "property_id", "ZIPCode": "zip_code", "Zip5": "zip_5", "AddressLine1": "address_line_1",
		"MLS #": "mls", "  ": "", "IDNumber": "id_number", "e-mail": "e_mail"} {
		if got := parseName(in).key(); got != want {
			t.Errorf("parseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	headers := []string{"Full", "Street", "City", "State", "Zip", "Other"}
	tests := []struct {
		name string
		m    Mapping
		msg  string // "" for valid
	}{
		{"full address", Mapping{"Full": TypeFullAddress}, ""},
		{"full address with the rest ignored", Mapping{"Full": TypeFullAddress, "City": TypeIgnore, "Other": TypeIgnore}, ""},
		{"address, city, state, zip", Mapping{"Street": TypeAddress, "City": TypeCity, "State": TypeState, "Zip": TypeZIP}, ""},
		{"street, city, state, zip", Mapping{"Street": TypeStreet, "City": TypeCity, "State": TypeState, "Zip": TypeZIP}, ""},
		{"both full and split", Mapping{"Full": TypeFullAddress, "Street": TypeAddress, "City": TypeCity}, ""},
		{"full address and facts", Mapping{"Full": TypeFullAddress, "Other": TypeSquareFeet, "City": TypePropertyType}, ""},
		{"facts alone", Mapping{"Other": TypeSquareFeet, "City": TypePropertyType},
			"Map a column to Street Address, City, State and ZIP, or one column to Full Address"},
		{"a fact twice", Mapping{"Full": TypeFullAddress, "Other": TypeSquareFeet, "City": TypeSquareFeet},
			`Columns "City" and "Other" are both mapped to Square Feet; map it to one column`},
		{"address only", Mapping{"Street": TypeAddress},
			"Map a column to City, State and ZIP, or one column to Full Address"},
		{"nothing", Mapping{},
			"Map a column to Street Address, City, State and ZIP, or one column to Full Address"},
		{"nil", nil,
			"Map a column to Street Address, City, State and ZIP, or one column to Full Address"},
		{"no street", Mapping{"City": TypeCity, "State": TypeState, "Zip": TypeZIP},
			"Map a column to Street Address, or one column to Full Address"},
		{"no zip", Mapping{"Street": TypeStreet, "City": TypeCity, "State": TypeState, "Zip": TypeIgnore},
			"Map a column to ZIP, or one column to Full Address"},
		{"state and zip missing", Mapping{"Street": TypeAddress, "City": TypeCity},
			"Map a column to State and ZIP, or one column to Full Address"},
		{"unknown column", Mapping{"Full": TypeFullAddress, "Nope": TypeCity},
			`The mapping names a column the file does not have: "Nope"`},
		{"unknown type", Mapping{"Full": "street_address"},
			`Column "Full" has an unknown type "street_address"; use fullAddress, address, street, city, state, zip, ` +
				`propertyType, squareFeet, bedrooms, bathrooms, yearBuilt, lotSize or ignore`},
		{"unknown is not a mapping type", Mapping{"Other": TypeUnknown, "Full": TypeFullAddress},
			`Column "Other" has an unknown type "unknown"`},
		{"a type twice", Mapping{"Street": TypeCity, "City": TypeCity, "Full": TypeFullAddress},
			`Columns "Street" and "City" are both mapped to City; map it to one column`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.Validate(headers)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok {
				t.Fatalf("Validate = %v, want an *apperr.Error", err)
			}
			if e.Kind != apperr.KindInvalid || e.Field != "mapping" || e.Code != "invalid_mapping" ||
				e.Fields["mapping"] != e.Message {
				t.Errorf("error = %+v", e)
			}
			if !strings.HasPrefix(e.Message, tt.msg) {
				t.Errorf("message = %q, want %q", e.Message, tt.msg)
			}
		})
	}
}
