package account

import (
	_ "embed"
	"strings"
	"sync"

	"valuator/internal/text"
)

// MsgPasswordCommon is the answer to a password from the list of the most common ones. It says why, so that the
// person picks something else rather than a variant of the same word.
const MsgPasswordCommon = "This password is too common; choose one that is harder to guess"

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
	if IsCommonPassword(password) {
		return MsgPasswordCommon
	}
	return passwordIsEmailProblem(noun, password, email)
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
