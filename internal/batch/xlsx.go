package batch

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
	"github.com/xuri/nfp"
)

// Limits on the parts of an .xlsx once unzipped. A 50 MB upload can hold gigabytes of highly compressible XML (a
// zip bomb); the sizes the zip declares are checked before anything is inflated, and archive/zip refuses to
// inflate an entry past its declared size, so a lying header gains nothing. excelize holds every part in memory
// as bytes (one byte per byte, so the sizes bound that memory directly) and is given the same total and sheet
// limits (its UnzipSizeLimit and UnzipXMLSizeLimit) as a second line; since no sheet passes the first, excelize
// never spills a sheet to a temporary file and the package does no I/O. Worksheets are streamed row by row; the
// sizes below are far above what a sheet of 50,000 rows needs (about 25 MB of XML at 10 columns).
const (
	xlsxMaxTotal   = 200 << 20 // all parts together
	xlsxMaxSheet   = 100 << 20 // one worksheet's XML
	xlsxMaxPart    = 16 << 20  // any other XML part (styles, workbook, relationships)
	xlsxMaxEntries = 10000     // parts in the zip
)

// Limits on what excelize decodes whole into Go structs. Measured with hostile parts of 4 MB each, decoding
// costs far more than the XML's size, and the cost follows the number of elements, not the bytes: 460 bytes of
// heap for each <xf/> of styles.xml (96 times its size), 700 for a <definedName/> of workbook.xml, 200 for a
// <si/> of sharedStrings.xml, 130 for a <c/> of calcChain.xml. So the number of elements (start tags) of each
// part decoded whole is counted before excelize opens the file, with caps that a workbook saved by Excel stays
// far below, and that keep each part's decoded structs under about 100 MB.
const (
	// xlsxMaxStrings bounds sharedStrings.xml, which this package decodes itself (see sharedStrings): 32 MB of
	// XML holds the unique strings of 50,000 rows of 10 text columns at 40 bytes each with room to spare.
	xlsxMaxStrings = 32 << 20
	// xlsxMaxStringItems bounds the entries of the shared string table: each costs about 190 bytes besides its
	// text (the entry excelize is given, its key and its slot here), so 400,000 cost about 76 MB. 400,000 is 50,000
	// rows of 8 columns that are all different (addresses repeat little, cities and states a lot).
	xlsxMaxStringItems = 400_000
	// xlsxMaxStyleTags bounds styles.xml, which holds a few thousand elements in a normal workbook and up to
	// about 150,000 in one bloated to Excel's own limit of 64,000 cell formats.
	xlsxMaxStyleTags = 150_000
	// xlsxMaxCalcChainTags bounds calcChain.xml, one element for each formula cell: 50,000 rows of 6 formulas.
	xlsxMaxCalcChainTags = 300_000
	// xlsxMaxOtherTags bounds the other parts excelize decodes whole (the workbook and its defined names, the
	// relationships, the content types, the theme), which hold a few hundred elements in a normal workbook.
	xlsxMaxOtherTags = 50_000
)

