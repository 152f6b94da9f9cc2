package person

import (
	"strings"
	"testing"
)

func TestFoldName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"José Núñez", "jose nunez"},
		{"O'Brien", "obrien"},
		{"O’Brien", "obrien"},
		{"Smith-Jones", "smithjones"},
		{"  ROBERT  J. smith, Jr. ", "robert j smith jr"},
		{"Søren Kierkegaard", "soren kierkegaard"},
		{"Strauß", "strauss"},
		{"François", "francois"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := FoldName(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseName(t *testing.T) {
	tests := []struct {
		in   string
		want PersonName
	}{
		{"Robert J. Smith", PersonName{"robert", "j", "smith"}},
		{"Robert James Smith Jr.", PersonName{"robert", "james", "smith"}},
		{"Smith, Robert J", PersonName{"robert", "j", "smith"}},
		{"Robert Smith, III", PersonName{"robert", "", "smith"}},
		{"Dr. Jane Doe", PersonName{"jane", "", "doe"}},
		{"Maria de la Cruz", PersonName{"maria", "", "delacruz"}},
		{"Ludwig van Beethoven", PersonName{"ludwig", "", "vanbeethoven"}},
		{"Smith", PersonName{"", "", "smith"}},
		{"", PersonName{}},
		{"Mary Anne Elizabeth O'Neil", PersonName{"mary", "anne elizabeth", "oneil"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ParseName(tt.in); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCompareFirst(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"robert", "robert", FirstExact},
		{"bob", "robert", FirstNickname},
		{"robert", "bobby", FirstNickname},
		{"rob", "bob", FirstNickname},
		{"liz", "elizabeth", FirstNickname},
		{"kate", "catherine", FirstNickname},
		{"jack", "john", FirstNickname},
		{"ted", "edward", FirstNickname},
		{"ted", "theodore", FirstNickname},
		{"edward", "theodore", 0},
		{"r", "robert", FirstInitial},
		{"robert", "r", FirstInitial},
		{"b", "robert", 0},
		{"robert", "richard", 0},
		{"", "robert", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := CompareFirst(tt.a, tt.b); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMiddleContradicts(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"", "james", false},
		{"j", "james", false},
		{"james", "jim", false},
		{"k", "james", true},
		{"kevin", "james", true},
		{"j", "k", true},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := middleContradicts(tt.a, tt.b); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNicknameGroups(t *testing.T) {
	if got := len(nicknameGroups); got < 60 {
		t.Errorf("got %d nickname groups, want at least 60", got)
	}
	for _, g := range nicknameGroups {
		for _, n := range strings.Fields(g) {
			if FoldName(n) != n {
				t.Errorf("group %q: %q is not folded", g, n)
			}
		}
	}
}
