// Package account holds users, sessions and passwords: the rules of signing up, signing in and recovering an
// account. It does no I/O of its own: persistence goes through Store and mail through a Mailer.
package account

import (
	"time"

	"valuator/internal/billing"
)

// User is an account as the API shows it (api/openapi.yaml, components.schemas.User).
type User struct {
	ID       int64  `json:"id"`
	Email    string `json:"email"`
	FullName string `json:"fullName"`
	Company  string `json:"company"`
	Plan     string `json:"plan"`
	Credits  int64  `json:"credits"`
	// CreditBalance is Credits as every surface shows it (billing.BalanceOf): plan credits left and overage.
	CreditBalance      billing.Balance `json:"creditBalance"`
	TotalCreditsEarned int64           `json:"totalCreditsEarned"`
	Notifications      Notifications   `json:"notifications"`
	CreatedAt          time.Time       `json:"createdAt"`
	// Role is RoleCustomer or RoleAdmin (an operator, given with `valuator admin add`): the web app shows the
	// operators' console to admins only; the server checks it on every /api/admin/ route.
	Role string `json:"role"`
	// SuspendedAt is set while an operator has suspended the account: it cannot sign in or use its sessions.
	SuspendedAt *time.Time `json:"-"`
}

// Roles of an account.
const (
	RoleCustomer = "customer"
	RoleAdmin    = "admin"
)

// Notifications are the user's email preferences.
type Notifications struct {
	EmailNotifications bool `json:"emailNotifications"`
	UsageAlerts        bool `json:"usageAlerts"`
	WeeklyReports      bool `json:"weeklyReports"`
	MarketingEmails    bool `json:"marketingEmails"`
}

// DefaultNotifications is what a new account starts with: account mail and low-balance alerts on, the rest off.
var DefaultNotifications = Notifications{EmailNotifications: true, UsageAlerts: true}

// Session is a signed-in browser. Only the hash of its token is stored.
type Session struct {
	ID        int64
	UserID    int64
	TokenHash string
	CreatedAt time.Time
	ExpiresAt time.Time
	UserAgent string
	IP        string
}

// NewUser is what the store needs to create an account.
type NewUser struct {
	Email         string
	EmailKey      string
	PasswordHash  string
	FullName      string
	Notifications Notifications
	CreatedAt     time.Time
	// SignupCredits are granted by the first ledger row, in the same transaction as the user.
	SignupCredits int64
	// SignupNote, when set, is the description of that row, which is then written even for 0 credits so that the
	// credit history says why nothing was granted (MsgNoSignupBonus).
	SignupNote string
	// MailboxKey, when set, is the mailbox of Email (MailboxKey), which gets the SignupCredits once, ever: the
	// store records the mailbox in the same transaction, and if another account's sign-up recorded it first, the
	// account gets 0 credits with MailboxNote as the row's description. Left empty (accounts made by tests and
	// tools), the credits are granted without that check.
	MailboxKey  string
	MailboxNote string
}

// ProfileUpdate is a validated profile change.
type ProfileUpdate struct {
	FullName string
	Company  string
	Email    string
	EmailKey string
	At       time.Time
}

// Credential is what sign-in checks: the user and the stored password hash.
type Credential struct {
	User         User
	PasswordHash string
}
