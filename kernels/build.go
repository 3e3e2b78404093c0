//go:build cuda

package kernels

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/kernels/cuda"
	"github.com/aidw/aidw/sample"
)

// index is the even grid on the device, the twin of grid.Index: the samples in cell order
// (coordinates and values in float64, and in float32 for the fast global weighting), their input
// indices and the cell starts, on the layout grid.NewLayout gives for their bounding box.
type index struct {
	layout grid.Layout
	box    [4]float64 // the samples' bounding box (grid.Bounds)
	n      int
	order  buf // int32
	start  buf // int32, cells+1
	mem    buf // holds xy and z (builder.reserve)
	xy     buf // double2, in mem
	z      buf // float64, in mem
	s32    buf // float4 (x, y, z, 0), for the global weighting only (builder.float32)
}

func (ix *index) free() {
	cuda.FreeAll(&ix.order, &ix.start, &ix.mem, &ix.s32)
	ix.xy, ix.z = buf{}, buf{}
}

// allocSamples allocates room for n samples' coordinates and values in float64 (device thread
// only).
func allocSamples(n int) (x, y, z buf, err error) {
	for _, b := range []*buf{&x, &y, &z} {
		if *b, err = cuda.AllocN[float64](n); err != nil {
			cuda.FreeAll(&x, &y, &z)
			return buf{}, buf{}, buf{}, err
		}
	}
	return x, y, z, nil
}

// uploadSamples uploads the samples' coordinates and values (device thread only).
func uploadSamples(d *cuda.Device, s *sample.Samples) (x, y, z buf, err error) {
	if x, y, z, err = allocSamples(s.Len()); err != nil {
		return buf{}, buf{}, buf{}, err
	}
	if err = uploadRange(d, s, 0, s.Len(), x, y, z); err != nil {
		cuda.FreeAll(&x, &y, &z)
		return buf{}, buf{}, buf{}, err
	}
	return x, y, z, nil
}

// uploadRange puts samples lo..hi-1 of s into their places in x, y and z through the device's
// pinned staging buffers (device thread only); compact samples go as their quanta, which the
// device turns into coordinates (half the bytes of float64 ones: 8 of the 24 GB of 1e9
// samples).
func uploadRange(d *cuda.Device, s *sample.Samples, lo, hi int, x, y, z buf) error {
	var err error
	if s.IsCompact() {
		err = uploadQuanta(d, s, lo, hi, x, y)
	} else if err = cuda.UploadStaged(d, cuda.Part[float64](x, lo, hi), s.X[lo:hi]); err == nil {
		err = cuda.UploadStaged(d, cuda.Part[float64](y, lo, hi), s.Y[lo:hi])
	}
	if err == nil {
		err = cuda.UploadStaged(d, cuda.Part[float64](z, lo, hi), s.Z[lo:hi])
	}
	return err
}

// uploadQuanta fills samples lo..hi-1 of x and y with the coordinates of compact samples s from
// their quanta.
func uploadQuanta(d *cuda.Device, s *sample.Samples, lo, hi int, x, y buf) error {
	q, err := cuda.AllocN[int32](hi - lo)
	if err != nil {
		return err
	}
	defer q.Free()
	for _, c := range []struct {
		quanta  []int32
		quantum float64
		out     buf
	}{{s.QX, s.QuantumX, x}, {s.QY, s.QuantumY, y}} {
		if err := cuda.UploadStaged(d, q, c.quanta[lo:hi]); err != nil {
			return err
		}
		if err := quantaCoords(d, q, 0, c.quantum, hi-lo, cuda.Part[float64](c.out, lo, hi)); err != nil {
			return err
		}
		// done with q before the next quanta overwrite it
		if err := cuda.Synchronize("turning quanta into coordinates"); err != nil {
			return err
		}
	}
	return nil
}

// indexSamples uploads the samples and builds their index, the float32 samples included
// (device thread only); then, if also is not nil, calls it with the samples still on the
// device in input order and their box.
func indexSamples(d *cuda.Device, s *sample.Samples, also func(x, y, z buf, box [4]float64) error) (*index, error) {
	return indexSamplesOn(d, s, nil, nil, true, also)
}

