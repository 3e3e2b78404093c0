package grid

import "math"

// SamplesPerCell is the mean cell occupancy NewLayout aims for. Queries scan whole rows of cells
// at once, so an empty cell costs nothing and a fine grid wastes little: kNN with k = 15 ran
// equally fast (within noise) at 1 to 4 per cell, and 2 keeps cells small for clustered data.
const SamplesPerCell = 2

// Layout places the even grid: square cells of width Cell whose lower-left corner is
// (MinX, MinY), Cols x Rows of them, cell (col,row) having key row*Cols+col. InvCell is 1/Cell,
// stored so that every implementation (this package, the GPU kernels) computes keys with the
// same multiplication and so the same keys.
type Layout struct {
	MinX, MinY    float64
	Cell, InvCell float64
	Cols, Rows    int
}

// Bounds returns the bounding box of the samples: the first stage of the build, a min/max
// reduction. An empty set gives an inverted (infinite) box, which NewLayout turns into a single
// cell.
func Bounds(x, y []float64) (minX, minY, maxX, maxY float64) { return bounds(x, y, 1, 1) }

// bounds is Bounds of the samples at (x[i]*sx, y[i]*sy), for positive sx and sy.
func bounds[T coord](x, y []T, sx, sy float64) (minX, minY, maxX, maxY float64) {
	if qx, ok := any(x).([]int32); ok && len(x) > 0 {
		// Quanta times a positive quantum keep their order: the extremes of the quanta give
		// the box, bit for bit, without a conversion a sample.
		qy := any(y).([]int32)
		chunks := chunkCount(len(qx))
		box := make([][4]int32, chunks)
		forChunks(len(qx), chunks, func(c, lo, hi int) {
			b := [4]int32{qx[lo], qy[lo], qx[lo], qy[lo]}
			for i, q := range qx[lo:hi] {
				b[0], b[2] = min(b[0], q), max(b[2], q)
				b[1], b[3] = min(b[1], qy[lo+i]), max(b[3], qy[lo+i])
			}
			box[c] = b
		})
		b := box[0]
		for _, o := range box[1:] {
			b = [4]int32{min(b[0], o[0]), min(b[1], o[1]), max(b[2], o[2]), max(b[3], o[3])}
		}
		return float64(b[0]) * sx, float64(b[1]) * sy, float64(b[2]) * sx, float64(b[3]) * sy
	}
	chunks := chunkCount(len(x))
	box := make([][4]float64, chunks)
	forChunks(len(x), chunks, func(c, lo, hi int) {
		b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		// Plain comparisons, not min and max, which would pay for NaN rules the finite
		// coordinates never need.
		for i, xv := range x[lo:hi] {
			xi, yi := float64(xv)*sx, float64(y[lo+i])*sy
			if xi < b[0] {
				b[0] = xi
			}
			if xi > b[2] {
				b[2] = xi
			}
			if yi < b[1] {
				b[1] = yi
			}
			if yi > b[3] {
				b[3] = yi
			}
		}
		box[c] = b
	})
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for _, b := range box {
		minX, minY = min(minX, b[0]), min(minY, b[1])
		maxX, maxY = max(maxX, b[2]), max(maxY, b[3])
	}
	return minX, minY, maxX, maxY
}

// NewLayout chooses the grid for n samples in the box [minX,maxX] x [minY,maxY]. It is a pure
// function of its arguments, so the GPU build gets the identical layout from the same box and n.
//
// The rule: with target = max(1, n/SamplesPerCell) cells and extents w, h,
//
//	Cell = max(sqrt(w) * sqrt(h/target), max(w,h)/target)
//
// (the first term gives about SamplesPerCell samples per cell on an area; the second caps the
// cell count of a thin or collinear box at about 3*target+1), InvCell = 1/Cell,
// Cols = floor(w*InvCell)+1, Rows = floor(h*InvCell)+1, so the grid covers the box. A box with
// no extent (all samples at one point), a non-finite or inverted one (no samples), or one whose
// cell would be too small to invert is a single cell of width 1 at (minX, minY), or at 0 for a
// non-finite corner.
func NewLayout(minX, minY, maxX, maxY float64, n int) Layout {
	w, h := maxX-minX, maxY-minY
	if !finite(minX) || !finite(minY) || !(w >= 0) || !(h >= 0) || !finite(w) || !finite(h) {
		return singleCell(minX, minY)
	}
	target := max(1, float64(n)/SamplesPerCell)
	cell := max(math.Sqrt(w)*math.Sqrt(h/target), max(w, h)/target)
	inv := 1 / cell
	if !(cell >= 0x1p-1022) || !finite(inv) {
		return singleCell(minX, minY)
	}
	return Layout{
		MinX: minX, MinY: minY, Cell: cell, InvCell: inv,
		Cols: int(w*inv) + 1, Rows: int(h*inv) + 1,
	}
}

func singleCell(minX, minY float64) Layout {
	if !finite(minX) {
		minX = 0
	}
	if !finite(minY) {
		minY = 0
	}
	return Layout{MinX: minX, MinY: minY, Cell: 1, InvCell: 1, Cols: 1, Rows: 1}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Cells is the number of cells.
func (l Layout) Cells() int { return l.Cols * l.Rows }

// Key returns the key of the cell holding (x,y), clamped to the grid:
//
//	fx = (x - MinX) * InvCell; col = 0 if !(fx >= 0), Cols-1 if fx >= Cols, else int(fx)
//
// and likewise row from y; key = row*Cols + col. NaN lands in column or row 0.
func (l Layout) Key(x, y float64) uint32 {
	return uint32(clampCell((y-l.MinY)*l.InvCell, l.Rows)*l.Cols + clampCell((x-l.MinX)*l.InvCell, l.Cols))
}

// clampCell is the cell index of cell coordinate f clamped to [0, n-1].
func clampCell(f float64, n int) int {
	if !(f >= 0) {
		return 0
	}
	if f >= float64(n) {
		return n - 1
	}
	return int(f)
}

// floorCell is the cell index of cell coordinate f clamped to [-1, n]: -1 and n stand for
// "before the first" and "after the last", so ranges stay right for points off the grid.
func floorCell(f float64, n int) int {
	if !(f >= 0) {
		return -1
	}
	if f >= float64(n) {
		return n
	}
	return int(f)
}

// Keys is the second stage: keys[i] = l.Key(x[i], y[i]).
func Keys(x, y []float64, l Layout, keys []uint32) { cellKeys(x, y, 1, 1, l, keys) }

// cellKeys is Keys of the samples at (x[i]*sx, y[i]*sy).
func cellKeys[T coord](x, y []T, sx, sy float64, l Layout, keys []uint32) {
	forChunks(len(x), chunkCount(len(x)), func(_, lo, hi int) {
		for i, xi := range x[lo:hi] {
			keys[lo+i] = l.Key(float64(xi)*sx, float64(y[lo+i])*sy)
		}
	})
}
