// Package contact is the contact form: the rules of a message to the team.
package contact

import (
	"strings"
	"time"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/notify"
	"valuator/internal/text"
)

// Input is the contact form payload.
type Input struct {
	FirstName string  `json:"firstName"`
	LastName  string  `json:"lastName"`
	Email     string  `json:"email"`
	Company   *string `json:"company"`
	Subject   string  `json:"subject"`
	Message   string  `json:"message"`
}

// Message is a stored contact message.
type Message struct {
	ID        int64
	UserID    int64 // 0 when sent signed out
	FirstName string
	LastName  string
	Email     string
	Company   string
	Subject   string
	Message   string
	IP        string
	CreatedAt time.Time
}

// Limits on the form's fields.
const (
	maxName    = 100
	maxEmail   = 254
	maxCompany = 200
	maxMessage = 5000
)

// Validate checks the form (every field but company is required) and returns the trimmed message.
// validEmail is the account package's email rule, passed in so there is one definition of a valid email.
func (in Input) Validate(validEmail func(string) bool) (Message, error) {
	m := Message{
		FirstName: strings.TrimSpace(in.FirstName),
		LastName:  strings.TrimSpace(in.LastName),
		Email:     strings.TrimSpace(in.Email),
		Subject:   strings.TrimSpace(in.Subject),
		Message:   strings.TrimSpace(in.Message),
	}
	if in.Company != nil {
		m.Company = strings.TrimSpace(*in.Company)
	}
	n := utf8.RuneCountInString
	var v apperr.Validation
	v.Check(m.FirstName != "", "firstName", "First name is required")
	v.Check(n(m.FirstName) <= maxName, "firstName", "First name must be at most 100 characters")
	v.Check(m.LastName != "", "lastName", "Last name is required")
	v.Check(n(m.LastName) <= maxName, "lastName", "Last name must be at most 100 characters")
	v.Check(m.Email != "", "email", "Email is required")
	if m.Email != "" {
		v.Check(n(m.Email) <= maxEmail && validEmail(m.Email), "email", "Please enter a valid email address")
	}
	v.Check(n(m.Company) <= maxCompany, "company", "Company must be at most 200 characters")
	v.Check(m.Subject != "", "subject", "Subject is required")
	if m.Subject != "" {
		_, ok := notify.ContactSubjects[m.Subject]
		v.Check(ok, "subject", "Please choose a subject from the list")
	}
	v.Check(m.Message != "", "message", "Message is required")
	v.Check(n(m.Message) <= maxMessage, "message", "Message must be at most 5000 characters")
	// Names are one line without control or text-direction characters (they appear in the team's inbox and
	// exports); the message may have line breaks and tabs, but no text-direction overrides either (a message that
	// reads differently from what it says, in the inbox, as support chat messages: text.MessageProblem).
	for _, f := range []struct{ field, label, value string }{
		{"firstName", "First name", m.FirstName}, {"lastName", "Last name", m.LastName}, {"company", "Company", m.Company},
	} {
		if p := text.NameProblem(f.value); p != "" {
			v.Add(f.field, f.label+" "+p)
		}
	}
	for _, f := range []struct{ field, label, value string }{
		{"email", "Email", m.Email}, {"subject", "Subject", m.Subject},
	} {
		if p := text.Problem(f.value); p != "" {
			v.Add(f.field, f.label+" "+p)
		}
	}
	if p := text.MessageProblem(m.Message); p != "" {
		v.Add("message", "Message "+p)
	}
	return m, v.Err()
}

// Acknowledgement is the answer to a sent message.
const Acknowledgement = "Thanks for reaching out. We'll reply within 24 hours."