// indexSamplesOn is indexSamples on the given layout (nil: the samples' own), as
// grid.OfLayout: a tile of a job, on the job's layout, meets its samples in the job's order.
// The samples come from the host, or, with sh, in slices from the GPUs of a group (Together); the
// index holds them in float32 too when float32 is set.
func indexSamplesOn(d *cuda.Device, s *sample.Samples, given *grid.Layout, sh *sharing, float32 bool,
	also func(x, y, z buf, box [4]float64) error) (*index, error) {
	x, y, z, err := sh.samples(d, s)
	if err != nil {
		return nil, err
	}
	defer sh.release(d, &x, &y, &z)
	return indexOn(d, x, y, z, s.Len(), given, float32, also)
}

// indexOn builds the index of the n samples x, y, z on the device, as indexSamplesOn does
// (device thread only); the caller frees them.
func indexOn(d *cuda.Device, x, y, z buf, n int, given *grid.Layout, float32 bool,
	also func(x, y, z buf, box [4]float64) error) (*index, error) {
	b := newBuilder(d)
	defer b.free()
	b.given, b.float32 = given, float32
	if _, err := b.build(x, y, z, n); err != nil {
		return nil, err
	}
	ix := b.take()
	if also != nil {
		if err := also(x, y, z, ix.box); err != nil {
			ix.free()
			return nil, err
		}
	}
	return ix, nil
}

// builder runs grid builds. It keeps its device memory (the temporaries and the index it
// fills) from one build to the next, so that rebuilding samples of the same size and layout
// allocates nothing: a build is then kernel launches only.
type builder struct {
	d       *cuda.Device
	given   *grid.Layout // the layout to build on, else the samples' own
	float32 bool         // the index holds the samples in float32 too (index.s32)
	n       int          // samples the buffers hold
	cells   int
	ix      index
	box     buf // float64 partial boxes, then the box
	// the cells' temporaries, in ix.mem (reserve) but for quadtree_cuda.go's own sort
	keys   buf    // uint32 cell keys
	sorted buf    // uint32 sorted keys
	k, v   [2]buf // the sort's ping-pong pairs
	runs   buf    // int32 run starts
	digits buf    // int32 digit counts, radix x tiles
	totals buf    // int32 digit totals, radix
	part   buf    // int32 scan tile sums
	small  buf    // int32 scan total, run count
	counts buf    // int32 per-cell counts
}

func newBuilder(d *cuda.Device) *builder { return &builder{d: d, float32: true} }

func (b *builder) free() {
	b.box.Free()
	b.freeSized()
}

// freeSized frees the buffers whose size depends on the samples and cells.
func (b *builder) freeSized() {
	b.ix.free()
	b.keys, b.sorted, b.k, b.v, b.runs = buf{}, buf{}, [2]buf{}, [2]buf{}, buf{}
	cuda.FreeAll(&b.digits, &b.totals, &b.part, &b.small, &b.counts)
	b.n, b.cells = 0, 0
}

// take hands the last build's index over to the caller.
func (b *builder) take() *index {
	ix := b.ix
	b.ix = index{}
	b.n, b.cells = 0, 0 // its buffers are gone: the next build allocates afresh
	return &ix
}

// boxBlocks is how many blocks the bounding box's first pass uses: at most 4 per SM.
func (b *builder) boxBlocks(n int) int { return BBoxBlocks(b.d, n) }

// indexBytes is the device memory the index of n samples takes at its build's peak (reserve):
// the samples uploaded (24 bytes a sample), the cells' temporaries that the samples in cell
// order then take (4*cellTemps), the order (4), the cells' counts and starts (8 a cell, at most
// about one cell for SamplesPerCell samples) and the sort's digit counts. The global form adds
// its float32 samples (16) and the far field's own index (4*cellTemps+4).
func indexBytes(n int, global bool) int64 {
	perSample := int64(24 + 4*cellTemps + 4)
	if global {
		perSample += 16 + 4*cellTemps + 4
	}
	cells := int64(n)/grid.SamplesPerCell + 2*int64(math.Sqrt(float64(n))) + 2
	return int64(n)*perSample + 8*cells + 4*radix*int64(cuda.Blocks(n, sortTile))
}

