package testredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// errUnavailable marks the reasons that mean "there is no Redis here" (which skips tests), as opposed to a Redis
// that should work but does not (which fails them).
var errUnavailable = errors.New("Redis not available")

const (
	// readyTimeout bounds how long we wait for a server to answer.
	readyTimeout = 30 * time.Second
	// claimWait bounds how long URL waits for a free database when all are claimed.
	claimWait = 2 * time.Minute
	// claimTTL is how long a claim outlives its last refresh, so how long the databases of a killed test
	// process stay claimed. Claims are refreshed every claimTTL/4.
	claimTTL = time.Minute
	// claimKeyPrefix, followed by the database number, names the claim keys in the admin database.
	claimKeyPrefix = "valuator:testredis:claim:"
	// defaultDatabases is Redis's default "databases" setting, assumed when CONFIG GET is not allowed.
	defaultDatabases = 16
)

// server is a Redis server whose databases we hand out.
type server struct {
	// base is the server's URL; its database is the admin database, which holds the claims and is never
	// handed out.
	base      *url.URL
	adminDB   int
	admin     *redis.Client
	databases int
	// desc says where the server comes from, for Available.
	desc string
}

var (
	serverOnce sync.Once
	theServer  *server
	serverErr  error

	// running is the redis-server this process started, which shutdown stops.
	runningMu sync.Mutex
	running   *localServer
)

// getServer finds or starts the server once per process; every later call gets the same server, or the same
// error.
func getServer() (*server, error) {
	serverOnce.Do(func() { theServer, serverErr = findServer() })
	return theServer, serverErr
}

func findServer() (*server, error) {
	if raw := os.Getenv(EnvRedisURL); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			// The URL itself is left out of the message, since it may hold a password.
			return nil, fmt.Errorf("%s is not a redis://[:PASSWORD@]HOST:PORT[/DB] URL", EnvRedisURL)
		}
		srv, err := connect(u)
		if err != nil {
			return nil, fmt.Errorf("server %s from %s: %w", u.Host, EnvRedisURL, err)
		}
		srv.desc = fmt.Sprintf("Redis %s at %s from %s (admin database %d, %d databases)",
			srv.version(), u.Host, EnvRedisURL, srv.adminDB, srv.databases)
		return srv, nil
	}

	start := time.Now()
	ls, err := startLocal()
	if err != nil {
		return nil, err
	}
	runningMu.Lock()
	running = ls
	runningMu.Unlock()

	u := &url.URL{Scheme: "redis", Host: fmt.Sprintf("127.0.0.1:%d", ls.port), Path: "/0"}
	srv, err := connect(u)
	if err != nil {
		return nil, fmt.Errorf("local redis-server in %s: %w\n%s", ls.dir, err, ls.logTail())
	}
	srv.desc = fmt.Sprintf("local redis-server %s on %s (%s, dir %s, started in %v)", srv.version(), u.Host,
		ls.binary, ls.dir, time.Since(start).Round(time.Millisecond))
	return srv, nil
}

// connect waits until the server at u answers and learns how many databases it has.
func connect(u *url.URL) (*server, error) {
	opts, err := parseURL(u.String())
	if err != nil {
		return nil, err
	}
	admin := redis.NewClient(opts)
	if err := waitReady(admin); err != nil {
		admin.Close()
		return nil, err
	}
	srv := &server{base: u, adminDB: opts.DB, admin: admin, databases: defaultDatabases}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Managed services may refuse CONFIG; they then have the default.
	if cfg, err := admin.ConfigGet(ctx, "databases").Result(); err == nil {
		if n, err := strconv.Atoi(cfg["databases"]); err == nil && n > 0 {
			srv.databases = n
		}
	}
	if srv.databases < 2 {
		admin.Close()
		return nil, fmt.Errorf("the server has %d database(s); it needs one for claims and more for tests",
			srv.databases)
	}
	return srv, nil
}

// parseURL is redis.ParseURL, with client options fit for tests and without the URL (and so the password) in its
// errors.
func parseURL(raw string) (*redis.Options, error) {
	opts, err := redis.ParseURL(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("invalid Redis URL: %w", err)
	}
	// Maintenance notifications are a Redis Cloud feature; asking a plain server for them only adds a round
	// trip to every connection.
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return opts, nil
}

