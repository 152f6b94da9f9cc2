package account

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
)

func TestCommonPasswordList(t *testing.T) {
	first, _, _ := strings.Cut(commonPasswordsText, "\n")
	if !strings.HasPrefix(first, "#") || !strings.Contains(first, "zxcvbn") || !strings.Contains(first, "MIT") {
		t.Errorf("the list's first line %q does not name its source and licence", first)
	}
	if got := len(commonPasswords()); got != 10_000 {
		t.Errorf("the list holds %d passwords, want 10000", got)
	}
	for _, tt := range []struct {
		password string
		want     bool
	}{
		{"123456", true},
		{"password", true},
		{"PassWord", true},
		{" baseball ", true},
		{"qqqqqq1", true}, // the 10,000th
		{"correct-horse", false},
		{"", false},
		{"# The 10,000 most common passwords", false},
	} {
		if got := IsCommonPassword(tt.password); got != tt.want {
			t.Errorf("IsCommonPassword(%q) = %v, want %v", tt.password, got, tt.want)
		}
	}
}

func TestNewPasswordProblem(t *testing.T) {
	for _, tt := range []struct {
		name, password, email, want string
	}{
		{"fine", "correct-horse", "jane@example.com", ""},
		{"fine without an email", "correct-horse", "", ""},
		{"common", "football", "", MsgPasswordCommon},
		{"only spaces", "        ", "", "Password must not be only spaces"},
		{"only tabs and spaces", " \t \t \t \t", "", "Password must not be only spaces"},
		{"NUL", "correct\x00horse", "", "Password must not contain NUL characters"},
		{"the email", " Jane.Doe@Example.com", "jane.doe@example.com", "Password must not be your email address"},
		{"the local part", "JANE.DOE", "jane.doe@example.com", "Password must not be your email address"},
		{"longer than the local part", "jane.doe-2026-harbour", "jane.doe@example.com", ""},
		{"one repeated character", "aaaaaaaa", "", MsgPasswordRepeated},
		{"one repeated digit", "11111111111", "", MsgPasswordRepeated},
		{"a short repeated pattern", "abcabcabc", "", MsgPasswordPattern},
		{"a repeated pair", "xyxyxyxyxy", "", MsgPasswordPattern},
		{"a four-digit pattern", "20262026", "", MsgPasswordPattern},
		{"the product's name", "valuator", "", MsgPasswordProduct},
		{"the product's name decorated", "Valuator2026!", "", MsgPasswordProduct},
		{"a keyboard walk", "qwertyuiop", "", MsgPasswordCommon},
		{"a name and a year", "jennifer1984", "", MsgPasswordWeak},
		{"leet of a common word", "P@ssw0rd!", "", MsgPasswordWeak},
		{"the local part with a year", "jane.doe2026", "jane.doe@example.com", MsgPasswordWeak},
		{"a long repeated phrase is not a short pattern", "horse-battery-horse-battery", "", ""},
		{"the product's name among other words", "valuator-harbour-kestrel", "", ""},
		{"a thousand characters are judged by their first 64", strings.Repeat("kestrel-harbour-", 64), "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := newPasswordProblem("Password", tt.password, tt.email); got != tt.want {
				t.Errorf("newPasswordProblem(%q, %q) = %q, want %q", tt.password, tt.email, got, tt.want)
			}
		})
	}
}

func TestNameRules(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       RegisterInput
		field    string
		wantText string
	}{
		{"line break", RegisterInput{FullName: "Jane\nDoe", Email: "jane@example.com", Password: "correct-horse"},
			"fullName", "Full name must not contain control characters or line breaks"},
		{"bidi override", RegisterInput{FullName: "Jane\u202eDoe", Email: "jane@example.com", Password: "correct-horse"},
			"fullName", "Full name must not contain text-direction control characters"},
		{"email with NUL", RegisterInput{FullName: "Jane Doe", Email: "jane\x00@example.com", Password: "correct-horse"},
			"email", MsgEmailInvalid},
		{"common password", RegisterInput{FullName: "Jane Doe", Email: "jane@example.com", Password: "iloveyou"},
			"password", MsgPasswordCommon},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := apperr.As(tt.in.Validate())
			if !ok || e.Field != tt.field || e.Message != tt.wantText {
				t.Errorf("Validate() = %+v, want %s: %q", e, tt.field, tt.wantText)
			}
		})
	}
}
