// Package parts splits a range of work into shares, each on a goroutine of its own: the one
// way the writer's conversion, the overviews' strips, the GPU's staging copies, a tile's node
// list and its placement spread over the cores.
package parts

import "sync"

// Each calls fn(p, lo, hi) for each of parts shares [lo, hi) of [0, n), in the order of p and
// of about equal size, each on a goroutine of its own, and waits for them all.
func Each(n, parts int, fn func(p, lo, hi int)) {
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { fn(p, p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
}