// waitReady pings until the server answers or readyTimeout passes, returning the last error in that case.
func waitReady(c *redis.Client) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		// An answer other than "still loading" (a wrong password, say) will not change by waiting.
		var reply redis.Error
		if errors.As(err, &reply) && !strings.HasPrefix(err.Error(), "LOADING") {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %w", readyTimeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// version returns the server's version from INFO, or "?" if it cannot be had.
func (s *server) version() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := s.admin.Info(ctx, "server").Result()
	if err != nil {
		return "?"
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v
		}
	}
	return "?"
}

// claim is one database handed out to a test.
type claim struct {
	srv   *server
	db    int
	url   string
	key   string // The claim key in the admin database.
	token string // Its value, unique to this claim.
	stop  context.CancelFunc
	done  chan struct{} // Closed when the refresher has stopped.
}

// Claims are only extended and released by their holder, which these scripts check atomically.
var (
	refreshScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
	releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0`)
)

// claim takes a database that no one else holds, empties it and keeps it claimed until release. When all are
// taken it waits, up to claimWait, for one to be released.
func (s *server) claim(ctx context.Context) (*claim, error) {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	token := hex.EncodeToString(b[:])
	deadline := time.Now().Add(claimWait)
	for {
		// Start at a random database, so that processes sharing a server do not all try the same ones first.
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(s.databases)))
		first := int(n.Int64())
		for i := range s.databases {
			db := (first + i) % s.databases
			if db == s.adminDB {
				continue
			}
			c, err := s.claimDB(ctx, db, token)
			if err != nil || c != nil {
				return c, err
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("all %d databases on %s other than %d stayed claimed for %v",
				s.databases-1, s.base.Host, s.adminDB, claimWait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a free database on %s: %w", s.base.Host, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// claimDB claims database db for token and empties it, or returns nil if someone else holds it.
func (s *server) claimDB(ctx context.Context, db int, token string) (*claim, error) {
	key := claimKeyPrefix + strconv.Itoa(db)
	ok, err := s.admin.SetNX(ctx, key, token, claimTTL).Result()
	if err != nil {
		return nil, fmt.Errorf("claiming database %d on %s: %w", db, s.base.Host, err)
	}
	if !ok {
		return nil, nil
	}
	c := &claim{srv: s, db: db, url: s.databaseURL(db), key: key, token: token}
	// A process killed while holding the database may have left keys behind.
	if err := c.flush(ctx); err != nil {
		_ = releaseScript.Run(context.Background(), s.admin, []string{key}, token).Err()
		return nil, err
	}
	c.startRefresher()
	return c, nil
}

// databaseURL is the base URL with the database replaced by db; user, password, host and parameters stay as
// they are.
func (s *server) databaseURL(db int) string {
	u := *s.base
	u.Path = "/" + strconv.Itoa(db)
	return u.String()
}

// flush empties the claimed database.
func (c *claim) flush(ctx context.Context) error {
	opts, err := parseURL(c.url)
	if err != nil {
		return err
	}
	// One connection is all this needs.
	opts.PoolSize = 1
	client := redis.NewClient(opts)
	defer client.Close()
	if err := client.FlushDB(ctx).Err(); err != nil {
		return fmt.Errorf("emptying database %d on %s: %w", c.db, c.srv.base.Host, err)
	}
	return nil
}

// startRefresher keeps the claim alive until release.
func (c *claim) startRefresher() {
	ctx, stop := context.WithCancel(context.Background())
	c.stop, c.done = stop, make(chan struct{})
	go func() {
		defer close(c.done)
		tick := time.NewTicker(claimTTL / 4)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// A failure is retried at the next tick; three in a row would let the claim lapse,
				// which only matters if another process then wants this very database.
				_ = refreshScript.Run(ctx, c.srv.admin, []string{c.key}, c.token, claimTTL.Milliseconds()).Err()
			}
		}
	}()
}

// release empties the database and gives it back. If the claim has lapsed (this process stalled for longer than
// claimTTL), the database may already belong to someone else, so it is left alone.
func (c *claim) release() error {
	c.stop()
	<-c.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	holder, err := c.srv.admin.Get(ctx, c.key).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("checking the claim on database %d on %s: %w", c.db, c.srv.base.Host, err)
	}
	if holder != c.token {
		return fmt.Errorf("the claim on database %d on %s lapsed before the test ended; not emptying it",
			c.db, c.srv.base.Host)
	}
	err = c.flush(ctx)
	if rerr := releaseScript.Run(ctx, c.srv.admin, []string{c.key}, c.token).Err(); rerr != nil {
		err = errors.Join(err, fmt.Errorf("releasing database %d on %s: %w", c.db, c.srv.base.Host, rerr))
	}
	return err
}
