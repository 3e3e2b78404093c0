package tiles

import (
	"context"
	"math"
	"runtime"

	"github.com/aidw/aidw/internal/parts"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/sample"
)

// Spreads says whether an in-memory problem of alg over n samples can be spread over these
// engines by Spread: a local form (the nearest family without triangles, or the radius family
// where the order of the samples does not matter) whose every engine orders compact samples
// itself and tells each node's reach, so that a band's samples need neither an order nor a
// search of the host's; not a form that a GPU sums in its cells' order.
func Spreads(engines []interp.Engine, alg interp.Algorithm, n int) bool {
	r := RuleFor(alg, n)
	local := r.Family == Nearest && !r.Triangles || r.Family == Radius && !r.Layout
	return len(engines) > 1 && local && !DeviceSumsInCellOrder(alg) && takeUnsorted(engines, alg)
}

// DeviceSumsInCellOrder says whether a GPU sums alg's neighbourhoods in its own grid's cell
// order, which depends on the samples a tile loads: its tiles then run on the CPU engine.
func DeviceSumsInCellOrder(alg interp.Algorithm) bool {
	da, ok := alg.(interp.DeviceAlgorithm)
	if !ok {
		return false
	}
	d, _, _ := da.DeviceParams(nil, interp.Bounds{})
	return d.Form == interp.DeviceRadius
}

// Spread computes problem p, whose samples are in memory, on several engines (the GPUs of a
// host) as bands of rows, two an engine: each engine loads the samples of its band and halo
// only, where interp.Multi gives every engine every sample, and the halo check (as for
// tiles, with the engines' own reach) proves each node equal to the run on every sample. Rows
// go to sink in order. Check Spreads first.
func Spread(ctx context.Context, engines []interp.Engine, p *interp.Problem, threads int, sink interp.BandSink, progress func(float64)) error {
	if err := interp.CheckProblem(ctx, p); err != nil {
		return err
	}
	s := p.Samples
	facts := &Facts{N: s.Len(), OriginX: s.OriginX, OriginY: s.OriginY, QuantumX: s.QuantumX, QuantumY: s.QuantumY}
	facts.Rel[0], facts.Rel[1], facts.Rel[2], facts.Rel[3] = s.RelBounds()
	for k := range facts.Bounds {
		facts.Bounds[k] = facts.Rel[k] + [2]float64{s.OriginX, s.OriginY}[k%2]
	}
	cfg := Config{Target: p.Target, Alg: p.Alg, Engines: engines, Threads: threads, Progress: progress}
	res, err := newResident(ctx, s)
	if err != nil {
		return err
	}
	c, err := NewComputer(cfg, facts, res)
	if err != nil {
		return err
	}
	win := Tile{Cols: p.Target.Cols, Rows: p.Target.Rows}
	rows := max(1, (win.Rows+2*len(engines)-1)/(2*len(engines)))
	var bands []Tile
	for r := 0; r < win.Rows; r += rows {
		bands = append(bands, Tile{Row0: r, Cols: win.Cols, Rows: min(rows, win.Rows-r)})
	}
	return c.runTiles(ctx, win, bands, max(win.Cols, rows), sink)
}

// resident is a Source over samples held in memory, already relative to the job's origin.
// Each load copies those strictly inside its region on every core.
type resident struct {
	samples  *sample.Samples
	qx       [2]int64 // compact samples' range of x quanta
	unsorted bool
}

// newResident is the source of samples s, relative to the job's origin.
func newResident(ctx context.Context, s *sample.Samples) (*resident, error) {
	r := &resident{samples: s}
	if s.IsCompact() {
		lo, hi, err := sample.QuantaRange(ctx, s.QX)
		if err != nil {
			return nil, err
		}
		r.qx = [2]int64{int64(lo), int64(hi)}
	}
	return r, nil
}

// leaveUnsorted implements unsortable.
func (r *resident) leaveUnsorted() { r.unsorted = true }

// residentChunk is how many samples a core tests at a time: a load's unit of work, and of
// its response to ctx.
const residentChunk = 1 << 20

