package address

import "valuator/internal/apperr"

// Error codes. Each error is an *apperr.Error of kind KindInvalid whose Field names the input to fix ("address",
// "city", "state" or "zip").
const (
	// CodeCannotValue marks an address that is valid mail but not a place: a PO box, a rural route box or a
	// highway contract route box. Valuing it would value the post office.
	CodeCannotValue = "cannot_value_address"
	// CodeInvalidAddress marks a street address that is empty, too long, or lacks a house number or street name.
	CodeInvalidAddress = "invalid_address"
	// CodeInvalidCity marks a city that cannot be a city name.
	CodeInvalidCity = "invalid_city"
	// CodeInvalidState marks a state that is not a US state, DC or territory.
	CodeInvalidState = "invalid_state"
	// CodeInvalidZIP marks a ZIP code that is not 5 digits or ZIP+4.
	CodeInvalidZIP = "invalid_zip"
)

// maxInputLen bounds the work done on one input, and maxLineLen the normalized address (its Line()). Real
// addresses are well under 200 characters; a longer input is a wrong column or an attack. The normalized line
// can be longer than what was typed ("CR 5" is COUNTY ROAD 5), so the input may be longer than maxLineLen, and an
// address is rejected on the length of its Line(), which Parse then always accepts back.
const (
	maxInputLen = 1000
	maxLineLen  = 300
)

const (
	msgEmpty     = "Enter the street address of the property, for example 123 Main St."
	msgTooLong   = "The address is too long. Enter only the street address, city, state and ZIP code."
	msgNoNumber  = "The address has no house number. Enter the street address with its number, for example 123 Main St."
	msgNoName    = "The address has no street name. Enter the street address with its name, for example 123 Main St."
	msgSymbol    = "The address holds %q, which is no part of a street address. Enter the street address, for example 123 Main St."
	msgUnitPlace = "The unit number is in the middle of the street. Write it after the street, for example 123 Main St #4B."
	msgPOBox     = "PO boxes cannot be valued. Enter the street address of the property."
	msgRural     = "Rural route and highway contract route boxes cannot be valued. Enter the street address of the property."
	msgDelivery  = "General delivery addresses cannot be valued. Enter the street address of the property."
	msgCity      = "The city name can only hold letters. Enter the city name, for example Springfield."
	msgCityLong  = "The city name is too long. Enter only the city name."
	msgState     = "Enter a US state as its two-letter code or full name, for example IL or Illinois."
	msgZIP       = "Enter the ZIP code as 5 digits or ZIP+4, for example 62704 or 62704-1234."
	fieldAddress = "address"
	fieldCity    = "city"
	fieldState   = "state"
	fieldZIP     = "zip"
)

func invalid(code, field, message string) *apperr.Error {
	return &apperr.Error{Kind: apperr.KindInvalid, Code: code, Field: field, Message: message,
		Fields: map[string]string{field: message}}
}

// fieldErrors collects the errors of FromParts so that one response names every bad field, while Code, Field and
// Message describe the first one (in the order address, city, state, zip).
type fieldErrors struct {
	first *apperr.Error
}

func (f *fieldErrors) add(e *apperr.Error) {
	if e == nil {
		return
	}
	if f.first == nil {
		f.first = e
		return
	}
	if _, dup := f.first.Fields[e.Field]; !dup {
		f.first.Fields[e.Field] = e.Message
	}
}

func (f *fieldErrors) err() error {
	if f.first == nil {
		return nil
	}
	return f.first
}
