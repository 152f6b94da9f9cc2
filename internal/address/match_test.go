package address

import "testing"

// matchKey is what a property lookup compares: the building and the unit in it.
func matchKey(t *testing.T, line string) string {
	t.Helper()
	a, err := Parse(line)
	if err != nil {
		t.Fatalf("Parse(%q): %v", line, err)
	}
	return a.StreetKey() + "#" + a.UnitKey()
}

func TestMatchingForms(t *testing.T) {
	groups := []struct {
		name  string
		forms []string
	}{
		{"unit designators and punctuation", []string{
			"123 N Main St Apt 4B, Springfield, IL 62704",
			"123 North Main Street, Apartment 4B, Springfield, Illinois 62704-1234",
			"123 n. main st. #4B",
			"123 N MAIN ST UNIT 4-B",
			"Apt 4B, 123 N Main St",
			"123 N Main St # 4 B",
			"123 N Main St Ste 04B",
			"123 N Main St 4B",
			"123 N Main St Apt4B Springfield IL 62704",
		}},
		{"Sacramento record and typed forms", []string{
			"5201 LAGUNA OAKS DR Unit 140, ELK GROVE, CA 95758",
			"5201 Laguna Oaks Drive #140, Elk Grove, CA 95758",
			"5201 laguna oaks dr apt 140 elk grove ca 95758",
			"5201 Laguna Oaks Dr., Unit 140",
		}},
		{"ordinal words", []string{"123 First Street", "123 1st St", "123 FIRST ST.", "123 1ST STREET"}},
		{"numbered street", []string{"200 W 42nd St", "200 West 42 Street", "200 W. Forty-Second St", "200 W 42d St"}},
		{"state highway", []string{"9970 State Hwy 193", "9970 STATE HIGHWAY 193", "9970 State Highway 193, Placerville, CA"}},
		{"county road", []string{"12 County Road 12", "12 CR-12", "12 Co. Rd. 12", "12 CR 12, Elizabeth, CO 80107"}},
		{"US highway", []string{"1200 US Hwy 101", "1200 US-101", "1200 U.S. Highway 101", "1200 US Route 101"}},
		{"mount", []string{"100 Mount Vernon Ave", "100 Mt Vernon Ave", "100 Mt. Vernon Avenue"}},
		{"one word or two", []string{"88 Lake Shore Dr", "88 Lakeshore Drive", "88 LAKE SHORE DRIVE"}},
		{"extension", []string{"1 Main Street Extension", "1 Main St Ext", "1 MAIN ST. EXT."}},
		{"fraction", []string{"123 1/2 Main St", "123½ Main St", "123-1/2 Main Street"}},
		{"intercardinal", []string{"2100 NE Broadway St", "2100 N.E. Broadway Street", "2100 Northeast Broadway St"}},
		{"building and apartment", []string{
			"2200 Mission College Blvd Bldg A Apt 2",
			"2200 Mission College Blvd Apt A2",
			"2200 Mission College Blvd Unit A-2",
			"2200 Mission College Blvd, Building A, Apartment 2",
		}},
		{"floor", []string{"350 N Orleans St 3rd Floor", "350 N Orleans St Fl 3", "350 N Orleans St Floor 3",
			"350 N Orleans St, Third Floor"}},
		{"no unit", []string{"123 Main St", "123 MAIN STREET", "123 Main St., Springfield, IL", "123  main  st  62704"}},
		{"post-directional", []string{"1600 Pennsylvania Ave NW", "1600 Pennsylvania Avenue N.W.",
			"1600 Pennsylvania Avenue Northwest, Washington, DC 20500"}},
		{"accents", []string{"1 Cañada Rd", "1 Canada Road"}},
		{"saint", []string{"40 Saint James Pl", "40 St. James Place", "40 ST JAMES PL"}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			want := matchKey(t, g.forms[0])
			for _, f := range g.forms[1:] {
				if got := matchKey(t, f); got != want {
					t.Errorf("key of %q = %q, want %q (the key of %q)", f, got, want, g.forms[0])
				}
			}
		})
	}
}

