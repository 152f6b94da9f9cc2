package server

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"valuator/internal/account"
	"valuator/internal/apikey"
	"valuator/internal/apperr"
	"valuator/internal/ratelimit"
	"valuator/internal/text"
)

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) {
	p := userFrom(r.Context())
	keys, err := s.apiKeys.List(r.Context(), p.user.ID, p.user.Plan)
	s.answer(w, r, keys, err)
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) {
	var in apikey.CreateInput
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	p := userFrom(r.Context())
	key, err := s.apiKeys.Create(r.Context(), p.user.ID, p.user.Plan, in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, key)
}

func (s *Server) deleteAPIKey(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.writeError(w, r, apperr.Invalid("id", "The key id must be a positive whole number"))
		return
	}
	if err := s.apiKeys.Delete(r.Context(), userFrom(r.Context()).user.ID, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// keyPrincipal is the caller of a public API request.
type keyPrincipal struct {
	userID  int64
	keyID   int64
	keyName string
	plan    string
}

func keyFrom(ctx context.Context) keyPrincipal {
	p, _ := ctx.Value(ctxAPIKey).(keyPrincipal)
	return p
}

// anonymousLimit bounds public calls without a usable key, per client address, so that guessing keys is slow.
var anonymousLimit = ratelimit.PerMinute(60)

// apiKeyOf returns the key of a public request: the x-api-key header, or a Bearer token that looks like a key.
func apiKeyOf(r *http.Request) string {
	if k := strings.TrimSpace(r.Header.Get("x-api-key")); k != "" {
		return k
	}
	if t := bearerToken(r); strings.HasPrefix(t, apikey.Prefix) {
		return t
	}
	return ""
}

// requireAPIKey authenticates a public API call and spends one request of its key's per-minute budget. Every
// answer, refusals included, carries the rate-limit headers: of the key, or of the client address when there is no
// usable key.
func (s *Server) requireAPIKey(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		owner, err := s.apiKeys.Authenticate(r.Context(), apiKeyOf(r))
		if apperr.IsKind(err, apperr.KindUnauthorized) {
			// Refusals spend the client address's budget, so that guessing keys is slow.
			if !s.spend(w, r, "anon:"+s.clientIP(r), anonymousLimit) {
				return
			}
			s.writeError(w, r, err)
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !s.spendKey(w, r, owner) {
			return
		}
		if owner.Suspended {
			// Issue 27: a suspended account's keys stay valid but are refused with a clear 403 (after the budget,
			// so the answer carries the rate-limit headers every public answer does).
			s.writeError(w, r, account.Suspended(s.cfg.SupportEmail))
			return
		}
		s.touches.Touch(owner.KeyID, s.now())
		logAttrsFrom(r.Context()).add(slog.Int64("user_id", owner.UserID), slog.Int64("api_key_id", owner.KeyID))
		p := keyPrincipal{userID: owner.UserID, keyID: owner.KeyID, keyName: owner.KeyName, plan: owner.Plan}
		next(w, r.WithContext(context.WithValue(r.Context(), ctxAPIKey, p)))
	}
}

// spendKey takes one request from the key's budget and, on a plan with a cap, one from the account's budget
// shared by all its keys (apikey.AccountBudget), so that many keys do not buy more requests than the plan allows.
// The headers describe the budget that binds: the key's, or the account's when it has fewer requests left.
func (s *Server) spendKey(w http.ResponseWriter, r *http.Request, owner apikey.Owner) bool {
	keyRes, ok := s.allow(r, fmt.Sprintf("key:%d", owner.KeyID), ratelimit.PerMinute(apikey.Effective(owner.RateLimit, owner.Plan)))
	if !ok {
		return true
	}
	res, msg := keyRes, keyRefusal
	if budget := apikey.AccountBudget(owner.Plan); keyRes.Allowed && budget > 0 {
		if acct, ok := s.allow(r, fmt.Sprintf("account:%d", owner.UserID), ratelimit.PerMinute(budget)); ok &&
			(!acct.Allowed || acct.Remaining < keyRes.Remaining) {
			res, msg = acct, accountRefusal
		}
	}
	return s.answerBudget(w, r, res, msg)
}

// spendAccount takes one request of the dashboard's from the budget the account's API keys share (apikey.
// AccountBudget), so that a script driving the session cannot sweep faster than one driving the API (person lookups;
// the market statistics since issue 36, L-6); false when it answered 429.
func (s *Server) spendAccount(w http.ResponseWriter, r *http.Request, u account.User) bool {
	budget := apikey.AccountBudget(u.Plan)
	return budget <= 0 || s.spend(w, r, fmt.Sprintf("account:%d", u.ID), ratelimit.PerMinute(budget))
}

// spend takes one request from key's budget and sets the rate-limit headers; when the budget is spent it answers
// 429 with Retry-After and returns false.
func (s *Server) spend(w http.ResponseWriter, r *http.Request, key string, l ratelimit.Limit) bool {
	res, ok := s.allow(r, key, l)
	return !ok || s.answerBudget(w, r, res, keyRefusal)
}

// The 429 sentences: the first %s is the budget (requestsAMinute), the second the wait ("1 second", "12 seconds").
const (
	keyRefusal     = "Rate limit of %s exceeded. Retry in %s."
	accountRefusal = "Your account's keys together may make %s on your plan. Retry in %s."
)

// requestsAMinute is a per-minute budget in words, in the singular for 1 (issue 33): "1 request a minute",
// "60 requests a minute".
func requestsAMinute(n int) string {
	return text.Count(n, "request", "requests") + " a minute"
}

// allow asks the limiter; ok is false when the limiter failed. A failing limiter lets the request through (and
// logs): an outage of the limiter must not take the API down.
func (s *Server) allow(r *http.Request, key string, l ratelimit.Limit) (ratelimit.Result, bool) {
	res, err := s.apiLimiter.Allow(r.Context(), key, l)
	if err != nil {
		s.log.Error("rate limiter", "err", err)
		return res, false
	}
	return res, true
}

// answerBudget sets the rate-limit headers of res and, when it refused the request, answers 429 with Retry-After
// (msg, keyRefusal or accountRefusal, takes the budget and the wait in words) and returns false.
func (s *Server) answerBudget(w http.ResponseWriter, r *http.Request, res ratelimit.Result, msg string) bool {
	h := w.Header()
	h.Set("x-ratelimit-limit", strconv.Itoa(res.Limit))
	h.Set("x-ratelimit-remaining", strconv.Itoa(res.Remaining))
	h.Set("x-ratelimit-reset", strconv.Itoa(int(math.Ceil(res.ResetAfter.Seconds()))))
	if res.Allowed {
		return true
	}
	secs := int(math.Ceil(res.RetryAfter.Seconds()))
	wait := max(1, secs)
	s.writeError(w, r, apperr.RateLimited(fmt.Sprintf(msg, requestsAMinute(res.Limit), text.Count(wait, "second", "seconds")), secs))
	return false
}

// noHead refuses HEAD on a metered endpoint. net/http routes HEAD to a GET handler, which would value the property
// and charge a credit for an answer whose body is thrown away.
func noHead(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Allow", "GET")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		next(w, r)
	}
}
