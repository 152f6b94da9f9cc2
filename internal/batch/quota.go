package batch

import (
	"fmt"

	"valuator/internal/apperr"
	"valuator/internal/billing"
)

// Storage quotas (billing.Plan.StorageBytes) are the bytes of batch data one user may keep on the server at once, by plan (DESIGN.md section 5,
// "Abuse limits"): the stored table of each preview not yet made into a job, plus the stored inputs of each job
// whose rows are not yet purged (24 hours after it finishes). Results are not counted: they are ours, written by
// the valuation, and bounded by the inputs.
//
// The numbers are far above what a real user of each plan keeps, and far below what fills a disk. A job's stored
// input is about 90 bytes a property (the mapped address as JSON), and a preview's compressed table about 20
// bytes a row for an address list of a few columns. So a plan's largest job takes about 9 KB on Free (100
// properties), 90 KB on Basic (1,000), 0.9 MB on Professional (10,000) and 4.5 MB on Enterprise (50,000), and
// each quota below holds over 200 of the plan's largest jobs at once (Free over 1,000), pending or finished within
// the last day. What it stops is the scripted upload of previews that are never confirmed: without it five 49 MB
// previews kept 257 MB for a day.
// StorageQuota is the bytes of batch data a user on plan may keep; an unknown or empty plan is the free tier.
func StorageQuota(plan string) int64 { return billing.Get(plan).StorageBytes }

// ErrStorageQuota says that keeping size more bytes would take a user on plan past the plan's quota, with used
// bytes kept already: a 413 that says how much is in use and how to free it.
func ErrStorageQuota(used, size int64, plan string) error {
	quota := StorageQuota(plan)
	msg := fmt.Sprintf("Your uploads and pending batch jobs take %s of the %s your %s plan keeps, and this one needs %s more. "+
		"Create the jobs of your earlier uploads or cancel jobs you no longer need, or wait: uploads and finished jobs' "+
		"rows are deleted 24 hours after they were made or finished.",
		megabytes(used), megabytes(quota), planName(plan), megabytes(size))
	if size > quota {
		msg = fmt.Sprintf("This upload needs %s, more than the %s of batch data your %s plan keeps. Split the file%s.",
			megabytes(size), megabytes(quota), planName(plan), upgradeAdvice(plan))
	}
	return &apperr.Error{Kind: apperr.KindTooLarge, Code: "storage_quota_exceeded", Message: msg,
		Extra: map[string]any{"title": "Storage Quota Exceeded", "usedBytes": used, "quotaBytes": quota, "neededBytes": size}}
}

func upgradeAdvice(plan string) string {
	if billing.Get(plan).Largest() {
		return ""
	}
	return " or upgrade your plan"
}

// megabytes writes n bytes as a person reads them: "less than 0.1 MB", "12.5 MB", "1,024 MB".
func megabytes(n int64) string {
	mb := float64(n) / (1 << 20)
	if mb >= 100 {
		return thousands(int(mb+0.5)) + " MB"
	}
	if mb > 0 && mb < 0.1 {
		return "less than 0.1 MB"
	}
	return fmt.Sprintf("%.1f MB", mb)
}