// Limits on the work excelize does for each cell, which a worksheet can multiply. Each is checked by scanning
// the XML of every part before any cell is read (see scanCost).
const (
	// xlsxMaxRowCells bounds the cells of one row, which excelize collects before this package sees any of
	// them: 16,384 is Excel's last column (XFD). Without it, a row of a million cells that each show a long
	// value would take gigabytes inside one call to excelize.
	xlsxMaxRowCells = 16_384
	// xlsxMaxWork bounds the rows and cells excelize reads in all sheets, counting a formatted cell by the
	// length of its number format: excelize parses the format code again for every cell, about 3 µs for a
	// short one and 130 µs for one of 255 characters. A unit is about 3 µs, so the bound is about 12 seconds of
	// CPU, while 50,000 rows of 40 plain cells are about 2 million units.
	xlsxMaxWork = 4_000_000
	// xlsxMaxEscapeWork bounds the bytes excelize copies to decode the _xHHHH_ escapes of a text (its
	// bstrUnmarshal appends to a string, so the work grows with the square of the escapes in one text: a 1 MB
	// cell of escapes took 110 seconds). Excel writes one for each carriage return in a cell; 2^30 bytes is a
	// fraction of a second.
	xlsxMaxEscapeWork = 1 << 30
	// xlsxMaxFormatLen is Excel's own limit on a number format code ([MS-XLS] 2.4.126: 255 characters); a
	// longer code cannot come from Excel, and one of 200,000 characters made excelize spend a second on each
	// cell. xlsxMaxNumFmts bounds the custom number formats, which excelize searches one by one for every
	// formatted cell; Excel allows about 250.
	xlsxMaxFormatLen = 255
	xlsxMaxNumFmts   = 1000
)

const msgBadWorkbook = "This file is not a valid Excel workbook; it may be damaged or only partly uploaded. " +
	"Open it in Excel and save it again, or save it as CSV."

