package server

import "net/http"

// route is one endpoint: a method, a path pattern of net/http's ServeMux, and its handler.
type route struct {
	method  string
	pattern string
	handler http.HandlerFunc
}

// routeTable lists every route of the product in one place. Every entry is also described in api/openapi.yaml
// (a test checks this).
func (s *Server) routeTable() []route {
	return []route{
		// Probes.
		{"GET", "/healthz", s.healthz},
		{"GET", "/readyz", s.readyz},

		// The API contract, for the /docs viewer and API clients.
		{"GET", "/api/openapi.json", s.openapiJSON},

		// Accounts (spec product-and-account section 7).
		{"POST", "/api/auth/register", s.limitForm("register", registerLimit, s.register)},
		{"POST", "/api/auth/login", s.login},
		{"POST", "/api/auth/logout", s.logout},
		{"GET", "/api/auth/demo", s.demoAccount},
		{"GET", "/api/auth/user", s.requireUser(s.getProfile)},
		{"POST", "/api/auth/change-password", s.requireUser(s.changePassword)},
		{"POST", "/api/auth/request-password-reset", s.limitForm("reset", resetLimit, s.requestPasswordReset)},
		{"POST", "/api/auth/reset-password", s.limitForm("set-password", setPasswordLimit, s.resetPassword)},

		{"GET", "/api/user/profile", s.requireUser(s.getProfile)},
		{"PUT", "/api/user/profile", s.requireUser(s.updateProfile)},
		{"PUT", "/api/user/notifications", s.requireUser(s.updateNotifications)},
		{"DELETE", "/api/user", s.requireUser(s.closeAccount)},

		// Property valuations (working-screens section 7).
		{"POST", "/api/property/lookup", s.requireUser(s.lookupProperty)},
		{"POST", "/api/properties/download-report", s.requireUser(s.downloadReport)},
		// The example valuation the pages show, answered live (no sign-in, no charge; limited per address).
		{"GET", "/api/example", noHead(s.limitForm("example", exampleLimit, s.exampleValuation))},

		// Person lookup (working-screens Person Lookup), its audit log and the public opt-out.
		{"POST", "/api/find-person", s.requireUser(s.findPerson)},
		{"GET", "/api/person/audit", s.requireUser(s.personAuditLog)},
		{"GET", "/api/person/demo-resident", s.requireUser(s.personDemoResident)},
		{"POST", "/api/person/opt-out", s.limitForm("opt-out", contactLimit, s.personOptOut)},
		{"POST", "/api/person/opt-out/confirm", s.limitForm("opt-out-confirm", contactLimit, s.personOptOutConfirm)},

		// The public API (x-api-key) and its keys.
		{"GET", "/api/v1/property/valuation", noHead(s.requireAPIKey(s.publicValuation))},
		{"GET", "/api/v1/person", noHead(s.requireAPIKey(s.publicPerson))},
		// Market statistics (issue 28): 1 credit per ZIP code answered, as a valuation.
		{"GET", "/api/v1/markets", noHead(s.requireAPIKey(s.publicMarket))},
		{"GET", "/api/v1/markets/compare", noHead(s.requireAPIKey(s.publicMarketCompare))},
		{"GET", "/api/markets", noHead(s.requireUser(s.dashboardMarket))},
		{"GET", "/api/markets/compare", noHead(s.requireUser(s.dashboardMarketCompare))},
		{"GET", "/api/api-keys", s.requireUser(s.listAPIKeys)},
		{"POST", "/api/api-keys", s.requireUser(s.createAPIKey)},
		{"DELETE", "/api/api-keys/{id}", s.requireUser(s.deleteAPIKey)},

		// Portfolios (issue 40): the public API (x-api-key) and the dashboard's session twins.
		{"POST", "/api/v1/portfolios", s.requireAPIKey(s.withPortfolios(s.createPortfolio("POST /api/v1/portfolios")))},
		{"GET", "/api/v1/portfolios", noHead(s.requireAPIKey(s.withPortfolios(s.listPortfolios)))},
		{"GET", "/api/v1/portfolios/{id}", noHead(s.requireAPIKey(s.withPortfolios(s.getPortfolio)))},
		{"DELETE", "/api/v1/portfolios/{id}", s.requireAPIKey(s.withPortfolios(s.deletePortfolio))},
		{"PATCH", "/api/v1/portfolios/{id}", s.requireAPIKey(s.withPortfolios(s.updatePortfolio))},
		{"POST", "/api/v1/portfolios/{id}/properties", s.requireAPIKey(s.withPortfolios(s.addPortfolioHomes("POST /api/v1/portfolios/{id}/properties")))},
		{"DELETE", "/api/v1/portfolios/{id}/properties", s.requireAPIKey(s.withPortfolios(s.removePortfolioHomes))},
		{"GET", "/api/v1/portfolios/{id}/alerts", noHead(s.requireAPIKey(s.withPortfolios(s.listPortfolioAlerts)))},
		{"POST", "/api/portfolios", s.requireUser(s.withPortfolios(s.createPortfolio("POST /api/portfolios")))},
		{"GET", "/api/portfolios", s.requireUser(s.withPortfolios(s.listPortfolios))},
		{"GET", "/api/portfolios/{id}", s.requireUser(s.withPortfolios(s.getPortfolio))},
		{"DELETE", "/api/portfolios/{id}", s.requireUser(s.withPortfolios(s.deletePortfolio))},
		{"PATCH", "/api/portfolios/{id}", s.requireUser(s.withPortfolios(s.updatePortfolio))},
		{"POST", "/api/portfolios/{id}/properties", s.requireUser(s.withPortfolios(s.addPortfolioHomes("POST /api/portfolios/{id}/properties")))},
		{"DELETE", "/api/portfolios/{id}/properties", s.requireUser(s.withPortfolios(s.removePortfolioHomes))},
		{"GET", "/api/portfolios/{id}/alerts", s.requireUser(s.withPortfolios(s.listPortfolioAlerts))},

		// Usage history and statistics.
		{"GET", "/api/usage/history", s.requireUser(s.usageHistory)},
		{"GET", "/api/usage/stats", s.requireUser(s.usageStats)},

		// Batch valuation (working-screens Batch Upload; public batch endpoints in section 7).
		{"POST", "/api/jobs/preview", s.requireUser(s.previewBatchFile)},
		{"GET", "/api/jobs", s.requireUser(s.listJobs)},
		{"POST", "/api/jobs", s.requireUser(s.createJob)},
		{"GET", "/api/jobs/{id}", s.requireUser(s.getJob)},
		{"GET", "/api/jobs/{id}/results", s.requireUser(s.jobResults)},
		{"GET", "/api/jobs/{id}/download", s.requireUser(s.downloadJob)},
		{"POST", "/api/jobs/{id}/cancel", s.requireUser(s.cancelJob)},
		{"POST", "/api/jobs/{id}/retry", s.requireUser(s.retryJob)},
		{"GET", "/api/batch/example.csv", s.batchExample},
		{"POST", "/api/batch/upload", s.requireAPIKey(s.publicBatchUpload)},
		{"GET", "/api/batch/status/{jobId}", s.requireAPIKey(s.publicBatchStatus)},
		{"GET", "/api/batch/download/{jobId}", s.requireAPIKey(s.publicBatchDownload)},

		// Billing (working-screens Billing & Credits; DESIGN.md section 5).
		{"GET", "/api/billing/config", s.requireUser(s.billingConfig)},
		{"GET", "/api/billing/subscription", s.requireUser(s.getSubscription)},
		{"GET", "/api/billing/metered-usage", s.requireUser(s.meteredUsage)},
		{"GET", "/api/billing/credits/history", s.requireUser(s.creditHistory)},
		{"GET", "/api/billing/payments", s.requireUser(s.listPayments)},
		{"GET", "/api/billing/payments/{id}/receipt", s.requireUser(s.paymentReceipt)},
		{"POST", "/api/billing/payments/{id}/cancel", s.requireUser(s.withdrawPayment)},
		{"POST", "/api/billing/payment-method", s.requireUser(s.updatePaymentMethod)},
		{"GET", "/api/billing/proration", s.requireUser(s.prorationPreview)},
		{"POST", "/api/billing/subscribe", s.requireUser(s.subscribe)},
		{"POST", "/api/billing/change-plan", s.requireUser(s.changePlan)},
		{"POST", "/api/billing/cancel", s.requireUser(s.cancelSubscription)},
		{"POST", "/api/billing/webhook", s.stripeWebhook},
		{"POST", "/api/billing/test-mode/payment-methods", s.requireUser(s.createTestPaymentMethod)},
		{"POST", "/api/billing/test-mode/confirm", s.requireUser(s.confirmTestPayment)},
		{"GET", "/api/user/overage-limit", s.requireUser(s.getOverageLimit)},
		{"PUT", "/api/user/overage-limit", s.requireUser(s.setOverageLimit)},

		// Contact form (no sign-in needed), the site's public facts, and unsubscribe links from emails.
		{"POST", "/api/contact", s.limitForm("contact", contactLimit, s.sendContact)},
		{"GET", "/api/site", s.site},
		// The client packages this server hosts and how to install them (issue 37; the protocols are sdkRoutes).
		{"GET", "/api/sdks", s.sdkCatalog},
		{"POST", "/api/unsubscribe", s.limitForm("unsubscribe", unsubscribeLimit, s.unsubscribe)},
		{"GET", "/api/unsubscribe", s.unsubscribeLink},

		// The dashboard's support chat (issue 27).
		{"GET", "/api/support", s.requireUser(s.supportPanel)},
		{"POST", "/api/support/messages", s.requireUser(s.supportPost)},
		{"GET", "/api/support/messages", s.requireUser(s.supportPoll)},

		// The operators' console (issue 27): every /api/admin/ route is requireAdmin's (TestAdminRoutesRefuseOthers).
		{"GET", "/api/admin/accounts", s.requireAdmin(s.adminAccounts)},
		{"GET", "/api/admin/accounts/{id}", s.requireAdmin(s.adminAccount)},
		{"POST", "/api/admin/accounts/{id}/credits", s.requireAdmin(s.adminCredits)},
		{"POST", "/api/admin/accounts/{id}/payments/{paymentId}/refund", s.requireAdmin(s.adminRefund)},
		{"POST", "/api/admin/accounts/{id}/suspend", s.requireAdmin(s.adminStatus(s.admin.Suspend))},
		{"POST", "/api/admin/accounts/{id}/reinstate", s.requireAdmin(s.adminStatus(s.admin.Reinstate))},
		{"POST", "/api/admin/accounts/{id}/close", s.requireAdmin(s.adminStatus(s.admin.Close))},
		{"GET", "/api/admin/audit", s.requireAdmin(s.adminAudit)},
		{"GET", "/api/admin/person-audits", s.requireAdmin(s.adminPersonAudits)},
		{"GET", "/api/admin/opt-outs", s.requireAdmin(s.adminOptOuts)},
		{"GET", "/api/admin/overview", s.requireAdmin(s.adminOverview)},
		{"GET", "/api/admin/support", s.requireAdmin(s.adminInbox)},
		{"GET", "/api/admin/support/conversations/{id}", s.requireAdmin(s.adminConversation)},
		{"POST", "/api/admin/support/conversations/{id}/reply", s.requireAdmin(s.adminReply)},
		{"POST", "/api/admin/support/conversations/{id}/assign", s.requireAdmin(s.adminAssign)},
		{"POST", "/api/admin/support/conversations/{id}/close", s.requireAdmin(s.adminCloseConversation)},
		{"GET", "/api/admin/support/contact/{id}", s.requireAdmin(s.adminContact)},
		{"POST", "/api/admin/support/contact/{id}/close", s.requireAdmin(s.adminCloseContact)},
	}
	// Every other GET is the single-page app (see dispatch).
}

// siteRoutes are the files for crawlers, which are not part of the API contract. The app's pages, their aliases
// and the not-found answer are the single-page app's (spa.go).
func (s *Server) siteRoutes() []route {
	return []route{
		{"GET", "/robots.txt", s.robotsTxt},
		{"GET", "/sitemap.xml", s.sitemapXML},
	}
}

func (s *Server) routes() {
	for _, rt := range append(append(append(s.routeTable(), s.siteRoutes()...), s.sdkRoutes()...), s.devRoutes()...) {
		s.mux.HandleFunc(rt.method+" "+rt.pattern, rt.handler)
	}
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	// First: a draining instance is leaving the pool whatever the state of its database and engine.
	if s.answerDraining(w, r) {
		return
	}
	if err := s.db.Ping(r.Context()); err != nil {
		s.log.Warn("readiness check failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "Database unreachable", Code: "unavailable",
			RequestID: requestIDFrom(r.Context())})
		return
	}
	// Not ready to take traffic until the valuation engine has loaded the market.
	if !s.valuation.Ready() {
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "Valuation engine: " + s.valuation.Status(),
			Code: "engine_loading", RequestID: requestIDFrom(r.Context())})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (s *Server) openapiJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(s.openAPI)
}
