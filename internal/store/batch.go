package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"valuator/internal/batch"
	"valuator/internal/credit"
	"valuator/internal/notify"
	"valuator/internal/text"
	"valuator/internal/usage"
)

// The store implements batch.Store.
var _ batch.Store = (*DB)(nil)

// RowOutcome is what valuing one pending row gave.
type RowOutcome struct {
	Idx     int
	Success bool   // valued (charged 1 credit); false: could not be valued (not charged)
	Result  []byte // JSON
}

// ChunkResult says what saving a chunk of outcomes did.
type ChunkResult struct {
	Charged      int  // rows saved as valued, one credit each
	Failed       int  // rows saved as not valued
	OutOfCredits bool // some valued rows were left pending: the balance reached the plan's floor
	Stopped      bool // the job is no longer processing (cancelled): nothing was saved
}

const batchJobColumns = `id, user_id, api_key_id, api_key_name, file_name, file_sha256, mapping, status, status_message,
	total, processed, successful, failed, dropped, credits_used, credits_recorded, webhook_url, webhook_secret,
	idempotency_key, input_bytes, created_at, started_at, finished_at, purged_at`

func scanBatchJob(sc interface{ Scan(...any) error }) (batch.Job, error) {
	var j batch.Job
	var keyID sql.NullInt64
	var keyName, msg, hook, secret, idem sql.NullString
	var created, started, finished, purged dbTime
	err := sc.Scan(&j.ID, &j.UserID, &keyID, &keyName, &j.FileName, &j.FileSHA256, &j.Mapping, &j.Status, &msg,
		&j.Total, &j.Processed, &j.Successful, &j.Failed, &j.Dropped, &j.CreditsUsed, &j.CreditsRecorded, &hook,
		&secret, &idem, &j.InputBytes, &created, &started, &finished, &purged)
	if errors.Is(err, sql.ErrNoRows) {
		return j, batch.ErrNoBatch
	}
	if err != nil {
		return j, err
	}
	j.APIKeyID, j.APIKeyName, j.StatusMessage = keyID.Int64, keyName.String, msg.String
	j.WebhookURL, j.WebhookSecret, j.IdempotencyKey = hook.String, secret.String, idem.String
	j.CreatedAt = created.Time
	j.StartedAt, j.FinishedAt, j.PurgedAt = started.ptr(), finished.ptr(), purged.ptr()
	return j, nil
}

