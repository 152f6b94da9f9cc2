package server

import (
	"net/http"

	"valuator/internal/usage"
)

func (s *Server) usageHistory(w http.ResponseWriter, r *http.Request) {
	f, err := usage.ParseFilter(r.URL.Query().Get)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	entries, total, err := s.usage.History(r.Context(), userFrom(r.Context()).user.ID, f)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": entries, "pagination": usage.Paginate(f.Page, f.Limit, total)})
}

func (s *Server) usageStats(w http.ResponseWriter, r *http.Request) {
	days, err := usage.ParseDays(r.URL.Query().Get("days"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.usage.Stats(r.Context(), userFrom(r.Context()).user.ID, days)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
