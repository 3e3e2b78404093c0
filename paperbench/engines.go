package paperbench

import (
	"context"
	"math"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/raster"
)

// PointsRun runs an engine at the input's nodes through interp.EvaluateAt, the even-grid index
// build included: the engine's Prepared must implement interp.PointComputer (the CPU engine's
// does).
func PointsRun(eng interp.Engine) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		start := time.Now()
		values, err := interp.EvaluateAt(ctx, eng, in.Problem(), in.NodeX, in.NodeY)
		if err != nil {
			return nil, err
		}
		return &Output{Values: values, Elapsed: time.Since(start)}, nil
	}
}

// RasterRun runs an engine that computes only raster nodes through interp.Grid, onto a north-up
// raster with exactly as many nodes as the input, over the square: everything the engine does
// (uploads, index build, downloads) is timed, and the output names the raster's nodes so that
// the check is made there.
func RasterRun(eng interp.Engine, timing string) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		cols, rows := rasterShape(in.Nodes)
		p := in.Problem()
		p.Target = raster.NorthUp(0, 0, Side, Side, cols, rows)
		values := make([]float64, 0, in.Nodes)
		sink := func(_, _ int, v []float64) error { values = append(values, v...); return nil }
		start := time.Now()
		if err := interp.Grid(ctx, eng, p, sink, nil); err != nil {
			return nil, err
		}
		elapsed := time.Since(start)
		nx, ny := rasterNodes(cols, rows)
		return &Output{Values: values, NodeX: nx, NodeY: ny, Elapsed: elapsed, Timing: timing}, nil
	}
}

// rasterShape is the most nearly square cols x rows with exactly n nodes (rows <= cols).
func rasterShape(n int) (cols, rows int) {
	for rows = int(math.Sqrt(float64(n))); rows > 1; rows-- {
		if n%rows == 0 {
			break
		}
	}
	rows = max(rows, 1)
	return n / rows, rows
}

// rasterNodes are the node centres of a north-up cols x rows raster over the square, row-major
// from the top row, as gdal_grid places them.
func rasterNodes(cols, rows int) (xs, ys []float64) {
	xs, ys = make([]float64, cols*rows), make([]float64, cols*rows)
	dx, dy := Side/float64(cols), Side/float64(rows)
	for r := range rows {
		for c := range cols {
			xs[r*cols+c] = (float64(c) + 0.5) * dx
			ys[r*cols+c] = Side - (float64(r)+0.5)*dy
		}
	}
	return xs, ys
}
