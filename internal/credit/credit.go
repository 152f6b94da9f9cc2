// Package credit holds the rules of the credit balance. Every change of a balance is a row of the append-only
// credit ledger, written in the same transaction as the change (store.postCredit is the only writer).
package credit

import "time"

// SignupBonus is what every new account receives as its first ledger row (DESIGN.md section 5).
const SignupBonus = 100

// Kinds of ledger rows.
const (
	KindSignupBonus = "signup_bonus"
	KindForfeit     = "forfeit"
)

// Entry is one ledger row: a signed amount and the balance after it.
type Entry struct {
	ID           int64     `json:"id"`
	UserID       int64     `json:"-"`
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balance"`
	Kind         string    `json:"kind"`
	Description  string    `json:"description"`
	Reference    string    `json:"reference,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}
