package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/mail"
	"valuator/internal/ratelimit"
)

// ErrNotFound is returned by the store when a user, session or token does not exist (or no longer applies).
var ErrNotFound = errors.New("not found")

// ErrEmailTaken is returned by the store when another account already has the email.
var ErrEmailTaken = errors.New("email taken")

// Store persists accounts. It is implemented by internal/store on SQLite and PostgreSQL.
type Store interface {
	// CreateUser creates the account and grants SignupCredits as its first ledger row, in one transaction.
	CreateUser(ctx context.Context, u NewUser) (User, error)
	CredentialByEmail(ctx context.Context, emailKey string) (Credential, error)
	CredentialByID(ctx context.Context, id int64) (Credential, error)
	UserByID(ctx context.Context, id int64) (User, error)
	UpdateProfile(ctx context.Context, id int64, p ProfileUpdate) (User, error)
	UpdateNotifications(ctx context.Context, id int64, n Notifications, at time.Time) (User, error)
	// SetPassword replaces the hash and revokes every session of the user except keepSessionID (0: all).
	SetPassword(ctx context.Context, id int64, hash string, keepSessionID int64, at time.Time) error
	CreateSession(ctx context.Context, s Session) (Session, error)
	// SessionUser returns the live (unrevoked, unexpired) session with this token hash and its open account.
	SessionUser(ctx context.Context, tokenHash string, now time.Time) (Session, User, error)
	RevokeSession(ctx context.Context, tokenHash string, at time.Time) error
	CreatePasswordReset(ctx context.Context, userID int64, tokenHash string, createdAt, expiresAt time.Time) error
	// ResetPassword uses the token once (unused, unexpired), sets the hash, revokes every session and every other
	// outstanding reset token of the user, in one transaction.
	ResetPassword(ctx context.Context, tokenHash, newHash string, now time.Time) (userID int64, err error)
	// CloseUser closes the account: frees the email, revokes sessions and forfeits the balance through the ledger.
	CloseUser(ctx context.Context, id int64, at time.Time) error
}

// Tunables of the account rules.
const (
	// SessionTokenPrefix and ResetTokenPrefix make tokens recognisable in logs and to secret scanners.
	SessionTokenPrefix = "vs_"
	ResetTokenPrefix   = "vr_"
	// ResetTokenTTL is how long a password reset link works.
	ResetTokenTTL = time.Hour
)

// Service implements the account rules.
type Service struct {
	store      Store
	mailer     mail.Sender
	now        func() time.Time
	log        *slog.Logger
	dev        bool
	baseURL    string
	sessionTTL time.Duration

	// emailThrottle and ipThrottle slow down repeated failed sign-ins for one email or one client address.
	emailThrottle *Throttle
	ipThrottle    *Throttle
	// resetLimiter caps reset emails per address so the form cannot be used to flood someone's inbox.
	resetLimiter ratelimit.Limiter
}

// Deps wires a Service.
type Deps struct {
	Store      Store
	Mailer     mail.Sender
	Now        func() time.Time
	Logger     *slog.Logger
	Dev        bool   // development mode: reset requests answer with the token
	BaseURL    string // for links in emails
	SessionTTL time.Duration
}

// NewService returns the account service. Sign-in throttling: 5 free failures per email and 20 per client address
// within 15 minutes, then a doubling delay up to 15 minutes.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{
		store:         d.Store,
		mailer:        d.Mailer,
		now:           d.Now,
		log:           d.Logger,
		dev:           d.Dev,
		baseURL:       strings.TrimRight(d.BaseURL, "/"),
		sessionTTL:    d.SessionTTL,
		emailThrottle: NewThrottle(5, 15*time.Minute, 15*time.Minute),
		ipThrottle:    NewThrottle(20, 15*time.Minute, 15*time.Minute),
		resetLimiter:  ratelimit.NewMemory(d.Now),
	}
}

// Client describes where a request comes from, for sessions and throttling.
type Client struct {
	IP        string
	UserAgent string
}

// Auth is a signed-in result: the new session's token (shown once) and the user.
type Auth struct {
	Token string `json:"token"`
	User  User   `json:"user"`
}

// Register creates an account with the free sign-up credits and signs it in.
func (s *Service) Register(ctx context.Context, in RegisterInput, c Client) (Auth, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Auth{}, err
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	u, err := s.store.CreateUser(ctx, NewUser{
		Email:         in.Email,
		EmailKey:      EmailKey(in.Email),
		PasswordHash:  hash,
		FullName:      in.FullName,
		Notifications: DefaultNotifications,
		CreatedAt:     s.now(),
		SignupCredits: credit.SignupBonus,
	})
	if errors.Is(err, ErrEmailTaken) {
		return Auth{}, emailTaken()
	}
	if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	return s.startSession(ctx, u, c)
}

func emailTaken() error {
	return apperr.Conflict("email_taken", "email", "An account with this email already exists")
}

