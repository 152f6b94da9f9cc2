// Package batch reads the files of the Batch Upload screen and writes their results (working-screens spec,
// "Batch Upload", sections 3 to 5): it reads an uploaded .csv, .xlsx or .xls into a Table (ReadFile), guesses
// which columns hold the address (Detect) and checks a mapping of columns to address parts (Mapping.Validate),
// turns the rows into addresses to value (Apply), and writes a job's results as CSV or XLSX (WriteCSV,
// WriteXLSX). It also holds the statuses of a job and of its rows (job.go).
//
// The package is pure: no database, network or goroutines, and no files, except that excelize writes a results
// sheet of more than 16 MB to a temporary file while it builds the workbook (WriteXLSX). Uploads come from
// strangers, so every reader bounds its memory and work whatever the file holds: by the rows the uploader's plan
// allows (ReadFile stops at the first row past them), the text the cells expand to once read (maxTextBytes, a
// shared string counted once for each cell that shows it), the cells looked at, and for .xlsx the parts and
// cells excelize would decode (xlsx.go). It turns any failure (a panic of a third-party parser included) into an
// *apperr.Error for the person who uploaded the file, and is fuzzed (make fuzz).
package batch
