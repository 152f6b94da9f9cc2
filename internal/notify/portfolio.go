package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"valuator/internal/mail"
)

// The emails of portfolios (issue 40): a portfolio paused because its account could not pay for the month's
// revaluation, and the alert of the homes whose value moved past the portfolio's threshold. Both are governed by
// "Email notifications" (TopicAccount), as batch results are, and each is queued once by its key.

// Kinds of the portfolio emails.
const (
	KindPortfolioPaused = "portfolio_paused"
	KindPortfolioAlert  = "portfolio_alert"
)

// PortfolioPaused is a portfolio paused for lack of credits.
type PortfolioPaused struct {
	PortfolioID int64     `json:"portfolioId"`
	Name        string    `json:"name"`
	Month       string    `json:"month"`
	NotValued   int       `json:"notValued"` // homes not yet revalued this month
	At          time.Time `json:"at"`
}

// NewPortfolioPaused is the notice of a paused portfolio: once per portfolio and month.
func NewPortfolioPaused(userID int64, p PortfolioPaused) Mail {
	return newMail(KindPortfolioPaused, fmt.Sprintf("portfolio_paused:%d:%s", p.PortfolioID, p.Month), userID,
		TopicAccount, p.At, p)
}

// PortfolioAlert is a portfolio's alert of a month (the payload of portfolio.Alert).
type PortfolioAlert struct {
	PortfolioID   int64   `json:"portfolioId"`
	PortfolioName string  `json:"portfolioName"`
	Month         string  `json:"month"`
	Threshold     float64 `json:"threshold"`
	Homes         []struct {
		FormattedAddress string  `json:"formattedAddress"`
		PreviousMonth    string  `json:"previousMonth"`
		PreviousValue    int64   `json:"previousValue"`
		Value            int64   `json:"value"`
		ChangePercent    float64 `json:"changePercent"`
	} `json:"homes"`
}

// NewPortfolioAlert is the email of stored alert alertID (payload: its JSON): one per alert.
func NewPortfolioAlert(userID, alertID int64, payload []byte, at time.Time) Mail {
	return Mail{Kind: KindPortfolioAlert, Key: fmt.Sprintf("portfolio_alert:%d", alertID), UserID: userID,
		Topic: TopicAccount, Payload: payload, CreatedAt: at}
}

// renderPortfolio writes the portfolio emails; false for another kind.
func renderPortfolio(q Queued, name string, l Links, msg *mail.Message, b *strings.Builder) (bool, error) {
	switch q.Kind {
	case KindPortfolioPaused:
		var p PortfolioPaused
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return true, err
		}
		msg.Subject = fmt.Sprintf("Portfolio %q paused: out of credits", p.Name)
		fmt.Fprintf(b, "Hello %s,\n\nYour portfolio %q was paused during the %s revaluation because your credits ran out.\n",
			name, p.Name, p.Month)
		fmt.Fprintf(b, "%s not revalued yet this month (1 credit each).\n\n", count(p.NotValued)+" "+plural(int64(p.NotValued), "property is", "properties are"))
		b.WriteString("It resumes by itself within an hour of credits being added: upgrade your plan or raise your overage limit on the Billing page, or wait for your next period's credits.\n\n")
		fmt.Fprintf(b, "Billing: %s\nThe portfolio: %s\n", l.URL("/billing"), l.URL(fmt.Sprintf("/portfolios/%d", p.PortfolioID)))
	case KindPortfolioAlert:
		var p PortfolioAlert
		if err := json.Unmarshal(q.Payload, &p); err != nil {
			return true, err
		}
		msg.Subject = fmt.Sprintf("Portfolio %q: %s moved more than %g%% in %s", p.PortfolioName,
			count(len(p.Homes))+" "+plural(int64(len(p.Homes)), "home", "homes"), p.Threshold, p.Month)
		fmt.Fprintf(b, "Hello %s,\n\nIn the %s revaluation of your portfolio %q, these homes moved by more than your %g%% alert threshold:\n\n",
			name, p.Month, p.PortfolioName, p.Threshold)
		for _, h := range p.Homes {
			fmt.Fprintf(b, "  %s\n    $%s (%s) -> $%s: %+.2f%%\n", h.FormattedAddress, count64(h.PreviousValue), h.PreviousMonth,
				count64(h.Value), h.ChangePercent)
		}
		fmt.Fprintf(b, "\nThe portfolio: %s\n", l.URL(fmt.Sprintf("/portfolios/%d", p.PortfolioID)))
	default:
		return false, nil
	}
	return true, nil
}
