package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"valuator/internal/mail"
)

// SignIn is a sign-in from a device the account had not used.
type SignIn struct {
	At      time.Time `json:"at"`
	Browser string    `json:"browser"`
	Network string    `json:"network"`
}

// NewSignIn is the alert of a sign-in from a new device: one per account and device. It is a security notice, under
// no switch and with no unsubscribe link (issue 36, L-7): under "Email notifications", whose link in any batch email
// never expires, whoever held one such email could silence the alerts of the sign-ins they were about to make.
func NewSignIn(userID int64, d Device, at time.Time) Mail {
	return newMail(KindSignIn, fmt.Sprintf("sign_in:%d:%s", userID, d.Hash), userID, "", at,
		SignIn{At: at.UTC(), Browser: d.Family, Network: d.Network})
}

// BatchResult is how a batch job ended: completed, or failed (out of credits, or another reason).
type BatchResult struct {
	JobID    int64  `json:"jobId"`
	FileName string `json:"fileName"`
	Status   string `json:"status"` // "completed" or "failed"
	Message  string `json:"message,omitempty"`
	// OutOfCredits: the job stopped because the balance could not pay for more rows.
	OutOfCredits bool  `json:"outOfCredits,omitempty"`
	Total        int   `json:"total"`
	Valued       int   `json:"valued"`
	Failed       int   `json:"failed"`
	NotValued    int   `json:"notValued"` // rows left pending: not valued for lack of credits
	CreditsUsed  int64 `json:"creditsUsed"`
}

// NewBatchResult is the email of a job's outcome; outcome counts the job's outcomes (a retried job ends again), so
// each one is mailed once.
func NewBatchResult(userID int64, r BatchResult, outcome int, at time.Time) Mail {
	return newMail(KindBatchResult, fmt.Sprintf("batch:%d:%d", r.JobID, outcome), userID, TopicAccount, at, r)
}

// WeeklyReport is an account's use of the API in one ISO week.
type WeeklyReport struct {
	WeekStart    time.Time       `json:"weekStart"`
	WeekEnd      time.Time       `json:"weekEnd"`
	Calls        int64           `json:"calls"`
	Successful   int64           `json:"successful"`
	CreditsUsed  int64           `json:"creditsUsed"`
	TopEndpoints []EndpointCount `json:"topEndpoints"`
}

// EndpointCount is the calls to one endpoint.
type EndpointCount struct {
	Endpoint string `json:"endpoint"`
	Calls    int64  `json:"calls"`
}

// NewWeeklyReport is the report of one account's week: one per account and week, however often it is made.
func NewWeeklyReport(userID int64, r WeeklyReport, at time.Time) Mail {
	return newMail(KindWeeklyReport, fmt.Sprintf("weekly:%d:%s", userID, WeekLabel(r.WeekStart)), userID, TopicWeekly,
		at, r)
}

// ContactSupport is a contact message, as mailed to the support address.
type ContactSupport struct {
	MessageID int64 `json:"messageId"`
	UserID    int64 `json:"userId,omitempty"`
	// Plan is the signed-in sender's plan ("" signed out); Priority marks a plan with priority support.
	Plan      string    `json:"plan,omitempty"`
	Priority  bool      `json:"priority,omitempty"`
	FirstName string    `json:"firstName"`
	LastName  string    `json:"lastName"`
	Email     string    `json:"email"`
	Company   string    `json:"company,omitempty"`
	Subject   string    `json:"subject"`
	Message   string    `json:"message"`
	At        time.Time `json:"at"`
}

// ContactAck is the acknowledgement a contact message's sender gets. It repeats nothing the sender typed but the
// subject chosen from the list: the form takes any address, and the acknowledgement must not be a way to send a
// stranger someone else's text.
type ContactAck struct {
	Subject string    `json:"subject"`
	At      time.Time `json:"at"`
}

// ContactMails are the mails of stored contact message id, sent at: c to the support address (replies go to the
// sender, c.Email) and, when ack is set, the acknowledgement to the sender. What they say is the contact package's.
func ContactMails(id int64, c ContactSupport, at time.Time, support string, ack bool) []Mail {
	c.MessageID, c.At = id, at.UTC()
	to := newMail(KindContactSupport, fmt.Sprintf("contact:%d:support", id), 0, "", at, c)
	to.To, to.ReplyTo = support, c.Email
	out := []Mail{to}
	if ack {
		a := newMail(KindContactAck, fmt.Sprintf("contact:%d:ack", id), 0, "", at,
			ContactAck{Subject: c.Subject, At: at.UTC()})
		a.To = c.Email
		out = append(out, a)
	}
	return out
}