func (t dbTime) ptr() *time.Time {
	if !t.Valid {
		return nil
	}
	tm := t.Time
	return &tm
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// lockUser takes the user's row for the rest of the transaction and returns the user's plan. On PostgreSQL the
// row is locked FOR UPDATE, so that two uploads of one user checking the storage quota, or creating jobs with one
// Idempotency-Key, run one after the other (SQLite's write lock, taken at BEGIN, already serializes them). A
// statement run after the lock is granted sees what the other transaction committed.
func lockUser(ctx context.Context, x q, userID int64) (plan string, err error) {
	lock := ""
	if x.d == Postgres {
		lock = " FOR UPDATE"
	}
	err = x.row(ctx, `SELECT plan FROM users WHERE id = ?`+lock, userID).Scan(&plan)
	return plan, err
}

// storedBytes is what a user keeps on the server for batches: previews awaiting their job, and the inputs of jobs
// whose rows are not yet purged (batch.StorageQuota).
func storedBytes(ctx context.Context, x q, userID int64) (int64, error) {
	var n int64
	err := x.row(ctx, `SELECT CAST(COALESCE((SELECT SUM(size_bytes) FROM batch_files WHERE user_id = ?), 0) +
		COALESCE((SELECT SUM(input_bytes) FROM batch_jobs WHERE user_id = ? AND purged_at IS NULL), 0) AS BIGINT)`,
		userID, userID).Scan(&n)
	return n, err
}

// checkQuota refuses to keep size more bytes for the user when that takes the user past the plan's storage
// quota. It runs in the transaction that stores them, after lockUser, so parallel uploads of one user are
// counted one after the other and cannot overshoot the quota together.
func checkQuota(ctx context.Context, x q, userID int64, plan string, size int64) error {
	used, err := storedBytes(ctx, x, userID)
	if err != nil {
		return err
	}
	if used+size > batch.StorageQuota(plan) {
		return batch.ErrStorageQuota(used, size, plan)
	}
	return nil
}

// BatchStoredBytes is what a user keeps on the server for batches, as counted against the storage quota.
func (db *DB) BatchStoredBytes(ctx context.Context, userID int64) (int64, error) {
	return storedBytes(ctx, db.q(), userID)
}

// storedTable is the content_format of a preview's data written by batch.EncodeTable. Previews stored before it
// hold the uploaded file ('upload') and are no longer read.
const storedTable = "table"

// SaveBatchFile keeps a preview's data (batch.EncodeTable of the uploaded file's table) until the job is created
// from it, or for 24 hours. It counts against the user's storage quota: past it, nothing is stored and the error
// is batch.ErrStorageQuota.
func (db *DB) SaveBatchFile(ctx context.Context, userID int64, name, sha string, content []byte, at time.Time) (int64, error) {
	var id int64
	err := db.tx(ctx, func(x q) error {
		plan, err := lockUser(ctx, x, userID)
		if err != nil {
			return err
		}
		if err := checkQuota(ctx, x, userID, plan, int64(len(content))); err != nil {
			return err
		}
		return x.row(ctx, `INSERT INTO batch_files (user_id, file_name, sha256, content, size_bytes, content_format,
			created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			userID, name, sha, content, len(content), storedTable, x.t(at)).Scan(&id)
	})
	return id, err
}

// BatchFile returns a user's preview data; batch.ErrNoBatch when the user has none with that id (it was deleted, made
// into a job, or stored by an older version in a form no longer read).
func (db *DB) BatchFile(ctx context.Context, userID, id int64) (name, sha string, content []byte, err error) {
	err = db.q().row(ctx, `SELECT file_name, sha256, content FROM batch_files WHERE id = ? AND user_id = ?
		AND content_format = ?`, id, userID, storedTable).Scan(&name, &sha, &content)
	if errors.Is(err, sql.ErrNoRows) {
		err = batch.ErrNoBatch
	}
	return name, sha, content, err
}

// CreateBatchJob stores a job with its rows and queues it, in one transaction. With an idempotency key that the
// user has used before, nothing is created: the earlier job is returned with created false (batch.ErrIdempotencyReuse
// when it was for a different file). With j.UploadID, the preview is deleted in the same transaction (batch.ErrNoBatch
// when it is gone: made into a job already, or expired), so one preview makes one job. The job's inputs count
// against the user's storage quota (batch.ErrStorageQuota past it; the preview's data no longer does).
func (db *DB) CreateBatchJob(ctx context.Context, j batch.Job, inputs [][]byte, enqueue batch.Enqueue) (batch.Job, bool, error) {
	created := false
	in := j
	err := db.tx(ctx, func(x q) error {
		j = in
		plan, err := lockUser(ctx, x, j.UserID)
		if err != nil {
			return err
		}
		if done, err := db.sameIdempotencyKey(ctx, x, &j); done || err != nil {
			return err
		}
		if j.UploadID != 0 {
			res, err := x.exec(ctx, `DELETE FROM batch_files WHERE id = ? AND user_id = ? AND content_format = ?`,
				j.UploadID, j.UserID, storedTable)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return batch.ErrNoBatch
			}
		}
		j.Status, j.Total, j.InputBytes = batch.StatusPending, len(inputs), 0
		for _, b := range inputs {
			j.InputBytes += int64(len(b))
		}
		if err := checkQuota(ctx, x, j.UserID, plan, j.InputBytes); err != nil {
			return err
		}
		// ON CONFLICT: should a job with the key be committed in between after all (the lock above makes it
		// unlikely), the insert does nothing, and the job committed is the answer rather than a unique-index error.
		err = x.row(ctx, `INSERT INTO batch_jobs (user_id, api_key_id, api_key_name, file_name, file_sha256, mapping,
				status, total, dropped, webhook_url, webhook_secret, idempotency_key, input_bytes, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, idempotency_key) DO NOTHING RETURNING id`,
			j.UserID, nullID(j.APIKeyID), nullStr(j.APIKeyName), j.FileName, j.FileSHA256, j.Mapping, j.Status, j.Total,
			j.Dropped, nullStr(j.WebhookURL), nullStr(j.WebhookSecret), nullStr(j.IdempotencyKey), j.InputBytes,
			x.t(j.CreatedAt)).Scan(&j.ID)
		if errors.Is(err, sql.ErrNoRows) && j.IdempotencyKey != "" {
			if done, err := db.sameIdempotencyKey(ctx, x, &j); done || err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
		// Many rows per statement: 50,000 single inserts would take seconds on PostgreSQL.
		const per = 500
		for start := 0; start < len(inputs); start += per {
			end := min(start+per, len(inputs))
			var sb strings.Builder
			sb.WriteString(`INSERT INTO batch_rows (job_id, idx, input, status) VALUES `)
			args := make([]any, 0, 4*(end-start))
			for i := start; i < end; i++ {
				if i > start {
					sb.WriteByte(',')
				}
				sb.WriteString("(?, ?, ?, ?)")
				args = append(args, j.ID, i, string(inputs[i]), batch.RowPending)
			}
			if _, err := x.exec(ctx, sb.String(), args...); err != nil {
				return err
			}
		}
		created = true
		return enqueue(ctx, x.tx, j.ID)
	})
	return j, created, err
}

// sameIdempotencyKey looks for the user's job with j's idempotency key. When there is one it replaces *j and done
// is true; err is batch.ErrIdempotencyReuse when that job was for a different file.
func (db *DB) sameIdempotencyKey(ctx context.Context, x q, j *batch.Job) (done bool, err error) {
	if j.IdempotencyKey == "" {
		return false, nil
	}
	prev, err := scanBatchJob(x.row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs
		WHERE user_id = ? AND idempotency_key = ?`, j.UserID, j.IdempotencyKey))
	if errors.Is(err, batch.ErrNoBatch) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if prev.FileSHA256 != j.FileSHA256 {
		return true, batch.ErrIdempotencyReuse
	}
	*j = prev
	return true, nil
}

// BatchJobs lists a user's latest jobs, newest first.
func (db *DB) BatchJobs(ctx context.Context, userID int64, limit int) ([]batch.Job, error) {
	rows, err := db.q().query(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE user_id = ? ORDER BY id DESC LIMIT ?`,
		userID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []batch.Job{}
	for rows.Next() {
		j, err := scanBatchJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// BatchJob returns a user's job; batch.ErrNoBatch when the user has no such job.
func (db *DB) BatchJob(ctx context.Context, userID, id int64) (batch.Job, error) {
	return scanBatchJob(db.q().row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ? AND user_id = ?`, id, userID))
}

// BatchJobForWorker returns any user's job, for the queue's workers.
func (db *DB) BatchJobForWorker(ctx context.Context, id int64) (batch.Job, error) {
	return scanBatchJob(db.q().row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ?`, id))
}

// BatchRows returns a page of a user's job's rows in file order, optionally of one row status, and how many there
// are in all.
func (db *DB) BatchRows(ctx context.Context, userID, jobID int64, status string, offset, limit int) ([]batch.StoredRow, int, error) {
	if _, err := db.BatchJob(ctx, userID, jobID); err != nil {
		return nil, 0, err
	}
	where, args := "job_id = ?", []any{jobID}
	if status != "" {
		where += " AND status = ?"
		args = append(args, status)
	}
	var total int
	if err := db.q().row(ctx, `SELECT COUNT(*) FROM batch_rows WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := db.q().query(ctx, `SELECT idx, status, input, result FROM batch_rows WHERE `+where+
		` ORDER BY idx LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []batch.StoredRow{}
	for rows.Next() {
		var r batch.StoredRow
		var input string
		var result sql.NullString
		if err := rows.Scan(&r.Idx, &r.Status, &input, &result); err != nil {
			return nil, 0, err
		}
		r.Input = []byte(input)
		if result.Valid {
			r.Result = []byte(result.String)
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// BatchRowsAfter returns up to limit rows of a user's job after the row afterIdx, in file order: a page of a
// download, read by key rather than by offset so that each page costs the same however far into the job.
func (db *DB) BatchRowsAfter(ctx context.Context, userID, jobID int64, afterIdx, limit int) ([]batch.StoredRow, error) {
	rows, err := db.q().query(ctx, `SELECT r.idx, r.status, r.input, r.result FROM batch_rows r
		JOIN batch_jobs j ON j.id = r.job_id WHERE r.job_id = ? AND j.user_id = ? AND r.idx > ? ORDER BY r.idx LIMIT ?`,
		jobID, userID, afterIdx, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]batch.StoredRow, 0, limit)
	for rows.Next() {
		var r batch.StoredRow
		var input string
		var result sql.NullString
		if err := rows.Scan(&r.Idx, &r.Status, &input, &result); err != nil {
			return nil, err
		}
		r.Input = []byte(input)
		if result.Valid {
			r.Result = []byte(result.String)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// PendingBatchRows returns up to limit rows of a job still to be valued, after the row afterIdx, in file order.
func (db *DB) PendingBatchRows(ctx context.Context, jobID int64, afterIdx, limit int) ([]batch.StoredRow, error) {
	rows, err := db.q().query(ctx, `SELECT idx, input FROM batch_rows WHERE job_id = ? AND idx > ? AND status = ?
		ORDER BY idx LIMIT ?`, jobID, afterIdx, batch.RowPending, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []batch.StoredRow
	for rows.Next() {
		r := batch.StoredRow{Status: batch.RowPending}
		var input string
		if err := rows.Scan(&r.Idx, &input); err != nil {
			return nil, err
		}
		r.Input = []byte(input)
		out = append(out, r)
	}
	return out, rows.Err()
}

// StartBatchJob marks a pending job processing (a processing one stays so: a worker resumes it) and returns it;
// ok is false when the job is in any other status (cancelled, finished), which the worker then leaves alone.
func (db *DB) StartBatchJob(ctx context.Context, jobID int64, at time.Time) (j batch.Job, ok bool, err error) {
	err = db.tx(ctx, func(x q) error {
		// A held job (its account is suspended, issue 27) is not started: reinstatement queues it again.
		res, err := x.exec(ctx, `UPDATE batch_jobs SET status = ?, started_at = COALESCE(started_at, ?)
			WHERE id = ? AND status IN (?, ?) AND held_at IS NULL`, batch.StatusProcessing, x.t(at), jobID,
			batch.StatusPending, batch.StatusProcessing)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		ok = n == 1
		j, err = scanBatchJob(x.row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ?`, jobID))
		return err
	})
	return j, ok, err
}

