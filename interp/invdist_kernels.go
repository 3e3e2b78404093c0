package interp

// The kernels of invdist's all-samples form (gdal's loop over every sample, in input order)
// run over samples in runs: add takes whole blocks and adds them to the sums in acc, end takes
// the rest (fewer than a block) and gives the sums. One add over all whole blocks and one end
// is the in-memory loop; a stream (see invDistStream) runs add over each chunk's whole blocks,
// carrying the rest to the next chunk, and end once, which gives the same bits.

// oneKind is a kernel of gdal's loop at one node.
type oneKind int

const (
	oneAVX512 oneKind = iota // power 2, no smoothing: 2 x 8 lanes (idw2AVX512)
	oneAVX2                  // power 2, no smoothing: 2 x 4 lanes (idw2AVX2)
	oneGo                    // power 2, no smoothing: samples in pairs (idw2AllGo)
	oneSmooth                // power 2 with smoothing: samples in pairs, no exact-hit test
	onePower                 // any other power: one sample at a time
)

// block is how many samples add takes at a time.
func (k oneKind) block() int {
	switch k {
	case oneAVX512:
		return 16
	case oneAVX2:
		return 8
	case oneGo, oneSmooth:
		return 2
	}
	return 1
}

// width is how many sums add keeps in acc.
func (k oneKind) width() int {
	switch k {
	case oneAVX512:
		return 32
	case oneAVX2:
		return 16
	case oneGo, oneSmooth:
		return 4
	}
	return 2
}

// oneSums is gdal's loop at one node: its kernel, the smoothing squared and the weights.
type oneSums struct {
	kind oneKind
	s2   float64
	w    invPower
}

// newOneSums is invdist's loop at one node over n samples in all.
func newOneSums(a *InvDist, n int) oneSums {
	s2 := a.Smoothing * a.Smoothing
	switch {
	case a.Power != 2:
		return oneSums{kind: onePower, s2: s2, w: newInvPower(a.Power)}
	case s2 > 0:
		return oneSums{kind: oneSmooth, s2: s2}
	}
	return oneSums{kind: oneKernelFor(n)}
}

// add adds whole blocks of samples to acc (width floats) and returns the first exact hit
// among them, or -1; after a hit acc means nothing.
func (o oneSums) add(xs, ys, zs []float64, x, y float64, acc []float64) int {
	switch o.kind {
	case oneAVX512, oneAVX2:
		return idw2AddSIMD(o.kind, xs, ys, zs, x, y, acc)
	case oneGo:
		return idw2Pairs(xs, ys, zs, x, y, 0, true, acc)
	case oneSmooth:
		return idw2Pairs(xs, ys, zs, x, y, o.s2, false, acc)
	}
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	num, den := acc[0], acc[1]
	for i, sx := range xs {
		dx, dy := sx-x, ys[i]-y
		r2 := float64(dx*dx) + float64(dy*dy) + o.s2
		if r2 < exactHitD2 {
			return i
		}
		wi := o.w.weight(r2)
		num += wi * zs[i]
		den += wi
	}
	acc[0], acc[1] = num, den
	return -1
}

// end adds the rest (fewer than a block) and gives the sums, or the first exact hit in it.
func (o oneSums) end(xs, ys, zs []float64, x, y float64, acc []float64) (num, den float64, hit int) {
	switch o.kind {
	case oneAVX512, oneAVX2:
		tn, td, h := idw2AllGo(xs, ys, zs, x, y)
		if h >= 0 {
			return 0, 0, h
		}
		lanes := o.kind.width() / 4
		for i := range lanes {
			num += acc[i] + acc[2*lanes+i]
			den += acc[lanes+i] + acc[3*lanes+i]
		}
		return num + tn, den + td, -1
	case oneGo:
		return idw2Rest(xs, ys, zs, x, y, 0, true, acc)
	case oneSmooth:
		return idw2Rest(xs, ys, zs, x, y, o.s2, false, acc)
	}
	return acc[0], acc[1], -1
}

