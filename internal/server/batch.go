package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/billing"
	"valuator/internal/text"
	"valuator/internal/usage"
)

// jobOwner is who a batch job is for: a dashboard user, or an API key's owner.
type jobOwner struct {
	userID  int64
	plan    string
	keyID   int64
	keyName string
}

// job is the owner's job to create from a table and its mapping.
func (o jobOwner) job(fileName, fileSHA string, tbl *batch.Table, mapping batch.Mapping, webhook, idemKey string,
	uploadID int64) batch.NewJob {
	return batch.NewJob{UserID: o.userID, Plan: o.plan, KeyID: o.keyID, KeyName: o.keyName, FileName: fileName,
		FileSHA: fileSHA, Table: tbl, Mapping: mapping, Webhook: webhook, IdempotencyKey: idemKey, UploadID: uploadID}
}

// upload is a multipart batch upload.
type upload struct {
	fileName string
	// path is the temporary file the file part was received into ("" when none was made); the caller removes it.
	path       string
	mapping    string // JSON, optional
	webhookURL string
	hasFile    bool
}

// maxUploadBody bounds a whole multipart upload: the file plus room for the form's other fields and headers.
const maxUploadBody = batch.MaxFileBytes + 1<<20

// maxFileName bounds an uploaded file's name, which becomes the job's fileName (api/openapi.yaml: 255).
const maxFileName = 255

// errNotMultipart refuses an upload that is not multipart/form-data.
var errNotMultipart = &apperr.Error{Kind: apperr.KindUnsupportedMediaType, Code: "unsupported_media_type",
	Message: "Send the file as multipart/form-data in the field \"file\""}

