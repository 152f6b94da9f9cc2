package store

import (
	"testing"
	"unsafe"
)

func TestInternerSharesOneStringPerValue(t *testing.T) {
	var in interner
	if in.of(nil) != "" || in.of([]byte{}) != "" {
		t.Fatal("empty values should be the empty string")
	}
	buf := []byte("Seattle")
	a := in.of(buf)
	buf[0] = 'X' // the scanner reuses its buffer: the interned string must not change with it
	b := in.of([]byte("Seattle"))
	if a != "Seattle" || b != "Seattle" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("got %q and %q, want one shared \"Seattle\"", a, b)
	}
	if c := in.of([]byte("Bellevue")); c != "Bellevue" || len(in) != 2 {
		t.Errorf("got %q with %d values held", c, len(in))
	}
}