// SaveBatchChunk saves the outcomes of valuing some pending rows of a processing job and charges the valued ones,
// one credit each, in one transaction: a row's result, its charge (one ledger entry for the chunk) and the job's
// counters are committed together or not at all. Rows no longer pending (saved by another worker) are skipped
// and not charged. When the balance cannot pay for every valued row, the rows it can pay for are saved and the
// rest stay pending (OutOfCredits). A job that is no longer processing saves nothing (Stopped).
func (db *DB) SaveBatchChunk(ctx context.Context, jobID int64, outcomes []RowOutcome, at time.Time) (ChunkResult, error) {
	var out ChunkResult
	err := db.tx(ctx, func(x q) error {
		out = ChunkResult{}
		var userID int64
		var status string
		var held dbTime
		if err := x.row(ctx, `SELECT user_id, status, held_at FROM batch_jobs WHERE id = ?`, jobID).
			Scan(&userID, &status, &held); err != nil {
			return err
		}
		// A job held by its account's suspension (issue 27) saves nothing more; it resumes on reinstatement.
		if status != batch.StatusProcessing || held.Valid {
			out.Stopped = true
			return nil
		}
		// What the balance can pay for. The user's row is locked first on PostgreSQL, so that no other charge
		// slips in between this read and the debit (SQLite's write lock, taken at BEGIN, already excludes it).
		lock := ""
		if x.d == Postgres {
			lock = " FOR UPDATE"
		}
		var plan string
		var limit *int64
		var balance int64
		if err := x.row(ctx, `SELECT plan, overage_limit_cents, credits FROM users WHERE id = ?`+lock, userID).
			Scan(&plan, &limit, &balance); err != nil {
			return err
		}
		floor := credit.Floor(plan, limit)
		affordable := int64(len(outcomes))
		if floor != credit.NoFloor {
			affordable = max(balance-floor, 0)
		}
		firstCharged := 0 // the first row this chunk charges: a row is charged once, so it names the debit uniquely
		for _, o := range outcomes {
			st, cost := batch.RowFailed, 0
			if o.Success {
				if int64(out.Charged) >= affordable {
					out.OutOfCredits = true
					continue // stays pending, for a retry after a top-up
				}
				st, cost = batch.RowSuccess, 1
			}
			res, err := x.exec(ctx, `UPDATE batch_rows SET status = ?, result = ?, credits = ?
				WHERE job_id = ? AND idx = ? AND status = ?`, st, string(o.Result), cost, jobID, o.Idx, batch.RowPending)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				if o.Success {
					if out.Charged == 0 {
						firstCharged = o.Idx
					}
					out.Charged++
				} else {
					out.Failed++
				}
			}
		}
		if out.Charged > 0 {
			_, err := postCredit(ctx, x, credit.Entry{UserID: userID, Amount: -int64(out.Charged), Kind: usage.ServiceBatch,
				Description: fmt.Sprintf("Batch job #%d: %d %s valued", jobID, out.Charged, text.Plural(out.Charged, "property", "properties")),
				Reference:   fmt.Sprintf("batch:%d:row:%d", jobID, firstCharged), CreatedAt: at}, floor)
			if err != nil {
				return err
			}
		}
		_, err := x.exec(ctx, `UPDATE batch_jobs SET processed = processed + ?, successful = successful + ?,
			failed = failed + ?, credits_used = credits_used + ? WHERE id = ?`,
			out.Charged+out.Failed, out.Charged, out.Failed, out.Charged, jobID)
		return err
	})
	return out, err
}

