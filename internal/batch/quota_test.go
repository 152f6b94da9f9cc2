package batch

import (
	"strings"
	"testing"

	"valuator/internal/apperr"
	"valuator/internal/billing"
)

func TestStorageQuota(t *testing.T) {
	for _, tt := range []struct {
		plan string
		want int64
	}{
		{"free", 10 << 20},
		{"basic", 50 << 20},
		{"Professional", 250 << 20},
		{" enterprise ", 1 << 30},
		{"", 10 << 20},
		{"platinum", 10 << 20},
	} {
		if got := StorageQuota(tt.plan); got != tt.want {
			t.Errorf("StorageQuota(%q) = %d, want %d", tt.plan, got, tt.want)
		}
	}
	// Each plan's quota holds at least 200 of its largest jobs (about 90 bytes of input a property).
	for _, p := range billing.Plans() {
		if jobs := StorageQuota(p.ID) / int64(90*PlanLimit(p.ID)); jobs < 200 {
			t.Errorf("%s: the quota holds %d of the plan's largest jobs, want at least 200", p.ID, jobs)
		}
	}
}

func TestErrStorageQuota(t *testing.T) {
	for _, tt := range []struct {
		name       string
		used, size int64
		plan       string
		want       []string
	}{
		{"over with what is kept", 9<<20 + 800<<10, 400 << 10, "free",
			[]string{"9.8 MB", "10.0 MB", "Free plan", "0.4 MB", "Create the jobs", "cancel jobs", "24 hours"}},
		{"one upload larger than the quota", 0, 12 << 20, "free",
			[]string{"12.0 MB", "10.0 MB", "Split the file or upgrade your plan"}},
		{"largest plan", 1<<30 - 10, 5 << 20, "enterprise", []string{"1,024 MB", "Enterprise plan"}},
		{"tiny", 100, 10, "basic", []string{"less than 0.1 MB", "50.0 MB"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := apperr.As(ErrStorageQuota(tt.used, tt.size, tt.plan))
			if !ok || e.Kind != apperr.KindTooLarge || e.Code != "storage_quota_exceeded" {
				t.Fatalf("error = %+v, want a KindTooLarge storage_quota_exceeded", e)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message %q does not say %q", e.Message, w)
				}
			}
			if e.Extra["usedBytes"] != tt.used || e.Extra["neededBytes"] != tt.size || e.Extra["quotaBytes"] != StorageQuota(tt.plan) {
				t.Errorf("extra = %v", e.Extra)
			}
		})
	}
}
