package apikey

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"valuator/internal/apperr"
)

// Stored is a key as the database keeps it: its hash is the lookup, Sealed the encrypted key for the copy button.
type Stored struct {
	ID         int64
	UserID     int64
	Name       string
	Sealed     []byte
	Preview    string
	RateLimit  int
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// Owner is what authenticating a public call needs: the key and its open account's plan.
type Owner struct {
	KeyID     int64
	KeyName   string
	RateLimit int
	UserID    int64
	Plan      string
	// Suspended: the account is suspended (issue 27); its keys are answered 403 account_suspended.
	Suspended bool
}

// ErrNoKey means no live key matches.
var ErrNoKey = errors.New("no such API key")

// ErrTooManyKeys means the user already has the most live keys an account may have.
var ErrTooManyKeys = errors.New("too many API keys")

// Store is what the key rules need from the database (internal/store).
type Store interface {
	// CreateAPIKey stores a key unless the user already has maxKeys live keys (ErrTooManyKeys), counted and
	// inserted in one transaction so that parallel requests cannot pass the limit together.
	CreateAPIKey(ctx context.Context, userID int64, name, hash string, sealed []byte, preview string, rateLimit,
		maxKeys int, at time.Time) (Stored, error)
	APIKeys(ctx context.Context, userID int64) ([]Stored, error)
	// DeleteAPIKey deletes a live key of the user (ErrNoKey for another user's).
	DeleteAPIKey(ctx context.Context, userID, keyID int64, at time.Time) error
	// KeyOwner is the live key with this hash and its open account (ErrNoKey when none).
	KeyOwner(ctx context.Context, hash string) (Owner, error)
}

// Service creates, lists, deletes and authenticates API keys.
type Service struct {
	store  Store
	sealer *Sealer
	log    *slog.Logger
	now    func() time.Time
}

// NewService returns the key service; now is optional (time.Now).
func NewService(st Store, sealer *Sealer, log *slog.Logger, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, sealer: sealer, log: log, now: now}
}

// List is the user's live keys, newest first, as the dashboard shows them to an account on plan.
func (s *Service) List(ctx context.Context, userID int64, plan string) ([]Key, error) {
	rows, err := s.store.APIKeys(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]Key, 0, len(rows))
	for _, k := range rows {
		out = append(out, s.view(k, plan))
	}
	return out, nil
}

// view is a stored key as the dashboard shows it, with the full key decrypted for the copy button. A key sealed
// under another server secret (VALUATOR_SECRET was changed) still works, since calls find it by its hash, but can
// no longer be shown: its keyValue is empty and the screen says so, rather than the whole list failing.
func (s *Service) view(k Stored, plan string) Key {
	value, err := s.sealer.Open(k.Sealed)
	if err != nil {
		s.log.Warn("API key cannot be decrypted; was VALUATOR_SECRET changed?", "api_key_id", k.ID, "err", err)
		value = ""
	}
	return Key{ID: k.ID, Name: k.Name, Preview: k.Preview, Value: value, RateLimit: k.RateLimit,
		EffectiveRateLimit: Effective(k.RateLimit, plan), CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt}
}

// Create makes a key from the form of an account on plan, up to MaxPerAccount live keys.
func (s *Service) Create(ctx context.Context, userID int64, plan string, in CreateInput) (Key, error) {
	name, limit, err := in.Validate(plan)
	if err != nil {
		return Key{}, err
	}
	value, err := New()
	if err != nil {
		return Key{}, err
	}
	sealed, err := s.sealer.Seal(value)
	if err != nil {
		return Key{}, err
	}
	row, err := s.store.CreateAPIKey(ctx, userID, name, Hash(value), sealed, Preview(value), limit, MaxPerAccount, s.now())
	if errors.Is(err, ErrTooManyKeys) {
		return Key{}, apperr.Conflict("too_many_api_keys", "", fmt.Sprintf("An account can have at most %d API keys; "+
			"delete one you no longer use to create another", MaxPerAccount))
	}
	if err != nil {
		return Key{}, err
	}
	return s.view(row, plan), nil
}

// Delete deletes one of the user's keys. Another user's key reads exactly like a missing one.
func (s *Service) Delete(ctx context.Context, userID, keyID int64) error {
	err := s.store.DeleteAPIKey(ctx, userID, keyID, s.now())
	if errors.Is(err, ErrNoKey) {
		return apperr.NotFound("api_key_not_found", "No such API key")
	}
	return err
}

// Authenticate finds the owner of a key a public call sent. Its refusals are KindUnauthorized: a missing key, one
// that is malformed (a typo or a truncated paste, refused without a database read) and one that is deleted or
// never existed.
func (s *Service) Authenticate(ctx context.Context, key string) (Owner, error) {
	switch {
	case key == "":
		return Owner{}, apperr.Unauthorized("missing_api_key", "Missing API key: send it in the x-api-key header")
	case !WellFormed(key):
		return Owner{}, apperr.Unauthorized("invalid_api_key", "Invalid API key")
	}
	owner, err := s.store.KeyOwner(ctx, Hash(key))
	if errors.Is(err, ErrNoKey) {
		return owner, apperr.Unauthorized("invalid_api_key", "Invalid or deleted API key")
	}
	return owner, err
}