func TestNonMatchingForms(t *testing.T) {
	pairs := []struct {
		name string
		a, b string
	}{
		{"different number", "123 Main St", "125 Main St"},
		{"different pre-directional", "123 N Main St", "123 S Main St"},
		{"missing pre-directional", "123 N Main St", "123 Main St"},
		{"different post-directional", "123 Main St NW", "123 Main St NE"},
		{"different unit", "123 Main St Apt 4B", "123 Main St Apt 4C"},
		{"unit and no unit", "123 Main St Apt 4B", "123 Main St"},
		{"different suffix", "123 Main St", "123 Main Ave"},
		{"lettered street and North Street", "100 N St", "100 North St"},
		{"different building", "2200 Mission College Blvd Bldg A Apt 2", "2200 Mission College Blvd Bldg B Apt 2"},
		{"leading zero house number", "0245 SW Bancroft St", "245 SW Bancroft St"},
		{"Queens number", "123-45 Queens Blvd", "12345 Queens Blvd"},
		{"fraction", "123 1/2 Main St", "123 Main St"},
		{"different name", "123 Main St", "123 Maine St"},
		{"different highway", "9970 State Hwy 193", "9970 Hwy 193"},
		{"rear unit", "123 Main St Rear", "123 Main St"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			if ka, kb := matchKey(t, p.a), matchKey(t, p.b); ka == kb {
				t.Errorf("%q and %q share the key %q, want different keys", p.a, p.b, ka)
			}
		})
	}
}

func TestNameKeyFallback(t *testing.T) {
	forms := []string{"123 Main", "123 Main St", "123 Main Ave", "123 MAIN STREET APT 2"}
	first, err := Parse(forms[0])
	if err != nil {
		t.Fatalf("Parse(%q): %v", forms[0], err)
	}
	for _, f := range forms[1:] {
		a, err := Parse(f)
		if err != nil {
			t.Fatalf("Parse(%q): %v", f, err)
		}
		if got, want := a.NameKey(), first.NameKey(); got != want {
			t.Errorf("NameKey of %q = %q, want %q", f, got, want)
		}
	}
	other, _ := Parse("123 N Main St")
	if other.NameKey() == first.NameKey() {
		t.Errorf("NameKey of 123 N Main St = %q, want it to differ from %q", other.NameKey(), first.NameKey())
	}
}

func TestCityKey(t *testing.T) {
	groups := [][]string{
		{"Saint Louis", "St. Louis", "ST LOUIS", "st louis"},
		{"Fort Worth", "Ft Worth", "Ft. Worth"},
		{"Mount Pleasant", "Mt Pleasant", "Mt. Pleasant"},
		{"North Las Vegas", "N Las Vegas", "N. Las Vegas"},
		{"Mc Lean", "McLean", "MCLEAN"},
		{"Winston-Salem", "Winston Salem"},
		{"Cleveland Heights", "Cleveland Hts"},
		{"Colorado Springs", "Colorado Spgs"},
	}
	for _, g := range groups {
		t.Run(g[0], func(t *testing.T) {
			want := cityKeyOf(t, g[0])
			for _, c := range g[1:] {
				if got := cityKeyOf(t, c); got != want {
					t.Errorf("CityKey of %q = %q, want %q", c, got, want)
				}
			}
		})
	}
	if a, b := cityKeyOf(t, "Springfield"), cityKeyOf(t, "Springfeld"); a == b {
		t.Errorf("Springfield and Springfeld share the city key %q", a)
	}
	if got, want := cityKeyOf(t, "Saint Louis"), "STLOUIS"; got != want {
		t.Errorf("CityKey of Saint Louis = %q, want %q", got, want)
	}
}

func cityKeyOf(t *testing.T, city string) string {
	t.Helper()
	a, err := FromParts("1 Main St", city, "", "")
	if err != nil {
		t.Fatalf("FromParts city %q: %v", city, err)
	}
	return a.CityKey()
}
