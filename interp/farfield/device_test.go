package farfield

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// hostTree is what the device builds from a DeviceShape, built by the CPU far field's own
// sort and upward pass: the samples sorted by leaf (leaves row-major), each leaf's first
// sample, and every box's count and charges (z, 1) from level 2, boxes row-major per level.
type hostTree struct {
	*DeviceShape
	x, y, z    []float64
	leafStart  []int32
	levelStart []int
	count      []int32
	charges    [][2]float64 // Order^2 a box
}

func newHostTree(t testing.TB, ds *DeviceShape, sx, sy, sz []float64) *hostTree {
	t.Helper()
	pl, err := checkedPlan(sx, sy, sz, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pl.p, pl.pd = ds.Order, ds.Order
	pl.setPoints()
	tr := &tree{d: ds.Depth, fields: ds.Depth, ox: ds.OX, oy: ds.OY, sd: ds.Side}
	if err := pl.sortSamples(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	tr.boxCounts()
	pl.allocate(tr)
	if tr.d >= 2 {
		if err := pl.upward(context.Background(), tr); err != nil {
			t.Fatal(err)
		}
	}
	h := &hostTree{DeviceShape: ds, x: tr.x, y: tr.y, z: tr.z, leafStart: tr.start, levelStart: make([]int, ds.Depth+2)}
	for l := range ds.Depth + 1 {
		h.levelStart[l+1] = h.levelStart[l]
		if l >= 2 {
			h.levelStart[l+1] += 1 << (2 * l)
		}
	}
	p2 := ds.Order * ds.Order
	h.count, h.charges = make([]int32, h.levelStart[ds.Depth+1]), make([][2]float64, h.levelStart[ds.Depth+1]*p2)
	for l := 2; l <= ds.Depth; l++ {
		for code, c := range tr.cnt[l] {
			b := h.levelStart[l] + unspread(code>>1)<<l + unspread(code)
			h.count[b] = c
			for k := range p2 {
				h.charges[b*p2+k] = [2]float64{tr.mp[l][code*2*p2+k], tr.mp[l][(code*2+1)*p2+k]}
			}
		}
	}
	return h
}

// deviceSums is the device far field's sums at (x, y) with power alpha in float64, loop for
// loop as kernels/farfield.cuh sums them (which the device's tests check against the CPU
// engine): the 25 leaves around the target's, then at each level from 2 the interaction list
// of the target's box from its charges.
func deviceSums(dt *hostTree, x, y, alpha float64) (num, den float64) {
	d, p := dt.Depth, dt.Order
	n := 1 << d
	leaf := func(v, o float64) int { return min(max(int((v-o)/dt.Side*float64(n)), 0), n-1) }
	ix, iy := leaf(x, dt.OX), leaf(y, dt.OY)
	for jy := max(iy-nearR, 0); jy <= min(iy+nearR, n-1); jy++ {
		s, e := dt.leafStart[jy<<d+max(ix-nearR, 0)], dt.leafStart[jy<<d+min(ix+nearR, n-1)+1]
		for i := s; i < e; i++ {
			dx, dy := dt.x[i]-x, dt.y[i]-y
			if d2 := dx*dx + dy*dy; d2 >= ExactHitD2 {
				w := math.Pow(d2, -alpha/2)
				num, den = num+w*dt.z[i], den+w
			}
		}
	}
	for l := 2; l <= d; l++ {
		nb := 1 << l
		wl := dt.Side / float64(nb)
		bx, by := ix>>(d-l), iy>>(d-l)
		u, v := (x-dt.OX)/wl, (y-dt.OY)/wl
		var sz, s1 float64
		for sy := max(2*(by>>1-nearR), 0); sy <= min(2*(by>>1+nearR)+1, nb-1); sy++ {
			for sx := max(2*(bx>>1-nearR), 0); sx <= min(2*(bx>>1+nearR)+1, nb-1); sx++ {
				b := dt.levelStart[l] + sy*nb + sx
				if abs(sx-bx) <= nearR && abs(sy-by) <= nearR || dt.count[b] == 0 {
					continue
				}
				q := dt.charges[b*p*p:]
				for a := range p {
					for c := range p {
						dx, dy := u-float64(sx)-dt.Cheb[a], v-float64(sy)-dt.Cheb[c]
						w := math.Pow(dx*dx+dy*dy, -alpha/2)
						k := a*p + c
						sz, s1 = sz+w*q[k][0], s1+w*q[k][1]
					}
				}
			}
		}
		scale := math.Pow(wl, -alpha)
		num, den = num+sz*scale, den+s1*scale
	}
	return num, den
}

// checkDevice compares deviceSums at every target with brute force, as check does.
func checkDevice(t *testing.T, name string, sx, sy, sz, tx, ty, alpha []float64, opts Options) {
	t.Helper()
	box := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for j := range tx {
		box = [4]float64{min(box[0], tx[j]), min(box[1], ty[j]), max(box[2], tx[j]), max(box[3], ty[j])}
	}
	ds, err := NewDeviceShape([4]float64{slices.Min(sx), slices.Min(sy), slices.Max(sx), slices.Max(sy)}, box, len(sx), opts)
	if err != nil {
		t.Fatal(err)
	}
	dt := newHostTree(t, ds, sx, sy, sz)
	if dt.Depth < 3 {
		t.Fatalf("%s: depth %d reaches no far field", name, dt.Depth)
	}
	tol := opts.Tol
	if tol == 0 {
		tol = DeviceTol
	}
	var e errs
	for j := range tx {
		rn, rd, ra, rh := brute(sx, sy, sz, tx[j], ty[j], alpha[j])
		if rh >= 0 {
			continue
		}
		num, den := deviceSums(dt, tx[j], ty[j], alpha[j])
		e.num = max(e.num, math.Abs(num-rn)/ra)
		e.den = max(e.den, math.Abs(den-rd)/rd)
	}
	t.Logf("%s: order %d depth %d, max error num %.3g den %.3g (tol %g)", name, dt.Order, dt.Depth, e.num, e.den, tol)
	if !(e.num <= tol && e.den <= tol) {
		t.Errorf("%s: error num %.3g den %.3g > %g", name, e.num, e.den, tol)
	}
}

// TestDeviceTree checks the device tree's layout and error bound: its sums, as the kernels
// compute them but in float64, against brute force on uniform, clustered, duplicated and
// UTM-scale samples, for powers varying per target and at two tolerances.
func TestDeviceTree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 3000
	ux, uy := uniform(r, n, 0, 0, 1000)
	cx, cy := make([]float64, n), make([]float64, n)
	for i := range n {
		c := float64(i % 3)
		cx[i], cy[i] = 200+300*c+20*r.NormFloat64(), 700-250*c+15*r.NormFloat64()
	}
	dx, dy := append([]float64(nil), ux[:n/2]...), append([]float64(nil), uy[:n/2]...)
	dx, dy = append(dx, ux[:n/2]...), append(dy, uy[:n/2]...) // every sample twice
	utx, uty := uniform(r, n, 452000, 5401000, 20000)
	tx, ty := uniform(r, 500, -50, -50, 1100)
	ttx, tty := uniform(r, 500, 452000, 5401000, 20000)
	for _, c := range []struct {
		name           string
		sx, sy, tx, ty []float64
		lo, hi, tol    float64
	}{
		{"uniform", ux, uy, tx, ty, 1.5, 3.5, 0},
		{"uniform power 2", ux, uy, tx, ty, 2, 2, 0},
		{"clustered", cx, cy, tx, ty, 1.5, 3.5, 0},
		{"duplicated", dx, dy, tx, ty, 1.5, 3.5, 0},
		{"UTM", utx, uty, ttx, tty, 1.5, 3.5, 0},
		{"uniform tol 1e-9", ux, uy, tx, ty, 1.5, 3.5, 1e-9},
	} {
		o := Options{Tol: c.tol, AlphaMin: c.lo, AlphaMax: c.hi, LeafSize: leafFor(len(c.sx))}
		checkDevice(t, c.name, c.sx, c.sy, values(r, c.sx, c.sy), c.tx, c.ty, alphas(r, len(c.tx), c.lo, c.hi), o)
	}
}

// TestDeviceDepth checks that the cost model deepens the tree with the samples and keeps
// leaves of some hundreds of samples, where 75 boxes of p^2 points a level cost about what 25
// leaves of samples do.
func TestDeviceDepth(t *testing.T) {
	prev := -1
	for _, ns := range []int{1000, 100_000, 1 << 20, 10_000_000} {
		d := deviceDepth(ns, 9, 0, 1000)
		per := float64(ns) / float64(int(1)<<(2*d))
		t.Logf("%d samples: depth %d, %.0f a leaf", ns, d, per)
		if d < prev || ns >= 100_000 && !(per > 50 && per < 2000) {
			t.Errorf("%d samples: depth %d (%.0f samples a leaf) after %d", ns, d, per, prev)
		}
		prev = d
	}
}