// cellTemps is how many int32s a sample the cells' temporaries take: keys, sorted keys, the
// sort's two ping-pong pairs, run starts.
const cellTemps = 7

// reserve makes the buffers hold n samples and cells cells. The cells' temporaries (28 bytes a
// sample) and the samples in cell order that the gather writes after them (24) share ix.mem:
// with their upload and cells, 1e9 samples take about 60 GB at the peak, not 100, which an
// 80 GB GPU holds.
func (b *builder) reserve(n, cells int) error {
	if n == b.n && cells == b.cells && b.ix.order.Ptr != 0 {
		return nil
	}
	b.freeSized()
	tiles := cuda.Blocks(n, sortTile)
	scanTiles := max(cuda.Blocks(cells, scanTile), cuda.Blocks(n, scanTile), 1)
	type want struct {
		b     *buf
		bytes int
	}
	wants := []want{
		{&b.ix.mem, 4 * cellTemps * n}, {&b.digits, 4 * radix * tiles}, {&b.totals, 4 * radix},
		{&b.part, 4 * scanTiles}, {&b.small, 8}, {&b.counts, 4 * cells}, {&b.ix.order, 4 * n},
		{&b.ix.start, 4 * (cells + 1)},
	}
	if b.float32 {
		wants = append(wants, want{&b.ix.s32, 16 * n})
	}
	for _, w := range wants {
		var err error
		if *w.b, err = cuda.Alloc(int64(w.bytes)); err != nil {
			b.freeSized()
			return err
		}
	}
	temps := make([]buf, cellTemps)
	for i := range temps {
		temps[i] = cuda.Part[int32](b.ix.mem, i*n, (i+1)*n)
	}
	b.keys, b.sorted, b.k, b.v, b.runs = temps[0], temps[1], [2]buf{temps[2], temps[3]}, [2]buf{temps[4], temps[5]}, temps[6]
	b.ix.xy = cuda.Part[float64](b.ix.mem, 0, 2*n)
	b.ix.z = cuda.Part[float64](b.ix.mem, 2*n, 3*n)
	b.n, b.cells = n, cells
	return nil
}

// build runs the whole build on samples already on the device: the cells (bounds to starts),
// then the gather of the samples into cell order.
func (b *builder) build(x, y, z buf, n int) (*index, error) {
	if err := b.buildCells(x, y, n); err != nil {
		return nil, err
	}
	if err := b.gather(&b.ix, x, y, z); err != nil {
		return nil, err
	}
	return &b.ix, nil
}

// buildCells runs the stages of grid.Build up to the cell starts: bounds, layout, keys, sort,
// counts, starts. Only the bounding box comes back to the host (for the layout).
func (b *builder) buildCells(x, y buf, n int) error {
	minX, minY, maxX, maxY, err := b.bounds(x, y, n)
	if err != nil {
		return err
	}
	l := grid.NewLayout(minX, minY, maxX, maxY, n)
	if b.given != nil {
		l = *b.given
	}
	if err := b.buildLayout(x, y, n, l); err != nil {
		return err
	}
	b.ix.box = [4]float64{minX, minY, maxX, maxY}
	return nil
}

// buildLayout runs the stages of buildCells after the layout: keys, sort, counts, starts.
func (b *builder) buildLayout(x, y buf, n int, l grid.Layout) error {
	if err := b.reserve(n, l.Cells()); err != nil {
		return err
	}
	b.ix.layout, b.ix.n = l, n
	if err := b.cellKeys(x, y, n, l, b.keys); err != nil {
		return err
	}
	if err := b.sortPairs(b.keys, n, l.Cells(), b.sorted, b.ix.order); err != nil {
		return err
	}
	if err := b.countByKey(b.sorted, n, l.Cells(), b.counts); err != nil {
		return err
	}
	return b.scan(b.counts, b.ix.start, l.Cells(), cuda.At[int32](b.ix.start, l.Cells()))
}

