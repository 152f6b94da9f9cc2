package teststripe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// readyTimeout bounds how long we wait for a started stripe-mock to answer. It starts in about half a second.
const readyTimeout = 30 * time.Second

// listeningHTTP starts the line stripe-mock prints once it listens for HTTP, followed by the address.
const listeningHTTP = "Listening for HTTP at address: "

// mock is a stripe-mock process that this test process started.
type mock struct {
	cmd    *exec.Cmd
	url    string
	output *logTail // Its stdout and stderr, for error messages.
	exited chan struct{}
	// waitErr is cmd.Wait's result, set before exited is closed.
	waitErr error
}

// startMock starts stripe-mock on loopback ports that the kernel picks, and waits until it answers.
//
// It listens with -http-addr 127.0.0.1:0 rather than -http-port: -http-port binds every interface, and a port
// chosen beforehand could be taken by another process before stripe-mock binds it, whereas port 0 cannot clash;
// stripe-mock prints the address it got. -https-addr is given too, because with -http-addr alone stripe-mock also
// opens HTTPS on its fixed default port 12112 on every interface, which parallel servers would fight over.
func startMock(bin string) (_ *mock, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	m := &mock{
		cmd:    exec.Command(bin, "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0"),
		output: &logTail{},
		exited: make(chan struct{}),
	}
	// Stdout is a pipe of our own rather than cmd.StdoutPipe, which must not be read after Wait: the reader
	// below runs until stripe-mock exits, whenever that is.
	m.cmd.Stdout = w
	m.cmd.Stderr = m.output
	setParentDeathSignal(m.cmd)
	if err := m.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("starting %s: %v", bin, err)
	}
	w.Close() // The child has its own copy; ours would keep the reader from ever seeing the end.
	defer func() {
		if err != nil {
			_ = m.cmd.Process.Kill()
			<-m.exited
		}
	}()
	go func() {
		m.waitErr = m.cmd.Wait()
		close(m.exited)
	}()

	addr := make(chan string, 1)
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := sc.Text()
			_, _ = io.WriteString(m.output, line+"\n")
			if a, ok := strings.CutPrefix(line, listeningHTTP); ok {
				select {
				case addr <- strings.TrimSpace(a):
				default:
				}
			}
		}
	}()

	timeout := time.NewTimer(readyTimeout)
	defer timeout.Stop()
	select {
	case a := <-addr:
		m.url = "http://" + a
	case <-m.exited:
		return nil, fmt.Errorf("%s exited before listening (%v); its output:\n%s", bin, m.waitErr, m.output)
	case <-timeout.C:
		return nil, fmt.Errorf("%s printed no HTTP address within %v; its output:\n%s", bin, readyTimeout, m.output)
	}
	if err := m.waitReady(readyTimeout); err != nil {
		return nil, fmt.Errorf("%s at %s: %v; its output:\n%s", bin, m.url, err, m.output)
	}
	return m, nil
}

// waitReady asks for a customer until stripe-mock answers with one.
func (m *mock) waitReady(within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.url+"/v1/customers/cus_teststripe", nil)
		if err != nil {
			return err
		}
		// Any well-formed test key will do: stripe-mock checks the form, not the key.
		req.Header.Set("Authorization", "Bearer sk_test_teststripe")
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /v1/customers/cus_teststripe: %s", res.Status)
		}
		last = err
		select {
		case <-m.exited:
			return fmt.Errorf("it exited (%v)", m.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("no answer within %v: %v", within, last)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop kills stripe-mock (it keeps nothing worth a graceful stop) and waits for it. It reports a server that had
// already exited on its own, since the test that used it may have failed for that reason.
func (m *mock) stop() error {
	select {
	case <-m.exited:
		return fmt.Errorf("stripe-mock at %s had exited before the test ended (%v); its output:\n%s",
			m.url, m.waitErr, m.output)
	default:
	}
	if err := m.cmd.Process.Kill(); err != nil {
		select {
		case <-m.exited: // It exited between the check and the kill.
		default:
			return fmt.Errorf("killing stripe-mock at %s: %v", m.url, err)
		}
	}
	<-m.exited
	return nil
}

// logTail keeps the last 64 KiB written to it, for error messages; stripe-mock prints little unless asked to.
type logTail struct {
	mu  sync.Mutex
	buf []byte
}

const logTailMax = 64 << 10

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > logTailMax {
		l.buf = append([]byte(nil), l.buf[len(l.buf)-logTailMax:]...)
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tail(string(l.buf))
}