func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// readUpload receives a multipart upload: the file (at most batch.MaxFileBytes) into a temporary file, and the
// optional mapping and webhookUrl fields. Other fields are ignored. The temporary file is the caller's to remove
// (u.path), on success and on error.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request) (u upload, err error) {
	if !isMultipart(r) {
		return u, errNotMultipart
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
			// The name is stored and shown in the dashboard and in exports: it must be text, on one line, and
			// display as what it is (no control or text-direction characters).
			if p := text.NameProblem(u.fileName); p != "" {
				return u, apperr.Invalid("file", "The file name "+p)
			}
			if len(u.fileName) > maxFileName {
				return u, apperr.Invalid("file", fmt.Sprintf("The file name must be at most %d characters", maxFileName))
			}
			if u.path != "" {
				return u, apperr.Invalid("file", "Attach one spreadsheet in the multipart field \"file\"")
			}
			f, err := s.uploadFile()
			if err != nil {
				return u, err
			}
			u.path = f.Name()
			n, err := io.Copy(f, io.LimitReader(part, batch.MaxFileBytes+1))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return u, uploadReadError(err)
			}
			if n > batch.MaxFileBytes {
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
			if p := text.Problem(string(b)); p != "" {
				return u, apperr.Invalid(part.FormName(), part.FormName()+" "+p)
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
	if e, ok := apperr.As(err); ok {
		return e // the body fell behind the pace (408)
	}
	return apperr.Invalid("file", "The upload was interrupted or is not valid multipart/form-data")
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// readRetryAfter is what an upload refused for want of a read slot is told to wait: about the time one large
// spreadsheet takes to read.
const readRetryAfter = 5

// enterRead takes one of the process's spreadsheet-read slots (Deps.SpreadsheetReads), waiting up to the
// configured time; past it the upload is answered 429 with Retry-After. Each read of a 50 MB file can take
// hundreds of megabytes, so their number, not the requests', bounds the memory a burst of uploads takes.
func (s *Server) enterRead(r *http.Request) (release func(), err error) {
	release, err = s.reads.Enter(r.Context(), s.readWait)
	if err != nil {
		// Busy, or the client went away while waiting (the answer then reaches nobody).
		e := apperr.RateLimited(fmt.Sprintf(
			"Too many spreadsheets are being read right now. Try again in %d seconds.", readRetryAfter), readRetryAfter)
		e.Extra = map[string]any{"title": "Server Busy"}
		return nil, e
	}
	return release, nil
}

// uploadedSheet is an uploaded spreadsheet once read: the form's fields, the file's SHA-256 and its table. The file's
// bytes are not kept.
type uploadedSheet struct {
	upload
	sha   string
	table *batch.Table
}

// readSheet receives the account's multipart upload into a temporary file, then takes one of the process's read
// slots to read the spreadsheet in it (at most the rows of the caller's plan), and gives the slot back. The body
// arrives first, at the server's pace, so that a client sending slowly holds no read slot and cannot lock other
// customers out; each account has at most UploadsPerAccount uploads in flight. keep, when not nil, runs while the
// slot is held, on the table (the preview compresses it there). The temporary file is removed on every path.
func (s *Server) readSheet(w http.ResponseWriter, r *http.Request, userID int64, plan string, keep func(*batch.Table) error) (uploadedSheet, error) {
	if !isMultipart(r) {
		return uploadedSheet{}, errNotMultipart
	}
	releaseUpload, err := s.takeUpload(userID)
	if err != nil {
		return uploadedSheet{}, err
	}
	defer releaseUpload()
	received := s.pace(w, r)
	up, err := s.readUpload(w, r)
	received()
	if up.path != "" {
		defer os.Remove(up.path)
	}
	if apperr.IsKind(err, apperr.KindTimeout) {
		// The connection may still hold part of the body: it is not reused.
		w.Header().Set("Connection", "close")
	}
	if err != nil {
		return uploadedSheet{}, err
	}
	release, err := s.enterRead(r)
	if err != nil {
		return uploadedSheet{}, err
	}
	defer release()
	data, err := os.ReadFile(up.path)
	if err != nil {
		return uploadedSheet{}, err
	}
	sh := uploadedSheet{upload: up, sha: sha(data)}
	tbl, err := batch.ReadFile(up.fileName, data, plan)
	if err != nil {
		return sh, err
	}
	sh.table = tbl
	if keep != nil {
		err = keep(tbl)
	}
	return sh, err
}

// previewBatchFile reads an uploaded file, keeps its table for the job's creation and answers what it holds.
func (s *Server) previewBatchFile(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	var stored []byte
	sh, err := s.readSheet(w, r, u.ID, u.Plan, func(t *batch.Table) (err error) {
		stored, err = batch.EncodeTable(t)
		return err
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	tbl := sh.table
	mapping, detections := batch.Detect(tbl)
	id, err := s.batches.SaveUpload(r.Context(), u.ID, sh.fileName, sh.sha, stored)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sample := tbl.Rows[:min(5, len(tbl.Rows))]
	writeJSON(w, http.StatusOK, map[string]any{"uploadId": id, "fileName": sh.fileName, "headers": tbl.Headers,
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
	// TotalProperties is the caller's count of the rows: informative (the rows are counted), but bounded as the
	// rows are.
	TotalProperties *int64 `json:"totalProperties"`
	InputData       *struct {
		Properties       []jobRow `json:"properties"`
		OriginalFileName string   `json:"originalFileName"`
	} `json:"inputData"`
}

// jobRow is a row of the rows form of POST /api/jobs: an address already mapped, and the facts of a home that is not
// on record, as numbers or as text.
type jobRow struct {
	Address      string   `json:"address"`
	Street       string   `json:"street"`
	FullAddress  string   `json:"fullAddress"`
	City         string   `json:"city"`
	State        string   `json:"state"`
	ZIP          string   `json:"zip"`
	PropertyType factCell `json:"propertyType"`
	SquareFeet   factCell `json:"squareFeet"`
	Bedrooms     factCell `json:"bedrooms"`
	Bathrooms    factCell `json:"bathrooms"`
	YearBuilt    factCell `json:"yearBuilt"`
	LotSize      factCell `json:"lotSize"`
}

// maxRowText bounds each text of a row of the rows form (api/openapi.yaml CreateJobFromRows): more than any
// address, city or fact holds (the address parser reads at most 1,000 characters of an address), and small enough
// that a body of rows cannot hide megabytes in one cell.
const maxRowText = 1000

// check is what is wrong with the row, or "": a text longer than maxRowText, or a fact given as a JSON number outside
// the lookup's range (valuation.Input: the ranges the row would be valued by). A fact given as text is read as a
// spreadsheet's cell is, when the row is valued: a text that is no number, or out of range, fails only its row.
func (r jobRow) check() string {
	texts := []struct{ name, val string }{{"address", r.Address}, {"street", r.Street}, {"fullAddress", r.FullAddress},
		{"city", r.City}, {"state", r.State}, {"zip", r.ZIP}, {"propertyType", r.PropertyType.text()},
		{"squareFeet", r.SquareFeet.text()}, {"bedrooms", r.Bedrooms.text()}, {"bathrooms", r.Bathrooms.text()},
		{"yearBuilt", r.YearBuilt.text()}, {"lotSize", r.LotSize.text()}}
	for _, t := range texts {
		if utf8.RuneCountInString(t.val) > maxRowText {
			return fmt.Sprintf("%s must be at most %d characters", t.name, maxRowText)
		}
	}
	facts := []struct {
		name   string
		cell   factCell
		lo, hi float64
	}{{"squareFeet", r.SquareFeet, 100, 100000}, {"bedrooms", r.Bedrooms, 0, 50}, {"bathrooms", r.Bathrooms, 0, 50},
		{"yearBuilt", r.YearBuilt, 1700, 2100}, {"lotSize", r.LotSize, 0, 1e8}}
	for _, f := range facts {
		if f.cell.Number {
			n, err := strconv.ParseFloat(f.cell.text(), 64)
			if err != nil || n < f.lo || n > f.hi {
				return fmt.Sprintf("%s must be between %s and %s", f.name, strconv.FormatFloat(f.lo, 'f', -1, 64),
					strconv.FormatFloat(f.hi, 'f', -1, 64))
			}
		}
	}
	return ""
}

// factCell is a fact of a row given as JSON: a number, a string or null, kept as the text a spreadsheet cell would
// hold so that the rows of both forms are read alike (batch.Row.Facts). Number says it came as a JSON number. The
// text is an embedded (exported) string so that decodeJSON's check of every string (textProblem) reads it and
// names it by its row's field, as it does the row's other texts.
type factCell struct {
	CellText
	Number bool `json:"-"`
}

// CellText is the text of a factCell.
type CellText string

func (c factCell) text() string { return string(c.CellText) }

// MarshalJSON writes the cell as the text it holds.
func (c factCell) MarshalJSON() ([]byte, error) { return json.Marshal(c.text()) }

func (c *factCell) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		*c = factCell{}
	case string:
		*c = factCell{CellText: CellText(x)}
	case float64:
		*c = factCell{CellText: CellText(strings.TrimSpace(string(b))), Number: true}
	default:
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeOf("")}
	}
	return nil
}

// maxRowsBody bounds the JSON form with rows: 50,000 addresses fit in well under 16 MB.
const maxRowsBody = 16 << 20

// checkRows checks the rows form's bounds (api/openapi.yaml CreateJobFromRows): at most the largest plan's batch
// size of rows (the account's own plan is checked when the job is made, with a message that offers the upgrade),
// each row's texts and numbers (jobRow.check), and totalProperties in the same range. A bad row is named by its list,
// with its place in the message, as decodeJSON names the elements of a list.
func checkRows(total *int64, rows []jobRow) error {
	const field = "inputData.properties"
	maxRows := batch.PlanLimit(billing.Enterprise)
	if len(rows) > maxRows {
		return apperr.Invalid(field, fmt.Sprintf("%s may hold at most %d rows (the largest plan's batch size); split them "+
			"into several jobs", field, maxRows))
	}
	for i, row := range rows {
		if p := row.check(); p != "" {
			return apperr.Invalid(field, fmt.Sprintf("%s[%d].%s", field, i, p))
		}
	}
	if total != nil && (*total < 0 || *total > int64(maxRows)) {
		return apperr.Invalid("totalProperties", fmt.Sprintf("totalProperties must be between 0 and %d", maxRows))
	}
	return nil
}

// checkFileName checks a file name given in JSON (fileName, inputData.originalFileName) as readUpload checks an
// uploaded file's.
func checkFileName(field, name string) error {
	if p := text.NameProblem(name); p != "" {
		return apperr.Invalid(field, field+" "+p)
	}
	if len(name) > maxFileName {
		return apperr.Invalid(field, fmt.Sprintf("%s must be at most %d characters", field, maxFileName))
	}
	return nil
}

func (s *Server) createJob(w http.ResponseWriter, r *http.Request) {
	u := userFrom(r.Context()).user
	owner := jobOwner{userID: u.ID, plan: u.Plan}
	if isMultipart(r) {
		sh, err := s.readSheet(w, r, owner.userID, owner.plan, nil)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.createFromUpload(w, r, owner, sh, "", http.StatusCreated, false)
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
		if *in.UploadID < 1 {
			s.writeError(w, r, apperr.Invalid("uploadId", "uploadId must be the positive id a preview answered"))
			return
		}
		if in.Mapping == nil {
			s.writeError(w, r, apperr.Invalid("mapping", "Send the confirmed column mapping"))
			return
		}
		name, fileSHA, stored, err := s.batches.Upload(r.Context(), u.ID, *in.UploadID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		// The preview kept the table, not the file: the job is built from it without reading the spreadsheet
		// again. Decoding still takes memory in proportion to the table, so it takes a read slot too.
		release, err := s.enterRead(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		tbl, err := batch.DecodeTable(stored)
		release()
		stored = nil
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		job, _, secret, err := s.batches.Create(r.Context(), owner.job(name, fileSHA, tbl, in.Mapping, webhook, "", *in.UploadID))
		s.answerJob(w, r, job, secret, err, http.StatusCreated)
	case in.InputData != nil:
		if in.Type != "" && in.Type != "batch" {
			s.writeError(w, r, apperr.Invalid("type", `type must be "batch"`))
			return
		}
		if err := checkFileName("fileName", in.FileName); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := checkFileName("inputData.originalFileName", in.InputData.OriginalFileName); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := checkRows(in.TotalProperties, in.InputData.Properties); err != nil {
			s.writeError(w, r, err)
			return
		}
		// The spec's client mapped the rows itself: they become a table with one column per field.
		tbl := &batch.Table{Headers: []string{"fullAddress", "address", "city", "state", "zip", "propertyType",
			"squareFeet", "bedrooms", "bathrooms", "yearBuilt", "lotSize"}}
		for i, p := range in.InputData.Properties {
			street := p.Address
			if street == "" {
				street = p.Street
			}
			tbl.Rows = append(tbl.Rows, []string{p.FullAddress, street, p.City, p.State, p.ZIP, p.PropertyType.text(),
				p.SquareFeet.text(), p.Bedrooms.text(), p.Bathrooms.text(), p.YearBuilt.text(), p.LotSize.text()})
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
		m := batch.Mapping{}
		for _, h := range tbl.Headers {
			m[h] = batch.ColumnType(h)
		}
		job, _, secret, err := s.batches.Create(r.Context(), owner.job(name, sha(raw), tbl, m, webhook, "", 0))
		s.answerJob(w, r, job, secret, err, http.StatusCreated)
	default:
		s.writeError(w, r, apperr.Invalid("uploadId", "Send the uploadId of a preview with its mapping, or the rows in inputData.properties"))
	}
}

// createFromUpload takes the mapping given with an uploaded file or detects one, and creates the job.
func (s *Server) createFromUpload(w http.ResponseWriter, r *http.Request, owner jobOwner, sh uploadedSheet, idemKey string,
	status int, public bool) {
	tbl := sh.table
	detected, _ := batch.Detect(tbl)
	mapping := detected
	if sh.mapping != "" {
		mapping = batch.Mapping{}
		if err := json.Unmarshal([]byte(sh.mapping), &mapping); err != nil {
			s.writeError(w, r, apperr.Invalid("mapping", "mapping must be a JSON object of column name to type"))
			return
		}
	}
	job, created, secret, err := s.batches.Create(r.Context(), owner.job(sh.fileName, sh.sha, tbl, mapping, sh.webhookURL, idemKey, 0))
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
		// page and limit are not parameters of the upload: its answer shows the first page of the new job.
		s.answerStatus(w, r, job, secret, err, status, 1, defaultStatusLimit)
		return
	}
	s.answerJob(w, r, job, secret, err, status)
}

// jobView is a job as the dashboard shows it to its owner (api/openapi.yaml BatchJob). The webhook's signing
// secret is the owner's to see whenever they need it to check a webhook's X-Valuator-Signature; no other user
// reaches the job (jobOf answers 404).
func jobView(j batch.Job) map[string]any {
	source := "dashboard"
	if j.APIKeyID != 0 {
		source = j.APIKeyName
	}
	v := map[string]any{"id": j.ID, "type": "batch", "fileName": j.FileName, "status": j.Status,
		"totalProperties": j.Total, "processedProperties": j.Processed, "successfulProperties": j.Successful,
		"failedProperties": j.Failed, "droppedRows": j.Dropped, "creditsUsed": j.CreditsUsed, "createdAt": j.CreatedAt,
		"startedAt": j.StartedAt, "completedAt": j.FinishedAt, "statusMessage": optString(j.StatusMessage),
		"webhookUrl": optString(j.WebhookURL), "source": source, "resultsAvailable": j.PurgedAt == nil,
		"downloadUrl": fmt.Sprintf("/api/jobs/%d/download", j.ID)}
	if j.WebhookURL != "" && j.WebhookSecret != "" {
		v["webhookSecret"] = j.WebhookSecret
	}
	return v
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) answerJob(w http.ResponseWriter, r *http.Request, j batch.Job, _ string, err error, status int) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, status, jobView(j))
}

func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	jobs, err := s.batches.Jobs(r.Context(), userFrom(r.Context()).user.ID)
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

// jobID reads the path's job id.
func jobID(r *http.Request, param string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(param), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Invalid(param, param+" must be a positive whole number")
	}
	return id, nil
}

// jobOf reads the path's job of the user: 404 for another user's job, as for one that does not exist.
func (s *Server) jobOf(r *http.Request, userID int64, param string) (batch.Job, error) {
	id, err := jobID(r, param)
	if err != nil {
		return batch.Job{}, err
	}
	return s.batches.Job(r.Context(), userID, id)
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobOf(r, userFrom(r.Context()).user.ID, "id")
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	var j batch.Job
	if err == nil {
		j, err = s.batches.Cancel(r.Context(), userFrom(r.Context()).user.ID, id)
	}
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

func (s *Server) retryJob(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	var j batch.Job
	if err == nil {
		j, err = s.batches.Retry(r.Context(), userFrom(r.Context()).user.ID, id)
	}
	s.answerJob(w, r, j, "", err, http.StatusOK)
}

// pageParams reads page and limit (defaults 1 and def; page at most 1,000,000, limit at most 1000).
func pageParams(r *http.Request, def int) (page, limit int, err error) {
	var v apperr.Validation
	page, limit = 1, def
	if p := r.URL.Query().Get("page"); p != "" {
		n, perr := strconv.Atoi(p)
		// The history's bound (usage.MaxPage) serves here too: far past the last page of any job, and small enough
		// that (page-1)*limit never overflows the database's offset.
		v.Check(perr == nil && n >= 1 && n <= usage.MaxPage, "page", "page must be a whole number from 1 to 1000000")
		page = min(max(n, 1), usage.MaxPage)
	}
	if l := r.URL.Query().Get("limit"); l != "" {
		n, lerr := strconv.Atoi(l)
		v.Check(lerr == nil && n >= 1 && n <= 1000, "limit", "limit must be a whole number from 1 to 1000")
		limit = min(max(n, 1), 1000)
	}
	return page, limit, v.Err()
}

// results reads a page of a job's results.
func (s *Server) results(r *http.Request, j batch.Job, status string, page, limit int) ([]batch.Result, map[string]any, error) {
	res, total, err := s.batches.Results(r.Context(), j, status, page, limit)
	if err != nil {
		return nil, nil, err
	}
	return res, paginationOf(page, limit, total), nil
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
	var j batch.Job
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

// download writes every row's result of the path's job as CSV or XLSX. The rows are read page by page and written
// as they come (batch.WriteCSV, batch.WriteXLSX), so a download of 50,000 rows holds one page in memory, not the
// job: ten parallel downloads of a large job once took a gigabyte.
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
		s.writeError(w, r, batch.ErrResultsGone)
		return
	}
	release, err := s.takeDownload(userID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	ctype, write := "text/csv; charset=utf-8", batch.WriteCSV
	if format == "xlsx" {
		ctype, write = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", batch.WriteXLSX
	}
	// The status and headers go out with the first byte of the file, so that a failure before it (the first page
	// cannot be read; an XLSX is written only once every row is in) is still answered with the JSON error. Every
	// write of the file has the stall period to reach the client (progressWriter): one that stops reading loses
	// the download and its slot (issue 36, M-1).
	progress := s.newProgressWriter(w, r)
	out := &lazyWriter{w: progress, start: func() {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="batch-%d-results.%s"`, j.ID, format))
		w.WriteHeader(http.StatusOK)
	}}
	err = write(out, s.batches.AllResults(r.Context(), j))
	if err == nil && out.started {
		err = progress.finish()
	}
	if err == nil {
		return
	}
	if !out.started {
		s.writeError(w, r, err)
		return
	}
	// Part of the file is sent: aborting the connection tells the client the file is incomplete, where an
	// ended response would look like a complete file; the slot is given back as the handler unwinds. A client
	// that went away, or stopped taking the file for the stall period, needs no log line.
	if r.Context().Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		s.log.Error("download failed after it started", "request_id", requestIDFrom(r.Context()), "job", j.ID, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// lazyWriter calls start before its first write.
type lazyWriter struct {
	w       io.Writer
	start   func()
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.started = true
		l.start()
	}
	return l.w.Write(p)
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
	// The key is stored with the job and compared as text: it must be text, without control characters.
	if pr := text.NameProblem(idem); pr != "" {
		s.writeError(w, r, apperr.Invalid("Idempotency-Key", "Idempotency-Key "+pr))
		return
	}
	sh, err := s.readSheet(w, r, owner.userID, owner.plan, nil)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.createFromUpload(w, r, owner, sh, idem, http.StatusAccepted, true)
}

// defaultStatusLimit is the results of a job the public status shows a page.
const defaultStatusLimit = 100

// answerStatus answers a job as the public API shows it (api/openapi.yaml BatchStatus), with one page of its
// results.
func (s *Server) answerStatus(w http.ResponseWriter, r *http.Request, j batch.Job, secret string, err error, status,
	page, limit int) {
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
		err = batch.ErrResultsGone
	}
	var page, limit int
	if err == nil {
		page, limit, err = pageParams(r, defaultStatusLimit)
	}
	s.answerStatus(w, r, j, "", err, http.StatusOK, page, limit)
}

func (s *Server) publicBatchDownload(w http.ResponseWriter, r *http.Request) {
	s.download(w, r, keyFrom(r.Context()).userID, "jobId")
}
