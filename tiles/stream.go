package tiles

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/sample"
)

// Streamer is a Source that also gives every sample of the job in the job's order (the order
// Load(nil) gives them in), a chunk at a time: a global form over more samples than memory
// holds streams them past each tile's nodes (see interp.Stream).
type Streamer interface {
	// Stream calls each with consecutive chunks of the job's samples, in order, relative to
	// the job's origin, each of at most about chunk samples (more only where more than a
	// chunk share one y).
	Stream(ctx context.Context, chunk int, each func(*sample.Samples) error) error
}

// Stream implements Streamer. Samples in input order (one text or vector input) come by
// ranges of their places in the input, each bucket's blocks read where they overlap the
// range; samples in canonical order (y, then x, then z) by slabs of whole rows of buckets,
// since a sample's bucket row never decreases with its y, so that the slabs' canonical orders
// follow one another as the whole's does (a row larger than a chunk by slabs of y, streamRow).
func (s *Spill) Stream(ctx context.Context, chunk int, each func(*sample.Samples) error) error {
	chunk = max(chunk, 1)
	if s.ordered {
		for lo := uint64(0); lo < s.seq; lo += uint64(chunk) {
			part, err := s.loadPlaces(ctx, lo, min(lo+uint64(chunk), s.seq))
			if err != nil {
				return err
			}
			if err := each(part); err != nil {
				return err
			}
		}
		return nil
	}
	rows := make([]int, s.ny)
	for k := range s.buckets {
		rows[k/s.nx] += s.buckets[k].n
	}
	return runs(rows, chunk, func(j0, j1, n int) error {
		if n > chunk {
			return s.streamRow(ctx, j0, chunk, each)
		}
		part, err := s.load(ctx, nil, func(k int) bool { j := k / s.nx; return j >= j0 && j < j1 })
		if err != nil {
			return err
		}
		return each(part)
	})
}

// runs cuts counts into runs of consecutive entries holding at most most in all (or one entry
// that holds more), and calls f with each run [lo, hi) that holds any, and what it holds.
func runs(counts []int, most int, f func(lo, hi, n int) error) error {
	for lo := 0; lo < len(counts); {
		hi, n := lo+1, counts[lo]
		for hi < len(counts) && n+counts[hi] <= most {
			n += counts[hi]
			hi++
		}
		if n > 0 {
			if err := f(lo, hi, n); err != nil {
				return err
			}
		}
		lo = hi
	}
	return nil
}

// streamRow streams bucket row j, which holds more than chunk samples, in slabs of y: the
// row's y extent is cut into bins (monotonic in y, so that the slabs' canonical orders follow
// one another), counted in one pass, and runs of bins of at most chunk samples (or one bin)
// are loaded in turn.
func (s *Spill) streamRow(ctx context.Context, j, chunk int, each func(*sample.Samples) error) error {
	inRow := func(k int) bool { return k/s.nx == j }
	ylo, yhi, n := math.Inf(1), math.Inf(-1), 0
	for k := j * s.nx; k < (j+1)*s.nx; k++ {
		if b := &s.buckets[k]; b.n > 0 {
			ylo, yhi, n = math.Min(ylo, b.box[1]), math.Max(yhi, b.box[3]), n+b.n
		}
	}
	bins := min(max(16*n/chunk, 1), 1<<20)
	scale := float64(bins) / (yhi - ylo)
	if !(yhi > ylo) || math.IsInf(scale, 0) {
		part, err := s.load(ctx, nil, inRow) // one y: nothing to cut
		if err != nil {
			return err
		}
		return each(part)
	}
	binOf := func(y float64) int { return min(max(int((y-ylo)*scale), 0), bins-1) }
	count := make([]int, bins)
	if err := s.eachRecord(ctx, inRow, func(r []byte) { count[binOf(s.recordY(r))]++ }); err != nil {
		return err
	}
	return runs(count, chunk, func(lo, hi, m int) error {
		part, err := s.loadKept(ctx, inRow, func(y float64) bool { b := binOf(y); return b >= lo && b < hi }, m)
		if err != nil {
			return err
		}
		return each(part)
	})
}

