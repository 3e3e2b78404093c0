package lidar

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/aidw/aidw/lidar/laz"
)

// lazPlan reads a LAZ file chunk by chunk, each chunk decoded into the records the LAS decoder
// then reads as it reads a LAS file's: a LAZ file gives the samples its LAS twin gives, bit for
// bit. Only the fields the run needs are decoded (point formats 6-10 are layered). A COPC file
// read for part of its extent reads only the octree nodes that meet it.
func (f *File) lazPlan(src ctxReader, d *pointDecoder) (plan, error) {
	if f.LAZ == nil {
		return plan{}, errors.New("the points are compressed (LAZ) but the file has no LASzip record")
	}
	info, err := laz.ParseVLR(f.LAZ)
	if err != nil {
		return plan{}, err
	}
	r, err := laz.Open(src, f.src.Size(), info, f.PointOffset, uint64(f.PointCount), f.RecordLength)
	if err != nil {
		return plan{}, err
	}
	sel := d.lazFields()
	if box, ok := d.window(); ok && f.COPC != nil {
		p, err := f.copcPlan(src, r, box, sel)
		if !errors.Is(err, laz.ErrHierarchy) {
			return p, err
		}
		// the chunk table still finds every point, which the window then selects by position
	}
	chunks := r.Chunks()
	spans := make([]span, len(chunks))
	for i, c := range chunks {
		spans[i] = span{int(c.FirstPoint), c.Points}
	}
	return plan{chunks: spans, fill: func(c int, buf []byte) error { return r.DecodeChunk(c, buf, sel) }, workers: runtime.GOMAXPROCS(0)}, nil
}

// copcPlan reads the octree nodes of a COPC file that meet box (xmin ymin xmax ymax), in file
// order: its hierarchy pages and those nodes are all it reads of the points. A hierarchy that
// is not an octree holding the header's points is a laz.ErrHierarchy: the file is then read as
// plain LAZ.
func (f *File) copcPlan(src ctxReader, r *laz.Reader, box [4]float64, sel laz.Fields) (plan, error) {
	info, err := laz.ParseCopcInfo(f.COPC)
	if err != nil {
		return plan{}, err
	}
	all, err := laz.ReadHierarchy(src, f.src.Size(), info)
	if err != nil {
		return plan{}, err
	}
	total := 0
	for _, n := range all {
		total += int(n.Points)
	}
	// the counts size the decoder's buffers: a corrupt one must not ask for gigabytes
	if total != f.PointCount {
		return plan{}, fmt.Errorf("%w: its nodes hold %d points, the header %d", laz.ErrHierarchy, total, f.PointCount)
	}
	nodes := laz.NodesIntersecting(all, info, box[0], box[1], box[2], box[3])
	slices.SortFunc(nodes, func(a, b laz.Node) int { return int(a.Offset - b.Offset) })
	spans := make([]span, len(nodes))
	first := 0
	for i, n := range nodes {
		spans[i] = span{first, int(n.Points)}
		first += int(n.Points)
	}
	return plan{chunks: spans, fill: func(c int, buf []byte) error {
		n := nodes[c]
		if err := r.DecodeAt(n.Offset, int64(n.Bytes), int(n.Points), buf, sel); err != nil {
			return fmt.Errorf("COPC node %d-%d-%d-%d: %w", n.Key.D, n.Key.X, n.Key.Y, n.Key.Z, err)
		}
		return nil
	}, workers: runtime.GOMAXPROCS(0)}, nil
}

// lazFields are the fields of a LAZ record the decoder reads: x, y, z and the returns always,
// the classification for the class and flag filters, and the attribute gridded.
func (d *pointDecoder) lazFields() laz.Fields {
	sel := laz.XYZ
	if d.classesOrFlags {
		sel |= laz.Classification
	}
	switch d.field {
	case "intensity":
		sel |= laz.Intensity
	case "classification":
		sel |= laz.Classification
	case "scan_angle":
		sel |= laz.ScanAngle
	case "user_data":
		sel |= laz.UserData
	case "point_source_id":
		sel |= laz.PointSource
	case "gps_time":
		sel |= laz.GPSTime
	case "red", "green", "blue":
		sel |= laz.RGB
	case "nir":
		sel |= laz.NIR
	}
	return sel
}

// window is the box outside which the readers' filter drops every point, if there is one.
func (d *pointDecoder) window() ([4]float64, bool) {
	if d.samples == nil || d.samples.Region == nil {
		return [4]float64{}, false
	}
	return d.samples.Region.BBox, true
}
