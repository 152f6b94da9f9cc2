package billing

import (
	"bytes"
	"html/template"
	"time"
)

// receiptPage is a printable receipt: one self-contained HTML page with no external resources.
var receiptPage = template.Must(template.New("receipt").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Valuator receipt #{{.Number}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:640px;margin:40px auto;color:#111}table{width:100%;border-collapse:collapse}
td,th{padding:8px;border-bottom:1px solid #ddd;text-align:left}.r{text-align:right}.muted{color:#666}</style></head>
<body><h1>Receipt #{{.Number}}</h1>
<p class="muted">Valuator · {{.Mode}}</p>
<p>Billed to: {{.Name}} &lt;{{.Email}}&gt;<br>Date: {{.Date}}<br>Status: {{.Status}}</p>
<table><tr><th>Description</th><th class="r">Amount</th></tr>
<tr><td>{{.Description}}{{if .Period}}<br><span class="muted">Period: {{.Period}}</span>{{end}}</td><td class="r">{{.Amount}}</td></tr>
<tr><th>Total (USD)</th><th class="r">{{.Amount}}</th></tr></table>
{{if .Failure}}<p>Payment failed: {{.Failure}}</p>{{end}}
{{if .Test}}<p class="muted">Test mode: no money moved.</p>{{end}}
</body></html>
`))

// Receipt is a payment's receipt as a printable HTML page.
func Receipt(p PaymentRecord, name, email string) []byte {
	period := ""
	if !p.Period.Start.IsZero() {
		period = p.Period.Start.Format("Jan 2, 2006") + " – " + p.Period.End.Format("Jan 2, 2006")
	}
	mode := "Paid through Stripe"
	if p.Provider == ModeTest {
		mode = "Test mode"
	}
	var b bytes.Buffer
	_ = receiptPage.Execute(&b, map[string]any{
		"Number": p.ID, "Name": name, "Email": email, "Date": p.CreatedAt.UTC().Format(time.RFC1123),
		"Status": p.Status, "Description": p.Description, "Period": period, "Amount": Dollars(p.AmountCents),
		"Failure": p.FailureMessage, "Mode": mode, "Test": p.Provider == ModeTest,
	})
	return b.Bytes()
}
