package interp

// On amd64 with AVX-512, invdist's all-samples power-2 sum runs in assembly, 8 samples per
// instruction in float64. A division per weight would leave the FMA pipes idle while the
// divider limits the pace, so the kernels get reciprocals more cheaply and still within 1e-12:
// the one-node kernel from VRCP14PD's estimate (relative error < 2^-14) refined by a
// third-order Newton step (to below 2^-42), the row kernel from one division per pair of nodes.
// The kernels start from the sums they are given, so that a stream carries them across chunks.

// idw2AVX512 runs idw2All's loop over the first n samples, n a multiple of 16, adding to the
// per-lane sums in acc (z/d2 then 1/d2 of the first 8 lanes, then of the second 8). It returns
// the start of the first block of 16 samples holding one with d2 < 1e-13, or -1.
//
//go:noescape
func idw2AVX512(xs, ys, zs *float64, n int, x, y float64, acc *[32]float64) int

// idw2AVX2 is idw2AVX512 with AVX2 and FMA, 4 samples per instruction, n a multiple of 8,
// acc's quarters 4 lanes each; see the assembly.
//
//go:noescape
func idw2AVX2(xs, ys, zs *float64, n int, x, y float64, acc *[16]float64) int

// idw2RowAVX512 is idw2AVX512 for the 8 nodes (nx[k], y) at once, smoothing included; see
// the assembly.
//
//go:noescape
func idw2RowAVX512(xs, ys, zs *float64, n int, nx *[8]float64, y, s2 float64, acc *[128]float64)

// idw2Row4AVX2 is idw2RowAVX512 for 4 nodes with AVX2 and FMA; see the assembly.
//
//go:noescape
func idw2Row4AVX2(xs, ys, zs *float64, n int, c *idw2RowConsts, acc *[32]float64)

// oneKernelFor is the kernel of idw2All for n samples in all.
func oneKernelFor(n int) oneKind {
	switch {
	case haveAVX512 && n >= 16:
		return oneAVX512
	case !haveAVX512 && haveAVX2FMA && n >= 8:
		return oneAVX2
	}
	return oneGo
}

// rowKernelFor is the kernel of idw2Row for n samples in all.
func rowKernelFor(n int) rowKind {
	switch {
	case haveAVX512 && n >= 8:
		return rowAVX512
	case !haveAVX512 && haveAVX2FMA && n >= 4:
		return rowAVX2
	}
	return rowGo
}

// idw2AddSIMD is idw2Add for the assembly kernels.
func idw2AddSIMD(k oneKind, xs, ys, zs []float64, x, y float64, acc []float64) int {
	if len(xs) == 0 {
		return -1
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var b int
	if k == oneAVX512 {
		b = idw2AVX512(&xs[0], &ys[0], &zs[0], len(xs), x, y, (*[32]float64)(acc))
	} else {
		b = idw2AVX2(&xs[0], &ys[0], &zs[0], len(xs), x, y, (*[16]float64)(acc))
	}
	if b < 0 {
		return -1
	}
	// The kernel names the block; Go finds the first hit in it.
	e := b + k.block()
	_, _, h := idw2AllGo(xs[b:e], ys[b:e], zs[b:e], x, y)
	return b + h
}

// idw2RowAddSIMD is idw2RowAdd for the assembly kernels.
func idw2RowAddSIMD(k rowKind, xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, acc []float64) {
	if len(xs) == 0 {
		return
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	if k == rowAVX512 {
		idw2RowAVX512(&xs[0], &ys[0], &zs[0], len(xs), nx, y, s2, (*[128]float64)(acc))
		return
	}
	var c idw2RowConsts
	c.y, c.s2, c.one = [4]float64{y, y, y, y}, [4]float64{s2, s2, s2, s2}, [4]float64{1, 1, 1, 1}
	for h := 0; h < batchNodes; h += 4 {
		for k := range 4 {
			x := nx[h+k]
			c.nx[k] = [4]float64{x, x, x, x}
		}
		idw2Row4AVX2(&xs[0], &ys[0], &zs[0], len(xs), &c, (*[32]float64)(acc[8*h:]))
	}
}

// idw2RowConsts is what idw2Row4AVX2 reads besides the samples, each value in all 4 lanes:
// the x of its 4 nodes, their y, the smoothing squared and 1.
type idw2RowConsts struct {
	nx         [4][4]float64
	y, s2, one [4]float64
}

// idw2AllAVX2 is idw2All with AVX2 and FMA (len(xs) >= 8).
func idw2AllAVX2(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	return oneSums{kind: oneAVX2}.all(xs, ys, zs, x, y)
}

// idw2RowAVX2 is idw2Row where the CPU has AVX2 and FMA but no AVX-512 (len(xs) >= 4): the
// 8 nodes go 4 at a time through idw2Row4AVX2, the samples past a multiple of 4 through
// idw2RowGo. The nodes pair as in idw2RowGo, (0,1), (2,3), ...
func idw2RowAVX2(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	rowAVX2.all(xs, ys, zs, nx, y, s2, num, den)
}
