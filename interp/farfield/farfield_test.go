package farfield

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// kahan is a Neumaier-compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// brute returns the sums at (x, y), the sum of w|z|, and the first exact hit, by math.Pow.
func brute(sx, sy, sz []float64, x, y, alpha float64) (num, den, abs float64, hit int32) {
	var n, d, a kahan
	hit = -1
	for i := range sx {
		dx, dy := sx[i]-x, sy[i]-y
		d2 := dx*dx + dy*dy
		if d2 < ExactHitD2 {
			if hit < 0 {
				hit = int32(i)
			}
			continue
		}
		w := math.Pow(d2, -alpha/2)
		n.add(w * sz[i])
		d.add(w)
		a.add(w * math.Abs(sz[i]))
	}
	return n.sum(), d.sum(), a.sum(), hit
}

type errs struct{ num, den float64 }

// check compares the sums at the targets idx (all when nil) with brute force.
func check(t testing.TB, sx, sy, sz, tx, ty, alpha []float64, opts Options, idx []int) errs {
	t.Helper()
	pl, err := NewPlan(sx, sy, sz, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := len(tx)
	num, den, hit := make([]float64, n), make([]float64, n), make([]int32, n)
	if err := pl.Sums(context.Background(), tx, ty, alpha, num, den, hit); err != nil {
		t.Fatal(err)
	}
	if idx == nil {
		for j := range n {
			idx = append(idx, j)
		}
	}
	// the brute force on every core: 2000 targets of 200,000 samples are 4e8 powers
	type sums struct {
		num, den, abs float64
		hit           int32
	}
	want := make([]sums, len(idx))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < len(idx); k = int(next.Add(1)) - 1 {
				j := idx[k]
				w := &want[k]
				w.num, w.den, w.abs, w.hit = brute(sx, sy, sz, tx[j], ty[j], alpha[j])
			}
		})
	}
	wg.Wait()
	var e errs
	for k, j := range idx {
		rn, rd, ra, rh := want[k].num, want[k].den, want[k].abs, want[k].hit
		if rh != hit[j] {
			t.Fatalf("target %d: hit %d, want %d", j, hit[j], rh)
		}
		en, ed := 0.0, 0.0
		if ra > 0 {
			en = math.Abs(num[j]-rn) / ra
		} else if num[j] != 0 {
			en = math.Inf(1)
		}
		if rd > 0 {
			ed = math.Abs(den[j]-rd) / rd
		} else if den[j] != 0 {
			ed = math.Inf(1)
		}
		if !(en <= e.num) {
			e.num = en
		}
		if !(ed <= e.den) {
			e.den = ed
		}
	}
	return e
}

func uniform(r *rand.Rand, n int, x0, y0, side float64) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n)
	for i := range n {
		x[i], y[i] = x0+side*r.Float64(), y0+side*r.Float64()
	}
	return x, y
}

func values(r *rand.Rand, x, y []float64) []float64 {
	z := make([]float64, len(x))
	for i := range z {
		z[i] = 100*math.Sin(x[i]*0.01) + y[i]*1e-3 + 10*r.NormFloat64()
	}
	return z
}

func alphas(r *rand.Rand, n int, lo, hi float64) []float64 {
	a := make([]float64, n)
	for i := range a {
		a[i] = lo + (hi-lo)*r.Float64()
	}
	return a
}

// leafFor forces a depth-3 tree on n samples, so that small cases reach the far field.
func leafFor(n int) int { return (n + 63) / 64 }

// smallCase checks every target of a case for a constant power and for powers varying per
// target in [1.5, 3.5], against brute force at the default tolerance, the leaves summed
// directly and (varying powers) by far operators.
func smallCase(t *testing.T, name string, sx, sy, sz, tx, ty []float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, uint64(len(sx))))
	for _, c := range []struct {
		lo, hi float64
		leaves Leaves
	}{{2, 2, LeavesDirect}, {1.5, 3.5, LeavesDirect}, {3.5, 3.5, LeavesDirect}, {1.5, 3.5, LeavesOperators}} {
		o := Options{AlphaMin: c.lo, AlphaMax: c.hi, LeafSize: leafFor(len(sx)), Leaves: c.leaves}
		e := check(t, sx, sy, sz, tx, ty, alphas(r, len(tx), c.lo, c.hi), o, nil)
		t.Logf("%s alpha [%g,%g] leaves %d: max error num %.3g den %.3g", name, c.lo, c.hi, c.leaves, e.num, e.den)
		if e.num > 1e-9 || e.den > 1e-9 {
			t.Errorf("%s alpha [%g,%g] leaves %d: error num %.3g den %.3g > 1e-9", name, c.lo, c.hi, c.leaves, e.num, e.den)
		}
	}
}

func TestUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sx, sy := uniform(r, 3000, 0, 0, 1000)
	tx, ty := uniform(r, 2000, -50, -50, 1100) // some outside the samples' box
	smallCase(t, "uniform", sx, sy, values(r, sx, sy), tx, ty)
}

func TestClustered(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sx, sy []float64
	for range 6 {
		cx, cy, s := 1000*r.Float64(), 1000*r.Float64(), 20*r.Float64()+0.01
		for range 500 {
			sx, sy = append(sx, cx+s*r.NormFloat64()), append(sy, cy+s*r.NormFloat64())
		}
	}
	tx, ty := uniform(r, 1500, 0, 0, 1000)
	tx, ty = append(tx, sx[:500]...), append(ty, sy[:500]...) // targets in a cluster, on samples
	smallCase(t, "clustered", sx, sy, values(r, sx, sy), tx, ty)
}

func TestDuplicates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sx, sy := uniform(r, 1500, 0, 0, 100)
	// every sample twice (values differ), and a third copy within the exact-hit distance
	sx, sy = append(sx, sx...), append(sy, sy...)
	for i := range 500 {
		sx, sy = append(sx, sx[i]+2e-7), append(sy, sy[i])
	}
	sz := values(r, sx, sy)
	for i := 1500; i < 3000; i++ {
		sz[i] = -sz[i]
	}
	tx, ty := uniform(r, 1000, 0, 0, 100)
	// targets on samples, within and just beyond the exact-hit distance
	for i := range 300 {
		tx, ty = append(tx, sx[i], sx[i+300]+1e-7, sx[i+600]+4e-7), append(ty, sy[i], sy[i+300], sy[i+600])
	}
	smallCase(t, "duplicates", sx, sy, sz, tx, ty)
}

func TestCollinear(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 3000
	sx, sy := make([]float64, n), make([]float64, n)
	for i := range n {
		u := 1000 * r.Float64()
		sx[i], sy[i] = u, 0.5*u+3
	}
	tx, ty := uniform(r, 1000, 0, 0, 1000)
	for range 1000 { // targets on the line too
		u := 1000 * r.Float64()
		tx, ty = append(tx, u), append(ty, 0.5*u+3)
	}
	smallCase(t, "collinear", sx, sy, values(r, sx, sy), tx, ty)
}

func TestUTM(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	// absolute UTM-like coordinates over 10 km, and the same relative to a local origin
	sx, sy := uniform(r, 3000, 450000, 5400000, 10000)
	tx, ty := uniform(r, 2000, 450000, 5400000, 10000)
	sz := values(r, sx, sy)
	smallCase(t, "utm absolute", sx, sy, sz, tx, ty)
	rx, ry, qx, qy := make([]float64, len(sx)), make([]float64, len(sx)), make([]float64, len(tx)), make([]float64, len(tx))
	for i := range sx {
		rx[i], ry[i] = sx[i]-455000, sy[i]-5405000
	}
	for j := range tx {
		qx[j], qy[j] = tx[j]-455000, ty[j]-5405000
	}
	smallCase(t, "utm relative", rx, ry, sz, qx, qy)
}

// TestErrorsShow makes sure that the tests can fail: a far field of too low an order must
// exceed the tolerance.
func TestErrorsShow(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	sx, sy := uniform(r, 3000, 0, 0, 1000)
	tx, ty := uniform(r, 500, 0, 0, 1000)
	o := Options{Order: 5, AlphaOrder: 2, LeafSize: leafFor(3000)}
	e := check(t, sx, sy, values(r, sx, sy), tx, ty, alphas(r, 500, 1.5, 3.5), o, nil)
	if e.den < 1e-6 {
		t.Errorf("order 5, 2 powers: error %.3g, expected far above the tolerance", e.den)
	}
}