// FinishBatchJob ends a processing job with status (completed, or failed with a message), writes the credits
// spent since the last record to the request history, and queues what must follow (the webhook) in the same
// transaction. ok is false when the job was not processing (cancelled meanwhile): nothing changes.
func (db *DB) FinishBatchJob(ctx context.Context, jobID int64, status, message string, at time.Time,
	enqueue batch.Enqueue) (j batch.Job, ok bool, err error) {
	err = db.tx(ctx, func(x q) error {
		res, err := x.exec(ctx, `UPDATE batch_jobs SET status = ?, status_message = ?, finished_at = ?
			WHERE id = ? AND status = ?`, status, nullStr(message), x.t(at), jobID, batch.StatusProcessing)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		if j, err = db.recordBatchUsage(ctx, x, jobID, at); err != nil {
			return err
		}
		if err := queueBatchResult(ctx, x, j, at); err != nil {
			return err
		}
		if enqueue != nil {
			return enqueue(ctx, x.tx, jobID)
		}
		return nil
	})
	return j, ok, err
}

// queueBatchResult queues the email of a job's outcome (the account's "Email notifications"), in the
// transaction that ends the job, so that each outcome is mailed once: a retried job that ends again is a new
// outcome, numbered after the ones before.
func queueBatchResult(ctx context.Context, x q, j batch.Job, at time.Time) error {
	var before int
	if err := x.row(ctx, `SELECT COUNT(*) FROM mail_outbox WHERE kind = ? AND dedupe_key LIKE ?`,
		notify.KindBatchResult, fmt.Sprintf("batch:%d:%%", j.ID)).Scan(&before); err != nil {
		return err
	}
	r := notify.BatchResult{JobID: j.ID, FileName: j.FileName, Status: j.Status, Message: j.StatusMessage,
		Total: j.Total, Valued: j.Successful, Failed: j.Failed, CreditsUsed: j.CreditsUsed}
	if j.Status == batch.StatusFailed && strings.HasPrefix(j.StatusMessage, "Out of credits") {
		r.OutOfCredits, r.NotValued = true, max(j.Total-j.Processed, 0)
	}
	_, err := insertMail(ctx, x, notify.NewBatchResult(j.UserID, r, before+1, at))
	return err
}