// readXLSX reads the first visible sheet that holds data (else the first hidden one) as displayed values: a
// number shows as Excel shows it with its format ("02134" for a ZIP code formatted 00000), and a whole number
// stored with a decimal part ("98103.0") as the whole number.
func readXLSX(data []byte, plan string) (t *Table, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, errParse(msgBadWorkbook)
		}
	}()
	if err := checkZip(data); err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit: xlsxMaxTotal, UnzipXMLSizeLimit: xlsxMaxSheet})
	if err != nil {
		return nil, xlsxError(err)
	}
	defer f.Close()
	if err := limitFormats(f); err != nil {
		return nil, err
	}
	if err := scanCost(f); err != nil {
		return nil, err
	}
	sst, err := sharedStrings(f)
	if err != nil {
		return nil, err
	}
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return nil, errParse(msgBadWorkbook)
	}
	var hidden []string
	var visible []string
	for _, name := range sheets {
		if v, err := f.GetSheetVisible(name); err == nil && !v {
			hidden = append(hidden, name)
		} else {
			visible = append(visible, name)
		}
	}
	var firstErr error
	budget := 4 * maxCells // cells looked at, shared by the sheets tried (see builder.cellLimit)
	for _, name := range append(visible, hidden...) {
		b, final, err := readSheet(f, name, budget, sst, plan)
		if err != nil && (final || b != nil && b.sawCells > 0) {
			return nil, err // a sheet with data past the limits, or damaged in the middle
		}
		if err != nil {
			// A sheet that cannot be read at all (a chart sheet): the next may hold the data.
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		budget -= b.sawCells
		if !b.empty() {
			return b.finish()
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, errEmpty(msgEmptyExcel)
}

// readSheet reads one sheet into a builder. It stops at the first record past the limits; final reports an
// error of this package's limits, which no other sheet can make right (an error of excelize may mean only that
// this sheet is not a worksheet).
func readSheet(f *excelize.File, sheet string, budget int, sst *stringTable, plan string) (b *builder, final bool,
	err error) {
	rows, err := f.Rows(sheet)
	if err != nil {
		return nil, false, xlsxError(err)
	}
	defer rows.Close()
	b = newBuilder(msgEmptyExcel, plan)
	b.cellLimit = budget
	for line := 1; rows.Next(); line++ {
		cells, err := rows.Columns()
		if err != nil {
			return b, false, xlsxError(err)
		}
		for i, c := range cells {
			v, err := sst.resolve(c)
			if err != nil {
				return b, true, err
			}
			cells[i] = wholeNumber(v)
		}
		if err := b.add(line, cells); err != nil {
			return b, true, err
		}
	}
	if err := rows.Error(); err != nil {
		return b, false, xlsxError(err)
	}
	return b, false, nil
}

var decimalZeros = regexp.MustCompile(`^-?[0-9]+\.0+$`)

// wholeNumber writes "98103.0" as "98103". Some writers store whole numbers with a decimal part, and a General
// format shows them without it.
func wholeNumber(s string) string {
	if len(s) < 3 || len(s) > 40 || !decimalZeros.MatchString(s) {
		return s
	}
	return s[:strings.IndexByte(s, '.')]
}

// checkZip refuses a zip whose parts would inflate past the limits (see xlsxMaxTotal), before excelize inflates
// any of them, and one whose parts that excelize decodes whole hold more elements than their caps (see
// xlsxMaxStyleTags).
func checkZip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errParse(msgBadWorkbook)
	}
	if len(zr.File) > xlsxMaxEntries {
		return errParse(msgBadWorkbook)
	}
	var total uint64
	hasWorkbook := false
	parts := make(map[string][]*zip.File, len(zr.File))
	for _, zf := range zr.File {
		size := zf.UncompressedSize64
		total += size
		name := partName(zf.Name)
		parts[name] = append(parts[name], zf)
		limit := uint64(0)
		switch {
		case strings.HasPrefix(name, "xl/worksheets/"):
			limit = xlsxMaxSheet
		case name == "xl/sharedstrings.xml":
			limit = xlsxMaxStrings
		case strings.HasSuffix(name, ".xml") || strings.HasSuffix(name, ".rels") || strings.HasSuffix(name, ".vml"):
			limit = xlsxMaxPart
		}
		if name == "xl/workbook.xml" {
			hasWorkbook = true
		}
		if limit > 0 && size > limit {
			return errParsef("This workbook is too large to read once unzipped (%s is over %d MB). Save the sheet "+
				"with the addresses as CSV, or split the file.", zf.Name, limit>>20)
		}
		if total > xlsxMaxTotal {
			return errParsef("This workbook is too large to read once unzipped (over %d MB). Save the sheet with "+
				"the addresses as CSV, or split the file.", xlsxMaxTotal>>20)
		}
	}
	if !hasWorkbook {
		// A zip without a workbook part is some other kind of file (a Word document, an archive): 415.
		return errWrongType("This file is a zip archive, not an Excel workbook. Please upload a CSV or Excel file.")
	}
	// The parts excelize decodes whole, by the paths it reads them from; the workbook's comes from the package
	// relationships, as excelize finds it.
	caps := map[string]int{
		"[content_types].xml":        xlsxMaxOtherTags,
		"_rels/.rels":                xlsxMaxOtherTags,
		"xl/styles.xml":              xlsxMaxStyleTags,
		"xl/calcchain.xml":           xlsxMaxCalcChainTags,
		"xl/theme/theme1.xml":        xlsxMaxOtherTags,
		"xl/workbook.xml":            xlsxMaxOtherTags,
		"xl/_rels/workbook.xml.rels": xlsxMaxOtherTags,
	}
	for _, zf := range parts["_rels/.rels"] {
		if err := checkTags(zf, xlsxMaxOtherTags); err != nil {
			return err
		}
	}
	if wb := workbookPath(parts["_rels/.rels"]); wb != "" {
		caps[wb] = xlsxMaxOtherTags
		caps[relsPath(wb)] = xlsxMaxOtherTags
	}
	for name, limit := range caps {
		for _, zf := range parts[name] {
			if err := checkTags(zf, limit); err != nil {
				return err
			}
		}
	}
	return nil
}

// partName is a zip entry's name as excelize finds it (with "/" for "\"), in lower case so that no spelling
// escapes a check.
func partName(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
}

