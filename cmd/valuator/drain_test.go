package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"valuator/internal/batch"
	"valuator/internal/store"
	"valuator/internal/testclock"
	"valuator/internal/testdb"
)

// readyStatus is the status of base's /readyz, 0 when it does not answer.
func readyStatus(base string) int {
	c := &http.Client{Timeout: 2 * time.Second}
	res, err := c.Get(base + "/readyz")
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// finishedJob stores a job of n valued rows for the user directly in the store (as download_test.go's bigJob does:
// valuing them through the queue would take minutes) and returns its id.
func finishedJob(t *testing.T, db *store.DB, userID int64, n int) int64 {
	t.Helper()
	ctx := context.Background()
	inputs := make([][]byte, n)
	for i := range inputs {
		inputs[i], _ = json.Marshal(batch.Row{Line: i + 2, Address: fmt.Sprintf("%d Test Ave N", 3000+i*2), City: "Seattle",
			State: "WA", ZIP: "98103"})
	}
	job, _, err := db.CreateBatchJob(ctx, batch.Job{UserID: userID, FileName: "big.csv", FileSHA256: "big",
		Mapping: "{}", CreatedAt: testclock.Now()}, inputs, func(context.Context, *sql.Tx, int64) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	v, low, high, sqft := int64(812000), int64(760000), int64(870000), int64(1504)
	conf := 0.87
	res, _ := json.Marshal(batch.Result{Line: 2, Address: "3000 TEST AVE N", FullAddress: "3000 TEST AVE N, SEATTLE, WA 98103",
		Status: batch.RowSuccess, EstimatedValue: &v, ValueLow: &low, ValueHigh: &high, Confidence: &conf, SquareFeet: &sqft,
		PropertyType: "Single Family", ImageURL: "https://example.com/images/3000-test-ave-n.jpg", MatchCode: "exact"})
	if _, err := db.SQL().Exec(`UPDATE batch_rows SET status = 'success', result = '` + string(res) + `' WHERE job_id = ` +
		strconv.FormatInt(job.ID, 10)); err != nil {
		t.Fatal(err)
	}
	return job.ID
}

// slowClient reads its answers through a small receive buffer, so that a large download is paced by how fast the
// test reads it rather than sitting whole in the kernel's buffers.
func slowClient() *http.Client {
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		_ = c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10) })
		return err
	}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// TestServeDrainsOnSIGTERM starts a real `valuator serve`, starts a large result download read slowly, and sends
