package address

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of an address after normalization: upper case, with periods, apostrophes and accents
// removed. Hyphens and slashes survive only inside words that hold a digit ("123-45", "1/2", "4-B").
type token struct {
	s string
	// dot records that the word was written with a period, which marks it as an abbreviation: "No." is North
	// while "NO" is a word.
	dot bool
}

// span is a token while tokenizing: a range of the shared buffer.
type span struct {
	start, end int
	dot        bool
}

// hyphenHighwayPrefixes are the route prefixes written joined to their number with a hyphen ("I-95", "US-101",
// "CR-12"). The tokenizer splits them so the highway rules see the same words as in "I 95".
var hyphenHighwayPrefixes = map[string]bool{
	"I": true, "IH": true, "US": true, "SR": true, "SH": true, "CR": true, "FM": true, "HWY": true, "RT": true,
	"RTE": true, "ROUTE": true, "HIGHWAY": true,
}

// tokenizer turns a line into comma-separated segments of tokens with a single backing buffer, so a parse costs a
// handful of allocations however long the address is.
type tokenizer struct {
	buf       []byte
	spans     []span
	segEnds   []int // index into spans where each segment ends
	wordStart int   // start of the current word in buf, or -1
	runStart  int   // start of the current period-separated run inside the word
	hasDigit  bool
	hasHyphen bool
	dot       bool
}