// checkTags refuses a part with more than limit elements. It inflates the part, as far as its declared size,
// without keeping it.
func checkTags(zf *zip.File, limit int) error {
	rc, err := zf.Open()
	if err != nil {
		return errParse(msgBadWorkbook)
	}
	defer rc.Close()
	buf := make([]byte, 32<<10)
	n, afterLT := 0, false
	for {
		k, err := rc.Read(buf)
		n += countStartTags(buf[:k], &afterLT)
		if n > limit {
			return errParsef("This workbook has too much formatting or too many parts to read (%s holds more "+
				"than %s elements). Copy the sheet with the addresses into a new workbook, or save it as CSV.",
				zf.Name, thousands(limit))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errParse(msgBadWorkbook)
		}
	}
}

// countStartTags counts the start tags in b: a '<' followed by anything but '/', '?' or '!'. afterLT carries a
// '<' that ended the previous chunk.
func countStartTags(b []byte, afterLT *bool) int {
	n := 0
	if *afterLT && len(b) > 0 {
		if c := b[0]; c != '/' && c != '?' && c != '!' {
			n++
		}
		*afterLT = false
	}
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			return n
		}
		if i+1 == len(b) {
			*afterLT = true
			return n
		}
		if c := b[i+1]; c != '/' && c != '?' && c != '!' {
			n++
		}
		b = b[i+1:]
	}
}

// Relationship types of the workbook part, in the transitional and the strict namespaces.
const (
	relOfficeDocument       = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
	relOfficeDocumentStrict = "http://purl.oclc.org/ooxml/officeDocument/relationships/officeDocument"
)