// loadKept returns the m samples of the buckets pick takes whose absolute y (recordY's) keep
// takes, in canonical order, relative to the job's origin: read a block at a time and kept as
// they come, so that memory follows the samples kept, not the buckets read.
func (s *Spill) loadKept(ctx context.Context, pick func(bucket int) bool, keep func(y float64) bool, m int) (*sample.Samples, error) {
	if s.ordered {
		return nil, fmt.Errorf("the spill of one input streams by places in the input, not by slabs of y")
	}
	out := &sample.Samples{Z: make([]float64, 0, m)}
	if s.compact {
		out.OriginX, out.OriginY, out.QuantumX, out.QuantumY = s.originX, s.originY, s.quantumX, s.quantumY
		out.QX, out.QY = make([]int32, 0, m), make([]int32, 0, m)
	} else {
		out.X, out.Y = make([]float64, 0, m), make([]float64, 0, m) // absolute, as Load's
	}
	le := binary.LittleEndian
	err := s.eachRecord(ctx, pick, func(r []byte) {
		switch {
		case !keep(s.recordY(r)):
		case s.compact:
			out.QX = append(out.QX, int32(le.Uint32(r)))
			out.QY = append(out.QY, int32(le.Uint32(r[4:])))
			out.Z = append(out.Z, math.Float64frombits(le.Uint64(r[8:])))
		default:
			out.X = append(out.X, math.Float64frombits(le.Uint64(r)))
			out.Y = append(out.Y, math.Float64frombits(le.Uint64(r[8:])))
			out.Z = append(out.Z, math.Float64frombits(le.Uint64(r[16:])))
		}
	})
	if err != nil {
		return nil, err
	}
	if err := sample.Canonicalize(ctx, out); err != nil {
		return nil, err
	}
	out.MoveOrigin(s.jobOriginX, s.jobOrigY)
	return out, nil
}

// eachRecord calls f with every record of the buckets pick takes, a block read at a time.
func (s *Spill) eachRecord(ctx context.Context, pick func(bucket int) bool, f func(record []byte)) error {
	rec := s.record()
	var buf []byte
	for i := range s.buckets {
		if !pick(i) {
			continue
		}
		for _, bl := range s.buckets[i].blocks {
			if err := ctx.Err(); err != nil {
				return err
			}
			buf = slices.Grow(buf[:0], bl.n*rec)[:bl.n*rec]
			if err := s.readBlock(buf, bl); err != nil {
				return err
			}
			for r := 0; r < len(buf); r += rec {
				f(buf[r : r+rec])
			}
		}
	}
	return nil
}

// recordY is the absolute y of the record at the start of r, as a load computes it.
func (s *Spill) recordY(r []byte) float64 {
	if s.compact {
		return float64(int32(binary.LittleEndian.Uint32(r[4:])))*s.quantumY + s.originY
	}
	y := math.Float64frombits(binary.LittleEndian.Uint64(r[8:]))
	if s.relative() {
		y += s.originY
	}
	return y
}

// loadPlaces returns the plain samples whose places in the input are in [lo, hi), in input
// order, relative to the job's origin (moved from the reader's, as the in-memory run moves
// them): every place holds one sample, so that each record goes straight to its own.
func (s *Spill) loadPlaces(ctx context.Context, lo, hi uint64) (*sample.Samples, error) {
	n := int(hi - lo)
	out := &sample.Samples{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n), OriginX: s.originX, OriginY: s.originY}
	type part struct {
		k   *bucket
		bls []block
	}
	var parts []part
	for i := range s.buckets {
		k := &s.buckets[i]
		a, _ := slices.BinarySearchFunc(k.blocks, lo, func(b block, v uint64) int {
			if b.last < v {
				return -1
			}
			return 1
		})
		b := a
		for b < len(k.blocks) && k.blocks[b].first < hi {
			b++
		}
		if b > a {
			parts = append(parts, part{k, k.blocks[a:b]})
		}
	}
	le := binary.LittleEndian
	var placed atomic.Int64
	err := s.readBlocks(ctx, len(parts), func(i int) []block { return parts[i].bls }, func(_ int, buf []byte) {
		got := 0
		for r := 0; r < len(buf); r += plainRecord {
			q := le.Uint64(buf[r+24:])
			if q < lo || q >= hi {
				continue
			}
			j := q - lo
			out.X[j] = math.Float64frombits(le.Uint64(buf[r:]))
			out.Y[j] = math.Float64frombits(le.Uint64(buf[r+8:]))
			out.Z[j] = math.Float64frombits(le.Uint64(buf[r+16:]))
			got++
		}
		placed.Add(int64(got))
	})
	if err != nil {
		return nil, err
	}
	if int(placed.Load()) != n {
		return nil, fmt.Errorf("the spill file of the tiled run gave %d samples for places %d-%d: it is damaged", placed.Load(), lo, hi-1)
	}
	out.MoveOrigin(s.jobOriginX, s.jobOrigY)
	return out, nil
}

