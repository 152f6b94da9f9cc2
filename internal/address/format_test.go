package address

import "testing"

func TestFormatting(t *testing.T) {
	tests := []struct {
		in                                   string
		street, unit, line                   string
		streetKey, unitKey, nameKey, cityKey string
	}{
		{"123 n. Main Street Apt 4B, Springfield, IL 62704-1234",
			"123 N MAIN ST", "APT 4B", "123 N MAIN ST APT 4B, SPRINGFIELD, IL 62704-1234",
			"123|N|MAIN|ST|", "4B", "123|N|MAIN", "SPRINGFIELD"},
		{"123 Main St #04-B", "123 MAIN ST", "# 04-B", "123 MAIN ST # 04-B", "123||MAIN|ST|", "4B", "123||MAIN", ""},
		{"123 Main St Rear, IL", "123 MAIN ST", "REAR", "123 MAIN ST REAR, IL", "123||MAIN|ST|", "REAR", "123||MAIN", ""},
		{"100 Mount Vernon Ave SE, Saint Paul, MN", "100 MOUNT VERNON AVE SE", "", "100 MOUNT VERNON AVE SE, SAINT PAUL, MN",
			"100||MTVERNON|AVE|SE", "", "100||MTVERNON", "STPAUL"},
		{"1 Main St, 62704", "1 MAIN ST", "", "1 MAIN ST, 62704", "1||MAIN|ST|", "", "1||MAIN", ""},
		{"9970 State Hwy 193", "9970 STATE HIGHWAY 193", "", "9970 STATE HIGHWAY 193", "9970||STATEHIGHWAY193||", "",
			"9970||STATEHIGHWAY193", ""},
		{"12 Oak Ct Apt 0", "12 OAK CT", "APT 0", "12 OAK CT APT 0", "12||OAK|CT|", "0", "12||OAK", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			a, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			checks := []struct{ what, got, want string }{
				{"Street()", a.Street(), tc.street},
				{"Unit()", a.Unit(), tc.unit},
				{"Line()", a.Line(), tc.line},
				{"StreetKey()", a.StreetKey(), tc.streetKey},
				{"UnitKey()", a.UnitKey(), tc.unitKey},
				{"NameKey()", a.NameKey(), tc.nameKey},
				{"CityKey()", a.CityKey(), tc.cityKey},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

func TestZeroAddress(t *testing.T) {
	var a Address
	for _, c := range []struct{ what, got string }{
		{"Street()", a.Street()}, {"Unit()", a.Unit()}, {"Line()", a.Line()}, {"StreetKey()", a.StreetKey()},
		{"UnitKey()", a.UnitKey()}, {"NameKey()", a.NameKey()}, {"CityKey()", a.CityKey()},
	} {
		if c.got != "" {
			t.Errorf("zero Address %s = %q, want empty", c.what, c.got)
		}
	}
	// An address built by hand with a unit number but no designator is written the Publication 28 way.
	if got, want := (Address{UnitNumber: "4B"}).Unit(), "# 4B"; got != want {
		t.Errorf("Unit() without UnitType = %q, want %q", got, want)
	}
}
