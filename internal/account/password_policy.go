package account

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"

	"github.com/trustelem/zxcvbn"

	"valuator/internal/text"
)

// Why a new password is refused, in words: each says what makes it easy to guess, so that the person picks
// something else rather than a variant of the same.
const (
	// MsgPasswordCommon answers a password from the list of the most common ones.
	MsgPasswordCommon = "This password is too common; choose one that is harder to guess"
	// MsgPasswordRepeated answers one character over and over ("aaaaaaaa").
	MsgPasswordRepeated = "This password repeats one character; choose one that is harder to guess"
	// MsgPasswordPattern answers a short pattern over and over ("abcabcabc", "12341234").
	MsgPasswordPattern = "This password repeats a short pattern; choose one that is harder to guess"
	// MsgPasswordProduct answers the product's name, with or without digits and symbols ("Valuator2026!").
	MsgPasswordProduct = "This password is the name of this product; choose one that is harder to guess"
	// MsgPasswordWeak answers what a strength estimator finds quickly: dictionary words with common substitutions,
	// keyboard walks, dates, names.
	MsgPasswordWeak = "This password is easy to guess (a common word, name, date or keyboard pattern); add another " +
		"word or two, or mix in digits and symbols in unexpected places"
)

// ProductName is the word no password may be: the first guess of anyone attacking this product's accounts.
const ProductName = "valuator"

// minPasswordScore is the lowest zxcvbn score (0 to 4) a new password may have: 2 is "somewhat guessable", about
// 10^6 to 10^8 guesses, which an online attacker held to a few guesses a minute by the sign-in throttle cannot
// reach; 0 and 1 fall to the first thousands of guesses of a cracking dictionary.
const minPasswordScore = 2

// zxcvbnRunes bounds the part of a password the estimator reads: its matching grows faster than linearly with the
// length, and a password this long that is still weak is weak in its first 64 characters too.
const zxcvbnRunes = 64

// commonPasswordsText is the 10,000 most common passwords of zxcvbn's frequency list (the file's first line names
// the source and its licence). Attackers try these first, so an account protected by one falls to the first
// minutes of an online guessing attack whatever the sign-in throttle does.
//
//go:embed common_passwords.txt
var commonPasswordsText string

// commonPasswords is the list as a set, built on first use so that a binary that never checks a new password
// (a worker) does not pay for it.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	lines := strings.Split(commonPasswordsText, "\n")
	set := make(map[string]struct{}, len(lines))
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		set[strings.ToLower(l)] = struct{}{}
	}
	return set
})

// IsCommonPassword reports whether password is one of the 10,000 most common passwords, ignoring case and the
// spaces around it ("Password1 " is as weak as "password1").
func IsCommonPassword(password string) bool {
	_, ok := commonPasswords()[strings.ToLower(strings.TrimSpace(password))]
	return ok
}

// newPasswordProblem says why password cannot be chosen as a new password (at sign-up, change or reset), as a
// message for the form's field whose label is noun ("Password", "New password"), or "" when it can. The length
// rules are checked by the forms themselves (each with the spec's text); these are the rules that make a long
// enough password still a bad one. email is the account's address, or "" when not known yet.
func newPasswordProblem(noun, password, email string) string {
	if p := text.Problem(password); p != "" {
		return noun + " " + p
	}
	if strings.TrimSpace(password) == "" {
		return noun + " must not be only spaces"
	}
	pw := strings.ToLower(strings.TrimSpace(password))
	switch unit := repeatedUnit(pw); {
	case unit == 1:
		return MsgPasswordRepeated
	case unit > 0 && unit <= 4:
		return MsgPasswordPattern
	}
	if lettersOf(pw) == ProductName {
		return MsgPasswordProduct
	}
	if IsCommonPassword(password) {
		return MsgPasswordCommon
	}
	if p := passwordIsEmailProblem(noun, password, email); p != "" {
		return p
	}
	if passwordScore(password, email) < minPasswordScore {
		return MsgPasswordWeak
	}
	return ""
}

// repeatedUnit is the length of the shortest piece whose repetition makes up s ("abab": 2), or 0 when s is not a
// repetition (or too short to be one).
func repeatedUnit(s string) int {
	r := []rune(s)
	for n := 1; n <= len(r)/2; n++ {
		if len(r)%n != 0 {
			continue
		}
		if strings.Repeat(string(r[:n]), len(r)/n) == s {
			return n
		}
	}
	return 0
}

// lettersOf is s without what is not a letter: "Valuator-2026!" is "valuator".
func lettersOf(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// passwordScore is zxcvbn's score of a password (0 to 4), which also knows the product's name and the account's
// address as words an attacker tries first.
func passwordScore(password, email string) int {
	r := []rune(password)
	if len(r) > zxcvbnRunes {
		r = r[:zxcvbnRunes]
	}
	inputs := []string{ProductName}
	if email != "" {
		key := EmailKey(email)
		local, _, _ := strings.Cut(key, "@")
		inputs = append(inputs, key, local)
	}
	return zxcvbn.PasswordStrength(string(r), inputs).Score
}

// passwordIsEmailProblem is the one rule of newPasswordProblem that needs the account: the address, or its part
// before the @, is the first guess of anyone who knows the address. "" when email is "" (not known yet). Change
// and reset check it once they have read the account; their forms checked the others already.
func passwordIsEmailProblem(noun, password, email string) string {
	if email == "" {
		return ""
	}
	pw := strings.ToLower(strings.TrimSpace(password))
	key := EmailKey(email)
	local, _, _ := strings.Cut(key, "@")
	if pw == key || pw == local {
		return noun + " must not be your email address"
	}
	return ""
}
