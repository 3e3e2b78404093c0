//go:build cuda

package kernels

import (
	"math"
	"time"

	"github.com/aidw/aidw/interp"
	"github.com/aidw/aidw/kernels/cuda"
)

// ---- forms.cuh

// gdalFormKernel runs kernel name (formKernel) of a gdal_grid form over count nodes.
func gdalFormKernel(d *cuda.Device, name string, prob buf, row0, first, count int, list, out buf) error {
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
		name := formKernel(pp.w.form, interp.DeviceStat(pp.host.Stat), quad, kmax(pp.host.NQ))
		if err := gdalFormKernel(d, name, pp.prob, row0, first, n, c.nodes(), c.out); err != nil {
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

// mayNeedRanks says whether the form can need gdal's order: invdistnn for its ties, and on
// gdal's quadtree nearest for its ties and average_distance_pts for its pair count.
func (pp *prepared) mayNeedRanks() bool {
	onQuadtree := !math.IsInf(pp.host.Sq, 1)
	pairs := pp.w.form == interp.DeviceWindow && interp.DeviceStat(pp.host.Stat) == interp.DevicePairs
	return pp.w.form == interp.DeviceInvDistNN || onQuadtree && (pp.w.form == interp.DeviceNearestSample || pairs)
}

// uploadRanks puts gdal's quadtree order of the samples on the device, in cell order, and
// tells the kernels where it is (device thread only): built on the device where it can be
// (deviceTieRanks), else on the host and uploaded.
func (pp *prepared) uploadRanks() error {
	pp.e.tieOrders++
	n := pp.p.Len()
	var err error
	if pp.forms.rank, err = cuda.AllocN[int32](n); err != nil {
		return err
	}
	start := time.Now()
	onDevice := false
	if interp.DeviceTieOrderOwn(pp.p) && !pp.e.hostTieOrder {
		if onDevice, err = pp.deviceTieRanks(pp.forms.rank); err != nil {
			return err
		}
		if err := cuda.Synchronize("gdal's quadtree order"); err != nil {
			return err
		}
		pp.times.deviceOrder += time.Since(start)
	}
	if !onDevice {
		if err := pp.hostTieRanks(pp.forms.rank); err != nil {
			return err
		}
	}
	pp.host.Rank = devPtr(pp.forms.rank.Ptr)
	return cuda.Upload(pp.prob, []problem{pp.host})
}

// hostTieRanks builds gdal's quadtree order on the host (interp.DeviceTieRanks) and puts it
// into rank, in cell order (device thread only).
func (pp *prepared) hostTieRanks(rank buf) error {
	start := time.Now()
	ranks := interp.DeviceTieRanks(pp.p)
	pp.times.order += time.Since(start)
	start = time.Now()
	defer func() { pp.times.upload += time.Since(start) }()
	byID, err := cuda.UploadStagedNew(pp.e.dev, ranks)
	if err != nil {
		return err
	}
	defer byID.Free()
	return gatherRanks(pp.e.dev, pp.ix.order, byID, len(ranks), rank)
}