// Load implements Source.
func (r *resident) Load(ctx context.Context, region *[4]float64) (*sample.Samples, error) {
	s := r.samples
	pick := pickerOf(s, region, r.qx)
	n := s.Len()
	chunks := (n + residentChunk - 1) / residentChunk
	each := func(f func(k, lo, hi int)) error {
		parts.Each(chunks, min(chunks, runtime.GOMAXPROCS(0)), func(_, c0, c1 int) {
			for k := c0; k < c1 && ctx.Err() == nil; k++ {
				f(k, k*residentChunk, min(n, (k+1)*residentChunk))
			}
		})
		return ctx.Err()
	}
	at := make([]int, chunks+1) // first the count of each chunk, then where its samples go
	if err := each(func(k, lo, hi int) { at[k+1] = pick.count(lo, hi) }); err != nil {
		return nil, err
	}
	for k := range chunks {
		at[k+1] += at[k]
	}
	out := &sample.Samples{Z: make([]float64, at[chunks]), OriginX: s.OriginX, OriginY: s.OriginY,
		QuantumX: s.QuantumX, QuantumY: s.QuantumY}
	if s.IsCompact() {
		out.QX, out.QY = make([]int32, len(out.Z)), make([]int32, len(out.Z))
	} else {
		out.X, out.Y = make([]float64, len(out.Z)), make([]float64, len(out.Z))
	}
	if err := each(func(k, lo, hi int) {
		switch at[k+1] - at[k] {
		case 0:
		case hi - lo: // LAS files come in patches: a chunk often lies inside whole
			if s.IsCompact() {
				copy(out.QX[at[k]:], s.QX[lo:hi])
				copy(out.QY[at[k]:], s.QY[lo:hi])
			} else {
				copy(out.X[at[k]:], s.X[lo:hi])
				copy(out.Y[at[k]:], s.Y[lo:hi])
			}
			copy(out.Z[at[k]:], s.Z[lo:hi])
		default:
			pick.copy(lo, hi, at[k], out)
		}
	}); err != nil {
		return nil, err
	}
	// a part of samples in canonical order is in canonical order; of samples in the input's,
	// in the input's
	out.InputOrder = s.InputOrder
	if out.InputOrder && !r.unsorted {
		if err := sample.Canonicalize(ctx, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// picker picks the samples strictly inside a region (absolute). Compact samples are tested on
// their quanta, against the bounds in quanta that give the answer of their absolute
// coordinates: a comparison of integers a sample, in loops of their own for each form.
type picker struct {
	s      *sample.Samples
	region [4]float64
	q      [4]int64 // compact: the quanta inside, x from q[0] to q[2], y from q[1] to q[3]
	// yOnly says that every compact sample's x is inside: a band's region
	yOnly bool
}

// pickerOf picks the samples of s strictly inside region (nil: every sample); qx is the range
// of compact samples' x quanta.
func pickerOf(s *sample.Samples, region *[4]float64, qx [2]int64) *picker {
	p := &picker{s: s, region: [4]float64{math.Inf(-1), math.Inf(-1), math.Inf(1), math.Inf(1)}}
	if region != nil {
		p.region = *region
	}
	if s.IsCompact() {
		p.q[0], p.q[2] = quantaInside(p.region[0], p.region[2], s.QuantumX, s.OriginX)
		p.q[1], p.q[3] = quantaInside(p.region[1], p.region[3], s.QuantumY, s.OriginY)
		p.yOnly = p.q[0] <= qx[0] && p.q[2] >= qx[1]
	}
	return p
}

// count is the number of samples lo to hi-1 inside.
func (p *picker) count(lo, hi int) int {
	s, n := p.s, 0
	if p.yOnly {
		for _, qy := range s.QY[lo:hi] {
			if int64(qy) >= p.q[1] && int64(qy) <= p.q[3] {
				n++
			}
		}
		return n
	}
	if s.IsCompact() {
		for i := lo; i < hi; i++ {
			qx, qy := int64(s.QX[i]), int64(s.QY[i])
			if qx >= p.q[0] && qx <= p.q[2] && qy >= p.q[1] && qy <= p.q[3] {
				n++
			}
		}
		return n
	}
	for i := lo; i < hi; i++ {
		if p.plainInside(i) {
			n++
		}
	}
	return n
}

// copy puts the samples lo to hi-1 inside into out, from its sample j on.
func (p *picker) copy(lo, hi, j int, out *sample.Samples) {
	s := p.s
	if s.IsCompact() {
		for i := lo; i < hi; i++ {
			qx, qy := int64(s.QX[i]), int64(s.QY[i])
			if qx >= p.q[0] && qx <= p.q[2] && qy >= p.q[1] && qy <= p.q[3] {
				out.QX[j], out.QY[j], out.Z[j] = s.QX[i], s.QY[i], s.Z[i]
				j++
			}
		}
		return
	}
	for i := lo; i < hi; i++ {
		if p.plainInside(i) {
			out.X[j], out.Y[j], out.Z[j] = s.X[i], s.Y[i], s.Z[i]
			j++
		}
	}
}

func (p *picker) plainInside(i int) bool {
	x, y := p.s.X[i]+p.s.OriginX, p.s.Y[i]+p.s.OriginY
	return x > p.region[0] && x < p.region[2] && y > p.region[1] && y < p.region[3]
}

// quantaInside is the range of quanta q, lo to hi, for which q*quantum+origin lies strictly
// between a and b (lo > hi: none).
func quantaInside(a, b, quantum, origin float64) (lo, hi int64) {
	at := func(q int64) float64 { return float64(q)*quantum + origin }
	clamp := func(v float64) int64 { return int64(math.Max(math.MinInt32-1, math.Min(math.MaxInt32+1, v))) }
	lo = clamp(math.Floor((a - origin) / quantum))
	for lo <= math.MaxInt32 && at(lo) <= a {
		lo++
	}
	for lo > math.MinInt32 && at(lo-1) > a {
		lo--
	}
	hi = clamp(math.Ceil((b - origin) / quantum))
	for hi >= math.MinInt32 && at(hi) >= b {
		hi--
	}
	for hi < math.MaxInt32 && at(hi+1) < b {
		hi++
	}
	return lo, hi
}