// TestLarge checks 2000 sampled targets of 200,000 samples onto 200,000 targets.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	r := rand.New(rand.NewPCG(13, 14))
	n := 200000
	sx, sy := uniform(r, n, 0, 0, 1000)
	tx, ty := uniform(r, n, 0, 0, 1000)
	idx := make([]int, 2000)
	for i := range idx {
		idx[i] = r.IntN(n)
	}
	e := check(t, sx, sy, values(r, sx, sy), tx, ty, alphas(r, n, 1.5, 3.5), Options{}, idx)
	t.Logf("200k x 200k: max error num %.3g den %.3g at 2000 targets", e.num, e.den)
	if e.num > 1e-9 || e.den > 1e-9 {
		t.Errorf("error num %.3g den %.3g > 1e-9", e.num, e.den)
	}
}

func TestOrders(t *testing.T) {
	for _, o := range []Options{{}, {AlphaMin: 2, AlphaMax: 2}, {Tol: 1e-6}, {AlphaMin: 1, AlphaMax: 6}} {
		pl, err := NewPlan(nil, nil, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		p, q := pl.Order()
		t.Logf("%+v: p %d q %d", o, p, q)
	}
}

// A Field gives the brute force's sums within the tolerance at every target of a square larger
// than the samples' box, with a power per target, and the same bits whatever targets are
// asked around it (its tree does not depend on them), unlike Sums.
func TestFieldMatchesBruteAndIsFixed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sx, sy := uniform(r, 30000, 500000, 5400000, 1000)
	sz := values(r, sx, sy)
	pl, err := NewPlan(sx, sy, sz, Options{})
	if err != nil {
		t.Fatal(err)
	}
	box := [4]float64{499900, 5399900, 501100, 5401100}
	f, err := pl.Field(context.Background(), box, 40000, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := pl.Field(context.Background(), box, 40000, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, ty := uniform(r, 400, 499900, 5399900, 1200)
	al := alphas(r, 400, 1.5, 3.5)
	s, s2 := f.NewScratch(), g.NewScratch()
	for j := range tx {
		if !f.Contains(tx[j], ty[j]) {
			t.Fatalf("target %d outside the field's square", j)
		}
		num, den, _ := f.At(s, tx[j], ty[j], al[j])
		rn, rd, ra, _ := brute(sx, sy, sz, tx[j], ty[j], al[j])
		if e1, e2 := math.Abs(num-rn)/ra, math.Abs(den-rd)/rd; e1 > 1e-9 || e2 > 1e-9 {
			t.Fatalf("target %d: errors %.2g, %.2g over the tolerance 1e-9", j, e1, e2)
		}
		// a second field of the same box, asked in another order, gives the same bits
		k := len(tx) - 1 - j
		n1, d1, _ := f.At(s, tx[k], ty[k], al[k])
		n2, d2, _ := g.At(s2, tx[k], ty[k], al[k])
		if n1 != n2 || d1 != d2 {
			t.Fatalf("target %d: two fields of one box differ", k)
		}
	}
	if f.Contains(box[0]-1e3, box[1]) {
		t.Fatal("a point far outside the box is said to be inside")
	}
}

// TestHugeCoordinates: at coordinates of 1e25 and power 12 the direct sums' weights fall
// under 2^-1000, where weigh.Pairs would floor them: the tree sums them one by one instead
// (tree.fast false), within the tolerance.
func TestHugeCoordinates(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	sx, sy := uniform(r, 2000, 0, 0, 2e25)
	tx, ty := uniform(r, 300, 0, 0, 2e25)
	sz := values(r, sx, sy)
	for _, leaves := range []Leaves{LeavesDirect, LeavesOperators} {
		o := Options{AlphaMin: 12, AlphaMax: 12, LeafSize: leafFor(len(sx)), Leaves: leaves}
		pl, err := NewPlan(sx, sy, sz, o)
		if err != nil {
			t.Fatal(err)
		}
		if tr, err := pl.newTree(context.Background(), tx, ty); err != nil || tr.fast {
			t.Fatalf("leaves %d: the tree would use weigh.Pairs at these coordinates", leaves)
		}
		e := check(t, sx, sy, sz, tx, ty, alphas(r, len(tx), 12, 12), o, nil)
		if e.num > 1e-9 || e.den > 1e-9 {
			t.Errorf("leaves %d: error num %.3g den %.3g > 1e-9", leaves, e.num, e.den)
		}
	}
}

// TestSinglePowers: boxes whose targets all have one power (AIDW's highest and lowest levels)
// get far fields at that power alone; the sums stay within the tolerance of brute force, with
// the leaves summed either way, and the two powers shared by the most boxes are found.
func TestSinglePowers(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	sx, sy := uniform(r, 20000, 0, 0, 1000)
	tx, ty := uniform(r, 20000, 0, 0, 1000)
	sz := values(r, sx, sy)
	al := alphas(r, len(tx), 1.5, 3.5)
	for j := range al {
		switch {
		case tx[j] > 500:
			al[j] = 3.5 // the east: spread evenly
		case ty[j] < 600:
			al[j] = 1.5 // the south-west: clustered
		}
	}
	idx := make([]int, 1500)
	for i := range idx {
		idx[i] = r.IntN(len(tx))
	}
	for _, leaves := range []Leaves{LeavesDirect, LeavesOperators} {
		o := Options{AlphaMin: 1.5, AlphaMax: 3.5, LeafSize: 20, Leaves: leaves}
		pl, err := NewPlan(sx, sy, sz, o)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := pl.newTree(context.Background(), tx, ty)
		if err != nil {
			t.Fatal(err)
		}
		tstart, order := tr.sortTargets(tx, ty)
		if err := pl.setSingles(context.Background(), tr, tr.onePowers(tstart, order, al)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tr.single, []float64{3.5, 1.5}) {
			t.Fatalf("leaves %d: single powers %v, want [3.5 1.5]", leaves, tr.single)
		}
		e := check(t, sx, sy, sz, tx, ty, al, o, idx)
		t.Logf("leaves %d: depth %d fields %d: max error num %.3g den %.3g", leaves, tr.d, tr.fields, e.num, e.den)
		if e.num > 1e-9 || e.den > 1e-9 {
			t.Errorf("leaves %d: error num %.3g den %.3g > 1e-9", leaves, e.num, e.den)
		}
	}
}

// A Field told its targets' powers (Powers) computes boxes of one power at that power alone:
// its targets get the brute force's sums within the tolerance, and a place it was not told of,
// with another power, gets every sample's sums exactly.
func TestFieldPowers(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	sx, sy := uniform(r, 20000, 0, 0, 1000)
	sz := values(r, sx, sy)
	tx, ty := uniform(r, 40000, 0, 0, 1000)
	al := alphas(r, len(tx), 1.5, 3.5)
	for j := range al {
		if tx[j] > 400 {
			al[j] = 3.5
		}
	}
	pl, err := NewPlan(sx, sy, sz, Options{Leaves: LeavesOperators})
	if err != nil {
		t.Fatal(err)
	}
	box := [4]float64{0, 0, 1000, 1000}
	pw, half := pl.Powers(box, len(tx)), pl.Powers(box, len(tx))
	for j := range tx {
		if j%2 == 0 {
			pw.Add(tx[j], ty[j], al[j])
		} else {
			half.Add(tx[j], ty[j], al[j])
		}
	}
	pw.Merge(half)
	f, err := pl.Field(context.Background(), box, len(tx), pw)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.t.single) != 1 || f.t.single[0] != 3.5 {
		t.Fatalf("single powers %v, want [3.5]", f.t.single)
	}
	s := f.NewScratch()
	for j := 0; j < len(tx); j += 40 {
		num, den, _ := f.At(s, tx[j], ty[j], al[j])
		rn, rd, ra, _ := brute(sx, sy, sz, tx[j], ty[j], al[j])
		if e1, e2 := math.Abs(num-rn)/ra, math.Abs(den-rd)/rd; e1 > 1e-9 || e2 > 1e-9 {
			t.Fatalf("target %d: errors %.2g, %.2g over the tolerance 1e-9", j, e1, e2)
		}
	}
	num, den, _ := f.At(s, 900, 900, 2)
	rn, rd, ra, _ := brute(sx, sy, sz, 900, 900, 2)
	if e1, e2 := math.Abs(num-rn)/ra, math.Abs(den-rd)/rd; e1 > 1e-13 || e2 > 1e-13 {
		t.Fatalf("an untold place: errors %.2g, %.2g, want the exact sums", e1, e2)
	}
}
