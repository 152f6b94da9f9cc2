package account

import (
	"strings"
	"testing"
)

func TestHashAndVerifyPassword(t *testing.T) {
	h, err := HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q is not argon2id with the chosen parameters", h)
	}
	if ok, err := VerifyPassword("correct horse battery staple", h); !ok || err != nil {
		t.Errorf("right password: ok=%v err=%v", ok, err)
	}
	if ok, _ := VerifyPassword("correct horse battery stapler", h); ok {
		t.Error("a wrong password verified")
	}
	h2, _ := HashPassword("correct horse battery staple")
	if h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=x$a$b$c"} {
		if _, err := VerifyPassword("x", bad); err == nil {
			t.Errorf("VerifyPassword accepted malformed hash %q", bad)
		}
	}
}

func TestEmailRules(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"jane@example.com", true},
		{"jane.doe+tag@sub.example.co.uk", true},
		{"jane@example", false},
		{"jane@@example.com", false},
		{"ja ne@example.com", false},
		{"@example.com", false},
		{"jane@example.", false},
		{strings.Repeat("a", 250) + "@b.co", false},
	} {
		if got := ValidEmail(tt.in); got != tt.want {
			t.Errorf("ValidEmail(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if EmailKey("  Jane@Example.COM ") != "jane@example.com" {
		t.Error("EmailKey does not trim and lower-case")
	}
}

func TestValidationOrderFollowsTheForm(t *testing.T) {
	err := RegisterInput{Email: "bad", Password: "short", FullName: "J"}.Validate()
	e, _ := err.(interface{ Error() string })
	if e == nil || e.Error() != MsgFullNameShort {
		t.Errorf("first error = %v, want %q", err, MsgFullNameShort)
	}
}
