package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"valuator/internal/account"
	"valuator/internal/apperr"
	"valuator/internal/ratelimit"
)

// Limits on unauthenticated forms per client address: generous for people, tight for scripts.
var (
	registerLimit = ratelimit.Per(50, time.Hour)
	resetLimit    = ratelimit.Per(30, time.Hour)
	contactLimit  = ratelimit.Per(10, 10*time.Minute)
	// setPasswordLimit bounds new passwords set with a reset link: a person uses one link, maybe retrying a few
	// times; a script trying tokens (each a store read) or new passwords (each an argon2id hash) is cut short.
	setPasswordLimit = ratelimit.Per(30, time.Hour)
)

// limitForm rejects a form posted too often from one client address with 429 and Retry-After.
func (s *Server) limitForm(name string, l ratelimit.Limit, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := s.formLimiter.Allow(r.Context(), "form:"+name+":"+s.clientIP(r), l)
		if err != nil {
			// A broken limiter must not lock people out; log and let the request through.
			s.log.Error("form rate limiter", "err", err)
		} else if !res.Allowed {
			secs := int((res.RetryAfter + time.Second - 1) / time.Second)
			s.writeError(w, r, apperr.RateLimited(
				fmt.Sprintf("Too many requests from your network. Try again in %d seconds.", secs), secs))
			return
		}
		next(w, r)
	}
}

type principal struct {
	user    account.User
	session account.Session
}

func userFrom(ctx context.Context) principal {
	p, _ := ctx.Value(ctxUser).(principal)
	return p
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header.
func bearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// requireUser lets the request through only with a live session, and hands the user to the handler.
func (s *Server) requireUser(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, sess, err := s.accounts.Authenticate(r.Context(), bearerToken(r))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		logAttrsFrom(r.Context()).add(slog.Int64("user_id", u.ID))
		next(w, r.WithContext(context.WithValue(r.Context(), ctxUser, principal{user: u, session: sess})))
	}
}

func (s *Server) client(r *http.Request) account.Client {
	return account.Client{IP: s.clientIP(r), UserAgent: r.UserAgent()}
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var in account.RegisterInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	auth, err := s.accounts.Register(r.Context(), in, s.client(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	logAttrsFrom(r.Context()).add(slog.Int64("user_id", auth.User.ID))
	writeJSON(w, http.StatusCreated, auth)
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var in account.LoginInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	auth, err := s.accounts.Login(r.Context(), in, s.client(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	logAttrsFrom(r.Context()).add(slog.Int64("user_id", auth.User.ID))
	writeJSON(w, http.StatusOK, auth)
}

// demoAccount gives the sign-in page the demo account's email and password, so that it can offer "Use the demo
// account". Only a development server that has the demo account answers; production never does, whatever it was
// given, since a password in a public answer is only acceptable for the demo's published one. Having none is the
// normal case, not an error: 204, so every sign-in page elsewhere does not log a failed request in the browser.
func (s *Server) demoAccount(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.Dev() || s.demo == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, s.demo)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.accounts.Logout(r.Context(), bearerToken(r)); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) getProfile(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, userFrom(r.Context()).user)
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	var in account.ChangePasswordInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	p := userFrom(r.Context())
	if err := s.accounts.ChangePassword(r.Context(), p.user.ID, p.session.ID, in); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": "Password updated. Other sessions were signed out."})
}

func (s *Server) requestPasswordReset(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.accounts.RequestPasswordReset(r.Context(), in.Email)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) resetPassword(w http.ResponseWriter, r *http.Request) {
	var in account.ResetPasswordInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.accounts.ResetPassword(r.Context(), in); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": "Your password has been updated. You can now sign in with your new password."})
}