// streams says whether the job's global form goes tile by tile without every sample in
// memory: its samples stream past each tile's nodes, or a far field read from a plan
// (LoadFar) sums those beyond each tile's leaves.
func (c *Computer) streams() bool {
	return c.rule.Family == Global && (c.far != nil || c.plan != nil && c.plan.Chunk > 0)
}

// FarField says whether the job's global form sums distant samples by a far field, which a
// plan builds once for all its tiles (SaveFar, LoadFar).
func (c *Computer) FarField() bool {
	return c.rule.Family == Global && c.plan.Stream != nil && c.plan.Stream.FarField()
}

// SaveFar builds the job's far field as a streamed run does (its source must be a Streamer;
// the powers from tiles of side nodes, the samples streamed a plan's chunk at a time, or all
// at once when they fit) and writes it to w, for the tiles of a plan to load (LoadFar).
func (c *Computer) SaveFar(ctx context.Context, side int, w io.Writer, progress func(float64)) error {
	if !c.FarField() {
		return fmt.Errorf("%s: the job's global form does not use the far field", c.cfg.Alg.Name())
	}
	if err := c.prepareFar(ctx, side, progress); err != nil {
		return err
	}
	return c.far.Save(ctx, w)
}

// LoadFar takes the job's far field from r, as SaveFar wrote it, instead of building it: the
// tiles then sum from it and load only the samples around their nodes.
func (c *Computer) LoadFar(ctx context.Context, r io.Reader) error {
	if !c.FarField() {
		return fmt.Errorf("%s: the job's global form does not use the far field", c.cfg.Alg.Name())
	}
	f := c.facts
	far, err := c.plan.Stream.LoadFar(ctx, r, f.N, f.Rel, c.cfg.Target, f.OriginX, f.OriginY)
	if err != nil {
		return err
	}
	c.far = far
	return nil
}

// computeStreamed computes tile tl of a global form by streaming every sample of the job
// past its nodes (interp.Stream): for AIDW, each node's power, nearest distance and exact hit
// come first from the tile's samples and halo, checked node by node as the nearest family's
// are; progress is told how many of its nodes are left after each chunk.
func (c *Computer) computeStreamed(ctx context.Context, tl Tile, out [][]float64, progress func(left int)) error {
	t := c.cfg.Target
	n := tl.Rows * tl.Cols
	pending := make([]bool, n)
	for i := range pending {
		pending[i] = true
	}
	if t.Mask != nil {
		if err := c.mask(tl, pending); err != nil {
			return err
		}
		nd := c.cfg.Alg.NoData()
		for i, p := range pending {
			if !p {
				for _, band := range out {
					band[i] = nd
				}
			}
		}
	}
	if c.far != nil {
		return c.computeFar(ctx, tl, pending, out, progress)
	}
	st, ok := c.src.(Streamer)
	if !ok {
		return fmt.Errorf("%s weighs every sample at every node, and this job's samples cannot be streamed past the tiles (a plan's tiles read LAS directly): run it in one process", c.cfg.Alg.Name())
	}
	nodes, at := c.streamNodes(tl, pending)
	if len(at) == 0 {
		progress(0)
		return nil
	}
	if c.plan.Stream.Local != nil {
		local, err := c.localBands(ctx, tl, at, false)
		if err != nil {
			return err
		}
		nodes.Local = local
	}
	if c.constant != nil {
		for _, i := range at {
			for k := range out {
				out[k][i] = c.constant[k]
			}
		}
		progress(0)
		return nil
	}
	s, err := interp.NewStream(c.cfg.Alg, nodes)
	if err != nil {
		return err
	}
	threads := c.cfg.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// A form may need more than one pass of the samples (see interp.Stream.Again):
	// average_distance_pts one for each block of rows, which progress counts; invdist's exact
	// hits one more, which it does not.
	passes := c.plan.Stream.Passes(c.facts.N, nodes.PairRows)
	for pass, more := 0, true; more; pass++ {
		seen := pass * c.facts.N
		err = st.Stream(ctx, c.plan.Chunk, func(part *sample.Samples) error {
			if err := c.facts.check(part); err != nil {
				return err
			}
			c.Loads.Add(1)
			c.Loaded.Add(int64(part.Len()))
			if err := s.Add(ctx, part, threads); err != nil {
				return err
			}
			seen += part.Len()
			if pass < passes {
				progress(n - int(float64(n)*float64(seen)/float64(passes*c.facts.N+1)))
			}
			return nil
		})
		if err != nil {
			return err
		}
		if more, err = s.Again(); err != nil {
			return err
		}
	}
	vals := make([][]float64, len(out))
	for k := range vals {
		vals[k] = make([]float64, len(at))
	}
	if err := s.Finish(vals); err != nil {
		return err
	}
	for j, i := range at {
		for k := range out {
			out[k][i] = vals[k][j]
		}
	}
	if s.Constant() {
		c.constant = make([]float64, len(vals))
		for k := range vals {
			c.constant[k] = vals[k][0]
		}
	}
	progress(0)
	return nil
}