// workbookPath is the path of the workbook part named by the package relationships (lower case), as excelize
// finds it: the target of the first officeDocument relationship. "" when there is none.
func workbookPath(rels []*zip.File) string {
	if len(rels) == 0 {
		return ""
	}
	rc, err := rels[len(rels)-1].Open()
	if err != nil {
		return ""
	}
	defer rc.Close()
	var doc struct {
		Rel []struct {
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.NewDecoder(rc).Decode(&doc); err != nil {
		return ""
	}
	for _, r := range doc.Rel {
		if r.Type == relOfficeDocument || r.Type == relOfficeDocumentStrict {
			return partName(strings.TrimPrefix(r.Target, "/"))
		}
	}
	return ""
}

// relsPath is the relationships part of the part at p, as excelize names it.
func relsPath(p string) string {
	if dir := path.Dir(p); dir != "." {
		return strings.TrimPrefix(dir+"/_rels/"+path.Base(p)+".rels", "/")
	}
	return "_rels/" + path.Base(p) + ".rels"
}

// limitFormats makes every custom number format safe for excelize to apply to each cell. A format longer than
// Excel allows, or whose text section repeats the cell's text (";;;@@@@" shows a 32 KB text 4 times; excelize
// also repeats it for each "0" there) or holds more than 16 tokens (excelize appends them one by one to the
// text), is replaced by General, so its cells show their values as stored. Excel cannot write such formats, so
// no workbook made by a person loses anything. A workbook with more custom formats than Excel allows is refused.
func limitFormats(f *excelize.File) error {
	ss := f.Styles
	if ss == nil || ss.NumFmts == nil {
		return nil
	}
	if len(ss.NumFmts.NumFmt) > xlsxMaxNumFmts {
		return errParsef("This workbook has more than %s number formats, more than Excel allows. Copy the sheet "+
			"with the addresses into a new workbook, or save it as CSV.", thousands(xlsxMaxNumFmts))
	}
	for _, nf := range ss.NumFmts.NumFmt {
		if nf == nil {
			continue
		}
		for _, code := range []*string{&nf.FormatCode, &nf.FormatCode16} {
			if *code != "" && !safeFormat(*code) {
				*code = "General"
			}
		}
	}
	return nil
}

// safeFormat reports whether excelize may apply the number format code to every cell (see limitFormats).
func safeFormat(code string) bool {
	if utf8.RuneCountInString(code) > xlsxMaxFormatLen {
		return false
	}
	p := nfp.NumberFormatParser()
	for _, sec := range p.Parse(code) {
		if sec.Type != nfp.TokenSectionText {
			continue
		}
		repeats := 0
		for _, tok := range sec.Items {
			if tok.TType == nfp.TokenTypeTextPlaceHolder || tok.TType == nfp.TokenTypeZeroPlaceHolder {
				repeats++
			}
		}
		if repeats > 1 || len(sec.Items) > 16 {
			return false
		}
	}
	return true
}

// formatCosts is the work of formatting a cell of each cell format (by its index in styles.xml, the cell's "s"),
// in units of about 3 µs: 1 for a plain cell, more for a long number format code (see xlsxMaxWork).
func formatCosts(f *excelize.File) []int {
	ss := f.Styles
	if ss == nil || ss.CellXfs == nil {
		return nil
	}
	codeLen := map[int]int{}
	if ss.NumFmts != nil {
		for _, nf := range ss.NumFmts.NumFmt {
			if nf == nil {
				continue
			}
			if _, ok := codeLen[nf.NumFmtID]; !ok { // excelize takes the first format of an id
				codeLen[nf.NumFmtID] = max(len(nf.FormatCode), len(nf.FormatCode16))
			}
		}
	}
	costs := make([]int, len(ss.CellXfs.Xf))
	for i, xf := range ss.CellXfs.Xf {
		id := 0
		if xf.NumFmtID != nil {
			id = *xf.NumFmtID
		}
		n, ok := codeLen[id]
		if !ok && id != 0 {
			n = 48 // a built-in format: the longest are about 50 characters
		}
		costs[i] = 1 + n/6
	}
	return costs
}

// scanCost checks, before excelize reads any cell, the work that reading the cells will take (see
// xlsxMaxRowCells, xlsxMaxWork, xlsxMaxEscapeWork). It scans the XML of every part but the shared strings
// (which this package decodes itself), since a worksheet may be stored under any name, without decoding it: the
// start tags named row and c (the cells of a row are the c elements after its row tag, as excelize reads them),
// their s attribute, and the text between tags.
func scanCost(f *excelize.File) error {
	s := costScan{formats: formatCosts(f)}
	var err error
	f.Pkg.Range(func(name, v any) bool {
		b, ok := v.([]byte)
		if !ok || name == "xl/sharedStrings.xml" {
			return true
		}
		err = s.scan(b)
		return err == nil
	})
	return err
}

// costScan adds up the work of reading the parts it scans.
type costScan struct {
	formats []int // work of a cell by its s attribute
	work    int   // rows and cells, weighted (xlsxMaxWork)
	escapes int   // bytes copied decoding escapes (xlsxMaxEscapeWork)
}

func errTooMuchWork() error {
	return errParsef("This workbook has too many cells to read (more than %s, counting every sheet; a cell with "+
		"a long number format counts as several). Save the sheet with the addresses as CSV, or delete the sheets "+
		"you don't need.", thousands(xlsxMaxWork))
}

// scan adds the work of one part.
func (s *costScan) scan(b []byte) error {
	rowCells := -1 // cells since the last row tag; -1 before the first
	for len(b) > 0 {
		lt := bytes.IndexByte(b, '<')
		if lt < 0 {
			return s.text(b)
		}
		if err := s.text(b[:lt]); err != nil {
			return err
		}
		b = b[lt+1:]
		switch {
		case bytes.HasPrefix(b, []byte("![CDATA[")):
			end := bytes.Index(b, []byte("]]>"))
			if end < 0 {
				return s.text(b[8:])
			}
			if err := s.text(b[8:end]); err != nil {
				return err
			}
			b = b[end+3:]
			continue
		case bytes.HasPrefix(b, []byte("!--")):
			end := bytes.Index(b, []byte("-->"))
			if end < 0 {
				return nil
			}
			b = b[end+3:]
			continue
		case len(b) > 0 && (b[0] == '/' || b[0] == '?' || b[0] == '!'):
			end := bytes.IndexByte(b, '>')
			if end < 0 {
				return nil
			}
			b = b[end+1:]
			continue
		}
		name, attrs, rest := startTag(b)
		b = rest
		if i := bytes.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:]
		}
		switch string(name) {
		case "row":
			rowCells = 0
			s.work++
		case "c":
			if rowCells < 0 {
				continue // excelize looks for cells only after a row tag
			}
			if rowCells++; rowCells > xlsxMaxRowCells {
				return errParsef("A row of this workbook has more than %s cells, more than Excel allows. Open "+
					"it in Excel and save it again, or save it as CSV.", thousands(xlsxMaxRowCells))
			}
			s.work += s.cellCost(attrs)
		default:
			continue
		}
		if s.work > xlsxMaxWork {
			return errTooMuchWork()
		}
	}
	return nil
}

