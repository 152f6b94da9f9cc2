package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"valuator/internal/avm"
	"valuator/internal/demo"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
	"valuator/internal/valuation"
)

// TestWorkersTrainPartitions (issue 39): a market in state partitions whose engines the workers train
// (VALUATOR_PARTITIONS=state, VALUATOR_TRAINING=workers). Two `valuator worker` processes started at once on one
// PostgreSQL database both take training jobs, every partition is trained once, and the engines and the answers
// are those that one worker alone makes of the same records.
func TestWorkersTrainPartitions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL and three valuator processes, which train the demo market's engines")
	}
	ctx := context.Background()
	now := testclock.Now()
	dbURL := testdb.PostgresURL(t)
	db := testStore(t, dbURL)
	recs := demo.Generate(1, now).Records()
	if _, err := db.ImportRecords(ctx, demo.Source, recs, now); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"VALUATOR_ENV":          "development",
		"VALUATOR_DEMO":         "false",
		"VALUATOR_DATABASE_URL": dbURL,
		"VALUATOR_SECRET":       strings.Repeat("p", 40),
		"VALUATOR_LOG_LEVEL":    "info",
		"VALUATOR_CLOCK":        testclock.Day(),
		"VALUATOR_PARTITIONS":   "state",
		"VALUATOR_TRAINING":     "workers",
	}
	workers := func(names ...string) []*clusterProc {
		var procs []*clusterProc
		for _, name := range names {
			e := map[string]string{"VALUATOR_DATA_DIR": t.TempDir()}
			for k, v := range env {
				e[k] = v
			}
			procs = append(procs, startProc(t, name, "worker", e))
		}
		// A worker says it is running once its own engines are loaded: every partition trained and saved.
		for _, p := range procs {
			waitUntil(t, 5*time.Minute, p.name+" running", procs, func() bool {
				return strings.Contains(p.log(), "Valuator worker is running")
			})
		}
		return procs
	}
	states := []string{"AZ", "CO", "GA", "NC", "OH", "TX", "WA"}
	// models are the saved engines, by partition.
	models := func() map[string][]byte {
		rows, err := db.SQL().QueryContext(ctx, `SELECT market_part, engine FROM avm_models`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][]byte{}
		for rows.Next() {
			var part string
			var blob []byte
			if err := rows.Scan(&part, &blob); err != nil {
				t.Fatal(err)
			}
			if out[part] != nil {
				t.Errorf("partition %q saved twice", part)
			}
			out[part] = blob
		}
		return out
	}
	// answers values one recorded home of each state (and one not on record) through a service of this process
	// that restores the saved engines, as a server does.
	answers := func() string {
		s := valuation.New(db, slog.New(slog.DiscardHandler), testclock.Now, avm.DefaultOptions())
		if err := s.Partitions(); err != nil {
			t.Fatal(err)
		}
		if err := s.Load(ctx); err != nil {
			t.Fatal(err)
		}
		if n := s.Trainings(); n != 0 {
			t.Errorf("the service trained %d engines; the workers had saved them all", n)
		}
		var out []string
		seen := map[string]bool{}
		for _, r := range recs {
			h := r.Home
			if seen[h.State] || h.Street == "" {
				continue
			}
			seen[h.State] = true
			res, err := s.Lookup(ctx, valuation.Input{Address: strings.Join(strings.Fields(h.Street+" "+h.UnitType+" "+h.Unit), " "),
				City: h.City, State: h.State, ZIP: h.ZIP})
			if err != nil {
				t.Fatalf("%s: %v", h.Street, err)
			}
			b, _ := json.Marshal(res)
			out = append(out, string(b))
		}
		return strings.Join(out, "\n")
	}

	// Two workers.
	started := time.Now()
	two := workers("worker-a", "worker-b")
	t.Logf("two workers: every partition trained and loaded in %s", time.Since(started).Round(time.Second))
	for _, p := range two {
		n := strings.Count(p.log(), "training job done")
		t.Logf("%s trained %d partitions", p.name, n)
		for _, line := range strings.Split(p.log(), "\n") {
			if strings.Contains(line, "training job done") {
				t.Logf("  %s", line[strings.Index(line, "msg="):])
			}
		}
		if n == 0 {
			t.Errorf("%s took no training job:\n%s", p.name, p.log())
		}
	}
	byTwo := models()
	for _, st := range states {
		if len(byTwo[st]) == 0 {
			t.Errorf("no engine saved for %s", st)
		}
	}
	var jobs int
	if err := db.SQL().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job WHERE kind = 'train_partition'`).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != len(states) {
		t.Errorf("%d training jobs queued by two workers, want one a partition (%d)", jobs, len(states))
	}
	answersTwo := answers()

	// One worker, on the same records, from no saved engine.
	for _, p := range two {
		p.kill()
	}
	if _, err := db.SQL().ExecContext(ctx, `DELETE FROM avm_models`); err != nil {
		t.Fatal(err)
	}
	started = time.Now()
	one := workers("worker-c")
	t.Logf("one worker: every partition trained and loaded in %s (%d partitions)", time.Since(started).Round(time.Second),
		strings.Count(one[0].log(), "training job done"))
	byOne := models()
	for _, st := range states {
		if string(byOne[st]) != string(byTwo[st]) {
			t.Errorf("%s: the engine one worker trained differs from the two workers' (%d and %d bytes)", st,
				len(byOne[st]), len(byTwo[st]))
		}
	}
	if got := answers(); got != answersTwo {
		t.Errorf("answers with one worker's engines differ from two workers':\n%s\n---\n%s", got, answersTwo)
	}
}
