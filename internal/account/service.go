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
	"runtime"
	"strings"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/credit"
	"valuator/internal/gate"
	"valuator/internal/mail"
	"valuator/internal/notify"
	"valuator/internal/ratelimit"
	"valuator/internal/text"
)

// ErrNotFound is returned by the store when a user, session or token does not exist (or no longer applies).
var ErrNotFound = errors.New("not found")

// ErrEmailTaken is returned by the store when another account already has the email.
var ErrEmailTaken = errors.New("email taken")

// Store persists accounts. It is implemented by internal/store on SQLite and PostgreSQL.
type Store interface {
	// CreateUser creates the account and grants SignupCredits as its first ledger row, in one transaction, unless
	// the mailbox had its welcome credits (NewUser.MailboxKey). It returns what the account received.
	CreateUser(ctx context.Context, u NewUser) (User, Welcome, error)
	CredentialByEmail(ctx context.Context, emailKey string) (Credential, error)
	CredentialByID(ctx context.Context, id int64) (Credential, error)
	UserByID(ctx context.Context, id int64) (User, error)
	UpdateProfile(ctx context.Context, id int64, p ProfileUpdate) (User, error)
	UpdateNotifications(ctx context.Context, id int64, n Notifications, at time.Time) (User, error)
	// SetPassword replaces the hash, revokes every session of the user except keepSessionID (0: all) and every
	// outstanding reset token, in one transaction.
	SetPassword(ctx context.Context, id int64, hash string, keepSessionID int64, at time.Time) error
	CreateSession(ctx context.Context, s Session) (Session, error)
	// SessionUser returns the live (unrevoked, unexpired) session with this token hash and its open account.
	SessionUser(ctx context.Context, tokenHash string, now time.Time) (Session, User, error)
	RevokeSession(ctx context.Context, tokenHash string, at time.Time) error
	CreatePasswordReset(ctx context.Context, userID int64, tokenHash string, createdAt, expiresAt time.Time) error
	// ResetTokenUser returns the open account of an unused, unexpired reset token (ErrNotFound otherwise). It only
	// reads: ResetPassword uses the token.
	ResetTokenUser(ctx context.Context, tokenHash string, now time.Time) (User, error)
	// ResetPassword uses the token once (unused, unexpired), sets the hash, revokes every session and every other
	// outstanding reset token of the user, in one transaction.
	ResetPassword(ctx context.Context, tokenHash, newHash string, now time.Time) (userID int64, err error)
	// CloseUser closes the account: frees the email (remembering that it belonged to a closed account), revokes
	// sessions and forfeits the balance through the ledger.
	CloseUser(ctx context.Context, id int64, at time.Time) error
	// EmailClosedBefore reports whether an account with this email key was closed.
	EmailClosedBefore(ctx context.Context, emailKey string) (bool, error)
	// RememberDevice records a sign-in from d and reports whether d was new to the account; when it was and alert
	// is set, the sign-in alert is queued in the same transaction.
	RememberDevice(ctx context.Context, userID int64, d notify.Device, at time.Time, alert bool) (bool, error)
	// DisableNotification turns one email switch (a notify topic) off; ErrNotFound for a closed account.
	DisableNotification(ctx context.Context, userID int64, topic string, at time.Time) error
	// CreditHistory is a page of the account's credit ledger, newest first, older than the row id before (0: from
	// the newest); more says whether older rows exist.
	CreditHistory(ctx context.Context, userID, before int64, limit int) ([]credit.Entry, bool, error)
}

// Tunables of the account rules.
const (
	// SessionTokenPrefix and ResetTokenPrefix make tokens recognisable in logs and to secret scanners.
	SessionTokenPrefix = "vs_"
	ResetTokenPrefix   = "vr_"
	// ResetTokenTTL is how long a password reset link works.
	ResetTokenTTL = time.Hour
	// DefaultPasswordWait is how long a request waits for a free slot of the password gate before it is answered
	// 429. A slot frees every few tens of milliseconds, so only a flood waits this long.
	DefaultPasswordWait = 3 * time.Second
	// MsgNoSignupBonus is why an account whose email belonged to a closed account gets no welcome credits, in the
	// sign-up answer and the ledger's sign-up row.
	MsgNoSignupBonus = "No welcome credits: this email address belonged to a closed account. " +
		"Choose a plan on the Billing page for more credits."
)

