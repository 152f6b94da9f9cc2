package server

// The operators' console (issue 27): every /api/admin/ route is wrapped in requireAdmin, which answers 401 without a
// session and 403 to a signed-in customer. The handlers decode, call internal/admin or internal/support, and
// encode the answer as {"success": true, "data": ...} (lists add "pagination"), the shape api/openapi.yaml gives the
// console's routes (tag Admin).

import (
	"context"
	"net/http"
	"strconv"

	"valuator/internal/account"
	"valuator/internal/admin"
	"valuator/internal/apperr"
)

// requireAdmin lets only a signed-in operator through.
func (s *Server) requireAdmin(next http.HandlerFunc) http.HandlerFunc {
	return s.requireUser(func(w http.ResponseWriter, r *http.Request) {
		if err := admin.RequireAdmin(userFrom(r.Context()).user); err != nil {
			s.writeError(w, r, err)
			return
		}
		next(w, r)
	})
}

// envelope is the console's success shape.
type envelope struct {
	Success    bool              `json:"success"`
	Data       any               `json:"data"`
	Pagination *admin.Pagination `json:"pagination,omitempty"`
}

// ok answers v in the console's shape, or err.
func (s *Server) ok(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: v})
}

// okPage answers a page of a list in the console's shape, or err.
func (s *Server) okPage(w http.ResponseWriter, r *http.Request, v any, p admin.Pagination, err error) {
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: v, Pagination: &p})
}

// page reads ?page= and ?limit=.
func page(r *http.Request) (admin.Page, error) {
	return admin.ParsePage(r.URL.Query().Get("page"), r.URL.Query().Get("limit"))
}

// pathID reads a positive id of the path.
func pathID(r *http.Request, name string) (int64, error) {
	return admin.ParseID(name, r.PathValue(name))
}

func (s *Server) adminAccounts(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, pg, err := s.admin.Accounts(r.Context(), r.URL.Query().Get("q"), p)
	s.okPage(w, r, rows, pg, err)
}

func (s *Server) adminAccount(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	d, err := s.admin.Account(r.Context(), id)
	s.ok(w, r, d, err)
}

func (s *Server) adminCredits(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in admin.CreditInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.admin.AdjustCredits(r.Context(), userFrom(r.Context()).user, id, in)
	s.ok(w, r, res, err)
}

func (s *Server) adminRefund(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	paymentID, err := pathID(r, "paymentId")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in admin.ReasonInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.admin.Refund(r.Context(), userFrom(r.Context()).user, id, paymentID, in)
	s.ok(w, r, res, err)
}

// adminStatus is suspend, reinstate or close: do is the service's method.
func (s *Server) adminStatus(do func(ctx context.Context, u account.User, id int64, in admin.ReasonInput) (admin.Account, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := pathID(r, "id")
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var in admin.ReasonInput
		if err := decodeJSON(w, r, &in); err != nil {
			s.writeError(w, r, err)
			return
		}
		acct, err := do(r.Context(), userFrom(r.Context()).user, id, in)
		s.ok(w, r, acct, err)
	}
}

func (s *Server) adminAudit(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var accountID int64
	if v := r.URL.Query().Get("accountId"); v != "" {
		if accountID, err = admin.ParseID("accountId", v); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	rows, pg, err := s.admin.Audit(r.Context(), accountID, p)
	s.okPage(w, r, rows, pg, err)
}

func (s *Server) adminPersonAudits(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	f, err := admin.ParsePersonAuditFilter(r.URL.Query().Get)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, pg, err := s.admin.PersonAudits(r.Context(), f, p)
	s.okPage(w, r, rows, pg, err)
}

func (s *Server) adminOptOuts(w http.ResponseWriter, r *http.Request) {
	p, err := page(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	rows, pg, err := s.admin.OptOuts(r.Context(), p)
	s.okPage(w, r, rows, pg, err)
}

func (s *Server) adminOverview(w http.ResponseWriter, r *http.Request) {
	days := 30
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > admin.MaxOverview {
			s.writeError(w, r, apperr.Invalid("days", "days must be a whole number from 1 to 365"))
			return
		}
		days = n
	}
	o, err := s.admin.Overview(r.Context(), days)
	s.ok(w, r, o, err)
}