// cellCost is the work of a cell whose start tag has these attributes: 1, or its format's cost when it has an s
// attribute (excelize formats only cells with a style).
func (s *costScan) cellCost(attrs []byte) int {
	v := attrValue(attrs, "s")
	if v == nil {
		return 1
	}
	i, err := strconv.Atoi(strings.TrimSpace(string(v)))
	if err != nil || i <= 0 || i >= len(s.formats) {
		return 1
	}
	return s.formats[i]
}

// text adds the work of decoding the escapes of a text between tags: excelize copies the text decoded so far
// for each escape, so at most its length times the escapes.
func (s *costScan) text(b []byte) error {
	if len(b) < 7 {
		return nil
	}
	if n := bytes.Count(b, []byte("_x")); n > 0 {
		if s.escapes += n * len(b); s.escapes > xlsxMaxEscapeWork || n*len(b) < 0 {
			return errParse("This workbook has text written with too many _xHHHH_ escapes to read. Open it in " +
				"Excel and save it again, or save it as CSV.")
		}
	}
	return nil
}

// startTag splits the start tag at the beginning of b (after its '<') into its name and its attributes, and
// returns what follows its '>'. A '>' inside a quoted attribute value does not end the tag.
func startTag(b []byte) (name, attrs, rest []byte) {
	i := 0
	for i < len(b) && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' && b[i] != '/' && b[i] != '>' {
		i++
	}
	name = b[:i]
	var quote byte
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return name, b[i:j], b[j+1:]
		}
	}
	return name, b[i:], nil
}

// attrValue is the value of the attribute whose local name is local, or nil.
func attrValue(attrs []byte, local string) []byte {
	for len(attrs) > 0 {
		eq := bytes.IndexByte(attrs, '=')
		if eq < 0 {
			return nil
		}
		name := bytes.TrimSpace(attrs[:eq])
		if i := bytes.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:]
		}
		rest := bytes.TrimLeft(attrs[eq+1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' && rest[0] != '\'' {
			return nil
		}
		end := bytes.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return nil
		}
		if string(name) == local {
			return rest[1 : 1+end]
		}
		attrs = rest[end+2:]
	}
	return nil
}

// xlsxError turns an excelize error into a Parse Error. Its messages are written for programmers, so only the
// cases a person can act on are told apart.
func xlsxError(err error) error {
	if strings.Contains(err.Error(), "unzip size") {
		return errParsef("This workbook is too large to read once unzipped (over %d MB). Save the sheet with the "+
			"addresses as CSV, or split the file.", xlsxMaxTotal>>20)
	}
	if errors.Is(err, excelize.ErrWorkbookFileFormat) {
		return errParse(msgBadWorkbook)
	}
	if errors.Is(err, excelize.ErrMaxRows) {
		return errParse(msgBadWorkbook)
	}
	return errParse(fmt.Sprintf("%s Details: %s.", msgBadWorkbook, shortCause(err)))
}

// shortCause is the first line of an error, at most 120 bytes, for a message that helps support without
// flooding the screen.
func shortCause(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return strings.ToValidUTF8(s, "")
}