// Sign-in throttling: failures are counted per email at a client address and per client address, never per email
// alone, so that guesses from elsewhere cannot lock the owner out of their own account.
const (
	// SignInFreeFailures are the failed sign-ins for one email from one client address that cost nothing; the
	// next attempt is allowed too, and its failure starts the doubling delay.
	SignInFreeFailures = 5
	// AddressFreeFailures are the failed sign-ins from one client address, whatever the emails.
	AddressFreeFailures = 20
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
	devices    *notify.Devices
	// supportEmail is named in the answer to a suspended account.
	supportEmail string

	// pairThrottle and addressThrottle slow down repeated failed sign-ins for one email from one client address
	// and for one client address; userThrottle the wrong passwords of a signed-in user (changing the password or
	// the email, closing the account).
	pairThrottle    *Throttle
	addressThrottle *Throttle
	userThrottle    *Throttle
	// resetLimiter caps reset emails per address so the form cannot be used to flood someone's inbox.
	resetLimiter ratelimit.Limiter

	// passwordGate bounds the argon2id computations running at once (each takes 19 MiB and a core for tens of
	// milliseconds), so that a burst of sign-ins, sign-ups or resets cannot take every core and all the memory.
	passwordGate *gate.Gate
	passwordWait time.Duration
	hash         func(password string) (string, error)
	verify       func(password, encoded string) (bool, error)
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
	// SupportEmail is the address a suspended account is told to contact (optional: "support").
	SupportEmail string
	// Devices tells the browser and network of a sign-in, so that one from a device the account has not used is
	// alerted by email (optional: nil remembers no devices and sends no alerts; `serve` always sets it).
	Devices *notify.Devices

	// PasswordGate bounds how many passwords are hashed or verified at once, process-wide (optional: one slot per
	// core, runtime.GOMAXPROCS). More at once would not finish sooner, only take more memory.
	PasswordGate *gate.Gate
	// PasswordWait is how long a request waits for a slot before it is answered 429 (optional: DefaultPasswordWait).
	PasswordWait time.Duration
	// HashPassword and VerifyPassword replace the argon2id functions of the same names (optional; tests count the
	// work with them).
	HashPassword   func(password string) (string, error)
	VerifyPassword func(password, encoded string) (bool, error)
}

// NewService returns the account service. Sign-in throttling: 5 free failures per email from one client address
// and 20 per client address within 15 minutes, then a doubling delay up to 15 minutes.
func NewService(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.PasswordGate == nil {
		d.PasswordGate = gate.New(runtime.GOMAXPROCS(0))
	}
	if d.PasswordWait <= 0 {
		d.PasswordWait = DefaultPasswordWait
	}
	if d.HashPassword == nil {
		d.HashPassword = HashPassword
	}
	if d.VerifyPassword == nil {
		d.VerifyPassword = VerifyPassword
	}
	return &Service{
		store:           d.Store,
		mailer:          d.Mailer,
		now:             d.Now,
		log:             d.Logger,
		dev:             d.Dev,
		baseURL:         strings.TrimRight(d.BaseURL, "/"),
		sessionTTL:      d.SessionTTL,
		devices:         d.Devices,
		supportEmail:    d.SupportEmail,
		pairThrottle:    NewThrottle(SignInFreeFailures, 15*time.Minute, 15*time.Minute),
		addressThrottle: NewThrottle(AddressFreeFailures, 15*time.Minute, 15*time.Minute),
		userThrottle:    NewThrottle(5, 15*time.Minute, 15*time.Minute),
		resetLimiter:    ratelimit.NewMemory(d.Now),
		passwordGate:    d.PasswordGate,
		passwordWait:    d.PasswordWait,
		hash:            d.HashPassword,
		verify:          d.VerifyPassword,
	}
}

// PasswordGate is the gate that bounds password hashing (for metrics and tests).
func (s *Service) PasswordGate() *gate.Gate { return s.passwordGate }

// passwordSlot takes a slot of the password gate. A request that cannot get one within passwordWait is answered
// 429 with Retry-After rather than queued without end: under a flood the queue would only grow, and every
// request in it holds a connection. A caller that went away gets the same answer, which nobody reads.
func (s *Service) passwordSlot(ctx context.Context) (release func(), err error) {
	release, err = s.passwordGate.Enter(ctx, s.passwordWait)
	if err != nil {
		return nil, apperr.RateLimited("The server is busy. Try again in a moment.", 1)
	}
	return release, nil
}

// hashPassword hashes a new password inside the password gate.
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.passwordSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	h, err := s.hash(password)
	if err != nil {
		return "", apperr.Internal(err)
	}
	return h, nil
}