// Login checks the credentials and starts a session. A wrong email and a wrong password get the same answer.
func (s *Service) Login(ctx context.Context, in LoginInput, c Client) (Auth, error) {
	if err := in.Validate(); err != nil {
		return Auth{}, err
	}
	key := EmailKey(in.Email)
	now := s.now()
	if wait := max(s.emailThrottle.Wait("email:"+key, now), s.ipThrottle.Wait("ip:"+c.IP, now)); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		return Auth{}, apperr.RateLimited(
			fmt.Sprintf("Too many failed sign-in attempts. Try again in %d seconds.", secs), secs)
	}
	cred, err := s.store.CredentialByEmail(ctx, key)
	hash := cred.PasswordHash
	if errors.Is(err, ErrNotFound) {
		hash = dummyHash
	} else if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	ok, verr := VerifyPassword(in.Password, hash)
	if verr != nil {
		return Auth{}, apperr.Internal(fmt.Errorf("user %d: %w", cred.User.ID, verr))
	}
	if !ok || errors.Is(err, ErrNotFound) {
		s.emailThrottle.Fail("email:"+key, now)
		s.ipThrottle.Fail("ip:"+c.IP, now)
		return Auth{}, apperr.Unauthorized("invalid_credentials", "Invalid email or password")
	}
	s.emailThrottle.Reset("email:" + key)
	return s.startSession(ctx, cred.User, c)
}

func (s *Service) startSession(ctx context.Context, u User, c Client) (Auth, error) {
	token, hash, err := newToken(SessionTokenPrefix)
	if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	now := s.now()
	_, err = s.store.CreateSession(ctx, Session{
		UserID:    u.ID,
		TokenHash: hash,
		CreatedAt: now,
		ExpiresAt: now.Add(s.sessionTTL),
		UserAgent: truncate(c.UserAgent, 300),
		IP:        c.IP,
	})
	if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	return Auth{Token: token, User: u}, nil
}

// Authenticate returns the user and session of a bearer token; any problem reads as "not signed in".
func (s *Service) Authenticate(ctx context.Context, token string) (User, Session, error) {
	if !strings.HasPrefix(token, SessionTokenPrefix) || len(token) > 200 {
		return User{}, Session{}, notSignedIn()
	}
	sess, u, err := s.store.SessionUser(ctx, HashToken(token), s.now())
	if errors.Is(err, ErrNotFound) {
		return User{}, Session{}, notSignedIn()
	}
	if err != nil {
		return User{}, Session{}, apperr.Internal(err)
	}
	return u, sess, nil
}

func notSignedIn() error {
	return apperr.Unauthorized("unauthorized", "Not signed in or the session has expired")
}

// Logout revokes the session of token. An unknown or already revoked token is not an error: the caller is signed
// out either way.
func (s *Service) Logout(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	if err := s.store.RevokeSession(ctx, HashToken(token), s.now()); err != nil && !errors.Is(err, ErrNotFound) {
		return apperr.Internal(err)
	}
	return nil
}

// User returns the current state of an account.
func (s *Service) User(ctx context.Context, id int64) (User, error) {
	u, err := s.store.UserByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return User{}, notSignedIn()
	}
	if err != nil {
		return User{}, apperr.Internal(err)
	}
	return u, nil
}

// UpdateProfile changes the name, company and email.
func (s *Service) UpdateProfile(ctx context.Context, id int64, in ProfileInput) (User, error) {
	fullName, company, email, err := in.Validate()
	if err != nil {
		return User{}, err
	}
	u, err := s.store.UpdateProfile(ctx, id, ProfileUpdate{
		FullName: fullName, Company: company, Email: email, EmailKey: EmailKey(email), At: s.now(),
	})
	if errors.Is(err, ErrEmailTaken) {
		return User{}, emailTaken()
	}
	if errors.Is(err, ErrNotFound) {
		return User{}, notSignedIn()
	}
	if err != nil {
		return User{}, apperr.Internal(err)
	}
	return u, nil
}

// UpdateNotifications replaces the email preferences.
func (s *Service) UpdateNotifications(ctx context.Context, id int64, n Notifications) (User, error) {
	u, err := s.store.UpdateNotifications(ctx, id, n, s.now())
	if errors.Is(err, ErrNotFound) {
		return User{}, notSignedIn()
	}
	if err != nil {
		return User{}, apperr.Internal(err)
	}
	return u, nil
}

// ChangePassword verifies the current password, sets the new one and signs out every other session.
func (s *Service) ChangePassword(ctx context.Context, userID, sessionID int64, in ChangePasswordInput) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if err := s.checkPassword(ctx, userID, "currentPassword", in.CurrentPassword, MsgCurrentIncorrect); err != nil {
		return err
	}
	hash, err := HashPassword(in.NewPassword)
	if err != nil {
		return apperr.Internal(err)
	}
	if err := s.store.SetPassword(ctx, userID, hash, sessionID, s.now()); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// checkPassword verifies a signed-in user's password, throttled like sign-in so a stolen session cannot be used