// all runs the loop over every sample.
func (o oneSums) all(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	var buf [32]float64
	acc := buf[:o.kind.width()]
	n := len(xs) / o.kind.block() * o.kind.block()
	if h := o.add(xs[:n], ys[:n], zs[:n], x, y, acc); h >= 0 {
		return 0, 0, h
	}
	num, den, hit = o.end(xs[n:], ys[n:], zs[n:], x, y, acc)
	if hit >= 0 {
		hit += n
	}
	return num, den, hit
}

// idw2Pairs adds pairs of samples to acc (num, den, num1, den1: the sums of the first and of
// the second of each pair), w = 1/(d2 + s2); with hits, it returns the first sample with
// d2 < 1e-13 (s2 is then 0), else -1.
func idw2Pairs(xs, ys, zs []float64, x, y, s2 float64, hits bool, acc []float64) int {
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	num, den, num1, den1 := acc[0], acc[1], acc[2], acc[3]
	for i := 0; i+1 < len(xs); i += 2 {
		dx0, dy0 := xs[i]-x, ys[i]-y
		dx1, dy1 := xs[i+1]-x, ys[i+1]-y
		d0 := float64(dx0*dx0) + float64(dy0*dy0) + s2
		d1 := float64(dx1*dx1) + float64(dy1*dy1) + s2
		if hits && (d0 < exactHitD2 || d1 < exactHitD2) {
			if d0 < exactHitD2 {
				return i
			}
			return i + 1
		}
		w0, w1 := 1/d0, 1/d1
		num += w0 * zs[i]
		den += w0
		num1 += w1 * zs[i+1]
		den1 += w1
	}
	acc[0], acc[1], acc[2], acc[3] = num, den, num1, den1
	return -1
}

// idw2Rest ends idw2Pairs: the samples left (one at most) into the first sums, then the two
// sums together. With hits, a sample's terms are z/d2 and 1/d2, as gdal's are; without,
// w z and w.
func idw2Rest(xs, ys, zs []float64, x, y, s2 float64, hits bool, acc []float64) (num, den float64, hit int) {
	num, den = acc[0], acc[1]
	for i := range xs {
		dx, dy := xs[i]-x, ys[i]-y
		d := float64(dx*dx) + float64(dy*dy) + s2
		if !hits {
			w := 1 / d
			num += w * zs[i]
			den += w
			continue
		}
		if d < exactHitD2 {
			return 0, 0, i
		}
		num += zs[i] / d
		den += 1 / d
	}
	return num + acc[2], den + acc[3], -1
}

// idw2AllGo is the portable form of idw2All: the sums of 1/d2 and z/d2 over every sample, or
// the first sample (in input order) with d2 < 1e-13.
func idw2AllGo(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	return oneSums{kind: oneGo}.all(xs, ys, zs, x, y)
}

// idw2SmoothAll sums 1/r2 and z/r2 over every sample, r2 = d2 + s2 > 0.
func idw2SmoothAll(xs, ys, zs []float64, x, y, s2 float64) (num, den float64) {
	num, den, _ = oneSums{kind: oneSmooth, s2: s2}.all(xs, ys, zs, x, y)
	return num, den
}

// idw2All returns the sums of z/d2 and 1/d2 over every sample for the node at (x,y), or hit,
// the first sample in input order with d2 < 1e-13 (-1 when none).
func idw2All(xs, ys, zs []float64, x, y float64) (num, den float64, hit int) {
	return oneSums{kind: oneKernelFor(len(xs))}.all(xs, ys, zs, x, y)
}

// rowKind is a kernel of idw2Row: power 2's sums at 8 nodes of a row at once.
type rowKind int

const (
	rowAVX512 rowKind = iota // 8 lanes per node (idw2RowAVX512)
	rowAVX2                  // 4 lanes per node, 4 nodes at a time (idw2Row4AVX2)
	rowGo                    // one sum per node (idw2RowGo)
)

// block is how many samples add takes at a time.
func (k rowKind) block() int {
	switch k {
	case rowAVX512:
		return 8
	case rowAVX2:
		return 4
	}
	return 1
}

