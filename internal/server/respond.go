package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"valuator/internal/apperr"
	"valuator/internal/store"
	"valuator/internal/text"
)

// errorBody is the one JSON error shape of every endpoint (DESIGN.md section 4, api/openapi.yaml Error).
type errorBody struct {
	Error      string            `json:"error"`
	Code       string            `json:"code"`
	RequestID  string            `json:"requestId"`
	Field      string            `json:"field,omitempty"`
	Fields     map[string]string `json:"fields,omitempty"`
	RetryAfter int               `json:"retryAfter,omitempty"`
}

// writeJSON writes v with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// writeError answers with the JSON error for err. Errors that are not *apperr.Error are our own faults: they are
// logged with the request id and shown only as "Internal error".
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok {
		e = apperr.Internal(err)
	}
	if e.Kind == apperr.KindInternal && store.IsUnavailable(err) {
		// The database is down, restarting or out of connections: not our bug, and worth trying again.
		e = errDatabaseUnavailable(err)
	}
	status := e.Kind.Status()
	reqID := requestIDFrom(r.Context())
	// A dependency that is unavailable (the payment provider, a person-data provider, an engine still loading)
	// is answered in the words its domain wrote for the customer and logged as a warning: it is expected to
	// happen and is not our bug. Only our own faults are errors, shown as "Internal error".
	internal := status >= 500 && e.Kind != apperr.KindUnavailable
	switch {
	case internal:
		s.log.Error("request failed", "request_id", reqID, "method", r.Method, "path", r.URL.Path, "err", err)
	case e.Kind == apperr.KindUnavailable:
		s.log.Warn("dependency unavailable", "request_id", reqID, "method", r.Method, "path", r.URL.Path,
			"code", e.Code, "err", err)
	}
	body := map[string]any{}
	for k, v := range e.Extra {
		body[k] = v
	}
	eb := errorBody{Error: e.Message, Code: e.Code, RequestID: reqID, Field: e.Field, Fields: e.Fields}
	if internal || (status >= 500 && e.Message == "") {
		eb = errorBody{Error: "Internal error", Code: "internal", RequestID: reqID}
	}
	if e.Kind == apperr.KindRateLimited || (e.Kind == apperr.KindUnavailable && e.RetryAfterSeconds > 0) {
		eb.RetryAfter = e.RetryAfterSeconds
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	if len(body) == 0 {
		writeJSON(w, status, eb)
		return
	}
	// Merge the extra fields (402 balance details, say) into the standard shape.
	raw, _ := json.Marshal(eb)
	_ = json.Unmarshal(raw, &body)
	writeJSON(w, status, body)
}

// dbRetryAfter is what a request that found the database unreachable is told to wait, in seconds: about the time
// a PostgreSQL restart or failover takes.
const dbRetryAfter = 5

// errDatabaseUnavailable is the 503 of a request that could not reach the database (store.IsUnavailable).
func errDatabaseUnavailable(cause error) *apperr.Error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Code: "unavailable",
		Message: fmt.Sprintf("The service cannot reach its database right now. Try again in %d seconds.",
			dbRetryAfter), RetryAfterSeconds: dbRetryAfter, Err: cause}
}

// maxJSONBody bounds every JSON request body. No JSON payload of this API comes near it; file uploads have their
// own limits.
const maxJSONBody = 1 << 20

// decodeJSON reads a JSON object into dst, answering the caller's mistakes with errors that say what is wrong:
// not JSON (415), too large (413), malformed (400), or a field of the wrong type (400 naming the field).
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	return decodeJSONLimit(w, r, dst, maxJSONBody)
}

// decodeJSONLimit is decodeJSON with its own size limit, for the few bodies that carry data rather than a form.
func decodeJSONLimit(w http.ResponseWriter, r *http.Request, dst any, limit int64) error {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return &apperr.Error{Kind: apperr.KindUnsupportedMediaType, Code: "unsupported_media_type",
			Message: "Send the request body as JSON with Content-Type: application/json"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.Invalid("body", "The request body must hold a single JSON object")
	}
	// JSON can carry a NUL character ("\u0000"), which PostgreSQL refuses in a text column; it is refused here, at
	// the edge, for every body at once, instead of in each handler or as a database error (a 500).
	if field, where, problem := textProblem(reflect.ValueOf(dst), "", ""); problem != "" {
		if field == "" {
			field, where = "body", "body"
		}
		return apperr.Invalid(field, where+" "+problem)
	}
	return nil
}

// textProblem finds the first string in a decoded body that cannot be stored as text (see text.Problem). field
// names it as errors name fields, by its JSON path ("company", "propertyData.address"), except that an element of
// a list is named by its list ("inputData.properties"), as the list's other errors are; where is the exact place,
// for the message ("inputData.properties[1].city"). A map is named as a whole: its keys are data, not names.
func textProblem(v reflect.Value, field, where string) (string, string, string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return textProblem(v.Elem(), field, where)
		}
	case reflect.String:
		if p := text.Problem(v.String()); p != "" {
			return field, where, p
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case !f.IsExported() || name == "-":
				continue
			case name == "" && f.Anonymous: // an embedded struct's fields are the outer object's
				if fd, w, p := textProblem(v.Field(i), field, where); p != "" {
					return fd, w, p
				}
				continue
			case name == "":
				name = f.Name
			}
			fd := joinPath(field, name)
			if field != where { // inside a list: the list is the field
				fd = field
			}
			if fd, w, p := textProblem(v.Field(i), fd, joinPath(where, name)); p != "" {
				return fd, w, p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if fd, w, p := textProblem(v.Index(i), field, fmt.Sprintf("%s[%d]", where, i)); p != "" {
				return fd, w, p
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			for _, x := range []reflect.Value{it.Key(), it.Value()} {
				if _, _, p := textProblem(x, field, where); p != "" {
					return field, where, p
				}
			}
		}
	}
	return "", "", ""
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func jsonError(err error) error {
	var maxErr *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &maxErr):
		return &apperr.Error{Kind: apperr.KindTooLarge, Code: "body_too_large",
			Message: fmt.Sprintf("The request body is larger than %d bytes", maxErr.Limit)}
	case errors.Is(err, io.EOF):
		return apperr.Invalid("body", "The request body is empty; send a JSON object")
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apperr.Invalid("body", "The request body must be a JSON object")
		}
		return apperr.Invalid(field, fmt.Sprintf("%s must be a %s", field, jsonTypeName(typeErr.Type.Kind().String())))
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Invalid("body", "The request body is not valid JSON")
	default:
		return apperr.Invalid("body", "The request body is not valid JSON")
	}
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "number"
	case "slice", "array":
		return "list"
	default:
		return "object"
	}
}

// logAttrs lets handlers add fields (the user id, say) to the request's single log line.
type logAttrs struct {
	attrs []slog.Attr
}

func (l *logAttrs) add(a ...slog.Attr) {
	if l != nil {
		l.attrs = append(l.attrs, a...)
	}
}
