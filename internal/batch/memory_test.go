package batch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"valuator/internal/apperr"
)

// heapInUse is the heap taken by objects, live or not yet swept, as runtime/metrics reports it.
func heapInUse(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeap runs f and returns how far the heap grew above where it stood before f (after a collection),
// sampled every millisecond while f runs. A heap past hardCap stops the test binary, so that a reader that has
// lost its bounds cannot take the memory of a machine others share.
func peakHeap(t *testing.T, hardCap uint64, f func()) uint64 {
	t.Helper()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	base := heapInUse(sample)
	var peak atomic.Uint64
	peak.Store(base)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			v := heapInUse(s)
			if v > peak.Load() {
				peak.Store(v)
			}
			if v-base > hardCap {
				panic(fmt.Sprintf("%s: the heap grew by %d MB, past %d MB; stopped to protect the machine",
					t.Name(), (v-base)>>20, hardCap>>20))
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if v := heapInUse(sample); v > peak.Load() {
		peak.Store(v)
	}
	return peak.Load() - base
}

// longText is n bytes of an address line repeated, with blanks at both ends and a carriage return on every
// line, which cleanCell rewrites (a copy).
func longText(n int) string {
	line := "1 Main St\r\n"
	return " " + strings.Repeat(line, n/len(line)) + " "
}

// xmlText writes s as XML character data, with "\r" as a character reference so that it survives the XML
// parser's line-end normalization.
func xmlText(s string) string {
	var b strings.Builder
	_ = xmlEscapeTo(&b, s)
	return b.String()
}

func xmlEscapeTo(b *strings.Builder, s string) error {
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\r':
			b.WriteString("&#13;")
		default:
			b.WriteRune(r)
		}
	}
	return nil
}

