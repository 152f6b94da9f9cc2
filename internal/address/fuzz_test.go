package address

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
)

// FuzzParse checks that Parse never panics, that its errors are well formed, and that a parsed address reads back
// unchanged from its own Line().
func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.KindInvalid || e.Message == "" {
				t.Fatalf("Parse(%q) error %#v, want a KindInvalid *apperr.Error with a message", s, err)
			}
			switch e.Field {
			case "address", "city", "state", "zip":
			default:
				t.Fatalf("Parse(%q) error field %q", s, e.Field)
			}
			return
		}
		if a.Number == "" || a.Name == "" {
			t.Fatalf("Parse(%q) = %s without number or name", s, fields(a))
		}
		line := a.Line()
		b, err := Parse(line)
		if err != nil {
			t.Fatalf("Parse(%q) = %s, but Parse(Line() = %q): %v", s, fields(a), line, err)
		}
		if a.StreetKey() != b.StreetKey() || a.UnitKey() != b.UnitKey() || a.NameKey() != b.NameKey() ||
			a.ZIP != b.ZIP || a.ZIP4 != b.ZIP4 {
			t.Fatalf("Parse(%q) = %s\nParse(Line() = %q) = %s: keys differ", s, fields(a), line, fields(b))
		}
		// Without commas, where the city ends and the state begins is a guess ("AV ST WASHINGTON" is Saint
		// Washington or Washington state), and the commas of Line() may settle it differently. With commas in
		// the input there is nothing to guess, so every field must survive.
		if strings.ContainsAny(s, ",;\n\r|") && a != b {
			t.Fatalf("Parse(%q) = %s\nParse(Line() = %q) = %s", s, fields(a), line, fields(b))
		}
	})
}

// fuzzSeeds are extra starting points for the fuzzer, including inputs it once found to break Parse.
var fuzzSeeds = []string{
	"1 A B C D E F G",
	"1 N N N N",
	"1 # # #",
	"1 APT APT APT 2",
	"1-2-3 4/5 6/7",
	"\x00\xff 1 Main",
	"１２３ Main St",
	"123 ST ST ST ST",
	"123 MAIN ST, , , ,",
	"9 HWY HWY 9",
	// Found by the fuzzer.
	"0AAA Ct AA",
	"0AAA Ct A Il#",
	"0 0 AA 00000",
	"0AAA AA,00000",
	"0AAA 0-BA",
	"0#0 AZ",
	"#",
	"000000000000 000000000 Apt0000 000000000000000, SpC0",
	"0AAA #00 AAA Ill",
	"0AAA Av st WAshington",
	"0AAA A,#MA",
	"0 0 A CRT",
	"0,#0 AA",
	"0 US-US-0",
	"0AAA Apt Apt 0#0",
	"0AAA S Third",
	"0AAA Bld 0 Apt000000000",
	"0,SpC0 USA",
	"0 Sh Third",
	"0AAA SpC0 A,#A",
	"0AAA Fl# 00000",
	"0AAA s FL 00000",
	"0AAA fM,00000",
	"0AAA 0 s FL 00000",
	"0AAA Bld i Apt0",
	"0AAA St A #A S",
	"0AAA A,US AZ",
	"0AAA,A A#AA 00000",
	"0AAA AA e WY 00000",
	"0AAA Unt WEST",
	"0 0 Ap# 0000000000000000 A",
	"0AAA 10000d Fl",
	"0AAAAAA Apt CA#0",
	"0#I-0",
	"0AAA F#00 FL,",
	"0AAA Ct Apt#0 A,AAA",
	"0 0 CT A CRT",
	",0AAA Ct A Mt",
	"0AAA Ct,A,US AZ",
	"0AAA Ste Fl 0#0",
	"0AAA Ste00 Ste Fl 0#0",
	"0-0/0 CA 0",
	"0AAA Ste Fl#A",
	"0AAA Unt 0 West",
	"0AAA AZ,USA 00000",
	"0AAA AZ,USA,US",
	"0AAA Third Fl Third #0",
	"0AAA AZ,USA,00000",
	"0AAA Third Fl#A",
	"0AAA TrlrS 0",
	"0 0 TrlrS s",
	"0 0 Bsmt CA Bsmt",
	"0AAAAAA Upper Ct Upper C, Upper Ct",
	"0 Po,B ,A",
	"0AAA,Third Fl hi",
	"0 0 p o 00000",
	"0AAA #0 R f d",
	"0AAA ste0 Rte A",
	"0AAA " + strings.Repeat("0", 394),
}

// FuzzFromParts checks FromParts the same way: no panic, well-formed errors, and an address that reads back with
// the same keys from its Line().
func FuzzFromParts(f *testing.F) {
	f.Add("3526 HIGH ST", "SACRAMENTO", "CA", "95838")
	f.Add("5201 LAGUNA OAKS DR Unit 140", "ELK GROVE", "CA", "95758")
	f.Add("123 Main St Springfield", "", "IL", "")
	f.Add("Apt 4B, 123 Main St", "Springfield", "Illinois", "2134")
	f.Add("PO Box 5", "Springfield", "IL", "62704")
	f.Add("1 Main St", "St. Louis", "mo", "63101-1234")
	// Found by the fuzzer.
	f.Add("0 0", "AA", "", "")
	f.Add("0AAA Ct A", "!", "", "")
	f.Add("0 0 fM", "!", " ", " ")
	f.Add("0AAA Ct A", "MA", "", " ")
	f.Add("0AAA", "rm A", "", " ")
	f.Add("0 0 fM", " ", " ", "000")
	f.Fuzz(func(t *testing.T, street, city, state, zip string) {
		a, err := FromParts(street, city, state, zip)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Kind != apperr.KindInvalid || e.Message == "" || e.Fields[e.Field] == "" {
				t.Fatalf("FromParts(%q, %q, %q, %q) error %#v", street, city, state, zip, err)
			}
			return
		}
		line := a.Line()
		b, err := Parse(line)
		if err != nil {
			t.Fatalf("FromParts(%q, %q, %q, %q) = %s, but Parse(Line() = %q): %v", street, city, state, zip,
				fields(a), line, err)
		}
		if a.StreetKey() != b.StreetKey() || a.UnitKey() != b.UnitKey() || a.ZIP != b.ZIP {
			t.Fatalf("FromParts(%q, %q, %q, %q) = %s\nParse(Line() = %q) = %s", street, city, state, zip,
				fields(a), line, fields(b))
		}
	})
}
