package person

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"valuator/internal/apperr"
)

// An opt-out is confirmed by an emailed link (DESIGN.md section 5, Person lookup), as the people-search sites that
// regulators accept do it: the request names a listing and an email address; only a click on the link, within
// OptOutTTL, removes the listing, and only the one listing StrictMatch finds.

// OptOutTTL is how long an opt-out link works.
const OptOutTTL = 24 * time.Hour

// OptOutTokenPrefix makes opt-out tokens recognisable in logs and to secret scanners.
const OptOutTokenPrefix = "vo_"

// NewOptOutToken is a fresh link token and the hash the database keeps of it.
func NewOptOutToken() (token, hash string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	token = OptOutTokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashOptOutToken(token)
}

// HashOptOutToken is what the database keeps of a token (its SHA-256, hex): a copy of the database cannot confirm
// anyone's opt-out.
func HashOptOutToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// WellFormedOptOutToken reports whether s could be a token NewOptOutToken made (a bad one is refused without a
// database read).
func WellFormedOptOutToken(s string) bool {
	rest, ok := strings.CutPrefix(s, OptOutTokenPrefix)
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

// OptOutRequest is what the public opt-out form asks: the listing (name and address) and where the link goes.
type OptOutRequest struct {
	Query
	Email string `json:"email"`
}

// MaxEmailLen is the longest email address SMTP carries (RFC 5321's path limit).
const MaxEmailLen = 254

// Validate checks the request: the query's rules (a full first name and a last name among them), a street
// address, and an email address a link can be sent to.
func (r OptOutRequest) Validate() (OptOutRequest, error) {
	q, err := r.Query.Validate()
	r.Query = q
	var v apperr.Validation
	if e, ok := apperr.As(err); ok {
		for f, m := range e.Fields {
			v.Add(f, m)
		}
	} else if err != nil {
		return r, err
	}
	r.Email = strings.TrimSpace(r.Email)
	v.Check(r.Query.StreetLine1 != "", "street_line_1", "Street address is required to opt out")
	at := strings.LastIndexByte(r.Email, '@')
	v.Check(len(r.Email) <= MaxEmailLen && at > 0 && at < len(r.Email)-1 && !strings.ContainsAny(r.Email, " \t\r\n<>,;"),
		"email", "Enter the email address the confirmation link should go to")
	return r, v.Err()
}

// Opt-out limits, besides the form's per-network limit: a mailbox gets a few requests a day, and a few links a day for
// one listing, so that nobody can mail-bomb an address. The listing's limit is per mailbox (issue 36, L-5): counted
// for the listing alone, three requests from anyone's mailboxes used up its links for the day, silently, and its
// owner's request then sent nothing.
const (
	OptOutsPerEmailPerDay   = 5
	OptOutsPerListingPerDay = 3
)

// MsgOptOutListingLimit answers a mailbox that was sent a listing's links for the day: it says so, which tells that
// mailbox nothing new (it holds the links, which name the listing).
const MsgOptOutListingLimit = "This email address was already sent 3 links for this listing today: use the newest " +
	"one, or ask again tomorrow."

// MissesPerHour is how many misses an account's person lookups may make in an hour before it is slowed: a person
// looking people up by name and address misses now and then; a script sweeping names misses all the time.
const MissesPerHour = 50
