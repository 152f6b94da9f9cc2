// Package text holds the rules for text taken from callers, in one place: what any stored string must be (valid
// UTF-8 without NUL, which PostgreSQL refuses in a text column) and what a name must be (one line a person can
// read: no control characters, no characters that reorder the text around them), and what a message or a reason
// written for someone else must be (the same, on several lines).
package text

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Storable reports whether s can be stored and shown as text: valid UTF-8 without NUL.
func Storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Problem says, as the end of a sentence that starts with the field's name, why s cannot be stored ("must not
// contain NUL characters"), or "" when it can.
func Problem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "must be valid UTF-8 text"
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL characters"
	}
	return ""
}

// NameProblem is Problem for a name (a person's or company's, an API key's, a file's): besides being storable it
// is one line without control characters, and without the bidirectional overrides and isolates (U+202A-U+202E,
// U+2066-U+2069) that make a name display as something else, in the dashboard or in an export. The plain
// direction marks (U+200E, U+200F, U+061C) that names written right to left legitimately use are allowed.
func NameProblem(s string) string {
	return readableProblem(s, false)
}

// MessageProblem is Problem for text one person writes for another to read, which may run over several lines: a
// support chat message, an operator's reason in the audit log (issue 36, L-3). It refuses what NameProblem refuses
// except tabs and line breaks: the same bidirectional overrides and isolates (a reason or a message that reads
// differently from what was stored), and the other control characters.
func MessageProblem(s string) string {
	return readableProblem(s, true)
}

// readableProblem is the one rule behind NameProblem (one line) and MessageProblem (lines).
func readableProblem(s string, lines bool) string {
	if p := Problem(s); p != "" {
		return p
	}
	for _, r := range s {
		switch {
		case isBidiControl(r):
			return "must not contain text-direction control characters"
		case lines && (r == '\t' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029'):
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			if lines {
				return "must not contain control characters other than tabs and line breaks"
			}
			return "must not contain control characters or line breaks"
		}
	}
	return ""
}

// AddressProblem is NameProblem for an identifier people tell apart by eye (an email address): besides, no
// invisible format characters (Unicode's Cf: the zero-width space and joiners, the soft hyphen, the word joiner,
// the byte-order mark), and each part between '@' and '.' in one script, as Unicode's identifier-spoofing profile
// asks (UTS #39, highly restrictive: Latin may mix with Han and Japanese or Korean, nothing else mixes). Without this
// "pat\u200b@example.com" and "p\u0430t@example.com" (a Cyrillic a) were new accounts, each given the welcome
// credits, that read as pat@example.com in the console (issue 36, L-2). An address wholly in another script that
// looks Latin (the whole-script confusables) is not caught: that needs Unicode's confusables table.
func AddressProblem(s string) string {
	if p := NameProblem(s); p != "" {
		return p
	}
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) {
			return "must not contain invisible characters"
		}
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '@' || r == '.' }) {
		if !oneScript(part) {
			return "must not mix letters of different alphabets"
		}
	}
	return ""
}

// oneScript reports whether the letters of s are of one script, or Latin with Han and the Japanese or Korean
// scripts that are written with it (UTS #39's highly restrictive level); digits and punctuation belong to all.
func oneScript(s string) bool {
	var first *unicode.RangeTable
	cjk := map[*unicode.RangeTable]bool{unicode.Han: true, unicode.Hiragana: true, unicode.Katakana: true,
		unicode.Hangul: true, unicode.Bopomofo: true}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsMark(r) {
			continue
		}
		t := scriptOf(r)
		switch {
		case t == nil || t == first:
		case first == nil:
			first = t
		default:
			// Latin with the scripts of Chinese, Japanese and Korean is one writing system's usual mix.
			if !(t == unicode.Latin || cjk[t]) || !(first == unicode.Latin || cjk[first]) {
				return false
			}
		}
	}
	return true
}

// scriptOf is the script of a letter or mark (nil for the Common and Inherited ones every script uses).
func scriptOf(r rune) *unicode.RangeTable {
	if unicode.Is(unicode.Common, r) || unicode.Is(unicode.Inherited, r) {
		return nil
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

// isBidiControl reports the characters that reorder the text around them: the embeddings and overrides
// (U+202A-U+202E) and the isolates (U+2066-U+2069).
func isBidiControl(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069'
}

// Sanitize is s made storable, for recording what a caller sent when the request is refused: NUL characters
// are dropped and bytes that are not UTF-8 become U+FFFD.
func Sanitize(s string) string {
	if Storable(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Truncate cuts s to at most n bytes at a character boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// Plural is one when n is 1 and many otherwise: "1 second", "12 seconds".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by the word that fits it: Count(1, "request", "requests") is "1 request", with 60 it is
// "60 requests".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}
