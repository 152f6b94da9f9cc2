package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/credit"
	"valuator/internal/store"
)

// BatchQueue queues the valuation of a batch job inside the store's transaction (jobs.Queue).
type BatchQueue interface {
	EnqueueBatch(ctx context.Context, tx *sql.Tx, jobID int64) error
}

// jobOwner is who a batch job is for: a dashboard user, or an API key's owner.
type jobOwner struct {
	userID  int64
	plan    string
	keyID   int64
	keyName string
}

// upload is a multipart batch upload.
type upload struct {
	fileName   string
	data       []byte
	mapping    string // JSON, optional
	webhookURL string
	hasFile    bool
}

// maxUploadBody bounds a whole multipart upload: the file plus room for the form's other fields and headers.
const maxUploadBody = batch.MaxFileBytes + 1<<20

// readUpload reads a multipart upload without temporary files: the file (at most batch.MaxFileBytes), and the
// optional mapping and webhookUrl fields. Other fields are ignored.
func readUpload(w http.ResponseWriter, r *http.Request) (upload, error) {
	var u upload
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return u, &apperr.Error{Kind: apperr.KindUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "Send the file as multipart/form-data in the field \"file\""}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBody)
	mr, err := r.MultipartReader()
	if err != nil {
		return u, apperr.Invalid("file", "The upload is not valid multipart/form-data")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, uploadReadError(err)
		}
		switch part.FormName() {
		case "file":
			u.hasFile = true
			u.fileName = path.Base(strings.ReplaceAll(part.FileName(), `\`, "/"))
			if u.data, err = io.ReadAll(io.LimitReader(part, batch.MaxFileBytes+1)); err != nil {
				return u, uploadReadError(err)
			}
			if len(u.data) > batch.MaxFileBytes {
				return u, fileTooLarge()
			}
		case "mapping", "webhookUrl":
			b, err := io.ReadAll(io.LimitReader(part, 64<<10+1))
			if err != nil {
				return u, uploadReadError(err)
			}
			if len(b) > 64<<10 {
				return u, apperr.Invalid(part.FormName(), part.FormName()+" is too long")
			}
			if part.FormName() == "mapping" {
				u.mapping = strings.TrimSpace(string(b))
			} else {
				u.webhookURL = strings.TrimSpace(string(b))
			}
		}
		part.Close()
	}
	if !u.hasFile {
		return u, apperr.Invalid("file", "Attach the spreadsheet in the multipart field \"file\"")
	}
	return u, nil
}

func fileTooLarge() error {
	return &apperr.Error{Kind: apperr.KindTooLarge, Code: "file_too_large", Message: "Please upload a file smaller than 50MB",
		Field: "file", Extra: map[string]any{"title": "File Too Large"}}
}

func uploadReadError(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return fileTooLarge()
	}
	return apperr.Invalid("file", "The upload was interrupted or is not valid multipart/form-data")
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// previewBatchFile reads an uploaded file, keeps it for the job's creation and answers what it holds.
func (s *Server) previewBatchFile(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	up, err := readUpload(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	tbl, err := batch.ReadFile(up.fileName, up.data, u.Plan)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	mapping, detections := batch.Detect(tbl)
	id, err := s.store.SaveBatchFile(r.Context(), u.ID, up.fileName, sha(up.data), up.data, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sample := tbl.Rows[:min(5, len(tbl.Rows))]
	writeJSON(w, http.StatusOK, map[string]any{"uploadId": id, "fileName": up.fileName, "headers": tbl.Headers,
		"sampleRows": sample, "rowCount": len(tbl.Rows), "mapping": mapping, "detections": detections,
		"mappingValid": mapping.Validate(tbl.Headers) == nil, "planLimit": batch.PlanLimit(u.Plan)})
}

// createJobRequest is any of the JSON forms of POST /api/jobs (api/openapi.yaml CreateJobFromUpload and
// CreateJobFromRows).
type createJobRequest struct {
	UploadID   *int64        `json:"uploadId"`
	Mapping    batch.Mapping `json:"mapping"`
	WebhookURL *string       `json:"webhookUrl"`
	Type       string        `json:"type"`
	FileName   string        `json:"fileName"`
	InputData  *struct {
		Properties []struct {
			Address     string `json:"address"`
			Street      string `json:"street"`
			FullAddress string `json:"fullAddress"`
			City        string `json:"city"`
			State       string `json:"state"`
			ZIP         string `json:"zip"`
		} `json:"properties"`
		OriginalFileName string `json:"originalFileName"`
	} `json:"inputData"`
}

// maxRowsBody bounds the JSON form with rows: 50,000 addresses fit in well under 16 MB.
const maxRowsBody = 16 << 20

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	owner := jobOwner{userID: u.ID, plan: u.Plan}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		up, err := readUpload(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.createFromUpload(w, r, owner, up, "", http.StatusCreated, false)
		return
	}
	var in createJobRequest
	if err := decodeJSONLimit(w, r, &in, maxRowsBody); err != nil {
		s.writeError(w, r, err)
		return
	}
	webhook := ""
	if in.WebhookURL != nil {
		webhook = strings.TrimSpace(*in.WebhookURL)
	}
	switch {
	case in.UploadID != nil:
		name, fileSHA, data, err := s.store.BatchFile(r.Context(), u.ID, *in.UploadID)
		if errors.Is(err, store.ErrNoBatch) {
			s.writeError(w, r, apperr.NotFound("upload_not_found",
				"This upload is no longer available (uploads are kept 24 hours); please upload the file again"))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		tbl, err := batch.ReadFile(name, data, u.Plan)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if in.Mapping == nil {
			s.writeError(w, r, apperr.Invalid("mapping", "Send the confirmed column mapping"))
			return
		}
		job, _, secret, err := s.newJob(r.Context(), owner, name, fileSHA, tbl, in.Mapping, webhook, "")
		s.answerJob(w, r, job, secret, err, http.StatusCreated)
	case in.InputData != nil:
		if in.Type != "" && in.Type != "batch" {
			s.writeError(w, r, apperr.Invalid("type", `type must be "batch"`))
			return
		}
		// The spec's client mapped the rows itself: they become a table with one column per field.
		tbl := &batch.Table{Headers: []string{"fullAddress", "address", "city", "state", "zip"}}
		for i, p := range in.InputData.Properties {
			street := p.Address
			if street == "" {
				street = p.Street
			}
			tbl.Rows = append(tbl.Rows, []string{p.FullAddress, street, p.City, p.State, p.ZIP})
			tbl.Line = append(tbl.Line, i+1)
		}
		name := in.FileName
		if name == "" {
			name = in.InputData.OriginalFileName
		}
		if name == "" {
			name = "properties.json"
		}
		raw, _ := json.Marshal(in.InputData.Properties)
		m := batch.Mapping{"fullAddress": batch.ColumnType("fullAddress"), "address": batch.ColumnType("address"),
			"city": batch.ColumnType("city"), "state": batch.ColumnType("state"), "zip": batch.ColumnType("zip")}
		job, _, secret, err := s.newJob(r.Context(), owner, name, sha(raw), tbl, m, webhook, "")
		s.answerJob(w, r, job, secret, err, http.StatusCreated)
	default:
		s.writeError(w, r, apperr.Invalid("uploadId", "Send the uploadId of a preview with its mapping, or the rows in inputData.properties"))
	}
}

// createFromUpload reads an uploaded file, takes the mapping given or detects one, and creates the job.
func (s *Server) createFromUpload(w http.ResponseWriter, r *http.Request, owner jobOwner, up upload, idemKey string,
	status int, public bool) {
	tbl, err := batch.ReadFile(up.fileName, up.data, owner.plan)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	detected, _ := batch.Detect(tbl)
	mapping := detected
	if up.mapping != "" {
		mapping = batch.Mapping{}
		if err := json.Unmarshal([]byte(up.mapping), &mapping); err != nil {
			s.writeError(w, r, apperr.Invalid("mapping", "mapping must be a JSON object of column name to type"))
			return
		}
	}
	job, created, secret, err := s.newJob(r.Context(), owner, up.fileName, sha(up.data), tbl, mapping, up.webhookURL, idemKey)
	if e, ok := apperr.As(err); ok && e.Field == "mapping" {
		// Say what was detected, so that the caller can correct it and send it back.
		if e.Extra == nil {
			e.Extra = map[string]any{}
		}
		e.Extra["detectedMapping"] = detected
	}
	if public {
		if err == nil && !created {
			status = http.StatusOK // the job of an earlier upload with the same Idempotency-Key
		}
		s.answerStatus(w, r, job, secret, err, status)
		return
	}
	s.answerJob(w, r, job, secret, err, status)
}

// newJob checks and creates a batch job from a table and its mapping, and queues it.
func (s *Server) newJob(ctx context.Context, owner jobOwner, fileName, fileSHA string, tbl *batch.Table,
	mapping batch.Mapping, webhook, idemKey string) (store.BatchJob, bool, string, error) {
	if err := mapping.Validate(tbl.Headers); err != nil {
		return store.BatchJob{}, false, "", err
	}
	rows, dropped := batch.Apply(tbl, mapping)
	if len(rows) == 0 {
		return store.BatchJob{}, false, "", &apperr.Error{Kind: apperr.KindInvalid, Code: "no_addresses", Field: "mapping",
			Message: "No row has an address in the mapped columns", Extra: map[string]any{"title": "Empty File"}}
	}
	if err := batch.CheckSize(len(rows), owner.plan); err != nil {
		return store.BatchJob{}, false, "", err
	}
	if err := s.checkWebhookURL(webhook); err != nil {
		return store.BatchJob{}, false, "", err
	}
	// A job that could not value a single property is refused now rather than failing at its first row.
	balance, plan, limit, err := s.store.CreditTerms(ctx, owner.userID)
	if err != nil {
		return store.BatchJob{}, false, "", err
	}
	if floor := credit.Floor(plan, limit); floor != credit.NoFloor && balance-floor < 1 {
		return store.BatchJob{}, false, "", credit.Insufficient(balance, 1, plan, limit)
	}
	inputs := make([][]byte, len(rows))
	for i, row := range rows {
		if inputs[i], err = json.Marshal(row); err != nil {
			return store.BatchJob{}, false, "", err
		}
	}
	mappingJSON, _ := json.Marshal(mapping)
	secret := ""
	if webhook != "" {
		b := make([]byte, 24)
		_, _ = rand.Read(b)
		secret = "whsec_" + hex.EncodeToString(b)
	}
	j := store.BatchJob{UserID: owner.userID, APIKeyID: owner.keyID, APIKeyName: owner.keyName, FileName: fileName,
		FileSHA256: fileSHA, Mapping: string(mappingJSON), Dropped: dropped, WebhookURL: webhook, WebhookSecret: secret,
		IdempotencyKey: idemKey, CreatedAt: s.now()}
	job, created, err := s.store.CreateBatchJob(ctx, j, inputs, s.queue.EnqueueBatch)
	if errors.Is(err, store.ErrIdempotencyReuse) {
		return job, false, "", apperr.Conflict("idempotency_key_reused", "Idempotency-Key",
			"This Idempotency-Key was used for a different file; use a new key for a new upload")
	}
	if !created {
		secret = "" // shown once, when the job is created
	}
	return job, created, secret, err
}

// checkWebhookURL accepts an absolute http(s) URL; https only in production.
func (s *Server) checkWebhookURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	ok := err == nil && (u.Scheme == "https" || (u.Scheme == "http" && s.cfg.Dev())) && u.Host != "" && len(raw) <= 2000
	if !ok {
		msg := "webhookUrl must be an absolute https:// URL"
		if s.cfg.Dev() {
			msg = "webhookUrl must be an absolute http:// or https:// URL"
		}
		return apperr.Invalid("webhookUrl", msg)
	}
	return nil
}

// jobView is a job as the dashboard shows it (api/openapi.yaml BatchJob).
func jobView(j store.BatchJob) map[string]any {
	source := "dashboard"
	if j.APIKeyID != 0 {
		source = j.APIKeyName
	}
	return map[string]any{"id": j.ID, "type": "batch", "fileName": j.FileName, "status": j.Status,
		"totalProperties": j.Total, "processedProperties": j.Processed, "successfulProperties": j.Successful,
		"failedProperties": j.Failed, "droppedRows": j.Dropped, "creditsUsed": j.CreditsUsed, "createdAt": j.CreatedAt,
		"startedAt": j.StartedAt, "completedAt": j.FinishedAt, "statusMessage": optString(j.StatusMessage),
		"webhookUrl": optString(j.WebhookURL), "source": source, "resultsAvailable": j.PurgedAt == nil,
		"downloadUrl": fmt.Sprintf("/api/jobs/%d/download", j.ID)}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) answerJob(w http.ResponseWriter, r *http.Request, j store.BatchJob, _ string, err error, status int) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, status, jobView(j))
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	jobs, err := s.store.BatchJobs(r.Context(), userFrom(r.Context()).user.ID, 100)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]map[string]any, len(jobs))
	for i, j := range jobs {
		out[i] = jobView(j)
	}
	writeJSON(w, http.StatusOK, out)
}

var errNoJob = apperr.NotFound("job_not_found", "Batch job not found")

// jobOf reads the path's job of the user: 404 for another user's job, as for one that does not exist.
func (s *Server) jobOf(r *http.Request, userID int64, param string) (store.BatchJob, error) {
	id, err := strconv.ParseInt(r.PathValue(param), 10, 64)
	if err != nil || id <= 0 {
		return store.BatchJob{}, apperr.Invalid(param, param+" must be a positive whole number")
	}
	j, err := s.store.BatchJob(r.Context(), userID, id)
	if errors.Is(err, store.ErrNoBatch) {
		return j, errNoJob
	}
	return j, err
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r, userFrom(r.Context()).user.ID, "id")
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	j, err := s.jobOf(r, u.ID, "id")
	if err == nil {
		j, err = s.store.CancelBatchJob(r.Context(), u.ID, j.ID, s.now())
	}
	if errors.Is(err, store.ErrBatchState) {
		err = apperr.Conflict("job_not_cancellable", "status", fmt.Sprintf("A %s job cannot be cancelled", j.Status))
	}
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

func (s *Server) retryJob(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	j, err := s.jobOf(r, u.ID, "id")
	if err == nil && batch.CanRetry(j.Status) {
		// Retrying a job stopped for want of credits is refused while the balance still cannot pay.
		balance, plan, limit, terr := s.store.CreditTerms(r.Context(), u.ID)
		if terr != nil {
			err = terr
		} else if floor := credit.Floor(plan, limit); floor != credit.NoFloor && balance-floor < 1 && j.Processed < j.Total {
			err = credit.Insufficient(balance, 1, plan, limit)
		}
	}
	if err == nil {
		j, err = s.store.RetryBatchJob(r.Context(), u.ID, j.ID, s.queue.EnqueueBatch)
	}
	if errors.Is(err, store.ErrBatchState) {
		msg := fmt.Sprintf("A %s job cannot be retried; only failed or cancelled jobs can", j.Status)
		if j.PurgedAt != nil {
			msg = "This job's rows were deleted 24 hours after it finished; upload the file again"
		}
		err = apperr.Conflict("job_not_retryable", "status", msg)
	}
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

// pageParams reads page and limit (defaults 1 and def, limit at most 1000).
func pageParams(r *http.Request, def int) (page, limit int, err error) {
	var v apperr.Validation
	page, limit = 1, def
	if p := r.URL.Query().Get("page"); p != "" {
		n, perr := strconv.Atoi(p)
		v.Check(perr == nil && n >= 1, "page", "page must be a whole number from 1")
		page = max(n, 1)
	}
	if l := r.URL.Query().Get("limit"); l != "" {
		n, lerr := strconv.Atoi(l)
		v.Check(lerr == nil && n >= 1 && n <= 1000, "limit", "limit must be a whole number from 1 to 1000")
		limit = min(max(n, 1), 1000)
	}
	return page, limit, v.Err()
}

var errResultsGone = &apperr.Error{Kind: apperr.KindGone, Code: "results_deleted",
	Message: "This job's results were deleted 24 hours after it finished"}

// results reads a page of a job's results.
func (s *Server) results(r *http.Request, j store.BatchJob, status string, page, limit int) ([]batch.Result, map[string]any, error) {
	if j.PurgedAt != nil {
		return nil, nil, errResultsGone
	}
	rows, total, err := s.store.BatchRows(r.Context(), j.UserID, j.ID, status, (page-1)*limit, limit)
	if err != nil {
		return nil, nil, err
	}
	out := make([]batch.Result, len(rows))
	for i, row := range rows {
		if out[i], err = resultOf(row); err != nil {
			return nil, nil, err
		}
	}
	return out, paginationOf(page, limit, total), nil
}

// resultOf is a row's result, or for a row not yet valued, its input marked pending.
func resultOf(row store.BatchRow) (batch.Result, error) {
	var res batch.Result
	if row.Result != nil {
		err := json.Unmarshal(row.Result, &res)
		return res, err
	}
	var in batch.Row
	if err := json.Unmarshal(row.Input, &in); err != nil {
		return res, err
	}
	parts := []string{}
	for _, p := range []string{in.Address, in.City, strings.TrimSpace(in.State + " " + in.ZIP)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return batch.Result{Line: in.Line, Address: in.Address, FullAddress: strings.Join(parts, ", "), Status: batch.RowPending}, nil
}

func paginationOf(page, limit, total int) map[string]any {
	pages := (total + limit - 1) / limit
	return map[string]any{"page": page, "limit": limit, "total": total, "totalPages": pages,
		"hasPreviousPage": page > 1, "hasNextPage": page < pages}
}

func (s *Server) jobResults(w http.ResponseWriter, r *http.Request) {
	page, limit, err := pageParams(r, 50)
	status := r.URL.Query().Get("status")
	if err == nil && status != "" && status != batch.RowSuccess && status != batch.RowFailed && status != batch.RowPending {
		err = apperr.Invalid("status", "status must be success, failed or pending")
	}
	var j store.BatchJob
	if err == nil {
		j, err = s.jobOf(r, userFrom(r.Context()).user.ID, "id")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, pg, err := s.results(r, j, status, page, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": res, "pagination": pg})
}

func (s *Server) downloadJob(w http.ResponseWriter, r *http.Request) {
	s.download(w, r, userFrom(r.Context()).user.ID, "id")
}

// download writes every row's result of the path's job as CSV or XLSX.
func (s *Server) download(w http.ResponseWriter, r *http.Request, userID int64, param string) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "csv"
	}
	if format != "csv" && format != "xlsx" {
		s.writeError(w, r, apperr.Invalid("format", "format must be csv or xlsx"))
		return
	}
	j, err := s.jobOf(r, userID, param)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if j.PurgedAt != nil {
		s.writeError(w, r, errResultsGone)
		return
	}
	var all []batch.Result
	for page := 1; ; page++ {
		res, pg, err := s.results(r, j, "", page, 5000)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		all = append(all, res...)
		if !pg["hasNextPage"].(bool) {
			break
		}
	}
	var buf bytes.Buffer
	ctype := "text/csv; charset=utf-8"
	if format == "csv" {
		err = batch.WriteCSV(&buf, all)
	} else {
		ctype = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		err = batch.WriteXLSX(&buf, all)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="batch-%d-results.%s"`, j.ID, format))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) batchExample(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="valuator-batch-example.csv"`)
	_, _ = w.Write(batch.ExampleCSV())
}

// Public API.

func (s *Server) publicBatchUpload(w http.ResponseWriter, r *http.Request) {
	p := keyFrom(r.Context())
	owner := jobOwner{userID: p.userID, plan: p.plan, keyID: p.keyID, keyName: p.keyName}
	idem := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if len(idem) > 200 {
		s.writeError(w, r, apperr.Invalid("Idempotency-Key", "Idempotency-Key must be at most 200 characters"))
		return
	}
	up, err := readUpload(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.createFromUpload(w, r, owner, up, idem, http.StatusAccepted, true)
}

// statusView is a job as the public API shows it (api/openapi.yaml BatchStatus).
func (s *Server) answerStatus(w http.ResponseWriter, r *http.Request, j store.BatchJob, secret string, err error, status int) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(r, 100)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	body := map[string]any{"jobId": j.ID, "status": j.Status, "statusMessage": optString(j.StatusMessage),
		"progress": map[string]int{"total": j.Total, "processed": j.Processed, "successful": j.Successful, "failed": j.Failed},
		"results":  []batch.Result{}, "pagination": paginationOf(page, limit, 0),
		"downloadUrl": fmt.Sprintf("/api/batch/download/%d", j.ID)}
	if secret != "" {
		body["webhookSecret"] = secret
	}
	if j.PurgedAt == nil {
		res, pg, err := s.results(r, j, "", page, limit)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		body["results"], body["pagination"] = res, pg
	}
	writeJSON(w, status, body)
}

func (s *Server) publicBatchStatus(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r, keyFrom(r.Context()).userID, "jobId")
	if err == nil && j.PurgedAt != nil {
		err = errResultsGone
	}
	s.answerStatus(w, r, j, "", err, http.StatusOK)
}

func (s *Server) publicBatchDownload(w http.ResponseWriter, r *http.Request) {
	s.download(w, r, keyFrom(r.Context()).userID, "jobId")
}
