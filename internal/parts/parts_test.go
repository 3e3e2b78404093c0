package parts

import (
	"sync/atomic"
	"testing"
)

// Each covers [0, n) once, in parts shares of sizes within one of each other, share p at its
// place, however n and parts compare.
func TestEachCovers(t *testing.T) {
	for _, c := range [][2]int{{0, 1}, {1, 1}, {10, 3}, {3, 10}, {1000, 7}, {1 << 20, 16}} {
		n, parts := c[0], c[1]
		seen := make([]atomic.Int32, n)
		sizes := make([]int, parts)
		Each(n, parts, func(p, lo, hi int) {
			sizes[p] = hi - lo
			if lo != p*n/parts {
				t.Errorf("n %d, parts %d: share %d starts at %d", n, parts, p, lo)
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n %d, parts %d: %d covered %d times", n, parts, i, seen[i].Load())
			}
		}
		lo, hi := n, 0
		for _, s := range sizes {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi-lo > 1 {
			t.Errorf("n %d, parts %d: shares of %d to %d", n, parts, lo, hi)
		}
	}
}
