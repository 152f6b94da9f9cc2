package batch

import (
	"fmt"
	"strconv"
	"strings"

	"valuator/internal/apperr"
	"valuator/internal/billing"
)

// Titles of the file errors, as the Batch Upload screen shows them (working-screens spec, section 5, "Batch
// file"). The title travels in Extra["title"]; Message is the sentence under it.
const (
	titleInvalidType = "Invalid File Type"
	titleTooLarge    = "File Too Large"
	titleEmpty       = "Empty File"
	titleParse       = "Parse Error"
	titleTooMany     = "Too Many Properties"
)

// Messages fixed by the spec.
const (
	msgInvalidType = "Please upload a CSV or Excel file"
	msgTooLarge    = "Please upload a file smaller than 50MB"
	msgEmptyCSV    = "CSV file is empty"
	msgEmptyExcel  = "Excel file is empty"
	msgNoDataRows  = "The uploaded file contains no data rows"
	msgNotText     = "This file does not look like a CSV text file. " + msgInvalidType + "."
)

// fileError is the one shape of every error about the uploaded file: an *apperr.Error naming the field "file",
// with the screen's title in Extra["title"].
func fileError(kind apperr.Kind, code, title, message string) *apperr.Error {
	return &apperr.Error{Kind: kind, Code: code, Message: message, Field: "file",
		Fields: map[string]string{"file": message}, Extra: map[string]any{"title": title}}
}

// errInvalidType refuses a file whose name is not .csv, .xlsx or .xls (415).
func errInvalidType() error { return errWrongType(msgInvalidType) }

// errWrongType refuses a file that is not a spreadsheet at all (415, DESIGN.md section 4: "415 wrong file type"):
// a name other than .csv, .xlsx or .xls, or content that is none of them whatever the name says (a PDF, a
// program, an image, a zip that holds no workbook, a web page). message says what the file is when that is
// known. A file that is a spreadsheet but cannot be read (a damaged workbook, an unclosed quote, no rows) is a
// 400 instead: the person has the right kind of file and must fix its content.
func errWrongType(message string) error {
	return fileError(apperr.KindUnsupportedMediaType, "invalid_file_type", titleInvalidType, message)
}

func errTooLarge() error {
	return fileError(apperr.KindTooLarge, "file_too_large", titleTooLarge, msgTooLarge)
}

func errEmpty(message string) error {
	return fileError(apperr.KindInvalid, "empty_file", titleEmpty, message)
}

func errNoDataRows() error {
	return fileError(apperr.KindInvalid, "no_data_rows", titleEmpty, msgNoDataRows)
}

// errParse reports a file that cannot be read; message says what is wrong, with the line when known.
func errParse(message string) error {
	return fileError(apperr.KindInvalid, "parse_error", titleParse, message)
}

func errParsef(format string, args ...any) error { return errParse(fmt.Sprintf(format, args...)) }

// errPlanRows stops reading a file with more data rows than plan allows in one upload. It says what CheckSize
// says, except that the file was not read to the end, so its exact count is not known.
func errPlanRows(plan string) error {
	limit := PlanLimit(plan)
	msg := fmt.Sprintf("Your %s plan allows up to %s properties per upload; this file has more than %s rows. %s",
		planName(plan), thousands(limit), thousands(limit), sizeAdvice(limit))
	e := fileError(apperr.KindInvalid, "batch_too_large", titleTooMany, msg)
	e.Extra["limit"] = limit
	return e
}

// PlanLimit is the number of properties one upload may hold on plan (billing.Plan.BatchRows); an unknown or
// empty plan is the free tier. The spec states 10,000 on the upload screen and 1,000 on a promo banner (section 9
// notes the conflict); the limit follows the plan instead, so both statements are true of some plan.
func PlanLimit(plan string) int { return billing.Get(plan).BatchRows }

// planName is plan as a person reads it: "Free", "Professional".
func planName(plan string) string { return billing.Get(plan).Name }

// CheckSize reports whether rows properties fit in one upload on plan. The error tells how many the plan allows
// and how many the file has, and offers an upgrade unless the plan is already the largest.
func CheckSize(rows int, plan string) error {
	limit := PlanLimit(plan)
	if rows <= limit {
		return nil
	}
	msg := fmt.Sprintf("Your %s plan allows up to %s properties per upload; this file has %s. %s",
		planName(plan), thousands(limit), thousands(rows), sizeAdvice(limit))
	e := fileError(apperr.KindInvalid, "batch_too_large", titleTooMany, msg)
	e.Extra["limit"] = limit
	e.Extra["rows"] = rows
	return e
}

// sizeAdvice tells a person over a plan's limit what to do: split the file, or upgrade unless the plan is
// already the largest.
func sizeAdvice(limit int) string {
	if limit >= PlanLimit(billing.Enterprise) {
		return "Split the file."
	}
	return "Split the file or upgrade your plan."
}

// thousands writes n with comma separators: 50000 is "50,000".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