// width is how many sums add keeps in acc for the 8 nodes.
func (k rowKind) width() int {
	switch k {
	case rowAVX512:
		return 128
	case rowAVX2:
		return 64
	}
	return 2 * batchNodes
}

// add adds whole blocks of samples to the 8 nodes' sums in acc.
func (k rowKind) add(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, acc []float64) {
	if k == rowGo {
		idw2RowAddGo(xs, ys, zs, nx, y, s2, (*[batchNodes]float64)(acc), (*[batchNodes]float64)(acc[batchNodes:]))
		return
	}
	idw2RowAddSIMD(k, xs, ys, zs, nx, y, s2, acc)
}

// end adds the rest (fewer than a block) and sets num and den to the sums.
func (k rowKind) end(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, acc []float64, num, den *[batchNodes]float64) {
	switch k {
	case rowGo:
		idw2RowAddGo(xs, ys, zs, nx, y, s2, (*[batchNodes]float64)(acc), (*[batchNodes]float64)(acc[batchNodes:]))
		*num, *den = [batchNodes]float64(acc), [batchNodes]float64(acc[batchNodes:])
		return
	case rowAVX512:
		*num, *den = [8]float64{}, [8]float64{}
		for k := range 8 {
			for l := range 8 {
				num[k] += acc[8*k+l]
				den[k] += acc[64+8*k+l]
			}
		}
	case rowAVX2:
		*num, *den = [8]float64{}, [8]float64{}
		for h := 0; h < batchNodes; h += 4 {
			for k := range 4 {
				for l := range 4 {
					num[h+k] += acc[8*h+4*k+l]
					den[h+k] += acc[8*h+16+4*k+l]
				}
			}
		}
		if len(xs) == 0 {
			return
		}
	}
	var tn, td [batchNodes]float64
	idw2RowGo(xs, ys, zs, nx, y, s2, &tn, &td)
	for k := range num {
		num[k] += tn[k]
		den[k] += td[k]
	}
}

// all sums every sample.
func (k rowKind) all(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	var buf [128]float64
	acc := buf[:k.width()]
	n := len(xs) / k.block() * k.block()
	k.add(xs[:n], ys[:n], zs[:n], nx, y, s2, acc)
	k.end(xs[n:], ys[n:], zs[n:], nx, y, s2, acc, num, den)
}

// idw2Row sums z/r2 into num[k] and 1/r2 into den[k] over every sample for the 8 nodes
// (nx[k], y), r2 = d2 + s2, without exact-hit test (a node within 1e-13 of a sample gets
// den >= 1e13, Inf or NaN, and so may its neighbour in the pair that shares a division).
func idw2Row(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	rowKernelFor(len(xs)).all(xs, ys, zs, nx, y, s2, num, den)
}

// idw2RowGo is the portable form of idw2Row: num and den from zero.
func idw2RowGo(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	*num, *den = [batchNodes]float64{}, [batchNodes]float64{}
	idw2RowAddGo(xs, ys, zs, nx, y, s2, num, den)
}

// idw2RowAddGo adds the samples to num and den. Nodes go in pairs that share one division,
// 1/d = d'/(d*d'), which halves the divisions (the slow part) at a cost of 2 ulps; a node on a
// sample (d = 0) gets Inf or NaN sums, and so does its partner.
func idw2RowAddGo(xs, ys, zs []float64, nx *[batchNodes]float64, y, s2 float64, num, den *[batchNodes]float64) {
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	n, d := *num, *den
	for i, xi := range xs {
		dy := ys[i] - y
		e := float64(dy*dy) + s2
		z := zs[i]
		for k := 0; k < batchNodes; k += 2 {
			dx0, dx1 := xi-nx[k], xi-nx[k+1]
			d0, d1 := float64(dx0*dx0)+e, float64(dx1*dx1)+e
			r := 1 / (d0 * d1)
			w0, w1 := d1*r, d0*r
			n[k] += w0 * z
			d[k] += w0
			n[k+1] += w1 * z
			d[k+1] += w1
		}
	}
	*num, *den = n, d
}
