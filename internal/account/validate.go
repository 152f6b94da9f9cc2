package account

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/text"
)

// The validation texts are the spec's (product-and-account section 5, working-screens section 5), so the server
// says exactly what the browser says.
const (
	MsgFullNameShort     = "Full name must be at least 2 characters"
	MsgEmailInvalid      = "Invalid email address"
	MsgProfileEmail      = "Please enter a valid email address"
	MsgPasswordShort8    = "Password must be at least 8 characters"
	MsgPasswordShort6    = "Password must be at least 6 characters"
	MsgNewPasswordShort  = "New password must be at least 8 characters"
	MsgCurrentRequired   = "Current password is required"
	MsgCurrentIncorrect  = "Current password is incorrect"
	MsgEmailRequired     = "Email is required"
	MsgPasswordTooLong   = "Password must be at most 1024 characters"
	MsgFullNameTooLong   = "Full name must be at most 200 characters"
	MsgCompanyTooLong    = "Company must be at most 200 characters"
	MsgResetTokenInvalid = "This password reset link is invalid or has expired. Please request a new one."
	MsgPasswordRequired  = "Password is required"
	// MsgCurrentForEmail asks for the password when the email changes: a session alone (a stolen one, say) must
	// not be enough to move the account to another address and then reset its password from there.
	MsgCurrentForEmail = "Enter your current password to change your email"
)

// Limits that keep one request from costing unbounded work (argon2 over a huge password, say).
const (
	maxEmailLen    = 254
	maxPasswordLen = 1024
	maxNameLen     = 200
	maxCompanyLen  = 200
)

// emailPattern accepts what a person would call an email address: something@domain.tld, no spaces, one @. Stricter
// checks (RFC 5322 quoting, IP literals) would reject nothing real and accept nothing useful.
var emailPattern = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@.]+$`)

// ValidEmail reports whether s looks like an email address. An address is one line of storable text: no control
// or text-direction characters (the pattern's \s does not cover them), which PostgreSQL may refuse to store and a
// mail server may read as the end of a command; and no invisible characters or mixed alphabets, with which one
// address reads as another (text.AddressProblem).
func ValidEmail(s string) bool {
	return len(s) <= maxEmailLen && emailPattern.MatchString(s) && text.AddressProblem(s) == ""
}

// EmailKey is the form of an email compared for uniqueness: trimmed and lower-cased.
func EmailKey(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// RegisterInput is the registration payload.
type RegisterInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	FullName string `json:"fullName"`
}

// Normalize trims the fields a person may pad with spaces (never the password).
func (in *RegisterInput) Normalize() {
	in.Email = strings.TrimSpace(in.Email)
	in.FullName = strings.TrimSpace(in.FullName)
}

// Validate checks the registration rules in the order the form shows its fields.
func (in RegisterInput) Validate() error {
	var v apperr.Validation
	v.Check(runes(in.FullName) >= 2, "fullName", MsgFullNameShort)
	v.Check(runes(in.FullName) <= maxNameLen, "fullName", MsgFullNameTooLong)
	checkName(&v, "fullName", "Full name", in.FullName)
	v.Check(ValidEmail(in.Email), "email", MsgEmailInvalid)
	v.Check(runes(in.Password) >= 8, "password", MsgPasswordShort8)
	v.Check(len(in.Password) <= maxPasswordLen, "password", MsgPasswordTooLong)
	checkNewPassword(&v, "password", "Password", in.Password, in.Email)
	return v.Err()
}

// checkName refuses a name a person could not read on one line: control characters, line breaks, text-direction
// overrides (text.NameProblem), or text the database cannot store.
func checkName(v *apperr.Validation, field, label, name string) {
	if p := text.NameProblem(name); p != "" {
		v.Add(field, label+" "+p)
	}
}

// checkNewPassword adds the reason a new password cannot be chosen (newPasswordProblem).
func checkNewPassword(v *apperr.Validation, field, label, password, email string) {
	if p := newPasswordProblem(label, password, email); p != "" {
		v.Add(field, p)
	}
}

// LoginInput is the sign-in payload.
type LoginInput struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Validate checks the sign-in form's rules (a 6-character minimum, as the spec's form).
func (in LoginInput) Validate() error {
	var v apperr.Validation
	// Signing in checks only the shape: an address taken before ValidEmail refused look-alikes still signs in.
	email := strings.TrimSpace(in.Email)
	v.Check(len(email) <= maxEmailLen && emailPattern.MatchString(email) && text.NameProblem(email) == "", "email",
		MsgEmailInvalid)
	v.Check(runes(in.Password) >= 6, "password", MsgPasswordShort6)
	v.Check(len(in.Password) <= maxPasswordLen, "password", MsgPasswordTooLong)
	return v.Err()
}

// ProfileInput is the profile form. CurrentPassword is required only when the email changes.
type ProfileInput struct {
	FullName        string  `json:"fullName"`
	Company         *string `json:"company"`
	Email           string  `json:"email"`
	CurrentPassword string  `json:"currentPassword"`
}

// Validate checks the profile rules and returns the trimmed values.
func (in ProfileInput) Validate() (fullName, company, email string, err error) {
	fullName = strings.TrimSpace(in.FullName)
	email = strings.TrimSpace(in.Email)
	if in.Company != nil {
		company = strings.TrimSpace(*in.Company)
	}
	var v apperr.Validation
	v.Check(runes(fullName) >= 2, "fullName", MsgFullNameShort)
	v.Check(runes(fullName) <= maxNameLen, "fullName", MsgFullNameTooLong)
	checkName(&v, "fullName", "Full name", fullName)
	v.Check(runes(company) <= maxCompanyLen, "company", MsgCompanyTooLong)
	checkName(&v, "company", "Company", company)
	v.Check(ValidEmail(email), "email", MsgProfileEmail)
	v.Check(len(in.CurrentPassword) <= maxPasswordLen, "currentPassword", MsgPasswordTooLong)
	return fullName, company, email, v.Err()
}

// ChangePasswordInput is the password change form.
type ChangePasswordInput struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
}

// Validate checks the password change rules that do not depend on the account (the new password must not be
// the account's email either; the service checks that once it has read the account).
func (in ChangePasswordInput) Validate() error {
	var v apperr.Validation
	v.Check(in.CurrentPassword != "", "currentPassword", MsgCurrentRequired)
	v.Check(len(in.CurrentPassword) <= maxPasswordLen, "currentPassword", MsgPasswordTooLong)
	v.Check(runes(in.NewPassword) >= 8, "newPassword", MsgNewPasswordShort)
	v.Check(len(in.NewPassword) <= maxPasswordLen, "newPassword", MsgPasswordTooLong)
	checkNewPassword(&v, "newPassword", "New password", in.NewPassword, "")
	return v.Err()
}

// ResetPasswordInput is the new-password form reached from a reset link.
type ResetPasswordInput struct {
	Token    string `json:"token"`
	Password string `json:"password"`
}

// Validate checks the reset rules that do not depend on the account; a missing token reads as an invalid link.
func (in ResetPasswordInput) Validate() error {
	var v apperr.Validation
	v.Check(strings.TrimSpace(in.Token) != "", "token", MsgResetTokenInvalid)
	v.Check(runes(in.Password) >= 8, "password", MsgPasswordShort8)
	v.Check(len(in.Password) <= maxPasswordLen, "password", MsgPasswordTooLong)
	checkNewPassword(&v, "password", "Password", in.Password, "")
	return v.Err()
}