// verifyPassword checks a password against its hash inside the password gate.
func (s *Service) verifyPassword(ctx context.Context, password, encoded string) (bool, error) {
	release, err := s.passwordSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	ok, err := s.verify(password, encoded)
	if err != nil {
		return false, apperr.Internal(err)
	}
	return ok, nil
}

// Client describes where a request comes from, for sessions and throttling.
type Client struct {
	IP        string
	UserAgent string
}

// Auth is a signed-in result: the new session's token (shown once) and the user. Welcome is set by sign-up only.
type Auth struct {
	Token   string   `json:"token"`
	User    User     `json:"user"`
	Welcome *Welcome `json:"welcome,omitempty"`
}

// Register creates an account with the free sign-up credits and signs it in.
func (s *Service) Register(ctx context.Context, in RegisterInput, c Client) (Auth, error) {
	in.Normalize()
	if err := in.Validate(); err != nil {
		return Auth{}, err
	}
	key, mailbox := EmailKey(in.Email), MailboxKey(in.Email)
	// The free credits are for new customers, so they go to a mailbox once: signing up again with its aliases
	// (the store decides, race-free, in the sign-up's transaction), or closing an account and signing up again
	// with its address, would otherwise be ways to farm them. The sign-up itself is not refused (the address is
	// the person's own), and the answer says why no credits came.
	nu := NewUser{
		Email:         in.Email,
		EmailKey:      key,
		FullName:      in.FullName,
		Notifications: DefaultNotifications,
		SignupCredits: credit.SignupBonus,
		MailboxKey:    mailbox,
		MailboxNote:   MsgMailboxHadWelcome(mailbox),
	}
	if closed, err := s.store.EmailClosedBefore(ctx, key); err != nil {
		return Auth{}, apperr.Internal(err)
	} else if closed {
		nu.SignupCredits, nu.SignupNote = 0, MsgNoSignupBonus
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return Auth{}, err
	}
	nu.PasswordHash, nu.CreatedAt = hash, s.now()
	u, welcome, err := s.store.CreateUser(ctx, nu)
	if errors.Is(err, ErrEmailTaken) {
		return Auth{}, emailTaken()
	}
	if err != nil {
		return Auth{}, apperr.Internal(err)
	}
	auth, err := s.startSession(ctx, u, c)
	if err != nil {
		return Auth{}, err
	}
	// The browser the account was made in is known: its first sign-in there is no news.
	s.rememberDevice(ctx, u.ID, c, false)
	auth.Welcome = &welcome
	return auth, nil
}

func emailTaken() error {
	return apperr.Conflict("email_taken", "email", "An account with this email already exists")
}

// Login checks the credentials and starts a session. A wrong email and a wrong password get the same answer.
//
// The attempt is counted before the password is verified (Throttle.Attempt), so parallel guesses cannot all slip
// in while the first ones are being verified. It is counted for the email at this client address and for the
// address, not for the email alone: guesses from elsewhere then cannot lock the owner out of their account.
func (s *Service) Login(ctx context.Context, in LoginInput, c Client) (Auth, error) {
	if err := in.Validate(); err != nil {
		return Auth{}, err
	}
	key := EmailKey(in.Email)
	pairKey, addrKey := "pair:"+c.IP+" "+key, "ip:"+c.IP
	if wait := s.signInAttempt(pairKey, addrKey, s.now()); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		return Auth{}, apperr.RateLimited(
			fmt.Sprintf("Too many failed sign-in attempts. Try again in %d seconds.", secs), secs)
	}
	// notChecked takes the attempt back when the password could not be checked (our fault, or a busy server).
	notChecked := func(err error) (Auth, error) {
		s.pairThrottle.Forgive(pairKey)
		s.addressThrottle.Forgive(addrKey)
		return Auth{}, err
	}
	cred, err := s.store.CredentialByEmail(ctx, key)
	hash := cred.PasswordHash
	if errors.Is(err, ErrNotFound) {
		hash = dummyHash
	} else if err != nil {
		return notChecked(apperr.Internal(err))
	}
	ok, verr := s.verifyPassword(ctx, in.Password, hash)
	if verr != nil {
		if e, isApp := apperr.As(verr); isApp && e.Kind == apperr.KindInternal {
			verr = apperr.Internal(fmt.Errorf("user %d: %w", cred.User.ID, verr))
		}
		return notChecked(verr)
	}
	if !ok || errors.Is(err, ErrNotFound) {
		// The failure is already counted.
		return Auth{}, apperr.Unauthorized("invalid_credentials", "Invalid email or password")
	}
	// The email's count at this address is cleared; the address's count is shared with other people (an office,
	// say), so only this attempt is taken back.
	s.pairThrottle.Reset(pairKey)
	s.addressThrottle.Forgive(addrKey)
	// Issue 27: a suspended account is told so, and only after the right password, so that the answer says nothing
	// about an account to someone who does not know its password.
	if cred.User.SuspendedAt != nil {
		return Auth{}, Suspended(s.supportEmail)
	}
	auth, err := s.startSession(ctx, cred.User, c)
	if err != nil {
		return Auth{}, err
	}
	s.rememberDevice(ctx, cred.User.ID, c, true)
	return auth, nil
}

