// Package apikey holds the rules of API keys: their format (a recognisable prefix, random body and checksum, so a
// mistyped key is refused without a database read), how they are stored (a SHA-256 hash for lookup, AES-GCM
// encryption with the server secret for the copy button), and the limits a key may carry.
package apikey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math/big"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/billing"
	"valuator/internal/text"
)

// Prefix starts every live key, so a leaked key is recognisable (secret scanners, logs).
const Prefix = "vk_live_"

const (
	bodyLen     = 32 // base62 characters: about 190 bits of randomness
	checksumLen = 6  // base62 characters of a CRC-32 of prefix and body
	// Length is the length of a key.
	Length = len(Prefix) + bodyLen + checksumLen
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// New returns a fresh random key.
func New() (string, error) {
	var b strings.Builder
	b.Grow(Length)
	b.WriteString(Prefix)
	max := big.NewInt(int64(len(base62)))
	for i := 0; i < bodyLen; i++ {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b.WriteByte(base62[n.Int64()])
	}
	b.WriteString(checksum(b.String()))
	return b.String(), nil
}

func checksum(s string) string {
	c := uint64(crc32.ChecksumIEEE([]byte(s)))
	out := make([]byte, checksumLen)
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62[c%62]
		c /= 62
	}
	return string(out)
}

// WellFormed reports whether s has the shape and checksum of a key: a typo or a truncated paste fails here,
// before any database read.
func WellFormed(s string) bool {
	if len(s) != Length || !strings.HasPrefix(s, Prefix) {
		return false
	}
	for i := len(Prefix); i < len(s); i++ {
		if strings.IndexByte(base62, s[i]) < 0 {
			return false
		}
	}
	return checksum(s[:len(s)-checksumLen]) == s[len(s)-checksumLen:]
}

// Hash is how a key is looked up: SHA-256, hex. A plain hash suffices: keys are random, not guessable.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Preview masks a key for display: "vk_live_7Qm2…x9Ka".
func Preview(key string) string {
	if len(key) < len(Prefix)+8 {
		return Prefix + "…"
	}
	return key[:len(Prefix)+4] + "…" + key[len(key)-4:]
}

// Sealer encrypts keys with a key derived from the server secret.
type Sealer struct{ aead cipher.AEAD }

// NewSealer derives the encryption key from the server secret.
func NewSealer(secret string) (*Sealer, error) {
	if len(secret) < 32 {
		return nil, errors.New("apikey: the server secret is too short")
	}
	k := sha256.Sum256([]byte("valuator:api-key-encryption:" + secret))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts a key: a random nonce followed by the ciphertext.
func (s *Sealer) Seal(key string) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, []byte(key), []byte(Prefix)), nil
}

// Open decrypts a sealed key. It fails if the secret changed since the key was sealed.
func (s *Sealer) Open(sealed []byte) (string, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("apikey: sealed key too short")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(Prefix))
	if err != nil {
		return "", errors.New("apikey: cannot decrypt the key (was the server secret changed?)")
	}
	return string(plain), nil
}

// Key is an API key as the dashboard shows it (api/openapi.yaml ApiKey).
type Key struct {
	ID                 int64      `json:"id"`
	UserID             int64      `json:"-"`
	Name               string     `json:"name"`
	Preview            string     `json:"keyPreview"`
	Value              string     `json:"keyValue"`
	RateLimit          int        `json:"rateLimit"`
	EffectiveRateLimit int        `json:"effectiveRateLimit"`
	CreatedAt          time.Time  `json:"createdAt"`
	LastUsedAt         *time.Time `json:"lastUsedAt"`
}

// Limits of a key's settings (spec working-screens sections 5 and 9).
const (
	// DefaultRateLimit is a new key's limit on a plan without a cap (Enterprise), when its creator sets none; on
	// the other plans a new key gets the plan's cap (DefaultFor).
	DefaultRateLimit = 100
	MinRateLimit     = 1
	MaxRateLimit     = 1000
	maxNameLen       = 100
	// MaxPerAccount bounds an account's live keys (DESIGN.md section 5, abuse limits): with the account-wide
	// budget (AccountBudget), more keys never mean more requests, and 20 leave room for one key per environment,
	// service and customer integration.
	MaxPerAccount   = 20
	MsgNameRequired = "Please enter a key name"
	MsgRateLimit    = "Rate limit must be a whole number from 1 to 1000"
	// MsgNameReserved: the request history filters dashboard calls with the key name "dashboard", so no key may
	// carry it.
	MsgNameReserved = `"Dashboard" is reserved for calls made in the dashboard; please choose another name`
)

// CreateInput is the key creation form.
type CreateInput struct {
	Name      string   `json:"name"`
	RateLimit *float64 `json:"rateLimit"`
}

// DefaultFor is the rate limit of a new key of an account on plan when its creator gives none: the plan's cap, so
// that the key's own limit is the one it really gets (a default of 100 read "100/min (60/min on your plan)" on every
// new key of a Free or Basic account). Enterprise has no cap, and its keys get DefaultRateLimit rather than
// MaxRateLimit: a key's limit is also a guard against a runaway client, and 100 a minute is the product's usual
// budget, which the owner raises (up to 1,000) for a key that needs more.
func DefaultFor(plan string) int {
	if c := PlanCap(plan); c > 0 {
		return c
	}
	return DefaultRateLimit
}

// Validate checks the form of an account on plan and returns the trimmed name and the rate limit (DefaultFor(plan)
// when not given).
func (in CreateInput) Validate(plan string) (string, int, error) {
	name := strings.TrimSpace(in.Name)
	var v apperr.Validation
	v.Check(name != "", "name", MsgNameRequired)
	v.Check(utf8.RuneCountInString(name) <= maxNameLen, "name", "Key name must be at most 100 characters")
	v.Check(!strings.EqualFold(name, "dashboard"), "name", MsgNameReserved)
	if p := text.NameProblem(name); p != "" {
		v.Add("name", "Key name "+p)
	}
	limit := DefaultFor(plan)
	if in.RateLimit != nil {
		r := *in.RateLimit
		ok := r == float64(int(r)) && r >= MinRateLimit && r <= MaxRateLimit
		v.Check(ok, "rateLimit", MsgRateLimit)
		if ok {
			limit = int(r)
		}
	}
	return name, limit, v.Err()
}

// PlanCap is the most requests a minute a plan allows any key (billing.Plan.RateCap); 0 means uncapped.
func PlanCap(plan string) int { return billing.Get(plan).RateCap }

// AccountBudget is the most requests a minute all of an account's keys together may make: the plan's cap, so
// that creating more keys does not buy more requests; 0 (Enterprise) means no account-wide budget.
func AccountBudget(plan string) int { return PlanCap(plan) }

// Effective is the limit that applies: the key's own, capped by the plan.
func Effective(keyLimit int, plan string) int {
	if c := PlanCap(plan); c > 0 && keyLimit > c {
		return c
	}
	return keyLimit
}

// Touches remembers when keys were last used, so that lastUsedAt stays current without a database write per
// request: calls only touch memory, and the server flushes the latest time per key every so often.
type Touches struct {
	mu   sync.Mutex
	used map[int64]time.Time
}

// Touch records a use of key id at t.
func (u *Touches) Touch(id int64, t time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.used == nil {
		u.used = map[int64]time.Time{}
	}
	if t.After(u.used[id]) {
		u.used[id] = t
	}
}

// Drain returns the uses recorded since the last Drain and forgets them.
func (u *Touches) Drain() map[int64]time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.used
	u.used = nil
	return out
}