// recordBatchUsage writes a request-history record for the credits a job spent since its last record (each run
// of a job, first and retries, gets one) and returns the job.
func (db *DB) recordBatchUsage(ctx context.Context, x q, jobID int64, at time.Time) (batch.Job, error) {
	j, err := scanBatchJob(x.row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ?`, jobID))
	if err != nil {
		return j, err
	}
	spent := j.CreditsUsed - j.CreditsRecorded
	started := j.CreatedAt
	if j.StartedAt != nil {
		started = *j.StartedAt
	}
	status := 200
	if j.Status == batch.StatusFailed {
		status = 402
		if !strings.HasPrefix(j.StatusMessage, "Out of credits") {
			status = 500
		}
	}
	endpoint := "POST /api/jobs"
	if j.APIKeyID != 0 {
		endpoint = "POST /api/batch/upload"
	}
	_, err = insertUsage(ctx, x, usage.Record{UserID: j.UserID, APIKeyID: j.APIKeyID, APIKeyName: j.APIKeyName,
		Endpoint: endpoint, Service: usage.ServiceBatch,
		PropertyAddress: fmt.Sprintf("Batch #%d (%s): %d of %d valued", j.ID, j.FileName, j.Successful, j.Total),
		Status:          status, ResponseTimeMs: max(at.Sub(started).Milliseconds(), 0), CreditsUsed: spent,
		RequestData: fmt.Sprintf(`{"jobId":%d,"fileName":%q,"status":%q}`, j.ID, j.FileName, j.Status),
		RequestID:   fmt.Sprintf("batch-%d", j.ID), CreatedAt: at})
	if err != nil {
		return j, err
	}
	_, err = x.exec(ctx, `UPDATE batch_jobs SET credits_recorded = credits_used WHERE id = ?`, jobID)
	j.CreditsRecorded = j.CreditsUsed
	return j, err
}

// CancelBatchJob cancels a user's pending or processing job. Rows valued so far keep their results (and were
// charged); a worker on the job stops at its next chunk. batch.ErrBatchState when the job cannot be cancelled.
func (db *DB) CancelBatchJob(ctx context.Context, userID, jobID int64, at time.Time) (batch.Job, error) {
	var j batch.Job
	err := db.tx(ctx, func(x q) error {
		var err error
		j, err = scanBatchJob(x.row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ? AND user_id = ?`,
			jobID, userID))
		if err != nil {
			return err
		}
		if !batch.CanCancel(j.Status) {
			return batch.ErrBatchState
		}
		if _, err := x.exec(ctx, `UPDATE batch_jobs SET status = ?, status_message = ?, finished_at = ? WHERE id = ?`,
			batch.StatusCancelled, "Cancelled", x.t(at), jobID); err != nil {
			return err
		}
		j, err = db.recordBatchUsage(ctx, x, jobID, at)
		return err
	})
	return j, err
}

