package batch

import "time"

// Statuses of a batch job (working-screens spec, section 4).
const (
	StatusPending    = "pending"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
	StatusCancelled  = "cancelled"
)

// Statuses of one row of a job. A row leaves RowPending only in the transaction that charges it (or records why it
// could not be valued), so it is valued and charged once.
const (
	RowPending = "pending"
	RowSuccess = "success"
	RowFailed  = "failed"
)

// Reasons a row failed (Result.Reason): not on record without the facts to value it, or no market data for it
// (the valuation's 404 property_not_found), or not an address or a bad fact (its 400). None is charged.
const (
	ReasonNotFound = "not_found"
	ReasonInvalid  = "invalid"
	// ReasonAreaNotCovered: the address lies more than 25 miles from every sale loaded in this installation (a
	// lookup's 404 area_not_covered; Error names the place).
	ReasonAreaNotCovered = "area_not_covered"
	// ReasonTooUncertain: the valuation's 80% range was wider than a factor of 3 (avm.MaxRangeRatio).
	ReasonTooUncertain = "too_uncertain"
	// ReasonOutsideRecords: a fact given for a home not on record lies far outside what the records of its area and
	// type hold (a lookup's 422 outside_records).
	ReasonOutsideRecords = "outside_records"
)

// CanCancel reports whether a job in this status can be cancelled: pending or processing.
func CanCancel(status string) bool { return status == StatusPending || status == StatusProcessing }

// CanRetry reports whether a job in this status can be retried: failed or cancelled.
func CanRetry(status string) bool { return status == StatusFailed || status == StatusCancelled }

// Retention is how long a finished job's rows, results and uploaded files are kept (DESIGN.md section 5).
const Retention = 24 * time.Hour