// SIGTERM: /readyz answers 503 `draining` at once while another request is still answered 200 (telling the client
// to close its connection), the download in flight completes whole after the drain has ended, and the process
// exits 0 having logged each phase.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve processes")
	}
	const drain = time.Second
	testdb.Each(t, func(t *testing.T, dbURL string) {
		addr := freeAddr(t)
		p := startProc(t, "serve", "serve", map[string]string{
			"VALUATOR_ENV": "development", "VALUATOR_DEMO": "false", "VALUATOR_ADDR": addr, "VALUATOR_DATABASE_URL": dbURL,
			"VALUATOR_DATA_DIR": t.TempDir(), "VALUATOR_CLOCK": testclock.Day(), "VALUATOR_SECRET": strings.Repeat("d", 40),
			"VALUATOR_DRAIN": drain.String(), "VALUATOR_SHUTDOWN_TIMEOUT": "20s", "VALUATOR_LOG_LEVEL": "info"})
		p.url = "http://" + addr
		procs := []*clusterProc{p}
		waitUntil(t, 60*time.Second, "serve ready", procs, func() bool { return readyStatus(p.url) == http.StatusOK })

		var auth struct {
			Token string
			User  struct{ ID int64 }
		}
		mustJSON(t, "POST", p.url+"/api/auth/register", nil, map[string]string{"email": "drain@example.com",
			"password": "drain-pass-123", "fullName": "Drain Test"}, http.StatusCreated, &auth)
		const rows = 80_000
		id := finishedJob(t, testStore(t, dbURL), auth.User.ID, rows)

		// The download starts, and the test has read a little of it, before the signal.
		rq, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/jobs/%d/download?format=csv", p.url, id), nil)
		rq.Header.Set("Authorization", "Bearer "+auth.Token)
		res, err := slowClient().Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("download: %d", res.StatusCode)
		}
		body := bufio.NewReaderSize(res.Body, 32<<10)
		got := make([]byte, 0, 16<<20)
		buf := make([]byte, 32<<10)
		readSome := func(n int) error {
			for read := 0; read < n; {
				k, err := body.Read(buf)
				got = append(got, buf[:k]...)
				read += k
				if err != nil {
					return err
				}
			}
			return nil
		}
		if err := readSome(256 << 10); err != nil {
			t.Fatal(err)
		}

		signalled := time.Now()
		if err := syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// /readyz turns 503 at once...
		for readyStatus(p.url) != http.StatusServiceUnavailable {
			if time.Since(signalled) > drain/2 {
				t.Fatalf("/readyz still not 503 %s after SIGTERM\n%s", time.Since(signalled), p.log())
			}
			time.Sleep(10 * time.Millisecond)
		}
		turned := time.Since(signalled)
		st, b := call(t, "GET", p.url+"/readyz", nil, nil)
		var e struct{ Code string }
		_ = json.Unmarshal(b, &e)
		if st != http.StatusServiceUnavailable || e.Code != "draining" {
			t.Errorf("/readyz while draining: %d %s, want 503 draining", st, b)
		}
		// ...while every other route is still served, each answer closing its connection.
		prq, _ := http.NewRequest("GET", p.url+"/api/user/profile", nil)
		prq.Header.Set("Authorization", "Bearer "+auth.Token)
		pres, err := http.DefaultClient.Do(prq)
		if err != nil {
			t.Fatalf("a request during the drain failed: %v", err)
		}
		io.Copy(io.Discard, pres.Body)
		pres.Body.Close()
		if pres.StatusCode != http.StatusOK || !pres.Close {
			t.Errorf("profile during the drain: %d, Connection: close %v; want 200 and close", pres.StatusCode, pres.Close)
		}
		if during := time.Since(signalled); during >= drain {
			t.Errorf("the checks of the drain took %s, longer than the drain (%s): they did not run during it", during, drain)
		}

		// The download goes on, slowly (about 2.7 MB a second), past the end of the drain, and arrives whole.
		for {
			err := readSome(32 << 10)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("download cut off after %d bytes: %v\n%s", len(got), err, p.log())
			}
			time.Sleep(12 * time.Millisecond)
		}
		downloaded := time.Since(signalled)
		if n := strings.Count(string(got), "\r\n"); n != rows+1 {
			t.Errorf("the download has %d lines, want %d", n, rows+1)
		}
		if downloaded < drain {
			t.Errorf("the download ended %s after SIGTERM, within the drain (%s): it was not in flight at shutdown", downloaded, drain)
		}
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("serve did not exit after the drain\n%s", p.log())
		}
		exited := time.Since(signalled)
		if code := p.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit code %d, want 0\n%s", code, p.log())
		}
		log := p.log()
		for _, phase := range []string{"draining: /readyz answers 503", "shutting down: no new connections",
			"requests in flight finished", "stopping the job queue", "msg=stopped"} {
			if !strings.Contains(log, phase) {
				t.Errorf("the log does not say %q:\n%s", phase, log)
			}
		}
		waited := -1
		if m := regexp.MustCompile(`waited_ms=(\d+)`).FindStringSubmatch(log); m != nil {
			waited, _ = strconv.Atoi(m[1])
		}
		if waited <= 0 {
			t.Errorf("shutdown waited %d ms for requests in flight; want the download's time\n%s", waited, log)
		}
		t.Logf("SIGTERM: /readyz 503 after %s; drain %s; %d-row download (%.1f MB) done %s after SIGTERM; shutdown waited %d ms for it; exited %s after SIGTERM",
			turned.Round(time.Millisecond), drain, rows, float64(len(got))/(1<<20), downloaded.Round(time.Millisecond), waited,
			exited.Round(time.Millisecond))
	})
}
