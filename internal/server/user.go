package server

import (
	"net/http"

	"valuator/internal/account"
	"valuator/internal/apperr"
	"valuator/internal/contact"
)

func (s *Server) updateProfile(w http.ResponseWriter, r *http.Request) {
	var in account.ProfileInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.accounts.UpdateProfile(r.Context(), userFrom(r.Context()).user.ID, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) updateNotifications(w http.ResponseWriter, r *http.Request) {
	// Pointers tell a missing preference from false: the call replaces all four, so each must be given.
	var in struct {
		EmailNotifications *bool `json:"emailNotifications"`
		UsageAlerts        *bool `json:"usageAlerts"`
		WeeklyReports      *bool `json:"weeklyReports"`
		MarketingEmails    *bool `json:"marketingEmails"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	var v apperr.Validation
	for _, f := range []struct {
		name string
		val  *bool
	}{{"emailNotifications", in.EmailNotifications}, {"usageAlerts", in.UsageAlerts},
		{"weeklyReports", in.WeeklyReports}, {"marketingEmails", in.MarketingEmails}} {
		v.Check(f.val != nil, f.name, f.name+" is required (true or false)")
	}
	if err := v.Err(); err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.accounts.UpdateNotifications(r.Context(), userFrom(r.Context()).user.ID, account.Notifications{
		EmailNotifications: *in.EmailNotifications, UsageAlerts: *in.UsageAlerts,
		WeeklyReports: *in.WeeklyReports, MarketingEmails: *in.MarketingEmails,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) closeAccount(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.accounts.CloseAccount(r.Context(), userFrom(r.Context()).user.ID, in.Password); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) sendContact(w http.ResponseWriter, r *http.Request) {
	var in contact.Input
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	// A signed-in sender is linked to their account (and their plan's support); the form works signed out too.
	var userID int64
	var plan string
	if u, _, err := s.accounts.Authenticate(r.Context(), bearerToken(r)); err == nil {
		userID, plan = u.ID, u.Plan
	}
	id, err := s.contact.Send(r.Context(), in, userID, plan, s.clientIP(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "message": contact.Acknowledgement})
}
