package sheet

import "testing"

func TestSafeCell(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"123 Main St", "123 Main St"},
		{"=1+1", "'=1+1"},
		{"+1 555", "'+1 555"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"-2+3", "'-2+3"},
		{"-12.5", "-12.5"},
		{"\t=cmd", "'\t=cmd"},
		{"\r=cmd", "'\r=cmd"},
		{"a=b", "a=b"},
	} {
		if got := SafeCell(tt.in); got != tt.want {
			t.Errorf("SafeCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
