package apikey

import (
	"strings"
	"testing"
)

func TestNewKeysAreWellFormedAndUnique(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		k, err := New()
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormed(k) || len(k) != Length || !strings.HasPrefix(k, Prefix) {
			t.Fatalf("New() = %q is not well formed", k)
		}
		if seen[k] {
			t.Fatal("two keys alike")
		}
		seen[k] = true
	}
}

func TestWellFormedCatchesTypos(t *testing.T) {
	k, _ := New()
	flip := func(i int) string {
		b := []byte(k)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for _, bad := range []string{"", "vk_live_", k[:len(k)-1], k + "x", strings.ToUpper(k), "sk_live_" + k[8:],
		flip(10), flip(len(k) - 1), strings.Replace(k, k[12:13], "-", 1)} {
		if WellFormed(bad) {
			t.Errorf("WellFormed(%q) = true", bad)
		}
	}
}

func TestSealOpen(t *testing.T) {
	s, err := NewSealer(strings.Repeat("s", 32))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := New()
	sealed, err := s.Seal(k)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), k[len(Prefix):]) {
		t.Fatal("the sealed key contains the key")
	}
	got, err := s.Open(sealed)
	if err != nil || got != k {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := NewSealer(strings.Repeat("t", 32))
	if _, err := other.Open(sealed); err == nil {
		t.Error("a sealer with another secret opened the key")
	}
	if _, err := NewSealer("short"); err == nil {
		t.Error("a short secret was accepted")
	}
}

func TestPreviewAndHash(t *testing.T) {
	k := Prefix + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef" + "123456"
	if p := Preview(k); p != "vk_live_ABCD…3456" {
		t.Errorf("Preview = %q", p)
	}
	if Hash(k) == Hash(k+"x") || len(Hash(k)) != 64 {
		t.Error("Hash is not a SHA-256 of the key")
	}
}

func TestValidate(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		in    CreateInput
		plan  string
		name  string
		limit int
		field string
	}{
		// Without a limit, a key gets the plan's cap (100 on Enterprise, which has none).
		{CreateInput{Name: "  Production  "}, "free", "Production", 60, ""},
		{CreateInput{Name: "Production"}, "basic", "Production", 60, ""},
		{CreateInput{Name: "Production"}, "professional", "Production", 120, ""},
		{CreateInput{Name: "Production"}, "enterprise", "Production", 100, ""},
		{CreateInput{Name: "Batch", RateLimit: f(1)}, "free", "Batch", 1, ""},
		{CreateInput{Name: "Batch", RateLimit: f(1000)}, "free", "Batch", 1000, ""},
		{CreateInput{Name: "   "}, "free", "", 0, "name"},
		{CreateInput{Name: "x", RateLimit: f(0)}, "free", "", 0, "rateLimit"},
		{CreateInput{Name: "x", RateLimit: f(1001)}, "free", "", 0, "rateLimit"},
		{CreateInput{Name: "x", RateLimit: f(1.5)}, "free", "", 0, "rateLimit"},
		{CreateInput{Name: strings.Repeat("n", 101)}, "free", "", 0, "name"},
	} {
		name, limit, err := tt.in.Validate(tt.plan)
		if tt.field == "" {
			if err != nil || name != tt.name || limit != tt.limit {
				t.Errorf("Validate(%+v, %s) = %q %d %v, want %q %d", tt.in, tt.plan, name, limit, err, tt.name, tt.limit)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), map[string]string{"name": "name", "rateLimit": "Rate limit"}[tt.field]) {
			t.Errorf("Validate(%+v) error = %v, want one about %s", tt.in, err, tt.field)
		}
	}
}

func TestEffectiveLimit(t *testing.T) {
	for _, tt := range []struct {
		key  int
		plan string
		want int
	}{{100, "free", 60}, {30, "free", 30}, {100, "basic", 60}, {100, "professional", 100}, {500, "professional", 120},
		{1000, "enterprise", 1000}} {
		if got := Effective(tt.key, tt.plan); got != tt.want {
			t.Errorf("Effective(%d, %s) = %d, want %d", tt.key, tt.plan, got, tt.want)
		}
	}
}
