package text

import "testing"

func TestProblems(t *testing.T) {
	const (
		nul     = "must not contain NUL characters"
		utf     = "must be valid UTF-8 text"
		control = "must not contain control characters or line breaks"
		msgCtl  = "must not contain control characters other than tabs and line breaks"
		bidi    = "must not contain text-direction control characters"
	)
	for _, tt := range []struct {
		in                     string
		problem, name, message string // "" when fine
	}{
		{"Jane Doe", "", "", ""},
		{"Zoë O'Brien-Łukasz 山田", "", "", ""},
		{"\u05d3\u05e0\u05d9\u200f", "", "", ""}, // Hebrew with a right-to-left mark
		{"Jane\x00Doe", nul, nul, nul},
		{"caf\xe9", utf, utf, utf},
		{"line\nbreak", "", control, ""},
		{"crlf\r\nbreak", "", control, ""},
		{"tab\there", "", control, ""},
		{"del\x7f", "", control, msgCtl},
		{"bell\x07", "", control, msgCtl},
		{"c1\u0085", "", control, msgCtl},
		{"sep\u2028", "", control, ""},
		{"invoice\u202egpj.exe", "", bidi, bidi},
		{"embedding\u202ax\u202c", "", bidi, bidi},
		{"isolate\u2067x\u2069", "", bidi, bidi},
		{"first\u2066isolate", "", bidi, bidi},
		{"Refund\n\u202e50 stiderc", "", control, bidi},
	} {
		if got := Problem(tt.in); got != tt.problem {
			t.Errorf("Problem(%q) = %q, want %q", tt.in, got, tt.problem)
		}
		if got := NameProblem(tt.in); got != tt.name {
			t.Errorf("NameProblem(%q) = %q, want %q", tt.in, got, tt.name)
		}
		if got := MessageProblem(tt.in); got != tt.message {
			t.Errorf("MessageProblem(%q) = %q, want %q", tt.in, got, tt.message)
		}
		if got := Storable(tt.in); got != (tt.problem == "") {
			t.Errorf("Storable(%q) = %v", tt.in, got)
		}
	}
}

func TestSanitizeAndTruncate(t *testing.T) {
	for in, want := range map[string]string{
		"1 Main St":        "1 Main St",
		"1 Main St\x00":    "1 Main St",
		"caf\xe9 \x00ok":   "caf\uFFFD ok",
		"\x00\x00":         "",
		"\xff\xfe":         "\uFFFD",
		"zo\u00eb\x00\xff": "zo\u00eb\uFFFD",
	} {
		if got := Sanitize(in); got != want || !Storable(got) {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Truncate("zoë", 3); got != "zo" {
		t.Errorf("Truncate cut a character: %q", got)
	}
	if got := Truncate("abc", 5); got != "abc" {
		t.Errorf("Truncate(abc, 5) = %q", got)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "seconds", 1: "second", 2: "seconds", 60: "seconds"} {
		if got := Plural(n, "second", "seconds"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 requests", 1: "1 request", 2: "2 requests", 60: "60 requests"} {
		if got := Count(n, "request", "requests"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAddressProblem: an address that reads as another is refused (issue 36, L-2): invisible format characters and
// letters of two alphabets in one part; one alphabet, or Latin with Chinese, Japanese or Korean, is an address.
func TestAddressProblem(t *testing.T) {
	for _, s := range []string{"pat@example.com", "o'brien+tag@example.co.uk", "почта@пример.рф", "user@example.рф",
		"山田@example.jp", "yamada太郎@example.jp", "δοκιμή@παράδειγμα.ελ", "josé@example.com"} {
		if p := AddressProblem(s); p != "" {
			t.Errorf("%q: %s", s, p)
		}
	}
	for s, want := range map[string]string{
		"pat\u200b@example.com": "must not contain invisible characters",
		"pa\u00adt@example.com": "must not contain invisible characters",
		"pat@exa\u2060mple.com": "must not contain invisible characters",
		"\ufeffpat@example.com": "must not contain invisible characters",
		"p\u0430t@example.com":  "must not mix letters of different alphabets",
		"pat@ex\u0430mple.com":  "must not mix letters of different alphabets",
		"p\u03b1t@example.com":  "must not mix letters of different alphabets",
		"pat\u202e@example.com": "must not contain text-direction control characters",
	} {
		if got := AddressProblem(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}
