package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"valuator/internal/testredis"
)

func TestMain(m *testing.M) { testredis.Main(m) }

func TestZZExperiment(t *testing.T) {
	opts, _ := redis.ParseURL(testredis.URL(t))
	c := redis.NewClient(opts)
	defer c.Close()
	l := redis_rate.NewLimiter(c)
	ctx := context.Background()
	for _, lim := range []redis_rate.Limit{redis_rate.PerMinute(100), redis_rate.PerMinute(60), {Rate: 20, Burst: 20, Period: time.Second}, {Rate: 3, Burst: 1, Period: time.Second}} {
		hist := map[int]int{}
		denied := 0
		for i := range 300 {
			res, err := l.Allow(ctx, fmt.Sprint(lim, i), lim)
			if err != nil {
				t.Fatal(err)
			}
			hist[res.Remaining]++
			if res.Allowed == 0 {
				denied++
			}
		}
		t.Logf("%v: fresh-key Remaining histogram %v, denied %d", lim, hist, denied)
	}
}