// rememberDevice records the browser family and network of a sign-in; a device new to the account gets the
// sign-in alert queued (when alert is set), sent later by the mail job if "Email notifications" is on. A failure
// is logged, not returned: the password was right, and the sign-in stands.
func (s *Service) rememberDevice(ctx context.Context, userID int64, c Client, alert bool) {
	if s.devices == nil {
		return
	}
	if _, err := s.store.RememberDevice(ctx, userID, s.devices.Of(c.UserAgent, c.IP), s.now(), alert); err != nil {
		s.log.Error("remembering the sign-in's device", "user_id", userID, "err", err)
	}
}

// signInAttempt counts one sign-in attempt for the email at the address and for the address, or returns how long
// the caller must wait (and counts nothing).
func (s *Service) signInAttempt(pairKey, addrKey string, now time.Time) time.Duration {
	if wait := s.pairThrottle.Attempt(pairKey, now); wait > 0 {
		return wait
	}
	if wait := s.addressThrottle.Attempt(addrKey, now); wait > 0 {
		s.pairThrottle.Forgive(pairKey)
		return wait
	}
	return 0
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
		// A header may hold bytes that are not UTF-8, which PostgreSQL refuses in a text column.
		UserAgent: text.Sanitize(text.Truncate(c.UserAgent, 300)),
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
	// Issue 27: the sessions of a suspended account are kept (they work again on reinstatement) but answer 403.
	if u.SuspendedAt != nil {
		return User{}, Session{}, Suspended(s.supportEmail)
	}
	return u, sess, nil
}

func notSignedIn() error {
	return apperr.Unauthorized("unauthorized", "Not signed in or the session has expired")
}