// streamNodes is the nodes of tile tl that pending marks (nil: all), and their places in the
// tile.
func (c *Computer) streamNodes(tl Tile, pending []bool) (interp.StreamNodes, []int) {
	t, f := c.cfg.Target, c.facts
	var at []int
	nodes := interp.StreamNodes{N: f.N, RasterNodes: float64(t.Cols) * float64(t.Rows), PairRows: c.plan.Chunk,
		Target: &t, OriginX: f.OriginX, OriginY: f.OriginY}
	for r := range tl.Rows {
		for k := range tl.Cols {
			if i := r*tl.Cols + k; pending == nil || pending[i] {
				x, y := t.Node(tl.Col0+k, tl.Row0+r, f.OriginX, f.OriginY)
				nodes.X, nodes.Y = append(nodes.X, x), append(nodes.Y, y)
				nodes.Col, nodes.Row = append(nodes.Col, tl.Col0+k), append(nodes.Row, tl.Row0+r)
				at = append(at, i)
			}
		}
	}
	return nodes, at
}

// localBands finds what the neighbourhood of each node at of tile tl decides of a streamed
// global form (the bands of its interp.StreamForm.Local: AIDW's powers, for those nodes),
// from the tile's samples and a halo that grows where a node's k nearest may lie beyond it;
// unmasked computes the nodes a mask skips too.
func (c *Computer) localBands(ctx context.Context, tl Tile, at []int, unmasked bool) ([][]float64, error) {
	alg := c.plan.Stream.Local
	nb := len(interp.BandNames(alg))
	pc := &Computer{cfg: c.cfg, facts: c.facts, src: c.src, nbands: nb,
		rule: Rule{Family: Nearest, K: c.plan.Stream.LocalK}}
	pc.cfg.Alg = alg
	if unmasked {
		pc.cfg.Target.Mask = nil
	}
	tileBands := make([][]float64, nb)
	for k := range tileBands {
		tileBands[k] = make([]float64, tl.Rows*tl.Cols)
	}
	// blocks of the tile whose samples and halo fit the budget (MemoryPlan.LoadSide)
	side := c.plan.LoadSide
	if side <= 0 {
		side = max(tl.Rows, tl.Cols)
	}
	blocks, err := tl.Split(side)
	if err != nil {
		return nil, err
	}
	eng := &interp.CPU{Threads: c.cfg.Threads}
	for _, b := range blocks {
		bands := make([][]float64, nb)
		for k := range bands {
			bands[k] = make([]float64, b.Rows*b.Cols)
		}
		err := pc.compute(ctx, eng, b, bands, nil, nil, func(int) {})
		c.Loads.Add(pc.Loads.Swap(0))
		c.Loaded.Add(pc.Loaded.Swap(0))
		if err != nil {
			return nil, err
		}
		for r := range b.Rows {
			for k := range bands {
				copy(tileBands[k][(b.Row0-tl.Row0+r)*tl.Cols+b.Col0-tl.Col0:][:b.Cols], bands[k][r*b.Cols:][:b.Cols])
			}
		}
	}
	local := make([][]float64, nb)
	for k := range local {
		local[k] = make([]float64, len(at))
		for j, i := range at {
			local[k][j] = tileBands[k][i]
		}
	}
	return local, nil
}

