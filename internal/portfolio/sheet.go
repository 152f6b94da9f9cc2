package portfolio

import (
	"fmt"

	"valuator/internal/apperr"
	"valuator/internal/batch"
)

// FromSheet reads a spreadsheet's table, with its column mapping, into the homes of a portfolio: the batch reader's
// rows (batch.Apply: a row without a street is dropped), each with its facts, and the line of the file each came
// from, for the results. The mapping is checked as a batch job's is. A fact that is not a number refuses the file,
// naming its line, since a portfolio is a list kept for months (a batch job would report that row and go on). The
// plan's limit is checked later with the portfolio's other homes.
func FromSheet(t *batch.Table, m batch.Mapping) (homes []HomeInput, lines []int, err error) {
	if err := m.Validate(t.Headers); err != nil {
		return nil, nil, err
	}
	rows, _ := batch.Apply(t, m)
	if len(rows) == 0 {
		return nil, nil, &apperr.Error{Kind: apperr.KindInvalid, Code: "no_addresses", Field: "mapping",
			Message: "No row has an address in the mapped columns"}
	}
	homes = make([]HomeInput, len(rows))
	lines = make([]int, len(rows))
	for i, row := range rows {
		f, err := row.Facts()
		if err != nil {
			return nil, nil, apperr.Invalid("uploadId", fmt.Sprintf("Line %d of the file: %v", row.Line, err))
		}
		homes[i] = HomeInput{Address: row.Address, City: row.City, State: row.State, ZIP: row.ZIP,
			Bedrooms: f.Bedrooms, Bathrooms: f.Bathrooms, SquareFeet: f.SquareFeet, YearBuilt: f.YearBuilt,
			LotSize: f.LotSize, PropertyType: f.PropertyType}
		lines[i] = row.Line
	}
	return homes, lines, nil
}
