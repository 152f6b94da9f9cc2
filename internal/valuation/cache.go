package valuation

import (
	"container/list"
	"sync"
)

// lru keeps the most recently used answers, up to max. The valuations and the market statistics are pure
// functions of the market snapshot and their inputs, so an entry keyed by the snapshot's version and the inputs is
// never wrong; a new snapshot simply misses, and old entries age out.
type lru[V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key string
	val V
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: make(map[string]*list.Element, max)}
}

func (c *lru[V]) get(key string) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).val, true
}

func (c *lru[V]) put(key string, v V) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*lruEntry[V]).val = v
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key: key, val: v})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruEntry[V]).key)
	}
}

// resultCache keeps recent valuations (the key includes the matched address, the attributes given and the day).
type resultCache struct{ lru *lru[*Result] }

func newResultCache(max int) *resultCache { return &resultCache{lru: newLRU[*Result](max)} }

// get returns a copy of the cached result (the caller fills its meta), or nil.
func (c *resultCache) get(key string) *Result {
	if c == nil {
		return nil
	}
	r, ok := c.lru.get(key)
	if !ok {
		return nil
	}
	cp := *r
	return &cp
}

func (c *resultCache) put(key string, res *Result) {
	if c != nil {
		c.lru.put(key, res)
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