// tokenize splits line into segments (separated by commas, semicolons or line breaks) of tokens. Empty segments
// are dropped, so ",," and a trailing comma mean nothing.
func tokenize(line string) [][]token {
	t := tokenizer{buf: make([]byte, 0, len(line)+8), spans: make([]span, 0, 16), wordStart: -1}
	for i := 0; i < len(line); {
		r, size := rune(line[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(line[i:])
		}
		next := i + size
		switch {
		case r >= 'a' && r <= 'z':
			t.addLetter(byte(r - 'a' + 'A'))
		case r >= 'A' && r <= 'Z':
			t.addLetter(byte(r))
		case r >= '0' && r <= '9':
			t.addDigit(byte(r))
		case r == '.':
			t.period(line, next)
		case r == '-':
			if t.wordStart >= 0 && isWordStart(line, next) {
				t.buf = append(t.buf, '-')
				t.hasHyphen = true
			} else {
				t.endWord()
			}
		case r == '/':
			if t.wordStart >= 0 && len(t.buf) > t.wordStart && isDigit(t.buf[len(t.buf)-1]) &&
				next < len(line) && isDigit(line[next]) {
				t.buf = append(t.buf, '/')
			} else {
				t.endWord()
			}
		case r == '\'' || r == '`' || r == '\u2019' || r == '\u2018':
			// O'Brien is OBRIEN: an apostrophe joins, it does not separate.
		case r == '#':
			t.endWord()
			t.addSymbol("#")
		case r == ',' || r == ';' || r == '\n' || r == '\r' || r == '|':
			t.endWord()
			t.endSegment()
		case r == '\u00BD':
			t.endWord()
			t.addSymbol("1/2")
		case r == '\u00BC':
			t.endWord()
			t.addSymbol("1/4")
		case r == '\u00BE':
			t.endWord()
			t.addSymbol("3/4")
		case r >= 0x300 && r <= 0x36F:
			// A combining accent belongs to the letter before it, which is kept without it.
		case r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7:
			// Latin-1 accented letters fold to their base letter so "CAÑADA" matches "CANADA".
			for _, c := range []byte(latin1Fold[r-0xC0]) {
				t.addLetter(c)
			}
		case r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			u := unicode.ToUpper(r)
			if t.wordStart < 0 {
				t.startWord()
			}
			t.buf = utf8.AppendRune(t.buf, u)
		default:
			t.endWord()
		}
		i = next
	}
	t.endWord()
	t.endSegment()
	return t.finish()
}

// latin1Fold holds the ASCII spelling of U+00C0 to U+00FF (the two symbols × and ÷ are never looked up).
var latin1Fold = [64]string{
	"A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
	"D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "SS",
	"A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
	"D", "N", "O", "O", "O", "O", "O", "", "O", "U", "U", "U", "U", "Y", "TH", "Y",
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordStart reports whether line[i] begins a letter or digit, which decides whether a hyphen or period joins
// two parts of one word.
func isWordStart(line string, i int) bool {
	if i >= len(line) {
		return false
	}
	c := line[i]
	if c < utf8.RuneSelf {
		return isDigit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
	}
	r, _ := utf8.DecodeRuneInString(line[i:])
	return r != utf8.RuneError && (unicode.IsLetter(r) || (r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7))
}

func isLetterAt(line string, i int) bool {
	if i >= len(line) {
		return false
	}
	c := line[i]
	if c < utf8.RuneSelf {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
	}
	return isWordStart(line, i)
}

func (t *tokenizer) startWord() {
	t.wordStart = len(t.buf)
	t.runStart = len(t.buf)
	t.hasDigit, t.hasHyphen, t.dot = false, false, false
}

func (t *tokenizer) addLetter(c byte) {
	if t.wordStart < 0 {
		t.startWord()
	}
	t.buf = append(t.buf, c)
}

func (t *tokenizer) addDigit(c byte) {
	if t.wordStart < 0 {
		t.startWord()
	}
	t.hasDigit = true
	t.buf = append(t.buf, c)
}

// period handles '.': it joins the single letters of an abbreviation ("N.E." is NE, "P.O." is PO) and otherwise
// ends the word ("ST.LOUIS" is ST LOUIS).
func (t *tokenizer) period(line string, next int) {
	if t.wordStart < 0 {
		return
	}
	t.dot = true
	if len(t.buf)-t.runStart == 1 && isLetterAt(line, next) {
		t.runStart = len(t.buf)
		return
	}
	t.endWord()
}

func (t *tokenizer) addSymbol(s string) {
	start := len(t.buf)
	t.buf = append(t.buf, s...)
	t.spans = append(t.spans, span{start: start, end: len(t.buf)})
}

// endWord closes the current word. A hyphenated word without digits is two words ("WILKES-BARRE"); one with
// digits ("123-45", "4-B", "I-95") stays whole here, and finish splits a route prefix off it.
func (t *tokenizer) endWord() {
	if t.wordStart < 0 {
		return
	}
	start, end := t.wordStart, len(t.buf)
	t.wordStart = -1
	if start == end {
		return
	}
	if t.hasHyphen && !t.hasDigit {
		from := start
		for i := start; i <= end; i++ {
			if i == end || t.buf[i] == '-' {
				if i > from {
					t.spans = append(t.spans, span{start: from, end: i})
				}
				from = i + 1
			}
		}
		if n := len(t.spans); n > 0 {
			t.spans[n-1].dot = t.dot
		}
		return
	}
	t.spans = append(t.spans, span{start: start, end: end, dot: t.dot})
}

func (t *tokenizer) endSegment() {
	last := 0
	if n := len(t.segEnds); n > 0 {
		last = t.segEnds[n-1]
	}
	if len(t.spans) > last {
		t.segEnds = append(t.segEnds, len(t.spans))
	}
}

// finish converts the spans into tokens sharing one string, splitting a house number run into its street name
// ("123MAIN ST" is 123 MAIN ST) at the start of each segment.
func (t *tokenizer) finish() [][]token {
	str := string(t.buf)
	toks := make([]token, 0, len(t.spans)+2)
	segs := make([][]token, 0, len(t.segEnds))
	from := 0
	for _, segEnd := range t.segEnds {
		segStart := len(toks)
		for i := from; i < segEnd; i++ {
			sp := t.spans[i]
			s := str[sp.start:sp.end]
			// A '#' is kept only where it can introduce a unit: before a unit number, and either opening a part
			// ("#4B, 123 MAIN ST") or after a house number and a name. Anywhere else it means nothing, and
			// keeping it would make the address read differently from its own normalized line.
			if s == "#" {
				next := ""
				if i+1 < segEnd {
					next = str[t.spans[i+1].start:t.spans[i+1].end]
				}
				if next == "#" || !validUnitNumber(next) || (len(toks) > segStart && len(toks)-segStart < 2) {
					continue
				}
			}
			if i == from {
				if d := leadingDigits(s); d > 0 && len(s)-d >= 3 && allLetters(s[d:]) {
					toks = append(toks, token{s: s[:d]})
					s = s[d:]
				}
			}
			// A route written "I-95" or "US-101" is split after its prefix so the highway rules see the words of
			// "I 95", except after a unit designator, where it is a unit number ("APT I-2" is building I, apartment
			// 2).
			if strings.IndexByte(s, '-') > 0 && hasDigit(s) {
				afterDesignator := false
				if len(toks) > segStart {
					_, afterDesignator = unitDesignators[toks[len(toks)-1].s]
				}
				for !afterDesignator {
					h := strings.IndexByte(s, '-')
					if h <= 0 || !hyphenHighwayPrefixes[s[:h]] {
						break
					}
					toks = append(toks, token{s: s[:h]})
					s = s[h+1:]
				}
			}
			toks = append(toks, token{s: s, dot: sp.dot})
		}
		if len(toks) > segStart {
			segs = append(segs, toks[segStart:len(toks):len(toks)])
		}
		from = segEnd
	}
	return segs
}

func leadingDigits(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return len(s) > 0
}