// bounds is grid.Bounds on the device: per-block boxes, then one block reduces them.
func (b *builder) bounds(x, y buf, n int) (minX, minY, maxX, maxY float64, err error) {
	if b.box.Ptr == 0 {
		if b.box, err = cuda.AllocN[float64](4 * (4*b.d.SMs() + 1)); err != nil {
			return
		}
	}
	nb := b.boxBlocks(n)
	out := cuda.At[float64](b.box, 4*nb)
	if err = bboxPartial(b.d, nb, x, y, n, b.box); err != nil {
		return
	}
	if err = bboxFinal(b.d, b.box, nb, out); err != nil {
		return
	}
	var box [4]float64
	if err = cuda.Download(box[:], b.box, 4*nb); err != nil {
		return
	}
	return box[0], box[1], box[2], box[3], nil
}

// cellKeys is grid.Keys on the device.
func (b *builder) cellKeys(x, y buf, n int, l grid.Layout, keys buf) error {
	return cellKeys(b.d, x, y, n, l, keys)
}

// scan writes the exclusive prefix sums of the n int32s of in to out (which may be in) and
// their total to *total.
func (b *builder) scan(in, out buf, n int, total cuda.DevicePtr) error {
	if n == 0 {
		return cuda.MemsetD32(total, 0, 1)
	}
	tiles := cuda.Blocks(n, scanTile)
	if int64(4*tiles) > b.part.Bytes {
		return fmt.Errorf("scan of %d items exceeds the builder's %d tiles", n, b.part.Bytes/4)
	}
	if err := scanReduce(b.d, tiles, in, n, b.part); err != nil {
		return err
	}
	if err := scanSpine(b.d, b.part, tiles, total); err != nil {
		return err
	}
	return scanDown(b.d, tiles, in, n, b.part, out)
}

// sortPairs is grid.SortByKey on the device: a stable LSD radix sort of (keys[i], i), 8 bits a
// pass, as many passes as cells-1 needs, into sorted and order.
func (b *builder) sortPairs(keys buf, n, cells int, sorted, order buf) error {
	return b.sortValues(keys, buf{}, n, cells, sorted, order)
}

// sortValues is sortPairs of (keys[i], vals[i]); a null vals stands for i.
func (b *builder) sortValues(keys, vals buf, n, cells int, sorted, order buf) error {
	passes := max(1, (bits.Len(uint(max(cells, 1)-1))+radixBits-1)/radixBits)
	tiles := cuda.Blocks(n, sortTile)
	srcK, srcV := keys, vals
	for p := range passes {
		dstK, dstV := b.k[p%2], b.v[p%2]
		if p == passes-1 {
			dstK, dstV = sorted, order
		}
		shift := p * radixBits
		if err := radixUpsweep(b.d, tiles, srcK, n, shift, b.digits); err != nil {
			return err
		}
		if err := radixDigitScan(b.d, b.digits, tiles, b.totals); err != nil {
			return err
		}
		if err := radixDownsweep(b.d, tiles, srcK, srcV, dstK, dstV, n, shift, b.digits, b.totals); err != nil {
			return err
		}
		srcK, srcV = dstK, dstV
	}
	return nil
}

// countByKey is grid.CountByKey on the device, as a reduce-by-key: a scan of the run-head flags
// of the sorted keys gives each run (cell) its start, and each run writes its length into the
// zeroed dense table of counts.
func (b *builder) countByKey(sorted buf, n, cells int, counts buf) error {
	if err := cuda.MemsetD32(counts.Ptr, 0, cells); err != nil {
		return fmt.Errorf("zeroing the cell counts: %w", err)
	}
	if n == 0 {
		return nil
	}
	tiles := cuda.Blocks(n, scanTile)
	runs := cuda.At[int32](b.small, 1)
	if err := scanReduceHeads(b.d, tiles, sorted, n, b.part); err != nil {
		return err
	}
	if err := scanSpine(b.d, b.part, tiles, runs); err != nil {
		return err
	}
	if err := scanDownHeads(b.d, tiles, sorted, n, b.part, b.runs); err != nil {
		return err
	}
	return runCounts(b.d, sorted, b.runs, runs, n, counts)
}

// gather permutes the samples into cell order, over the cells' temporaries.
func (b *builder) gather(ix *index, x, y, z buf) error {
	return gatherSamples(b.d, ix.order, x, y, z, ix.n, ix.xy, ix.z, ix.s32)
}
