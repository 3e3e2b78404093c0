package paperbench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/interp/farfield"
)

// cpuVariants are the CPU variants: the papers' serial baseline for each all-samples family
// and aidw's CPU engine on every core for each family.
func cpuVariants() []Variant {
	serial := func(f Family, label string, run RunFunc) Variant {
		return Variant{Name: VariantName(f, "cpu-serial", "", ""), Family: f, Device: CPU, Method: "cpu-serial",
			Label: label, Precision: F64, Baseline: true, Run: run}
	}
	engine := func(f Family, label string) Variant {
		return Variant{Name: VariantName(f, "cpu-engine", "", ""), Family: f, Device: CPU, Method: "cpu-engine",
			Label: label, Precision: F64, Run: PointsRun(&interp.CPU{})}
	}
	return []Variant{
		serial(IDW2, "CPU serial, 1 core (papers' baseline)", runSerialIDW),
		engine(IDW2, "CPU engine, all cores"),
		farFieldVariant(IDW2),
		serial(IDW3, "CPU serial, 1 core, math.Pow (papers' baseline)", runSerialIDW),
		engine(IDW3, "CPU engine, all cores"),
		farFieldVariant(IDW3),
		serial(AIDW, "CPU serial, 1 core, brute-force kNN, math.Pow (papers' baseline)", runSerialAIDW),
		engine(AIDW, "CPU engine, all cores, even-grid kNN"),
		farFieldVariant(AIDW),
		engine(IDWNN, "aidw CPU engine, all cores"),
		serial(BBox, "CPU serial loop", runSerialBBox),
	}
}

// exactHit is the squared distance under which a node takes a sample's value, as aidw and
// gdal_grid do.
const exactHit = 1e-13

// ctxEvery is how many nodes the serial loops compute between looks at the context.
const ctxEvery = 64

// runSerialIDW is the papers' CPU version of standard IDW: one core, float64, every sample
// for every node, 1/d^2 for power 2 (no square root, as the papers note) and math.Pow else.
func runSerialIDW(ctx context.Context, in *Input) (*Output, error) {
	power := in.Alg.(*interp.InvDist).Power
	values := make([]float64, in.Nodes)
	start := time.Now()
	for j := range values {
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if power == 2 {
			values[j] = serialIDW2(in.X, in.Y, in.Z, in.NodeX[j], in.NodeY[j])
		} else {
			values[j] = serialIDWPow(in.X, in.Y, in.Z, in.NodeX[j], in.NodeY[j], power)
		}
	}
	return &Output{Values: values, Elapsed: time.Since(start)}, nil
}

// serialIDW2 is the weighted mean at (x,y) with weights 1/d^2; a sample closer than exactHit
// (the first in input order) gives its own value.
func serialIDW2(xs, ys, zs []float64, x, y float64) float64 {
	var num, den float64
	for i := range xs {
		dx, dy := x-xs[i], y-ys[i]
		d2 := dx*dx + dy*dy
		if d2 < exactHit {
			return zs[i]
		}
		w := 1 / d2
		num += w * zs[i]
		den += w
	}
	return num / den
}

// serialIDWPow is serialIDW2 with weights 1/d^power = 1/pow(d^2, power/2).
func serialIDWPow(xs, ys, zs []float64, x, y, power float64) float64 {
	half := power / 2
	var num, den float64
	for i := range xs {
		dx, dy := x-xs[i], y-ys[i]
		d2 := dx*dx + dy*dy
		if d2 < exactHit {
			return zs[i]
		}
		w := 1 / math.Pow(d2, half)
		num += w * zs[i]
		den += w
	}
	return num / den
}

// runSerialAIDW is the papers' CPU version of AIDW: one core, float64, a brute-force kNN over
// every sample for each node, then the weighting over every sample with math.Pow. It runs the
// two as separate passes over the nodes so that they are timed as the 2016 paper's two stages.
func runSerialAIDW(ctx context.Context, in *Input) (*Output, error) {
	a := in.Alg.(*interp.AIDW)
	k := min(a.K, in.Samples)
	rExp := interp.ExpectedDistance(in.Samples, a.Area)
	alpha := make([]float64, in.Nodes)
	nearest := make([]float64, k)
	start := time.Now()
	for j := range alpha {
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		nearestK(in.X, in.Y, in.NodeX[j], in.NodeY[j], nearest)
		var rObs float64
		for _, d2 := range nearest {
			rObs += math.Sqrt(d2)
		}
		rObs /= float64(k)
		alpha[j] = interp.AlphaFromMu(interp.MuFromR(rObs/rExp, a.RMin, a.RMax), a.Alphas)
	}
	knnDone := time.Now()
	values := make([]float64, in.Nodes)
	for j := range values {
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		values[j] = serialIDWPow(in.X, in.Y, in.Z, in.NodeX[j], in.NodeY[j], alpha[j])
	}
	end := time.Now()
	return &Output{Values: values, Elapsed: end.Sub(start), Stages: []Stage{
		{Name: "kNN (brute force)", Elapsed: knnDone.Sub(start)},
		{Name: "weighting", Elapsed: end.Sub(knnDone)},
	}}, nil
}