// Suspended is the error of everything a suspended account tries (sign-in, sessions, API keys): 403
// account_suspended, naming the support address (support: config.SupportEmail; "" says "support").
func Suspended(support string) error {
	if support == "" {
		support = "support"
	}
	return &apperr.Error{Kind: apperr.KindForbidden, Code: "account_suspended",
		Message: "This account is suspended. Contact " + support + " ."}
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

// UpdateProfile changes the name, company and email. A new email (not only a change of case) needs the current
// password, and the old address is told of the change: otherwise a stolen session could move the account to the
// thief's address, reset the password from there and keep the account, without its owner ever hearing of it.
func (s *Service) UpdateProfile(ctx context.Context, id int64, in ProfileInput) (User, error) {
	fullName, company, email, err := in.Validate()
	if err != nil {
		return User{}, err
	}
	cred, err := s.credential(ctx, id)
	if err != nil {
		return User{}, err
	}
	before := cred.User
	emailChanged := EmailKey(email) != EmailKey(before.Email)
	if emailChanged {
		if in.CurrentPassword == "" {
			return User{}, apperr.Invalid("currentPassword", MsgCurrentForEmail)
		}
		if err := s.checkPassword(ctx, cred, "currentPassword", in.CurrentPassword, MsgCurrentIncorrect); err != nil {
			return User{}, err
		}
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
	if emailChanged {
		s.notifyEmailChanged(ctx, before, u)
	}
	return u, nil
}

// notifyEmailChanged tells the old address that the account's email changed. A failure is logged, not returned:
// the change is made, and the mailer logs what it could not send.
func (s *Service) notifyEmailChanged(ctx context.Context, before, after User) {
	msg := mail.Message{
		To:      before.Email,
		Subject: "The email address of your Valuator account was changed",
		Text: fmt.Sprintf("Hello %s,\n\nThe email address of your Valuator account was changed from %s to %s on %s.\n\n"+
			"If you made this change, there is nothing more to do: you now sign in with the new address.\n\n"+
			"If you did not, someone else may be using your account. Write to us at once through %s/contact-us "+
			"(or reply to this email) so that we can give the account back to you.\n\n"+
			"The Valuator team\n",
			before.FullName, before.Email, after.Email, s.now().UTC().Format("January 2, 2006 at 15:04 UTC"), s.baseURL),
	}
	if err := s.mailer.Send(ctx, msg); err != nil {
		s.log.Error("sending the email-changed notice", "user_id", before.ID, "err", err)
	}
}

// credential reads the signed-in user's account and password hash; a vanished account reads as signed out.
func (s *Service) credential(ctx context.Context, userID int64) (Credential, error) {
	cred, err := s.store.CredentialByID(ctx, userID)
	if errors.Is(err, ErrNotFound) {
		return Credential{}, notSignedIn()
	}
	if err != nil {
		return Credential{}, apperr.Internal(err)
	}
	return cred, nil
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

// ChangePassword verifies the current password, sets the new one, signs out every other session and revokes the
// outstanding reset links (one sent before the change must not undo it).
func (s *Service) ChangePassword(ctx context.Context, userID, sessionID int64, in ChangePasswordInput) error {
	if err := in.Validate(); err != nil {
		return err
	}
	cred, err := s.credential(ctx, userID)
	if err != nil {
		return err
	}
	if p := passwordIsEmailProblem("New password", in.NewPassword, cred.User.Email); p != "" {
		return apperr.Invalid("newPassword", p)
	}
	if err := s.checkPassword(ctx, cred, "currentPassword", in.CurrentPassword, MsgCurrentIncorrect); err != nil {
		return err
	}
	hash, err := s.hashPassword(ctx, in.NewPassword)
	if err != nil {
		return err
	}
	if err := s.store.SetPassword(ctx, userID, hash, sessionID, s.now()); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// checkPassword verifies a signed-in user's password, throttled like sign-in (the attempt counted before the
// verification) so a stolen session cannot be used to guess the password quickly.
func (s *Service) checkPassword(ctx context.Context, cred Credential, field, password, wrongMsg string) error {
	key := fmt.Sprintf("user:%d", cred.User.ID)
	if wait := s.userThrottle.Attempt(key, s.now()); wait > 0 {
		secs := int((wait + time.Second - 1) / time.Second)
		return apperr.RateLimited(fmt.Sprintf("Too many wrong passwords. Try again in %d seconds.", secs), secs)
	}
	ok, err := s.verifyPassword(ctx, password, cred.PasswordHash)
	if err != nil {
		s.userThrottle.Forgive(key)
		return err
	}
	if !ok {
		return apperr.Invalid(field, wrongMsg)
	}
	s.userThrottle.Reset(key)
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
//
// The token is checked (a read by its hash) before the new password is hashed: the route needs no sign-in, and
// hashing first would let anyone make the server spend 19 MiB and a core's tens of milliseconds per request with
// made-up tokens.
func (s *Service) ResetPassword(ctx context.Context, in ResetPasswordInput) error {
	in.Token = strings.TrimSpace(in.Token)
	if err := in.Validate(); err != nil {
		return err
	}
	if !strings.HasPrefix(in.Token, ResetTokenPrefix) || len(in.Token) > 200 {
		return apperr.Invalid("token", MsgResetTokenInvalid)
	}
	tokenHash := HashToken(in.Token)
	u, err := s.store.ResetTokenUser(ctx, tokenHash, s.now())
	if errors.Is(err, ErrNotFound) {
		return apperr.Invalid("token", MsgResetTokenInvalid)
	} else if err != nil {
		return apperr.Internal(err)
	}
	if p := passwordIsEmailProblem("Password", in.Password, u.Email); p != "" {
		return apperr.Invalid("password", p)
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return err
	}
	// The store uses the token only if it is still unused and unexpired: another reset with it may have won the
	// race since the read above.
	if _, err := s.store.ResetPassword(ctx, tokenHash, hash, s.now()); errors.Is(err, ErrNotFound) {
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
	cred, err := s.credential(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.checkPassword(ctx, cred, "password", password, "Password is incorrect"); err != nil {
		return err
	}
	if err := s.store.CloseUser(ctx, userID, s.now()); err != nil {
		return apperr.Internal(err)
	}
	return nil
}

// Unsubscribe turns off the email switch topic of the user, as an email's unsubscribe link asks. A closed account
// gets no email at all: the link has nothing left to stop, and succeeds the same way.
func (s *Service) Unsubscribe(ctx context.Context, userID int64, topic string) error {
	if err := s.store.DisableNotification(ctx, userID, topic, s.now()); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

// CreditHistory is a page of the user's credit ledger, newest first, older than the row id before (0: from the
// newest); more says whether older rows exist.
func (s *Service) CreditHistory(ctx context.Context, userID, before int64, limit int) ([]credit.Entry, bool, error) {
	return s.store.CreditHistory(ctx, userID, before, limit)
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