// sharedStringXLSX is a workbook whose rows each show one shared string of about n bytes in cols cells: the
// string as plain text, or as two runs of rich text.
func sharedStringXLSX(t testing.TB, n, rows, cols int, rich bool) []byte {
	t.Helper()
	s := longText(n)
	si := `<si><t xml:space="preserve">` + xmlText(s) + `</t></si>`
	if rich {
		half := len(s) / 2
		si = `<si><r><t xml:space="preserve">` + xmlText(s[:half]) + `</t></r><r><rPr><b/></rPr>` +
			`<t xml:space="preserve">` + xmlText(s[half:]) + `</t></r></si>`
	}
	var sheet strings.Builder
	sheet.WriteString(`<row r="1">`)
	for i := range cols {
		fmt.Fprintf(&sheet, `<c t="inlineStr"><is><t>Column %d</t></is></c>`, i+1)
	}
	sheet.WriteString(`</row>`)
	row := "<row>" + strings.Repeat(`<c t="s"><v>0</v></c>`, cols) + "</row>"
	for range rows {
		sheet.WriteString(row)
	}
	parts := minimalXLSX(sheet.String())
	parts["xl/sharedStrings.xml"] = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` + si + `</sst>`
	return zipOf(t, parts)
}

// sstXLS is an .xls workbook whose rows each show one SST string of n characters (with carriage returns) in
// cols cells.
func sstXLS(n, rows, cols int) []byte {
	var w biff
	w.rec(recBOF, u16(0x0600), u16(0x0005), make([]byte, 12))
	sheetAt := w.rec(recBoundSheet, u32(0), []byte{0, 0}, []byte{6, 0}, []byte("Sheet1"))
	sst := append(u32(2), u32(2)...)
	sst = append(sst, xlString("Address", false)...)
	sst = append(sst, xlString(longText(n), false)...)
	w.rec(recSST, sst)
	w.rec(recEOF)
	binary.LittleEndian.PutUint32(w.b[sheetAt+4:], uint32(len(w.b)))
	w.rec(recBOF, u16(0x0600), u16(0x0010), make([]byte, 12))
	w.rec(recLabelSST, cell(0, 0, 0), u32(0))
	for r := 1; r <= rows; r++ {
		for c := range cols {
			w.rec(recLabelSST, cell(uint16(r), uint16(c), 0), u32(1))
		}
	}
	w.rec(recEOF)
	return cfbOf(w.b)
}

// Values of the compound file format ([MS-CFB] 2.1).
const (
	cfbFreeSect   = 0xFFFFFFFF
	cfbEndOfChain = 0xFFFFFFFE
	cfbFATSect    = 0xFFFFFFFD
	cfbNoStream   = 0xFFFFFFFF
)

// cfbOf stores stream as the "Workbook" stream of an OLE compound file (version 3, 512-byte sectors), as Excel
// stores an .xls: the header, the stream's sectors, one directory sector, then the FAT.
func cfbOf(stream []byte) []byte {
	const sec = 512
	if len(stream) < 4096 { // shorter streams would belong in the mini stream
		stream = append(bytes.Clone(stream), make([]byte, 4096-len(stream))...)
	}
	n := (len(stream) + sec - 1) / sec
	dir := n
	fats := 1
	for n+1+fats > fats*sec/4 {
		fats++
	}
	if fats > 109 {
		panic("cfbOf: stream too long for a header-only DIFAT")
	}
	total := n + 1 + fats
	out := make([]byte, sec*(1+total))
	le := binary.LittleEndian
	copy(out, oleMagic)
	le.PutUint16(out[24:], 0x3E)
	le.PutUint16(out[26:], 3)
	le.PutUint16(out[28:], 0xFFFE)
	le.PutUint16(out[30:], 9)
	le.PutUint16(out[32:], 6)
	le.PutUint32(out[44:], uint32(fats))
	le.PutUint32(out[48:], uint32(dir))
	le.PutUint32(out[56:], 4096)
	le.PutUint32(out[60:], cfbEndOfChain)
	le.PutUint32(out[68:], cfbEndOfChain)
	for i := range 109 {
		v := uint32(cfbFreeSect)
		if i < fats {
			v = uint32(n + 1 + i)
		}
		le.PutUint32(out[76+4*i:], v)
	}
	copy(out[sec:], stream)
	entry := func(b []byte, name string, typ byte, child, start uint32, size int) {
		for i, c := range name {
			le.PutUint16(b[2*i:], uint16(c))
		}
		le.PutUint16(b[64:], uint16(2*(len(name)+1)))
		b[66], b[67] = typ, 1
		le.PutUint32(b[68:], cfbNoStream)
		le.PutUint32(b[72:], cfbNoStream)
		le.PutUint32(b[76:], child)
		le.PutUint32(b[116:], start)
		le.PutUint64(b[120:], uint64(size))
	}
	d := out[sec*(1+dir):]
	entry(d[0:], "Root Entry", 5, 1, cfbEndOfChain, 0)
	entry(d[128:], "Workbook", 2, cfbNoStream, 0, len(stream))
	for i := 2; i < 4; i++ {
		for _, off := range []int{68, 72, 76} {
			le.PutUint32(d[128*i+off:], cfbNoStream)
		}
	}
	fat := out[sec*(2+dir):]
	for i := range fats * sec / 4 {
		le.PutUint32(fat[4*i:], cfbFreeSect)
	}
	for i := range n {
		next := uint32(i + 1)
		if i == n-1 {
			next = cfbEndOfChain
		}
		le.PutUint32(fat[4*i:], next)
	}
	le.PutUint32(fat[4*dir:], cfbEndOfChain)
	for i := range fats {
		le.PutUint32(fat[4*(n+1+i):], cfbFATSect)
	}
	return out
}

// repeatedFieldCSV is a CSV whose rows each hold one quoted field of about n bytes with line breaks inside, in
// Windows-1252 (a "…" byte on every line), which the reader converts and cleanCell rewrites.
func repeatedFieldCSV(n, rows int) []byte {
	field := `"` + strings.ReplaceAll(longText(n), "St", "St\x85") + `"`
	var b bytes.Buffer
	b.WriteString("Address\r\n")
	for range rows {
		b.WriteString(field)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// Reading a file that expands (one long value shown in many cells) costs bounded memory: the reader stops once
// the text it would keep passes maxTextBytes, so the heap never grows by much more than that, whatever the file
// says. Before that bound, the 40 KB workbook below took the heap from a few MB to more than 700 MB.
func TestReadHostileFilesPeakMemory(t *testing.T) {
	if raceFactor == 1 {
		t.Skip("the race detector changes what the heap holds")
	}
	const budget = 160 << 20 // maxTextBytes of kept text, the copies cleanCell makes of it, and the collector's slack
	tests := []struct {
		name, file string
		data       []byte
		expands    bool // past maxTextBytes once read: refused
	}{
		{"xlsx: one shared string in every cell", "shared.xlsx", sharedStringXLSX(t, 32<<10, 12_000, 1, false), true},
		{"xlsx: one rich text shared string in every cell", "rich.xlsx", sharedStringXLSX(t, 32<<10, 12_000, 1, true), true},
		{"xlsx: one shared string in every cell of wide rows", "wide.xlsx", sharedStringXLSX(t, 2<<10, 600, 400, false), true},
		{"xls: one SST string with carriage returns in every cell", "sst.xls", sstXLS(8000, 30_000, 2), true},
		{"csv: a long field with line breaks on every row", "field.csv", repeatedFieldCSV(50<<10, 800), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tbl *Table
			var err error
			peak := peakHeap(t, 2800<<20, func() { tbl, err = ReadFile(tt.file, tt.data, "enterprise") })
			t.Logf("%d KB file: heap grew by %d MB", len(tt.data)>>10, peak>>20)
			if peak > budget {
				t.Errorf("reading a %d KB file grew the heap by %d MB, want at most %d MB", len(tt.data)>>10,
					peak>>20, budget>>20)
			}
			switch {
			case tt.expands:
				wantFileError(t, err, apperr.KindTooLarge, "file_too_large", "File Too Large",
					"expands to more than 64 MB of text once read")
			case err != nil:
				t.Fatalf("ReadFile = %v", err)
			default:
				checkTable(t, tbl)
			}
			tbl = nil
		})
	}
}