// ContactSubjects are the contact form's subjects (spec product-and-account section 3), value to label: the form
// offers them and the mails of a message show the label.
var ContactSubjects = map[string]string{
	"general":     "General Inquiry",
	"technical":   "Technical Support",
	"billing":     "Billing Question",
	"partnership": "Partnership",
	"feedback":    "Product Feedback",
	"other":       "Other",
}

// SupportReply is an operator's reply in the support chat (internal/support), emailed to a customer who was not
// looking at the conversation when it was sent.
type SupportReply struct {
	ConversationID int64     `json:"conversationId"`
	MessageID      int64     `json:"messageId"`
	Author         string    `json:"author"`
	Body           string    `json:"body"`
	At             time.Time `json:"at"`
}

// NewSupportReply is the email of a reply to the customer of its conversation: no switch governs it (it answers
// the customer's own question), and it goes only to an open account (UserID is set by the store).
func NewSupportReply(r SupportReply) Mail {
	return newMail(KindSupportReply, fmt.Sprintf("support_reply:%d", r.MessageID), 0, "", r.At, r)
}

func newMail(kind, key string, userID int64, topic string, at time.Time, payload any) Mail {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err) // the payload types always marshal
	}
	return Mail{Kind: kind, Key: key, UserID: userID, Topic: topic, Payload: b, CreatedAt: at}
}

// dateTime is how emails give a moment.
func dateTime(t time.Time) string { return t.UTC().Format("Monday, January 2, 2006 at 15:04 UTC") }