// prepareFar builds global AIDW's far field for the job, once, as the in-memory run builds
// it: the power of every node of the raster (masked or not, tile by tile of side nodes, each
// from its samples and halo), then the charges from every sample streamed in order (by the
// plan's chunks, or all at once where they fit). progress is told the fraction done.
func (c *Computer) prepareFar(ctx context.Context, side int, progress func(float64)) error {
	c.farBuilds.Add(1)
	st, ok := c.src.(Streamer)
	if !ok {
		return fmt.Errorf("aidw's far field needs every sample streamed, and this job's cannot be (a plan's tiles read LAS directly): run it in one process")
	}
	t := c.cfg.Target
	f := c.facts
	far, err := c.plan.Stream.NewFar(f.N, f.Rel, t, f.OriginX, f.OriginY)
	if err != nil {
		return err
	}
	all, err := Split(t, side)
	if err != nil {
		return err
	}
	for i, tl := range all {
		nodes, at := c.streamNodes(tl, nil)
		if nodes.Local, err = c.localBands(ctx, tl, at, true); err != nil {
			return err
		}
		far.AddPowers(nodes)
		progress(0.5 * float64(i+1) / float64(len(all)))
	}
	chunk := c.plan.Chunk
	if chunk <= 0 {
		chunk = f.N
	}
	seen := 0
	err = st.Stream(ctx, chunk, func(part *sample.Samples) error {
		if err := f.check(part); err != nil {
			return err
		}
		c.Loads.Add(1)
		c.Loaded.Add(int64(part.Len()))
		seen += part.Len()
		progress(0.5 + 0.5*float64(seen)/float64(f.N+1))
		return far.AddSamples(ctx, part)
	})
	if err != nil {
		return err
	}
	if err := far.Build(ctx); err != nil {
		return err
	}
	c.far = far
	return nil
}

// computeFar computes the nodes pending marks of tile tl by the far field, a block of the
// tile at a time (MemoryPlan.LoadSide): their powers from the block's samples and halo, their
// near fields from the samples of the leaves around them.
func (c *Computer) computeFar(ctx context.Context, tl Tile, pending []bool, out [][]float64, progress func(left int)) error {
	side := c.plan.LoadSide
	if side <= 0 {
		side = max(tl.Rows, tl.Cols)
	}
	blocks, err := tl.Split(side)
	if err != nil {
		return err
	}
	f := c.facts
	threads := c.cfg.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	left := tl.Rows * tl.Cols
	for _, b := range blocks {
		bp := make([]bool, b.Rows*b.Cols)
		for r := range b.Rows {
			copy(bp[r*b.Cols:][:b.Cols], pending[(b.Row0-tl.Row0+r)*tl.Cols+b.Col0-tl.Col0:][:b.Cols])
		}
		nodes, at := c.streamNodes(b, bp)
		left -= b.Rows * b.Cols
		if len(at) == 0 {
			continue
		}
		if nodes.Local, err = c.localBands(ctx, b, at, false); err != nil {
			return err
		}
		box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for i, x := range nodes.X {
			box = [4]float64{min(box[0], x), min(box[1], nodes.Y[i]), max(box[2], x), max(box[3], nodes.Y[i])}
		}
		nb := c.far.NearBox(box)
		m := c.far.NearMargin(nb)
		region := [4]float64{nb[0] - m + f.OriginX, nb[1] - m + f.OriginY, nb[2] + m + f.OriginX, nb[3] + m + f.OriginY}
		s, err := c.src.Load(ctx, &region)
		if err != nil {
			return err
		}
		if err := f.check(s); err != nil {
			return err
		}
		c.Loads.Add(1)
		c.Loaded.Add(int64(s.Len()))
		vals := make([][]float64, len(out))
		for k := range vals {
			vals[k] = make([]float64, len(at))
		}
		if err := c.far.Values(ctx, s, nb, nodes, vals, threads); err != nil {
			return err
		}
		for j, i := range at {
			o := (b.Row0-tl.Row0+i/b.Cols)*tl.Cols + b.Col0 - tl.Col0 + i%b.Cols
			for k := range out {
				out[k][o] = vals[k][j]
			}
		}
		progress(left)
	}
	return nil
}