// nearestK fills d with the len(d) smallest squared distances from (x,y) to the samples, in
// ascending order: the papers' method (keep the k best, insert a closer one), with an exact
// insertion where the published kernel's single swap pass can leave the list unsorted.
func nearestK(xs, ys []float64, x, y float64, d []float64) {
	k := len(d)
	for i := range d {
		d[i] = math.Inf(1)
	}
	for i := range xs {
		dx, dy := x-xs[i], y-ys[i]
		d2 := dx*dx + dy*dy
		if d2 >= d[k-1] {
			continue
		}
		j := k - 1
		for ; j > 0 && d[j-1] > d2; j-- {
			d[j] = d[j-1]
		}
		d[j] = d2
	}
}

// runSerialBBox is the bounding box by one loop on one core.
func runSerialBBox(_ context.Context, in *Input) (*Output, error) {
	start := time.Now()
	box := boundingBox(in.X, in.Y)
	return &Output{Values: box[:], Elapsed: time.Since(start)}, nil
}

// boundingBox returns minX, minY, maxX, maxY.
func boundingBox(xs, ys []float64) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i, x := range xs {
		b[0], b[1] = min(b[0], x), min(b[1], ys[i])
		b[2], b[3] = max(b[2], x), max(b[3], ys[i])
	}
	return b
}

// farFieldVariant is the far-field evaluation of a global family on the CPU: the Chebyshev
// treecode of interp/farfield (position and power interpolated), within 1e-9 of the sums.
func farFieldVariant(f Family) Variant {
	return Variant{Name: VariantName(f, "cpu-farfield", "", ""), Family: f, Device: CPU, Method: "cpu-farfield",
		Label: "CPU far field (Chebyshev treecode, tol 1e-9), all cores", Precision: F64, NearLinear: true, Run: runFarField}
}

// runFarField computes the family's global weighting at the nodes by farfield.Plan.Sums: one
// power for IDW, for AIDW each node's power from its k nearest (even-grid kNN, as the CPU
// engine finds them). The plan's build and the kNN are timed with the sums.
func runFarField(ctx context.Context, in *Input) (*Output, error) {
	start := time.Now()
	s := in.Local
	n := len(in.NodeX)
	tx, ty := make([]float64, n), make([]float64, n)
	for j := range n {
		tx[j], ty[j] = in.NodeX[j]-s.OriginX, in.NodeY[j]-s.OriginY
	}
	alpha := make([]float64, n)
	var opt farfield.Options
	switch a := in.Alg.(type) {
	case *interp.InvDist:
		for j := range alpha {
			alpha[j] = a.Power
		}
		opt.AlphaMin, opt.AlphaMax = a.Power, a.Power
	case *interp.AIDW:
		ix := grid.Build(s.X, s.Y)
		k := min(a.K, s.Len())
		rExp := interp.ExpectedDistance(s.Len(), a.Area)
		// the nodes' powers on every core, as the CPU engine finds them
		workers := runtime.GOMAXPROCS(0)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var nb []grid.Neighbor
				for j := w * n / workers; j < (w+1)*n/workers; j++ {
					if j%ctxEvery == 0 && ctx.Err() != nil {
						return
					}
					nb = ix.KNN(tx[j], ty[j], k, math.Inf(1), nb)
					rObs := 0.0
					for _, v := range nb {
						rObs += math.Sqrt(v.D2)
					}
					rObs /= float64(k)
					alpha[j] = interp.AlphaFromMu(interp.MuFromR(rObs/rExp, a.RMin, a.RMax), a.Alphas)
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opt.AlphaMin, opt.AlphaMax = slices.Min(a.Alphas[:]), slices.Max(a.Alphas[:])
	default:
		return nil, fmt.Errorf("the far field computes the global IDW and AIDW families, not %T", in.Alg)
	}
	pl, err := farfield.NewPlan(s.X, s.Y, s.Z, opt)
	if err != nil {
		return nil, err
	}
	num, den, hit := make([]float64, n), make([]float64, n), make([]int32, n)
	if err := pl.Sums(ctx, tx, ty, alpha, num, den, hit); err != nil {
		return nil, err
	}
	values := make([]float64, n)
	for j := range values {
		if hit[j] >= 0 {
			values[j] = s.Z[hit[j]]
			continue
		}
		values[j] = num[j] / den[j]
	}
	return &Output{Values: values, Elapsed: time.Since(start)}, nil
}
