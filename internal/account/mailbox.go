package account

import (
	"fmt"
	"strings"
)

// MailboxKey is the mailbox an email address delivers to, for the rule that the welcome credits go to a mailbox
// once: otherwise jane+1@example.com, jane+2@example.com, ... would each collect them, all read in one inbox.
//
// It is EmailKey (trimmed, lower-cased) with the sub-address dropped: everything from the first '+' of the local
// part, so jane+tag@example.com and jane+@example.com are jane@example.com. A '+' that starts the local part is
// kept, since nothing would be left of the mailbox's name. Gmail also ignores dots in the local part and delivers
// googlemail.com to the same accounts as gmail.com, so for those two domains the dots go and the domain is
// gmail.com. Other providers' dots are kept: for most of them a dot is part of the name. Text without an '@' is
// returned as EmailKey gives it (Register accepts only valid addresses; this never fails).
func MailboxKey(email string) string {
	key := EmailKey(email)
	at := strings.LastIndexByte(key, '@')
	if at < 0 {
		return key
	}
	local, domain := key[:at], key[at+1:]
	if plus := strings.IndexByte(local, '+'); plus > 0 {
		local = local[:plus]
	}
	if domain == "googlemail.com" {
		domain = "gmail.com"
	}
	if domain == "gmail.com" {
		local = strings.ReplaceAll(local, ".", "")
	}
	return local + "@" + domain
}

// Welcome is what a new account received at sign-up (api/openapi.yaml, components.schemas.WelcomeGrant): the
// welcome credits, or 0 and why not.
type Welcome struct {
	Credits int64 `json:"credits"`
	// Message is nil when the credits were given (the API's null).
	Message *string `json:"message"`
}

// MsgMailboxHadWelcome is the reason a new account gets no welcome credits when its mailbox (MailboxKey) already
// had them, through another account; the sign-up answer and the account's credit history both give it.
func MsgMailboxHadWelcome(mailbox string) string {
	return fmt.Sprintf("No welcome credits: this mailbox (%s) already received them. "+
		"Choose a plan on the Billing page for more credits.", mailbox)
}
