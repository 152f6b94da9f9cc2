// Package sheet holds the one rule for cells written into files that people open in spreadsheets (CSV reports,
// batch results as CSV and XLSX): protection against formula injection.
package sheet

import "strconv"

// SafeCell protects a cell from spreadsheet formula injection: a value that starts like a formula (=, +, -, @, or a
// tab or carriage return that some spreadsheets skip first) is prefixed with an apostrophe, which spreadsheets show
// as text. Plain negative numbers are left alone, since they are data, not formulas.
func SafeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '@', '\t', '\r':
		return "'" + s
	case '-':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s
		}
		return "'" + s
	}
	return s
}
