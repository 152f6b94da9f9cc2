// Package notify is the account's emails beyond the ones a request sends at once (password reset, opt-out
// links): sign-in alerts, batch results, the weekly usage report, the contact form's mails and the emails about
// money (receipts and billing notices, money.go). Each is queued as a row of the mail outbox in the transaction
// that decides it (a new device is remembered, a job finishes, a week is reported, a message is stored, a payment
// is paid or refunded) and delivered by a periodic job through the one mail path (mail.Sender), so a
// mail server that is down for a while delays an email but never loses it, and no request waits on SMTP.
//
// Every email a switch of Settings governs names that switch and carries a link, and the RFC 8058 headers, that
// turn the switch off without signing in (Signer). The switch is checked again when the email is sent: turned off
// meanwhile, it is not sent.
package notify

import (
	"errors"
	"time"
)

// The switches of Settings (the JSON names of account.Notifications) that an email can be governed by.
const (
	// TopicAccount is "Email notifications": batch results and billing notices (a refund, a declined renewal, a
	// scheduled downgrade, a cancellation, a period's credits). Receipts and sign-in alerts go whatever it says.
	TopicAccount = "emailNotifications"
	// TopicUsage is "Low balance alerts" (billing alerts: low balance, overage started, 80% of the overage limit).
	TopicUsage = "usageAlerts"
	// TopicWeekly is "Weekly usage report".
	TopicWeekly = "weeklyReports"
)

// topicLabels are the switches' names on Settings, as emails and the unsubscribe answer give them.
var topicLabels = map[string]string{
	TopicAccount: "Email notifications (batch job results and billing notices)",
	TopicUsage:   "Low balance alerts",
	TopicWeekly:  "Weekly usage report",
}

// TopicLabel is the switch's name as Settings shows it ("" for an unknown topic).
func TopicLabel(topic string) string { return topicLabels[topic] }

// ValidTopic reports whether topic is a switch an email can be unsubscribed from. "Product news" is not one: no
// such email exists.
func ValidTopic(topic string) bool { _, ok := topicLabels[topic]; return ok }

// Kinds of queued mail.
const (
	KindSignIn         = "sign_in"
	KindBatchResult    = "batch_result"
	KindWeeklyReport   = "weekly_report"
	KindContactSupport = "contact_support"
	KindContactAck     = "contact_ack"
	// KindSupportReply is an operator's reply in the support chat, emailed to a customer who was not looking.
	KindSupportReply = "support_reply"
	// The emails about money (money.go): a receipt goes whatever the switches say; the others are governed by
	// TopicAccount.
	KindReceipt         = "payment_receipt"
	KindRefund          = "payment_refund"
	KindRenewalDeclined = "renewal_declined"
	KindDowngrade       = "downgrade_scheduled"
	KindCancellation    = "subscription_cancelled"
	KindCreditsGranted  = "credits_granted"
)

// Mail is an email to queue: a row of the outbox. It is rendered when it is sent, from Payload (JSON of the
// kind's type: SignIn, BatchResult, ...), so that its links are made with the configuration of the moment.
type Mail struct {
	Kind string
	// Key is unique among all queued mail: a second mail with the same key is not queued (one weekly report per
	// account and week, one alert per new device, ...).
	Key    string
	UserID int64 // 0: not an account's email (the contact form's)
	// To is the recipient; "" sends to the account's address at the time of sending.
	To      string
	ReplyTo string
	// Topic is the switch that must be on when the mail is sent ("" for none).
	Topic     string
	Payload   []byte
	CreatedAt time.Time
}

// Queued is a claimed mail of the outbox, with what its account looks like at sending time.
type Queued struct {
	ID        int64
	Kind      string
	UserID    int64
	To        string
	ReplyTo   string
	Topic     string
	Payload   []byte
	CreatedAt time.Time
	// Attempts counts this one.
	Attempts int
	// The account (UserID != 0): its address and name, whether it is open and whether Topic is on.
	AccountEmail string
	FullName     string
	Open         bool
	Wanted       bool
}

// ErrBadToken is a token that is not one of ours: malformed, or its signature does not match.
var ErrBadToken = errors.New("not a valid unsubscribe token")
