package jobs

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestSignIsHMACOfTimeAndBody(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	got := Sign("whsec_test", at, []byte(`{"jobId":1}`))
	// Computed independently: printf '1700000000.{"jobId":1}' | openssl dgst -sha256 -hmac whsec_test
	want := "t=1700000000,v1=1d09b845763335026843b6527913a855a410cfb204017bf444b229cc152713d3"
	if got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
	if Sign("whsec_test", at, []byte(`{"jobId":2}`)) == got || Sign("other", at, []byte(`{"jobId":1}`)) == got ||
		Sign("whsec_test", at.Add(time.Second), []byte(`{"jobId":1}`)) == got {
		t.Error("the signature does not depend on the body, the secret and the time")
	}
}

func TestWebhooksRefusePrivateAddressesInProduction(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	_, err := webhookClient(false).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if !errors.Is(err, errPrivateAddress) {
		t.Errorf("production client posted to %s: %v", srv.URL, err)
	}
	res, err := webhookClient(true).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("development client: %v", err)
	}
	res.Body.Close()
}

// TestWebhookDialRefusesSpecialAddresses: the production client's dialer refuses every special-purpose address it
// is about to connect to, the shared address space and IPv4-mapped forms included, and lets public ones through.
func TestWebhookDialRefusesSpecialAddresses(t *testing.T) {
	for _, tt := range []struct {
		address string
		refused bool
	}{
		{"93.184.216.34:443", false},
		{"[2606:4700:4700::1111]:443", false},
		{"100.64.0.1:443", true},
		{"100.100.100.200:80", true},
		{"127.0.0.1:8080", true},
		{"169.254.169.254:80", true},
		{"198.18.0.1:443", true},
		{"[::ffff:10.0.0.1]:443", true},
		{"[64:ff9b::a9fe:a9fe]:80", true},
		{"[fd00::1]:443", true},
		{"not-an-address:443", true},
	} {
		err := refuseSpecialAddress("tcp", tt.address, nil)
		if got := errors.Is(err, errPrivateAddress); got != tt.refused {
			t.Errorf("dial %s: refused = %v, want %v", tt.address, got, tt.refused)
		}
	}
}
