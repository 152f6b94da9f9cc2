package account

import (
	"fmt"
	"time"
)

// ErasureAfterYears is how long a closed account's personal data is kept: the Privacy Policy ("How long we keep
// data") and the Terms promise "up to 2 years after you close your account ... then deleted or anonymized". The
// retention job (internal/jobs, retention.go) erases every account closed longer ago than this; docs/operations.md
// ("Data retention") describes what it erases and what it keeps. This is the one place the period is set.
const ErasureAfterYears = 2

// ErasureCutoff is the latest closing time of an account that is due for erasure at now: closed at or before it,
// the account has been closed for ErasureAfterYears calendar years.
func ErasureCutoff(now time.Time) time.Time { return now.UTC().AddDate(-ErasureAfterYears, 0, 0) }

// ErasedEmail is the address an erased account's row keeps in place of its email: unique (it holds the account's
// id) and undeliverable (.invalid is reserved for that by RFC 2606), so nothing can be sent to it or sign in with
// it, and the real address stays free to sign up again.
func ErasedEmail(id int64) string { return fmt.Sprintf("erased-%d@erased.invalid", id) }
