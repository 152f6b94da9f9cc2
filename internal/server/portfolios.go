package server

import (
	"encoding/json"
	"net/http"
	"time"

	"valuator/internal/apperr"
	"valuator/internal/batch"
	"valuator/internal/portfolio"
	"valuator/internal/usage"
	"valuator/internal/valuation"
)

// Portfolios (issue 40): each route is served twice, under /api/v1 with an API key and under /api for the
// dashboard's session; the handlers below take the caller (portfolioCaller) and are otherwise one.

// portfolioCaller is who calls a portfolio route: the account, and the usage call a charge is recorded as.
func portfolioCaller(r *http.Request, endpoint string) usage.Call {
	if p := keyFrom(r.Context()); p.userID != 0 {
		return callOf(r, p.userID, p.keyID, p.keyName, endpoint, time.Now())
	}
	return callOf(r, userFrom(r.Context()).user.ID, 0, "", endpoint, time.Now())
}

// errPortfoliosOff answers when the server was built without portfolios.
var errPortfoliosOff = &apperr.Error{Kind: apperr.KindUnavailable, Code: "portfolios_unavailable",
	Message: "Portfolios are not available on this server"}

// withPortfolios answers 503 on a server built without portfolios, so that each route's handler may use them.
func (s *Server) withPortfolios(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.portfolios == nil {
			s.writeError(w, r, errPortfoliosOff)
			return
		}
		next(w, r)
	}
}

type portfolioRequest struct {
	Name           string                `json:"name"`
	AlertThreshold *float64              `json:"alertThreshold"`
	WebhookURL     *string               `json:"webhookUrl"`
	Properties     []portfolio.HomeInput `json:"properties"`
	// UploadID and Mapping make the homes from a spreadsheet instead: a preview the dashboard's batch upload made
	// (POST /api/jobs/preview) and its confirmed column mapping (the detected one when absent).
	UploadID *int64        `json:"uploadId"`
	Mapping  batch.Mapping `json:"mapping"`
}

type homesRequest struct {
	Properties []portfolio.HomeInput `json:"properties"`
}

type removeRequest struct {
	HomeIDs []int64 `json:"homeIds"`
}

func (s *Server) createPortfolio(endpoint string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in portfolioRequest
		if err := decodeJSON(w, r, &in); err != nil {
			s.writeError(w, r, err)
			return
		}
		set := portfolio.Settings{Name: in.Name, AlertThreshold: in.AlertThreshold}
		if in.WebhookURL != nil {
			set.WebhookURL = *in.WebhookURL
		}
		homes, lines := in.Properties, []int(nil)
		if in.UploadID != nil {
			var err error
			if homes, lines, err = s.sheetHomes(r, in); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		call := portfolioCaller(r, endpoint)
		p, rows, err := s.portfolios.Create(r.Context(), call, set, homes)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		view := portfolioView(p)
		view["results"] = rowViews(rows, lines)
		writeJSON(w, http.StatusCreated, view)
	}
}

// sheetHomes reads the homes of a portfolio from a preview's stored table through the batch reader and the mapping;
// lines are the file's line of each home.
func (s *Server) sheetHomes(r *http.Request, in portfolioRequest) (homes []portfolio.HomeInput, lines []int, err error) {
	if len(in.Properties) > 0 {
		return nil, nil, apperr.Invalid("uploadId", "Send the homes either in properties or as a spreadsheet's uploadId, not both")
	}
	if *in.UploadID < 1 {
		return nil, nil, apperr.Invalid("uploadId", "uploadId must be the positive id a preview answered")
	}
	_, _, stored, err := s.batches.Upload(r.Context(), portfolioCaller(r, "").UserID, *in.UploadID)
	if err != nil {
		return nil, nil, err
	}
	// Decoding takes memory in proportion to the table: it takes a read slot, as a batch job's does.
	release, err := s.enterRead(r)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	tbl, err := batch.DecodeTable(stored)
	if err != nil {
		return nil, nil, err
	}
	mapping := in.Mapping
	if mapping == nil {
		mapping, _ = batch.Detect(tbl)
	}
	return portfolio.FromSheet(tbl, mapping)
}

func (s *Server) listPortfolios(w http.ResponseWriter, r *http.Request) {
	page, limit, err := pageParams(r, 50)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, total, err := s.portfolios.List(r.Context(), portfolioCaller(r, "").UserID, (page-1)*limit, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]map[string]any, len(list))
	for i, p := range list {
		out[i] = portfolioView(p)
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": paginationOf(page, limit, total)})
}

func (s *Server) getPortfolio(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(r, 100)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, homes, total, totals, series, err := s.portfolios.Get(r.Context(), portfolioCaller(r, "").UserID, id,
		(page-1)*limit, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	view := portfolioView(p)
	hv := make([]map[string]any, len(homes))
	for i, h := range homes {
		hv[i] = homeView(h)
	}
	months := make([]map[string]any, len(series))
	for i, m := range series {
		months[i] = map[string]any{"month": m.Month, "value": m.Value, "homes": m.Homes}
	}
	view["homes"] = hv
	view["pagination"] = paginationOf(page, limit, total)
	view["totals"] = map[string]any{"value": totals.Value, "low": totals.Low, "high": totals.High,
		"changeSinceLastMonth": totals.ChangeSinceLastMonth, "changeSinceAdded": totals.ChangeSinceAdded,
		"valuedHomes": totals.ValuedHomes}
	view["history"] = months
	writeJSON(w, http.StatusOK, view)
}

// listPortfolioAlerts is a page of the alerts a portfolio sent, newest month first, each as its email and webhook
// carried it (portfolio.Alert): the month, when it was decided, the threshold then, and the homes that moved past it.
func (s *Server) listPortfolioAlerts(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(r, 12)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	list, total, err := s.portfolios.Alerts(r.Context(), portfolioCaller(r, "").UserID, id, (page-1)*limit, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		homes := make([]map[string]any, len(a.Homes))
		for j, m := range a.Homes {
			homes[j] = map[string]any{"homeId": m.HomeID, "formattedAddress": m.FormattedAddress,
				"previousMonth": m.PreviousMonth, "previousValue": m.PreviousValue, "value": m.Value,
				"changePercent": m.ChangePercent}
		}
		out[i] = map[string]any{"month": a.Month, "createdAt": a.CreatedAt, "threshold": a.Threshold, "homes": homes}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "pagination": paginationOf(page, limit, total)})
}

