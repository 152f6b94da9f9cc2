// Package apperr is the one error type that crosses from domain code to the HTTP layer. Domain packages say what
// went wrong (a Kind and a sentence for a person); Kind.Status maps the Kind to a status code in one place.
package apperr

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Kind classifies an error for the HTTP layer. Each kind maps to exactly one status code (Kind.Status).
type Kind int

const (
	// KindInternal is our own fault; its message is never shown to the caller.
	KindInternal Kind = iota
	KindInvalid
	KindUnauthorized
	KindPaymentRequired
	KindForbidden
	KindNotFound
	KindConflict
	KindTooLarge
	KindUnsupportedMediaType
	KindRateLimited
	KindUnavailable
	KindMethodNotAllowed
	// KindGone: the thing existed but was deleted on purpose (batch results after their retention).
	KindGone
	// KindTimeout: the request's body arrived too slowly and was cut off.
	KindTimeout
	// KindUnprocessable: the request was understood and valid, but the answer would be useless (a valuation too
	// uncertain to sell).
	KindUnprocessable
)

// Status is the one mapping from error kinds to HTTP status codes. The server answers with it, and the usage
// record of a metered call that failed stores it, so the domain services that record calls need it too.
func (k Kind) Status() int {
	switch k {
	case KindInvalid:
		return http.StatusBadRequest
	case KindUnauthorized:
		return http.StatusUnauthorized
	case KindPaymentRequired:
		return http.StatusPaymentRequired
	case KindForbidden:
		return http.StatusForbidden
	case KindNotFound:
		return http.StatusNotFound
	case KindConflict:
		return http.StatusConflict
	case KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case KindUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case KindRateLimited:
		return http.StatusTooManyRequests
	case KindUnavailable:
		return http.StatusServiceUnavailable
	case KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case KindTimeout:
		return http.StatusRequestTimeout
	case KindGone:
		return http.StatusGone
	case KindUnprocessable:
		return http.StatusUnprocessableEntity
	default:
		return http.StatusInternalServerError
	}
}

// Error is a domain error with a message a person can read.
type Error struct {
	Kind    Kind
	Code    string // stable snake_case code for programs, e.g. "email_taken"
	Message string // shown to the caller, except for KindInternal
	// Field names the first bad input field, and Fields every bad field with its message (KindInvalid, KindConflict).
	Field  string
	Fields map[string]string
	// RetryAfterSeconds tells a rate-limited caller when to come back (KindRateLimited), or the caller of a
	// dependency that is down for a moment (KindUnavailable; 0 there means no Retry-After).
	RetryAfterSeconds int
	// Extra carries additional fields for the JSON body (for example the balance on a 402).
	Extra map[string]any
	// Err is the underlying cause, logged but never shown.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// IsKind reports whether err carries an *Error of the given kind.
func IsKind(err error, k Kind) bool {
	e, ok := As(err)
	return ok && e.Kind == k
}

// Invalid reports one bad input field.
func Invalid(field, message string) *Error {
	return &Error{Kind: KindInvalid, Code: "invalid_input", Message: message, Field: field,
		Fields: map[string]string{field: message}}
}

// Unauthorized reports missing or bad credentials.
func Unauthorized(code, message string) *Error {
	return &Error{Kind: KindUnauthorized, Code: code, Message: message}
}

// NotFound reports that something does not exist, or is not the caller's to see.
func NotFound(code, message string) *Error {
	return &Error{Kind: KindNotFound, Code: code, Message: message}
}

// Conflict reports that the request clashes with existing data; field may be empty.
func Conflict(code, field, message string) *Error {
	e := &Error{Kind: KindConflict, Code: code, Message: message, Field: field}
	if field != "" {
		e.Fields = map[string]string{field: message}
	}
	return e
}

// RateLimited reports that the caller must wait retryAfter seconds (at least 1).
func RateLimited(message string, retryAfterSeconds int) *Error {
	if retryAfterSeconds < 1 {
		retryAfterSeconds = 1
	}
	return &Error{Kind: KindRateLimited, Code: "rate_limited", Message: message, RetryAfterSeconds: retryAfterSeconds}
}

// Internal wraps our own failure; the caller sees only "Internal error".
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Code: "internal", Message: "Internal error", Err: err}
}

// Validation collects every bad field of one input, in the order they were checked.
type Validation struct {
	order  []string
	fields map[string]string
}

// Add records a message for field unless that field already has one (the first failing rule wins).
func (v *Validation) Add(field, message string) {
	if v.fields == nil {
		v.fields = map[string]string{}
	}
	if _, ok := v.fields[field]; ok {
		return
	}
	v.fields[field] = message
	v.order = append(v.order, field)
}

// Check adds message for field when ok is false.
func (v *Validation) Check(ok bool, field, message string) {
	if !ok {
		v.Add(field, message)
	}
}

// DateRange reads a filter's optional "from" and "to" days (YYYY-MM-DD, as a date input sends them) with get: each
// must be a date, and to not before from. A missing one is the zero time.
func (v *Validation) DateRange(get func(name string) string) (from, to time.Time) {
	day := func(name string) time.Time {
		s := get(name)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.DateOnly, s)
		v.Check(err == nil, name, name+" must be a date such as 2026-11-26")
		return t
	}
	from, to = day("from"), day("to")
	v.Check(from.IsZero() || to.IsZero() || !to.Before(from), "to", "to must not be before from")
	return from, to
}

// Err returns nil when every check passed, else a KindInvalid error naming the first bad field.
func (v *Validation) Err() error {
	if len(v.order) == 0 {
		return nil
	}
	first := v.order[0]
	fields := make(map[string]string, len(v.fields))
	for k, m := range v.fields {
		fields[k] = m
	}
	return &Error{Kind: KindInvalid, Code: "invalid_input", Message: v.fields[first], Field: first, Fields: fields}
}

// FieldNames lists the bad fields in a stable order (for tests and logs).
func (e *Error) FieldNames() []string {
	names := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
