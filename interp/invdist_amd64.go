package interp

// On amd64 with AVX-512, invdist's all-samples power-2 sum runs in assembly, 8 samples per
// instruction in float64. A division per weight would leave the FMA pipes idle while the
// divider limits the pace, so the kernels get reciprocals more cheaply and still within 1e-12:
// the one-node kernel from VRCP14PD's estimate (relative error < 2^-14) refined by a
// third-order Newton step (to below 2^-42), the row kernel from one division per pair of nodes.

// idw2AVX512 runs idw2All's loop over the first n samples, n a multiple of 16, leaving the
// per-lane sums of z/d2 in acc[0:8] and of 1/d2 in acc[8:16]. It returns the start of the
// first block of 16 samples holding one with d2 < 1e-13, or -1.
//
//go:noescape
func idw2AVX512(xs, ys, zs *float64, n int, x, y float64, acc *[16]float64) int

// idw2All returns the sums of z/d2 and 1/d2 over every sample for the node at (x,y), or hit,
// the first sample in input order with d2 < 1e-13 (-1 when none).
func idw2All(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	switch {
	case haveAVX512 && len(xs) >= 16:
		var acc [16]float64
		return idw2Blocks(xs, ys, zs, x, y, 16, acc[:], func(n int) int {
			return idw2AVX512(&xs[0], &ys[0], &zs[0], n, x, y, &acc)
		})
	case !haveAVX512 && haveAVX2FMA && len(xs) >= 8:
		return idw2AllAVX2(xs, ys, zs, x, y)
	}
	return idw2AllGo(xs, ys, zs, x, y)
}

// idw2AllAVX2 is idw2All with AVX2 and FMA (len(xs) >= 8).
func idw2AllAVX2(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	var acc [8]float64
	return idw2Blocks(xs, ys, zs, x, y, 8, acc[:], func(n int) int {
		return idw2AVX2(&xs[0], &ys[0], &zs[0], n, x, y, &acc)
	})
}

// idw2Blocks runs an assembly kernel over the first samples, a whole number of blocks, leaving
// per-lane sums of z/d2 and 1/d2 in the two halves of acc, and the rest in Go. When the kernel
// returns the start of a block holding an exact hit, Go finds the hit in it.
func idw2Blocks(xs, ys, zs []float64, x, y float64, block int, acc []float64, kernel func(n int) int) (num, den float64, hit int) {
	n := len(xs) / block * block
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	if b := kernel(n); b >= 0 {
		_, _, h := idw2AllGo(xs[b:b+block], ys[b:b+block], zs[b:b+block], x, y)
		return 0, 0, b + h
	}
	tn, td, h := idw2AllGo(xs[n:], ys[n:], zs[n:], x, y)
	if h >= 0 {
		return 0, 0, n + h
	}
	lanes := len(acc) / 2
	for i := range lanes {
		num += acc[i]
		den += acc[lanes+i]
	}
	return num + tn, den + td, -1
}

// idw2RowAVX512 is idw2AVX512 for the 8 nodes (nx[k], y) at once, smoothing included; see
// the assembly.
//
//go:noescape
func idw2RowAVX512(xs, ys, zs *float64, n int, nx *[8]float64, y, s2 float64, acc *[128]float64)

// idw2Row sums z/r2 into num[k] and 1/r2 into den[k] over every sample for the 8 nodes
// (nx[k], y), r2 = d2 + s2, without exact-hit test (a node within 1e-13 of a sample gets
// den >= 1e13, Inf or NaN, and so may its neighbour in the pair that shares a division).
func idw2Row(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	if !haveAVX512 {
		if haveAVX2FMA && len(xs) >= 4 {
			idw2RowAVX2(xs, ys, zs, nx, y, s2, num, den)
			return
		}
		idw2RowGo(xs, ys, zs, nx, y, s2, num, den)
		return
	}
	n := len(xs) &^ 7
	if n == 0 {
		idw2RowGo(xs, ys, zs, nx, y, s2, num, den)
		return
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var acc [128]float64
	idw2RowAVX512(&xs[0], &ys[0], &zs[0], n, nx, y, s2, &acc)
	*num, *den = [8]float64{}, [8]float64{}
	for k := range 8 {
		for l := range 8 {
			num[k] += acc[8*k+l]
			den[k] += acc[64+8*k+l]
		}
	}
	var tn, td [batchNodes]float64
	idw2RowGo(xs[n:], ys[n:], zs[n:], nx, y, s2, &tn, &td)
	for k := range num {
		num[k] += tn[k]
		den[k] += td[k]
	}
}

// idw2RowConsts is what idw2Row4AVX2 reads besides the samples, each value in all 4 lanes:
// the x of its 4 nodes, their y, the smoothing squared and 1.
type idw2RowConsts struct {
	nx         [4][4]float64
	y, s2, one [4]float64
}

// idw2Row4AVX2 is idw2RowAVX512 for 4 nodes with AVX2 and FMA; see the assembly.
//
//go:noescape
func idw2Row4AVX2(xs, ys, zs *float64, n int, c *idw2RowConsts, acc *[32]float64)

// idw2RowAVX2 is idw2Row where the CPU has AVX2 and FMA but no AVX-512 (len(xs) >= 4): the
// 8 nodes go 4 at a time through idw2Row4AVX2, the samples past a multiple of 4 through
// idw2RowGo. The nodes pair as in idw2RowGo, (0,1), (2,3), ...
func idw2RowAVX2(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	n := len(xs) &^ 3
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var c idw2RowConsts
	c.y, c.s2, c.one = [4]float64{y, y, y, y}, [4]float64{s2, s2, s2, s2}, [4]float64{1, 1, 1, 1}
	var acc [32]float64
	*num, *den = [8]float64{}, [8]float64{}
	for h := 0; h < batchNodes; h += 4 {
		for k := range 4 {
			x := nx[h+k]
			c.nx[k] = [4]float64{x, x, x, x}
		}
		idw2Row4AVX2(&xs[0], &ys[0], &zs[0], n, &c, &acc)
		for k := range 4 {
			for l := range 4 {
				num[h+k] += acc[4*k+l]
				den[h+k] += acc[16+4*k+l]
			}
		}
	}
	if n == len(xs) {
		return
	}
	var tn, td [batchNodes]float64
	idw2RowGo(xs[n:], ys[n:], zs[n:], nx, y, s2, &tn, &td)
	for k := range num {
		num[k] += tn[k]
		den[k] += td[k]
	}
}

// idw2AVX2 is idw2AVX512 with AVX2 and FMA, 4 samples per instruction, n a multiple of 8;
// see the assembly.
//
//go:noescape
func idw2AVX2(xs, ys, zs *float64, n int, x, y float64, acc *[8]float64) int