// RetryBatchJob queues a user's failed or cancelled job again: it continues with the rows not yet valued.
// batch.ErrBatchState when the job cannot be retried.
func (db *DB) RetryBatchJob(ctx context.Context, userID, jobID int64, enqueue batch.Enqueue) (batch.Job, error) {
	var j batch.Job
	err := db.tx(ctx, func(x q) error {
		var err error
		j, err = scanBatchJob(x.row(ctx, `SELECT `+batchJobColumns+` FROM batch_jobs WHERE id = ? AND user_id = ?`,
			jobID, userID))
		if err != nil {
			return err
		}
		if !batch.CanRetry(j.Status) || j.PurgedAt != nil {
			return batch.ErrBatchState
		}
		if _, err := x.exec(ctx, `UPDATE batch_jobs SET status = ?, status_message = NULL, finished_at = NULL
			WHERE id = ?`, batch.StatusPending, jobID); err != nil {
			return err
		}
		j.Status, j.StatusMessage, j.FinishedAt = batch.StatusPending, "", nil
		return enqueue(ctx, x.tx, jobID)
	})
	return j, err
}

// PurgeBatches deletes the rows and results of jobs finished before cutoff (keeping each job's summary) and the
// uploaded files older than it, and says how many of each.
func (db *DB) PurgeBatches(ctx context.Context, cutoff, at time.Time) (jobs, files int, err error) {
	ids, err := db.q().ids(ctx, `SELECT id FROM batch_jobs WHERE finished_at < ? AND purged_at IS NULL`, db.q().t(cutoff))
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		err := db.tx(ctx, func(x q) error {
			// Only if still finished: a retry may have started it again since the list was read.
			res, err := x.exec(ctx, `UPDATE batch_jobs SET purged_at = ? WHERE id = ? AND finished_at < ? AND purged_at IS NULL`,
				x.t(at), id, x.t(cutoff))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil
			}
			jobs++
			_, err = x.exec(ctx, `DELETE FROM batch_rows WHERE job_id = ?`, id)
			return err
		})
		if err != nil {
			return jobs, 0, err
		}
	}
	x := db.w()
	res, err := x.exec(ctx, `DELETE FROM batch_files WHERE created_at < ?`, x.t(cutoff))
	if err != nil {
		return jobs, 0, err
	}
	n, _ := res.RowsAffected()
	return jobs, int(n), nil
}

