package farfield

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
)

// kernelError returns the largest relative error of the plan's separated far kernel over
// every offset, target and sample points on a g x g grid of each box (edges included), and
// the powers as.
// directError is kernelError for direct's kernel of order p, interpolated on the sample's
// side only, at the target's own power.
func directError(pl *Plan, p, g int, as []float64) float64 {
	if err := pl.farOps(context.Background()); err != nil {
		panic(err)
	}
	cheb, bw := chebyshev(p, 0, 1)
	sb := make([][]float64, g) // basis at sample coordinates
	for i := range g {
		sb[i] = make([]float64, p)
		basis(cheb, bw, float64(i)/float64(g-1), sb[i])
	}
	kv := make([]float64, p*p)
	worst := 0.0
	for off, op := range pl.ops {
		if op == nil {
			continue
		}
		dx, dy := float64(off/span-(2*nearR+1)), float64(off%span-(2*nearR+1))
		for _, alpha := range as {
			k := func(ex, ey float64) float64 { return math.Pow((ex*ex+ey*ey)/(r0*r0), -alpha/2) }
			for ti := range g {
				for tj := range g {
					tx, ty := float64(ti)/float64(g-1), float64(tj)/float64(g-1)
					for a := range p {
						for b := range p {
							kv[a*p+b] = k(tx-cheb[a]-dx, ty-cheb[b]-dy)
						}
					}
					for i := range g {
						for j := range g {
							s := 0.0
							for a := range p {
								sa := 0.0
								for b := range p {
									sa += kv[a*p+b] * sb[j][b]
								}
								s += sa * sb[i][a]
							}
							ref := k(tx-float64(i)/float64(g-1)-dx, ty-float64(j)/float64(g-1)-dy)
							worst = max(worst, math.Abs(s-ref)/ref)
						}
					}
				}
			}
		}
	}
	return worst
}

var printTable = flag.Bool("table", false, "print the calibration table")

func kernelError(pl *Plan, g int, as []float64) float64 {
	if err := pl.farOps(context.Background()); err != nil {
		panic(err)
	}
	p, q := pl.p, pl.q
	p2 := p * p
	pts := make([]float64, g)
	for i := range g {
		pts[i] = float64(i) / float64(g-1)
	}
	sb := make([][]float64, g) // basis at sample coordinates
	for i, v := range pts {
		sb[i] = make([]float64, p)
		basis(pl.cheb, pl.bw, v, sb[i])
	}
	// one offset per goroutine: the default plan's 96 offsets took half a minute on one core
	worst := make([]float64, len(pl.ops))
	var wg sync.WaitGroup
	for off, op := range pl.ops {
		if op == nil {
			continue
		}
		wg.Go(func() {
			lx, ly, la := make([]float64, p), make([]float64, p), make([]float64, q)
			v := make([]float64, p2)
			dx, dy := float64(off/span-(2*nearR+1)), float64(off%span-(2*nearR+1))
			for _, alpha := range as {
				basis(pl.anode, pl.abw, alpha, la)
				for _, txp := range pts {
					for _, typ := range pts {
						basis(pl.cheb, pl.bw, txp, lx)
						basis(pl.cheb, pl.bw, typ, ly)
						clear(v)
						for m := range q {
							for a := range p {
								for b := range p {
									c := la[m] * lx[a] * ly[b]
									row := op[(m*p2+a*p+b)*p2:][:p2]
									for kl := range v {
										v[kl] += c * row[kl]
									}
								}
							}
						}
						for i, sxp := range pts {
							for j, syp := range pts {
								s := 0.0
								for k := range p {
									for l := range p {
										s += v[k*p+l] * sb[i][k] * sb[j][l]
									}
								}
								ex, ey := txp-sxp-dx, typ-syp-dy
								ref := math.Pow((ex*ex+ey*ey)/(r0*r0), -alpha/2)
								worst[off] = max(worst[off], math.Abs(s-ref)/ref)
							}
						}
					}
				}
			}
		})
	}
	wg.Wait()
	return slices.Max(worst)
}

func TestCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	for _, amax := range []float64{2, 3.5, 6} {
		for p := 6; p <= 16; p += 2 {
			pl, err := NewPlan(nil, nil, nil, Options{AlphaMin: amax, AlphaMax: amax, Order: p})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("alpha %g p %d: %.3g", amax, p, kernelError(pl, 7, []float64{amax}))
		}
	}
}

// TestPrintDirectTable prints directErr's table (go test -run PrintDirectTable -v -table).
func TestPrintDirectTable(t *testing.T) {
	if !*printTable {
		t.Skip("needs -table")
	}
	pl, err := NewPlan(nil, nil, nil, Options{AlphaMin: 2, AlphaMax: 2, Order: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range tableAlphas {
		s := "{"
		for p := 1; p <= maxOrder; p++ {
			e := 1.0
			if p >= 4 {
				e = directError(pl, p, 9, []float64{a})
			}
			s += fmt.Sprintf("%.2g, ", e)
		}
		fmt.Println(s + "},")
	}
}

// TestPrintTable prints posErr's table (go test -run PrintTable -v -table).
func TestPrintTable(t *testing.T) {
	if !*printTable {
		t.Skip("needs -table")
	}
	for _, a := range tableAlphas {
		s := "{"
		for p := 1; p <= maxOrder; p++ {
			e := 1.0
			if p >= 4 {
				pl, err := NewPlan(nil, nil, nil, Options{AlphaMin: a, AlphaMax: a, Order: p, Tol: 1e-9})
				if err != nil {
					t.Fatal(err)
				}
				e = kernelError(pl, 9, []float64{a})
			}
			s += fmt.Sprintf("%.2g, ", e)
		}
		fmt.Println(s + "},")
	}
}

// TestKernelBound checks the default plan's far kernel (position and power interpolation
// together) against the relative error that doc.go's bound gives it, tol/2 + tol/4, over 7 x 7
// points of each box, every offset, and powers at the ends and inside [1.5, 3.5].
func TestKernelBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, o := range []Options{{}, {AlphaMin: 2, AlphaMax: 2}} {
		pl, err := NewPlan(nil, nil, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		as := []float64{pl.o.AlphaMin, (pl.o.AlphaMin + pl.o.AlphaMax) / 2, pl.o.AlphaMax, pl.o.AlphaMin + 0.137*(pl.o.AlphaMax-pl.o.AlphaMin)}
		e, ed := kernelError(pl, 7, as), directError(pl, pl.pd, 7, as)
		t.Logf("%+v: p %d q %d pd %d kernel error %.3g, direct %.3g", o, pl.p, pl.q, pl.pd, e, ed)
		if e > 0.75*pl.o.Tol || ed > 0.75*pl.o.Tol {
			t.Errorf("kernel error %.3g or direct %.3g > 0.75 tol", e, ed)
		}
	}
}
