//go:build cuda

package kernels

import (
	"slices"

	"github.com/aidw/aidw/grid"
	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/kernels/cuda"
)

// farField is a far field on the device (interp/farfield.DeviceShape): the samples sorted into
// its leaves, and every box's charges.
type farField struct {
	order int
	tree  buf    // the farTree
	ix    *index // the samples by leaf: an even grid whose cells are the leaves
	// levelStart, count, charges, charges64, cheb, points
	arrays [6]buf
}

// farShape returns the far field of problem p's weighting d over its target, for samples whose
// bounding box, relative to their origin, is box.
func farShape(p *interp.Problem, d interp.DeviceParams, box [4]float64) (*farfield.DeviceShape, error) {
	s := p.Samples
	xmin, ymin, xmax, ymax := p.Target.Extent()
	targets := [4]float64{xmin - s.OriginX, ymin - s.OriginY, xmax - s.OriginX, ymax - s.OriginY}
	o := farfield.Options{AlphaMin: d.Power, AlphaMax: d.Power}
	if d.Adaptive {
		o.AlphaMin, o.AlphaMax = slices.Min(d.Alphas[:]), slices.Max(d.Alphas[:])
	}
	return farfield.NewDeviceShape(box, targets, s.Len(), o)
}

// buildFarField sorts the n samples (x, y, z on the device, in input order) into the leaves of
// shape sh, by the grid build on a layout whose cells are the leaves (so that a leaf holds its
// samples in input order), then computes the leaves' charges and level by level the parents'
// (device thread only).
func buildFarField(d *cuda.Device, x, y, z buf, n int, sh *farfield.DeviceShape) (*farField, error) {
	side := 1 << sh.Depth
	l := grid.Layout{MinX: sh.OX, MinY: sh.OY, Cell: sh.Side / float64(side), InvCell: float64(side) / sh.Side,
		Cols: side, Rows: side}
	b := newBuilder(d)
	defer b.free()
	b.float32 = false // the far field reads no float32 samples
	if err := b.buildLayout(x, y, n, l); err != nil {
		return nil, err
	}
	if err := b.gather(&b.ix, x, y, z); err != nil {
		return nil, err
	}
	f := &farField{order: sh.Order, ix: b.take()}
	f.ix.order.Free() // only the leaves' samples are needed
	levelStart := make([]int64, sh.Depth+2)
	for l := range sh.Depth + 1 {
		levelStart[l+1] = levelStart[l]
		if l >= 2 {
			levelStart[l+1] += int64(1) << (2 * l)
		}
	}
	// a box at least, so that no allocation is empty below depth 2
	boxes := max(int(levelStart[sh.Depth+1]), 1)
	p2 := sh.Order * sh.Order
	cheb := make([]float32, len(sh.Cheb))
	for i, v := range sh.Cheb {
		cheb[i] = float32(v)
	}
	points := slices.Concat(sh.Cheb, sh.Weights, sh.Child[0], sh.Child[1])
	a := &f.arrays
	var err error
	for i, alloc := range [...]func() (buf, error){
		func() (buf, error) { return cuda.UploadNew(levelStart) },
		func() (buf, error) { return cuda.AllocN[int32](boxes) },
		func() (buf, error) { return cuda.AllocN[float32](2 * p2 * boxes) },
		func() (buf, error) { return cuda.AllocN[float64](2 * p2 * boxes) },
		func() (buf, error) { return cuda.UploadNew(cheb) },
		func() (buf, error) { return cuda.UploadNew(points) },
	} {
		if a[i], err = alloc(); err != nil {
			break
		}
	}
	if err == nil {
		t := farTree{OX: sh.OX, OY: sh.OY, Side: sh.Side, Depth: int64(sh.Depth), XY: devPtr(f.ix.xy.Ptr),
			Z: devPtr(f.ix.z.Ptr), LeafStart: devPtr(f.ix.start.Ptr), LevelStart: devPtr(a[0].Ptr),
			Count: devPtr(a[1].Ptr), Charges: devPtr(a[2].Ptr), Charges64: devPtr(a[3].Ptr), Cheb: devPtr(a[4].Ptr),
			Points: devPtr(a[5].Ptr)}
		f.tree, err = cuda.UploadNew([]farTree{t})
	}
	if err == nil && sh.Depth >= 2 {
		err = farLeaves(d, sh.Order, sh.Depth, f.tree)
		for l := sh.Depth - 1; l >= 2 && err == nil; l-- {
			err = farParents(d, sh.Order, l, f.tree)
		}
	}
	if err == nil {
		f.arrays[3].Free() // the float64 charges served the parents'
	}
	if err != nil {
		f.free()
		return nil, err
	}
	return f, nil
}

func (f *farField) free() {
	cuda.FreeAll(&f.arrays[0], &f.arrays[1], &f.arrays[2], &f.arrays[3], &f.arrays[4], &f.arrays[5], &f.tree)
	f.ix.free()
}
