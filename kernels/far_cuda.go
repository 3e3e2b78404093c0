//go:build cuda

package kernels

import (
	"context"
	"slices"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/interp/farfield"
	"github.com/aidw/aidw/kernels/cuda"
)

// farField is a far-field tree on the device (interp/farfield.DeviceTree).
type farField struct {
	order int
	tree  buf // the farTree
	// x, y, z, leafStart, levelStart, count, charges, cheb
	arrays [8]buf
}

// deviceTree builds, on the host, the far-field tree of p's samples over its target's
// extent for the weighting d.
func deviceTree(ctx context.Context, p *interp.Problem, d interp.DeviceParams) (*farfield.DeviceTree, error) {
	s := p.Samples
	x, y := s.Coords()
	xmin, ymin, xmax, ymax := p.Target.Extent()
	box := [4]float64{xmin - s.OriginX, ymin - s.OriginY, xmax - s.OriginX, ymax - s.OriginY}
	o := farfield.Options{AlphaMin: d.Power, AlphaMax: d.Power}
	if d.Adaptive {
		o.AlphaMin, o.AlphaMax = slices.Min(d.Alphas[:]), slices.Max(d.Alphas[:])
	}
	return farfield.NewDeviceTree(ctx, x, y, s.Z, box, o)
}

// uploadFarField uploads a device tree to d, the large arrays through its pinned staging
// buffers (device thread only).
func uploadFarField(d *cuda.Device, dt *farfield.DeviceTree) (*farField, error) {
	f := &farField{order: dt.Order}
	cheb := make([]float32, len(dt.Cheb))
	for i, v := range dt.Cheb {
		cheb[i] = float32(v)
	}
	// Count and Charges are empty below depth 2: a padding element keeps every allocation
	// non-empty.
	uploads := [...]func() (buf, error){
		func() (buf, error) { return cuda.UploadStagedNew(d, dt.X) },
		func() (buf, error) { return cuda.UploadStagedNew(d, dt.Y) },
		func() (buf, error) { return cuda.UploadStagedNew(d, dt.Z) },
		func() (buf, error) { return cuda.UploadNew(dt.LeafStart) },
		func() (buf, error) { return cuda.UploadNew(dt.LevelStart) },
		func() (buf, error) { return cuda.UploadNew(append(dt.Count, 0)) },
		func() (buf, error) { return cuda.UploadStagedNew(d, append(dt.Charges, 0, 0)) },
		func() (buf, error) { return cuda.UploadNew(cheb) },
	}
	a := &f.arrays
	var err error
	for i, u := range uploads {
		if a[i], err = u(); err != nil {
			break
		}
	}
	if err == nil {
		t := farTree{OX: dt.OX, OY: dt.OY, Side: dt.Side, Depth: int64(dt.Depth),
			X: devPtr(a[0].Ptr), Y: devPtr(a[1].Ptr), Z: devPtr(a[2].Ptr), LeafStart: devPtr(a[3].Ptr),
			LevelStart: devPtr(a[4].Ptr), Count: devPtr(a[5].Ptr), Charges: devPtr(a[6].Ptr), Cheb: devPtr(a[7].Ptr)}
		f.tree, err = cuda.UploadNew([]farTree{t})
	}
	if err != nil {
		f.free()
		return nil, err
	}
	return f, nil
}

func (f *farField) free() {
	for i := range f.arrays {
		f.arrays[i].Free()
	}
	f.tree.Free()
}
