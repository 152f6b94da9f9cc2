package account

import "testing"

func TestMailboxKey(t *testing.T) {
	tests := []struct {
		name, email, want string
	}{
		{"plain", "jane@example.com", "jane@example.com"},
		{"upper case and spaces", "  Jane.Doe@Example.COM ", "jane.doe@example.com"},
		{"tag", "farm+1@x.com", "farm@x.com"},
		{"tag in upper case", "FARM+Promo@X.com", "farm@x.com"},
		{"empty tag", "farm+@x.com", "farm@x.com"},
		{"from the first plus", "farm+a+b@x.com", "farm@x.com"},
		{"plus at the start is kept: no name would be left", "+tag@x.com", "+tag@x.com"},
		{"only a plus", "+@x.com", "+@x.com"},
		{"plus in the domain is not a tag", "jane@x+y.com", "jane@x+y.com"},
		{"dots kept outside gmail", "j.a.n.e@example.com", "j.a.n.e@example.com"},
		{"gmail dots", "f.a.r.m@gmail.com", "farm@gmail.com"},
		{"gmail dots and tag", "F.a.r.m+2@GMail.com", "farm@gmail.com"},
		{"googlemail is gmail", "farm@googlemail.com", "farm@gmail.com"},
		{"googlemail dots", "f.arm.@googlemail.com", "farm@gmail.com"},
		{"dots after the tag go with it", "farm+x.y@example.com", "farm@example.com"},
		{"gmail subdomain is another domain", "f.arm@mail.gmail.com", "f.arm@mail.gmail.com"},
		{"no @", "Not An Address", "not an address"},
		{"empty", "", ""},
		{"unicode lower-cased", "JÖRG+news@Bücher.DE", "jörg@bücher.de"},
		{"unicode gmail", "Ç.a.ğ+1@gmail.com", "çağ@gmail.com"},
		{"last @ splits", `"a@b"+c@x.com`, `"a@b"@x.com`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MailboxKey(tt.email); got != tt.want {
				t.Errorf("MailboxKey(%q) = %q, want %q", tt.email, got, tt.want)
			}
		})
	}
}

// TestMailboxKeyIsIdempotent: a mailbox key is its own mailbox, so keys can be compared however often normalized.
func TestMailboxKeyIsIdempotent(t *testing.T) {
	for _, email := range []string{"F.a.r.m+2@GoogleMail.com", "farm+a+b@x.com", "+tag@x.com", "JÖRG@Bücher.DE"} {
		once := MailboxKey(email)
		if twice := MailboxKey(once); twice != once {
			t.Errorf("MailboxKey(MailboxKey(%q)) = %q, want %q", email, twice, once)
		}
	}
}