// Render makes the email of a queued mail.
func Render(q Queued, l Links) (mail.Message, error) {
	to := q.To
	if to == "" {
		to = q.AccountEmail
	}
	if to == "" {
		return mail.Message{}, fmt.Errorf("mail %d has no recipient", q.ID)
	}
	msg := mail.Message{To: to, ReplyTo: q.ReplyTo}
	name := q.FullName
	if name == "" {
		name = "there"
	}
	var b strings.Builder
	switch q.Kind {
	case KindSignIn:
		var p SignIn
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		msg.Subject = "New sign-in to your Valuator account"
		fmt.Fprintf(&b, "Hello %s,\n\nYour Valuator account (%s) was signed in to from a browser and network it had not used before:\n\n", name, to)
		fmt.Fprintf(&b, "  When:    %s\n  Browser: %s\n  Network: %s (roughly where: the network, not the exact address)\n\n",
			dateTime(p.At), p.Browser, p.Network)
		b.WriteString("If this was you, there is nothing to do: this browser and network are now known.\n\n")
		fmt.Fprintf(&b, "If it was not you, change your password now in Settings, under Security: %s\n", l.URL("/settings"))
		b.WriteString("Changing it signs out every other session. If you can no longer sign in, reset it here: ")
		fmt.Fprintf(&b, "%s\n\n", l.URL("/forgot-password"))
		b.WriteString("This is a security notice: it is sent whatever your email settings say.\n")
	case KindBatchResult:
		var p BatchResult
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		switch {
		case p.Status == "completed":
			msg.Subject = fmt.Sprintf("Batch job #%d finished: %s of %s valued", p.JobID, count(p.Valued), count(p.Total))
			fmt.Fprintf(&b, "Hello %s,\n\nYour batch job #%d (%s) has finished.\n\n", name, p.JobID, p.FileName)
		case p.OutOfCredits:
			msg.Subject = fmt.Sprintf("Batch job #%d stopped: out of credits", p.JobID)
			fmt.Fprintf(&b, "Hello %s,\n\nYour batch job #%d (%s) stopped because your credits ran out.\n\n", name, p.JobID, p.FileName)
		default:
			msg.Subject = fmt.Sprintf("Batch job #%d failed", p.JobID)
			fmt.Fprintf(&b, "Hello %s,\n\nYour batch job #%d (%s) failed.\n\n", name, p.JobID, p.FileName)
		}
		for _, row := range [][2]string{{"Properties in the file", count(p.Total)}, {"Valued", count(p.Valued)},
			{"Could not be valued (not charged)", count(p.Failed)}, {"Not valued for lack of credits", count(p.NotValued)},
			{"Credits used", count64(p.CreditsUsed)}} {
			fmt.Fprintf(&b, "  %-34s %s\n", row[0]+":", row[1])
		}
		b.WriteString("\n")
		if p.Message != "" {
			fmt.Fprintf(&b, "%s\n\n", p.Message)
		}
		fmt.Fprintf(&b, "See the job and download its results: %s\n", l.URL(fmt.Sprintf("/batch-upload?job=%d", p.JobID)))
		b.WriteString("Results are kept for 24 hours after the job ends.\n")
	case KindWeeklyReport:
		var p WeeklyReport
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		last := p.WeekEnd.AddDate(0, 0, -1)
		span := p.WeekStart.UTC().Format("Jan 2") + " to " + last.UTC().Format("Jan 2, 2006")
		msg.Subject = fmt.Sprintf("Your Valuator week (%s): %s calls, %s credits", span, count64(p.Calls), count64(p.CreditsUsed))
		fmt.Fprintf(&b, "Hello %s,\n\nYour use of Valuator from Monday %s to Sunday %s (UTC):\n\n", name,
			p.WeekStart.UTC().Format("January 2"), last.UTC().Format("January 2, 2006"))
		fmt.Fprintf(&b, "  Calls:         %s\n", count64(p.Calls))
		fmt.Fprintf(&b, "  Credits used:  %s\n", count64(p.CreditsUsed))
		fmt.Fprintf(&b, "  Success rate:  %s (%s of %s calls answered 2xx)\n\n", SuccessRate(p.Successful, p.Calls),
			count64(p.Successful), count64(p.Calls))
		if len(p.TopEndpoints) > 0 {
			b.WriteString("Top endpoints:\n")
			for _, e := range p.TopEndpoints {
				fmt.Fprintf(&b, "  %-36s %s %s\n", e.Endpoint, count64(e.Calls), plural(e.Calls, "call", "calls"))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Your history and reports: %s\n", l.URL("/reporting"))
	case KindContactSupport:
		var p ContactSupport
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		label := ContactSubjects[p.Subject]
		if label == "" {
			label = p.Subject
		}
		msg.Subject = fmt.Sprintf("Contact #%d: %s from %s %s", p.MessageID, label, p.FirstName, p.LastName)
		if p.Priority {
			msg.Subject = fmt.Sprintf("[Priority: %s] %s", p.Plan, msg.Subject)
		}
		fmt.Fprintf(&b, "A message was sent with the contact form. Reply to this email to answer the sender.\n\n")
		fmt.Fprintf(&b, "  From:    %s %s <%s>\n", p.FirstName, p.LastName, p.Email)
		if p.Company != "" {
			fmt.Fprintf(&b, "  Company: %s\n", p.Company)
		}
		fmt.Fprintf(&b, "  Subject: %s\n", label)
		if p.UserID != 0 {
			fmt.Fprintf(&b, "  Account: #%d, %s plan (signed in when sending)\n", p.UserID, p.Plan)
		} else {
			b.WriteString("  Account: none (sent signed out; the address is unverified)\n")
		}
		fmt.Fprintf(&b, "  Sent:    %s\n\n", dateTime(p.At))
		b.WriteString(p.Message)
		b.WriteString("\n")
	case KindContactAck:
		var p ContactAck
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		label := ContactSubjects[p.Subject]
		if label == "" {
			label = "General Inquiry"
		}
		msg.Subject = "We received your message"
		fmt.Fprintf(&b, "Hello,\n\nWe received your message to the Valuator team (%s) on %s. A person reads every message, and we reply within 24 hours, to this address.\n\n",
			label, dateTime(p.At))
		b.WriteString("If you did not write to us, ignore this email: someone may have typed your address by mistake.\n\n")
		fmt.Fprintf(&b, "The Valuator team\n%s\n", l.URL(""))
	case KindSupportReply:
		var p SupportReply
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return msg, err
		}
		msg.Subject = "Valuator support replied to your message"
		fmt.Fprintf(&b, "Hello %s,\n\n%s of the Valuator team replied to your message on %s:\n\n", name, p.Author, dateTime(p.At))
		for _, line := range strings.Split(p.Body, "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
		fmt.Fprintf(&b, "\nTo answer, open the support chat in your dashboard: %s\n", l.URL("/dashboard?support=open"))
		b.WriteString("Replies to this email are not read; the chat keeps the whole conversation.\n")
	default:
		ok, err := renderMoney(q, name, l, &msg, &b)
		if err == nil && !ok {
			ok, err = renderPortfolio(q, name, l, &msg, &b)
		}
		if err != nil {
			return msg, err
		}
		if !ok {
			return msg, fmt.Errorf("mail %d: unknown kind %q", q.ID, q.Kind)
		}
	}
	if q.Topic != "" {
		b.WriteString(l.Footer(q.UserID, q.Topic))
		msg.Headers = l.Headers(q.UserID, q.Topic)
	}
	msg.Text = b.String()
	return msg, nil
}

// SuccessRate is successful of calls as a percentage with one decimal, as the reports show it.
func SuccessRate(successful, calls int64) string {
	if calls == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", float64(successful)*100/float64(calls))
}

func count(n int) string { return count64(int64(n)) }

// count64 writes n with thousands separators.
func count64(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