func (s *Server) addPortfolioHomes(endpoint string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := jobID(r, "id")
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var in homesRequest
		if err := decodeJSON(w, r, &in); err != nil {
			s.writeError(w, r, err)
			return
		}
		rows, err := s.portfolios.Add(r.Context(), portfolioCaller(r, endpoint), id, in.Properties)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": rowViews(rows, nil)})
	}
}

func (s *Server) removePortfolioHomes(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in removeRequest
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	n, err := s.portfolios.Remove(r.Context(), portfolioCaller(r, "").UserID, id, in.HomeIDs)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"removed": n})
}

// portfolioPatch is a PATCH's body: an absent field is left as it is; alertThreshold null turns alerts off and
// webhookUrl null (or "") removes the webhook, so both are read raw to tell null from absent.
type portfolioPatch struct {
	Name           *string         `json:"name"`
	AlertThreshold json.RawMessage `json:"alertThreshold"`
	WebhookURL     json.RawMessage `json:"webhookUrl"`
}

func (in portfolioPatch) patch() (portfolio.Patch, error) {
	p := portfolio.Patch{Name: in.Name}
	if isNull(in.AlertThreshold) {
		p.ClearThreshold = len(in.AlertThreshold) > 0
	} else if err := json.Unmarshal(in.AlertThreshold, &p.AlertThreshold); err != nil {
		return p, apperr.Invalid("alertThreshold", "alertThreshold must be a number (a percentage) or null")
	}
	if isNull(in.WebhookURL) {
		if len(in.WebhookURL) > 0 {
			p.WebhookURL = new(string)
		}
	} else if err := json.Unmarshal(in.WebhookURL, &p.WebhookURL); err != nil {
		return p, apperr.Invalid("webhookUrl", "webhookUrl must be a URL or null")
	}
	return p, nil
}

// isNull: the field was absent (empty) or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

func (s *Server) updatePortfolio(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in portfolioPatch
	if err := decodeJSON(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	patch, err := in.patch()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.portfolios.Update(r.Context(), portfolioCaller(r, "").UserID, id, patch)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, portfolioView(p))
}

func (s *Server) deletePortfolio(w http.ResponseWriter, r *http.Request) {
	id, err := jobID(r, "id")
	if err == nil {
		err = s.portfolios.Delete(r.Context(), portfolioCaller(r, "").UserID, id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// portfolioView is a portfolio as its owner sees it (api/openapi.yaml Portfolio). The webhook's signing secret is
// the owner's to see, as a batch job's is.
func portfolioView(p portfolio.Portfolio) map[string]any {
	v := map[string]any{"id": p.ID, "name": p.Name, "status": p.Status, "pausedReason": optString(p.PausedReason),
		"pausedAt": p.PausedAt, "alertThreshold": p.AlertThreshold, "webhookUrl": optString(p.WebhookURL),
		"homeCount": p.HomeCount, "createdAt": p.CreatedAt}
	if p.WebhookSecret != "" {
		v["webhookSecret"] = p.WebhookSecret
	}
	return v
}

func changeView(c *portfolio.Change) any {
	if c == nil {
		return nil
	}
	return map[string]any{"amount": c.Amount, "percent": c.Percent}
}

func homeView(h portfolio.HomeView) map[string]any {
	v := map[string]any{"id": h.ID, "formattedAddress": h.FormattedAddress, "address": h.Address,
		"unit": optString(h.Unit), "city": h.City, "state": h.State, "zip": h.ZIP, "addedAt": h.AddedAt,
		"latest": nil, "changeSinceLastMonth": changeView(h.ChangeSinceLastMonth),
		"changeSinceAdded": changeView(h.ChangeSinceAdded)}
	if l := h.Latest; l != nil {
		v["latest"] = map[string]any{"month": l.Month, "value": l.Value, "low": l.Low, "high": l.High,
			"confidence": l.Confidence, "confidenceLevel": valuation.ConfidenceLevel(l.Confidence), "fsd": l.FSD}
	}
	return v
}

// rowViews are the results of a request's homes; lines, when the homes came from a spreadsheet, are the file's
// line of each (by index).
func rowViews(rows []portfolio.RowResult, lines []int) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		v := map[string]any{"index": r.Index, "status": r.Status}
		if r.Index < len(lines) {
			v["line"] = lines[r.Index]
		}
		if r.Status == portfolio.RowAdded {
			v["homeId"], v["formattedAddress"], v["value"], v["creditsUsed"] = r.HomeID, r.FormattedAddress, r.Value, portfolio.HomeCost
		} else {
			v["code"], v["error"], v["creditsUsed"] = r.Code, r.Error, 0
			if r.Field != "" {
				v["field"] = r.Field
			}
		}
		out[i] = v
	}
	return out
}