// BatchQueueStats counts the batch jobs in each status and gives when the oldest pending job was created (zero
// when none is pending), for the metrics: the queue's depth as every instance and worker sees it.
func (db *DB) BatchQueueStats(ctx context.Context) (map[string]int64, time.Time, error) {
	rows, err := db.q().query(ctx, `SELECT status, COUNT(*) FROM batch_jobs GROUP BY status`)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	counts := map[string]int64{}
	for rows.Next() {
		var status string
		var n int64
		if err := rows.Scan(&status, &n); err != nil {
			return nil, time.Time{}, err
		}
		counts[status] = n
	}
	if err := rows.Err(); err != nil {
		return nil, time.Time{}, err
	}
	if counts[batch.StatusPending] == 0 {
		return counts, time.Time{}, nil
	}
	var oldest dbTime
	err = db.q().row(ctx, `SELECT created_at FROM batch_jobs WHERE status = ? ORDER BY id LIMIT 1`, batch.StatusPending).Scan(&oldest)
	if errors.Is(err, sql.ErrNoRows) { // started since the count
		return counts, time.Time{}, nil
	}
	return counts, oldest.Time, err
}

// OthersWaiting reports whether a batch job of another account is waiting for its first run: the running job of
// userID then hands its worker over, so that accounts take turns (a small job of one customer does not wait for a
// large job of another).
func (db *DB) OthersWaiting(ctx context.Context, userID int64) (bool, error) {
	var n int
	err := db.q().row(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM batch_jobs WHERE status = ? AND user_id <> ?
		AND held_at IS NULL LIMIT 1) w`,
		batch.StatusPending, userID).Scan(&n)
	return n > 0, err
}
