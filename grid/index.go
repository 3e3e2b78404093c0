// Package grid is the even-grid spatial index over the samples: cell keys, samples ordered by
// cell, per-cell counts and cell starts (the stages the GPU runs too), and exact k-nearest,
// radius and rotated-ellipse queries on it.
//
// The build is Bounds -> NewLayout -> Keys -> SortByKey -> CountByKey -> ExclusiveScan; each
// stage is an exported pure function so that the GPU build can be checked against it stage by
// stage. Samples in canonical order (ascending y) take a shortcut from the layout to the same
// index: a counting sort row by row (orderByRow). Queries never allocate when dst has room,
// and any number may run at once.
package grid

import (
	"context"
	"fmt"
	"math"
)

// Neighbor is a sample found by a query: its index in the input and its squared distance,
// computed as float64(dx*dx) + float64(dy*dy) with dx = x-qx, dy = y-qy: each product rounded,
// never fused into a multiply-add, so that every platform (and the GPU, built without FMA
// contraction for this) gets the same D2 and so the same order.
type Neighbor struct {
	ID int32
	D2 float64
}

// Index is the even grid as flat arrays. The samples of cell c are Order[Start[c]:Start[c+1]],
// in input order; since keys are row-major, a run of cells along a row is one contiguous range.
type Index struct {
	Layout Layout
	// Order holds the sample indices sorted by cell key.
	Order []int32
	// Start has Layout.Cells()+1 entries: the exclusive scan of the per-cell counts.
	Start []int32
	// X and Y are the coordinates permuted into Order (X[j] = x[Order[j]]), so a query reads
	// the samples of neighbouring cells from contiguous memory. A compact index (BuildCompact)
	// holds them as QX and QY instead, in quanta: X[j] = QX[j]*QuantumX.
	X, Y               []float64
	QX, QY             []int32
	QuantumX, QuantumY float64
}

// coord is how an index holds a coordinate: float64, or int32 quanta (compact).
type coord interface{ int32 | float64 }

// Build indexes the samples at (x[i], y[i]). x and y must have the same length, below 2^31,
// and finite values (callers reject NaN and infinite coordinates before indexing).
func Build(x, y []float64) *Index {
	ix := &Index{}
	ix.X, ix.Y = build(context.Background(), ix, x, y, 1, 1, nil)
	return ix
}

// BuildCompact indexes the samples at (qx[i]*quantumX, qy[i]*quantumY) and keeps them in that
// form: the same index as Build on those coordinates, in half the memory.
func BuildCompact(qx, qy []int32, quantumX, quantumY float64) *Index {
	if !(quantumX > 0) || !(quantumY > 0) {
		panic(fmt.Sprintf("grid.BuildCompact: quanta %g, %g must be positive", quantumX, quantumY))
	}
	ix := &Index{QuantumX: quantumX, QuantumY: quantumY}
	ix.QX, ix.QY = build(context.Background(), ix, qx, qy, quantumX, quantumY, nil)
	return ix
}

// build runs the stages on the samples at (x[i]*sx, y[i]*sy), fills the index's layout, order
// and starts, and returns the coordinates permuted into the order.
// A given layout (see OfLayout) replaces the one the samples' box would give. A cancelled ctx
// leaves the index unfinished (the caller returns ctx's error).
func build[T coord](ctx context.Context, ix *Index, x, y []T, sx, sy float64, given *Layout) (px, py []T) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("grid.Build: %d x but %d y coordinates", len(x), len(y)))
	}
	n := len(x)
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("grid.Build: %d samples, at most %d can be indexed", n, math.MaxInt32))
	}
	var l Layout
	if given != nil {
		l = *given
	} else {
		minX, minY, maxX, maxY := bounds(x, y, sx, sy)
		l = NewLayout(minX, minY, maxX, maxY, n)
	}
	if order, start, px, py, ok := orderByRow(ctx, x, y, sx, sy, l); ok {
		ix.Layout, ix.Order, ix.Start = l, order, start
		return px, py
	}
	keys := make([]uint32, n)
	cellKeys(x, y, sx, sy, l, keys)
	sorted := make([]uint32, n)
	order := make([]int32, n)
	SortByKey(keys, l.Cells(), sorted, order)
	counts := make([]int32, l.Cells())
	CountByKey(sorted, counts)
	start := make([]int32, l.Cells()+1)
	ExclusiveScan(counts, start)
	px, py = make([]T, n), make([]T, n)
	forChunks(n, chunkCount(n), func(_, lo, hi int) {
		for j, i := range order[lo:hi] {
			px[lo+j], py[lo+j] = x[i], y[i]
		}
	})
	ix.Layout, ix.Order, ix.Start = l, order, start
	return px, py
}

// Len is the number of samples indexed.
func (ix *Index) Len() int { return len(ix.Order) }

// At returns the coordinates of the sample at place j of Order.
func (ix *Index) At(j int32) (x, y float64) {
	if ix.QX != nil {
		return float64(ix.QX[j]) * ix.QuantumX, float64(ix.QY[j]) * ix.QuantumY
	}
	return ix.X[j], ix.Y[j]
}
