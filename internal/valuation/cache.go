package valuation

import (
	"container/list"
	"sync"
)

// resultCache keeps recent valuations. A valuation is a pure function of the market snapshot, the matched address,
// the attributes given and the day, so an entry keyed by all four is never wrong; a new snapshot or a new day
// simply misses, and old entries age out.
type resultCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	res *Result
}

func newResultCache(max int) *resultCache {
	return &resultCache{max: max, order: list.New(), items: make(map[string]*list.Element, max)}
}

// get returns a copy of the cached result (the caller fills its meta), or nil.
func (c *resultCache) get(key string) *Result {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	r := *el.Value.(*cacheEntry).res
	return &r
}

func (c *resultCache) put(key string, res *Result) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*cacheEntry).res = res
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key: key, res: res})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
}

// SetCacheSize changes how many valuations the service keeps (0 turns the cache off; the load benchmark measures
// both).
func (s *Service) SetCacheSize(n int) {
	if n <= 0 {
		s.cache = nil
		return
	}
	s.cache = newResultCache(n)
}
