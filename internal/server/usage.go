package server

import (
	"net/http"
	"time"

	"valuator/internal/usage"
)

func (s *Server) usageHistory(w http.ResponseWriter, r *http.Request) {
	f, err := usage.ParseFilter(r.URL.Query().Get)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	entries, total, err := s.store.UsageHistory(r.Context(), userFrom(r.Context()).user.ID, f)
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
	now := s.now().UTC()
	from, to := usage.Window(now, days)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	st, err := s.store.UsageStats(r.Context(), userFrom(r.Context()).user.ID, from, to, month, month.AddDate(0, -1, 0))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st.Days = days
	writeJSON(w, http.StatusOK, st)
}