// to guess the password quickly.
func (s *Service) checkPassword(ctx context.Context, userID int64, field, password, wrongMsg string) error {
	key := fmt.Sprintf("user:%d", userID)
	now := s.now()
	if wait := s.emailThrottle.Wait(key, now); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		return apperr.RateLimited(fmt.Sprintf("Too many wrong passwords. Try again in %d seconds.", secs), secs)
	}
	cred, err := s.store.CredentialByID(ctx, userID)
	if errors.Is(err, ErrNotFound) {
		return notSignedIn()
	}
	if err != nil {
		return apperr.Internal(err)
	}
	ok, err := VerifyPassword(password, cred.PasswordHash)
	if err != nil {
		return apperr.Internal(err)
	}
	if !ok {
		s.emailThrottle.Fail(key, now)
		return apperr.Invalid(field, wrongMsg)
	}
	s.emailThrottle.Reset(key)
	return nil
}

// ResetRequested is the answer to a reset request; Token is set only in development mode.
type ResetRequested struct {
	Message    string `json:"message"`
	ResetToken string `json:"resetToken,omitempty"`
}

// MsgResetSent is the same answer whether or not the email has an account.
const MsgResetSent = "If an account with that email exists, a password reset link has been sent."

// resetEmailLimit caps reset emails to one address: 5 an hour.
var resetEmailLimit = ratelimit.Per(5, time.Hour)

// RequestPasswordReset emails a single-use link valid for an hour. The answer is the same whether or not the
// email has an account; in development mode it also carries the token.
func (s *Service) RequestPasswordReset(ctx context.Context, email string) (ResetRequested, error) {
	email = strings.TrimSpace(email)
	var v apperr.Validation
	v.Check(email != "", "email", MsgEmailRequired)
	if email != "" {
		v.Check(ValidEmail(email), "email", MsgEmailInvalid)
	}
	if err := v.Err(); err != nil {
		return ResetRequested{}, err
	}
	answer := ResetRequested{Message: MsgResetSent}
	key := EmailKey(email)
	cred, err := s.store.CredentialByEmail(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return answer, nil
	}
	if err != nil {
		return ResetRequested{}, apperr.Internal(err)
	}
	if res, _ := s.resetLimiter.Allow(ctx, "reset:"+key, resetEmailLimit); !res.Allowed {
		// Silently skip: saying "too many" would reveal that the account exists.
		s.log.Warn("password reset emails for this address are capped", "user_id", cred.User.ID)
		return answer, nil
	}
	token, hash, err := newToken(ResetTokenPrefix)
	if err != nil {
		return ResetRequested{}, apperr.Internal(err)
	}
	now := s.now()
	if err := s.store.CreatePasswordReset(ctx, cred.User.ID, hash, now, now.Add(ResetTokenTTL)); err != nil {
		return ResetRequested{}, apperr.Internal(err)
	}
	link := s.baseURL + "/reset-password?token=" + url.QueryEscape(token)
	msg := mail.Message{
		To:      cred.User.Email,
		Subject: "Reset your Valuator password",
		Text: fmt.Sprintf("Hello %s,\n\nSomeone (hopefully you) asked to reset the password of your Valuator account.\n"+
			"Open this link within one hour to choose a new password:\n\n%s\n\n"+
			"The link works once. If you did not ask for it, ignore this email: your password stays as it is.\n\n"+
			"The Valuator team\n", cred.User.FullName, link),
	}
	if err := s.mailer.Send(ctx, msg); err != nil {
		s.log.Error("sending password reset email", "user_id", cred.User.ID, "err", err)
	}
	if s.dev {
		answer.ResetToken = token
	}
	return answer, nil
}

// ResetPassword sets a new password with a reset token and signs out every session of the account.
func (s *Service) ResetPassword(ctx context.Context, in ResetPasswordInput) error {
	in.Token = strings.TrimSpace(in.Token)
	if err := in.Validate(); err != nil {
		return err
	}
	if !strings.HasPrefix(in.Token, ResetTokenPrefix) || len(in.Token) > 200 {
		return apperr.Invalid("token", MsgResetTokenInvalid)
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return apperr.Internal(err)
	}
	if _, err := s.store.ResetPassword(ctx, HashToken(in.Token), hash, s.now()); errors.Is(err, ErrNotFound) {
		return apperr.Invalid("token", MsgResetTokenInvalid)
	} else if err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// CloseAccount closes the account after checking the password.
func (s *Service) CloseAccount(ctx context.Context, userID int64, password string) error {
	var v apperr.Validation
	v.Check(password != "", "password", MsgPasswordRequired)
	v.Check(len(password) <= maxPasswordLen, "password", MsgPasswordTooLong)
	if err := v.Err(); err != nil {
		return err
	}
	if err := s.checkPassword(ctx, userID, "password", password, "Password is incorrect"); err != nil {
		return err
	}
	if err := s.store.CloseUser(ctx, userID, s.now()); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// newToken returns a random token with prefix (32 bytes of entropy) and the hash under which it is stored.
func newToken(prefix string) (token, hash string, err error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", "", err
	}
	token = prefix + base64.RawURLEncoding.EncodeToString(buf)
	return token, HashToken(token), nil
}

// HashToken is how session and reset tokens are stored: SHA-256, hex. A plain hash suffices (no salt, no slow
// hash) because the tokens are 256-bit random values, not guessable passwords.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
