//go:build cuda

package kernels

import (
	"math"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
)

// ---- forms.cuh

// gdalFormKernel runs the kernel of a gdal_grid form over count nodes (invdistnn's of list
// size k of nodeKs, or its quadrant search).
func gdalFormKernel(d *cuda.Device, form interp.DeviceForm, quad bool, k int, prob buf, row0, first, count int, list,
	out buf) error {
	name, ok := formKernels[form]
	switch {
	case ok:
	case quad:
		name = invdistnnQuadKernel
	default:
		name = invdistnnKernel(k)
	}
	return d.Launch(name, cuda.Over(count, nodeBlock), ptr(prob), i64(row0), i64(first), i64(count), ptr(list),
		ptr(out))
}

// gatherRanks puts the samples' ranks (input order) into cell order.
func gatherRanks(d *cuda.Device, order, rank buf, n int, out buf) error {
	return d.Launch("gather_ranks", cuda.Over(n, flatBlock), ptr(order), ptr(rank), i64(n), ptr(out))
}

// formBufs are a gdal_grid form's own device buffers.
type formBufs struct {
	flags buf // int32 FLAG_* of forms.cuh
	rank  buf // int32 gdal's order in cell order, once a node needed it
}

func (f *formBufs) free() { cuda.FreeAll(&f.flags, &f.rank) }

// prepareForm gives a gdal_grid form its flags (device thread only).
func (pp *prepared) prepareForm() error {
	if !isGDALForm(pp.w.form) {
		return nil
	}
	pp.forms = &formBufs{}
	var err error
	if pp.forms.flags, err = cuda.UploadNew([]int32{0}); err != nil {
		return err
	}
	pp.host.Flags = devPtr(pp.forms.flags.Ptr)
	return nil
}

// runForm computes nodes first..first+n-1 of the block at row0 by a gdal_grid form into c.out.
// A node that meets a tie gdal breaks by its quadtree order, before the order is on the
// device, flags it: the order is computed (once) and the chunk runs again.
func (c *chunker) runForm(row0, first, n int) error {
	pp := c.pp
	d := pp.e.dev
	for {
		quad := pp.host.MinPerQuad > 0 || pp.host.MaxPerQuad > 0
		if err := gdalFormKernel(d, pp.w.form, quad, kmax(pp.host.NQ), pp.prob, row0, first, n, c.list,
			c.out); err != nil {
			return err
		}
		if pp.host.Rank != 0 || !pp.mayNeedRanks() {
			return nil
		}
		var flags [1]int32
		if err := cuda.Download(flags[:], pp.forms.flags, 0); err != nil {
			return err
		}
		if flags[0]&flagRanks == 0 {
			return nil
		}
		if err := pp.uploadRanks(); err != nil {
			return err
		}
	}
}

// mayNeedRanks says whether the form can meet a tie that gdal's order breaks: invdistnn, and
// nearest on gdal's quadtree.
func (pp *prepared) mayNeedRanks() bool {
	return pp.w.form == interp.DeviceInvDistNN || pp.w.form == interp.DeviceNearestSample && !math.IsInf(pp.host.Sq, 1)
}

// uploadRanks puts gdal's quadtree order of the samples on the device, in cell order, and
// tells the kernels where it is (device thread only).
func (pp *prepared) uploadRanks() error {
	pp.e.tieOrders++
	ranks := interp.DeviceTieRanks(pp.p)
	rank, err := cuda.UploadStagedNew(pp.e.dev, ranks)
	if err != nil {
		return err
	}
	defer rank.Free()
	if pp.forms.rank, err = cuda.AllocN[int32](len(ranks)); err != nil {
		return err
	}
	if err := gatherRanks(pp.e.dev, pp.ix.order, rank, len(ranks), pp.forms.rank); err != nil {
		return err
	}
	pp.host.Rank = devPtr(pp.forms.rank.Ptr)
	return cuda.Upload(pp.prob, []problem{pp.host})
}
