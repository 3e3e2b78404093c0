package interp

import (
	"math"

	"golang.org/x/sys/cpu"
)

// On amd64 with AVX2, windowRange's loop over the samples of plain coordinates runs in
// assembly (windowAVX2): each sample is tested against 16 nodes at once, 4 per instruction,
// instead of finding the ends of its run of nodes one test at a time. Each node still takes
// its samples one by one in the index's order, with the same operations, so the values are
// the same bit for bit.

// haveWindowAVX2 says whether windowAVX2 can run.
var haveWindowAVX2 = cpu.X86.HasAVX2

// windowLanes is the number of nodes windowAVX2 tests a sample against.
const windowLanes = 16

// windowHalf is how many of them lie left of the node at or left of the sample (tests move
// them, to make samples reach beyond them).
var windowHalf = 7

// windowKernel is what windowAVX2 reads, at the offsets it reads it from.
type windowKernel struct {
	xs, a, b *float64
	counts   *int64
	maxStart int // the last start of the 16 nodes: the run's length less 16
	half     int // the start is the sample's place less half
	y, r1s   float64
	x0, inv  float64
	sq, r2s  float64
	r12s     float64
	inf      float64 // +Inf and -Inf: what the nodes not taking a value take into min and max
	ninf     float64
	absMask  uint64
	stat     int
}

//go:noescape
func windowAVX2(k *windowKernel, px, py, pz *float64, j, n int) int

// windowFastStart readies windowFast for the run's nodes on the line y, and says whether it
// can take their samples.
func windowFastStart(w *windowSpan, wb *windowBuf, y float64) bool {
	xs := wb.xs
	m := len(xs)
	if !haveWindowAVX2 || m < windowLanes || !(xs[m-1] > xs[0]) {
		return false
	}
	inv := float64(m-1) / (xs[m-1] - xs[0])
	// The nodes a sample reaches lie within min(sq, r1) of it: 16 nodes hold them with room.
	if reach := min(w.sq, math.Sqrt(w.r1s)) * inv; !(reach <= 6) {
		return false
	}
	if len(wb.c) < m {
		wb.c = make([]int64, m)
	}
	clear(wb.c[:m])
	wb.k = windowKernel{xs: &xs[0], a: &wb.a[0], b: &wb.b[0], counts: &wb.c[0], maxStart: m - windowLanes,
		half: windowHalf, y: y, r1s: w.r1s, x0: xs[0], inv: inv, sq: w.sq, r2s: w.r2s, r12s: w.r12s,
		inf: math.Inf(1), ninf: math.Inf(-1), absMask: 1<<63 - 1, stat: int(w.stat)}
	return true
}

// windowFast adds the samples at (px[j], py[j]) with values zs to the run's nodes on the line
// y as windowRange does, in assembly where it can; windowFastStart readied it.
func windowFast(w *windowSpan, wb *windowBuf, px, py, zs []float64, y float64) {
	py = py[:len(px)]
	pz := &wb.xs[0] // read only for the statistics of the values
	if zs != nil {
		zs = zs[:len(px)]
		pz = &zs[0]
	}
	for j := 0; j < len(px); j++ {
		if j = windowAVX2(&wb.k, &px[0], &py[0], pz, j, len(px)); j < len(px) {
			// Its nodes may reach beyond the 16: the loop adds it.
			var z []float64
			if zs != nil {
				z = zs[j : j+1]
			}
			windowRange(w, wb, px[j:j+1], py[j:j+1], z, 1, 1, y)
		}
	}
}
