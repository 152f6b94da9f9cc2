package scalebench

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestParseHomes(t *testing.T) {
	for in, want := range map[string][]int{
		"10000,100000,1000000": {10000, 100000, 1000000},
		" 10k, 1M ":            {10000, 1000000},
		"1e6":                  {1000000},
		"2_500":                {2500},
		"1.5k,":                {1500},
	} {
		got, err := ParseHomes(in)
		if err != nil || len(got) != len(want) {
			t.Fatalf("ParseHomes(%q) = %v, %v; want %v", in, got, err, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ParseHomes(%q) = %v; want %v", in, got, want)
			}
		}
	}
	for _, bad := range []string{"", ",", "ten", "50", "1.5", "-1000", "1.0005k"} {
		if got, err := ParseHomes(bad); err == nil {
			t.Errorf("ParseHomes(%q) = %v, want an error", bad, got)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond,
		100: 100 * time.Millisecond, 1: time.Millisecond, 0: time.Millisecond} {
		if got := Percentile(d, p); got != want {
			t.Errorf("Percentile(1..100 ms, %v) = %v, want %v", p, got, want)
		}
	}
	if d[0] != 100*time.Millisecond {
		t.Error("Percentile sorted its argument")
	}
	if Percentile(nil, 99) != 0 {
		t.Error("Percentile of nothing should be 0")
	}
	if got := Percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("Percentile of one = %v", got)
	}
}

func TestFormatTable(t *testing.T) {
	out := FormatTable([]Result{{Homes: 1000000, Sales: 1322790, Rents: 395180, DBBytes: 600 << 20,
		Import: 95 * time.Second, ImportRSS: 900 << 20, Train: 7*time.Minute + 12*time.Second, TrainRSS: 3 << 30,
		P50: 2500 * time.Microsecond, P99: 9 * time.Millisecond, Max: 31 * time.Millisecond,
		Startup: 4321 * time.Millisecond, StartupRSS: 1536 << 20, ServeRSS: 1200 << 20,
		MarketP50: 1200 * time.Microsecond, MarketP99: 4 * time.Millisecond}})
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header, a rule and one row:\n%s", out)
	}
	want := "| 1,000,000 | 1,322,790 | 395,180 | 600 MiB | 1m35s | 900 MiB | 7m12s | 3072 MiB | 2.5 ms | 9.0 ms | 31.0 ms | 4.32s | 1536 MiB | 1200 MiB | 1.2 ms | 4.0 ms |"
	if lines[2] != want {
		t.Errorf("row:\n got %s\nwant %s", lines[2], want)
	}
	if strings.Count(lines[0], "|") != strings.Count(lines[2], "|") {
		t.Error("header and row have different column counts")
	}
}

// status reads /proc/<pid>/status: this test's own process stands in for a server.
func TestStatus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	self, _ := os.FindProcess(os.Getpid())
	p := &serveProc{cmd: &exec.Cmd{Process: self}}
	rss, hwm := p.status("VmRSS"), p.status("VmHWM")
	if rss < 1<<20 || hwm < rss {
		t.Errorf("VmRSS %d, VmHWM %d: want at least a MiB resident and a peak no lower", rss, hwm)
	}
	if p.status("NoSuchField") != 0 {
		t.Error("a missing field should read 0")
	}
}
