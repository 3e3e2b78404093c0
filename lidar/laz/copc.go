package laz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// COPC (cloud-optimised point cloud): a LAZ 1.4 file whose chunks are the
// nodes of an octree. The info VLR (user "copc", record 1) gives the root
// cube and where the hierarchy starts; the hierarchy EVLR (user "copc",
// record 1000) holds pages of 32-byte entries, each a node (its chunk's
// offset, size and point count) or, with a count of -1, a child page.

// CopcInfo is the COPC info VLR.
type CopcInfo struct {
	CenterX, CenterY, CenterZ float64
	HalfSize                  float64
	Spacing                   float64
	RootHierOffset            uint64
	RootHierSize              uint64
	GPSTimeMin, GPSTimeMax    float64
}

// Key is a node's octree address: depth and cell indexes at that depth.
type Key struct{ D, X, Y, Z int32 }

// Box is an axis-aligned bounding box.
type Box struct{ MinX, MinY, MinZ, MaxX, MaxY, MaxZ float64 }

// Node is one entry of the COPC hierarchy: a chunk of Points points at
// [Offset, Offset+Bytes).
type Node struct {
	Key    Key
	Offset int64
	Bytes  int32
	Points int32
	Bounds Box
}

// ParseCopcInfo parses the payload of the COPC info VLR (160 bytes).
func ParseCopcInfo(payload []byte) (*CopcInfo, error) {
	if len(payload) < 72 {
		return nil, fmt.Errorf("copc info vlr: %d bytes, want 160", len(payload))
	}
	f := func(o int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(payload[o:])) }
	in := &CopcInfo{
		CenterX: f(0), CenterY: f(8), CenterZ: f(16), HalfSize: f(24), Spacing: f(32),
		RootHierOffset: binary.LittleEndian.Uint64(payload[40:]),
		RootHierSize:   binary.LittleEndian.Uint64(payload[48:]),
	}
	if len(payload) >= 72 {
		in.GPSTimeMin, in.GPSTimeMax = f(56), f(64)
	}
	if !(in.HalfSize > 0) || math.IsInf(in.HalfSize, 0) {
		return nil, fmt.Errorf("copc info vlr: halfsize %v", in.HalfSize)
	}
	return in, nil
}

// Bounds is the cube of the node with key k.
func (in *CopcInfo) Bounds(k Key) Box {
	if k.D < 0 || k.D > 62 {
		return Box{}
	}
	side := 2 * in.HalfSize / float64(int64(1)<<uint(k.D))
	x0 := in.CenterX - in.HalfSize + float64(k.X)*side
	y0 := in.CenterY - in.HalfSize + float64(k.Y)*side
	z0 := in.CenterZ - in.HalfSize + float64(k.Z)*side
	return Box{x0, y0, z0, x0 + side, y0 + side, z0 + side}
}

// ErrHierarchy marks a COPC hierarchy that is not a valid octree of the file's chunks: a
// reader can still read the file as plain LAZ, through its chunk table.
var ErrHierarchy = errors.New("invalid COPC hierarchy")

func hierarchyError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrHierarchy}, args...)...)
}

const (
	copcEntrySize = 32
	maxCopcPages  = 1 << 20
	maxPageBytes  = 1 << 28
)

// ReadHierarchy reads the hierarchy pages, starting at the root page the
// info points to and following child pages, and returns every node that
// holds data (Points >= 0; nodes with 0 points are kept too). Only the pages
// are read, so this suits ranged remote reads. A hierarchy that is not an
// octree under the root (a key outside its level's cells, a key listed twice,
// a node whose parent is not listed: its points would be sought in the wrong
// cube) is an ErrHierarchy.
func ReadHierarchy(src io.ReaderAt, size int64, info *CopcInfo) ([]Node, error) {
	type page struct{ off, size int64 }
	pending := []page{{int64(info.RootHierOffset), int64(info.RootHierSize)}}
	seen := map[int64]bool{}
	keys := map[Key]bool{} // every entry's, child pages' included
	var nodes []Node
	for len(pending) > 0 {
		p := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		if seen[p.off] {
			return nil, hierarchyError("page at %d listed twice", p.off)
		}
		seen[p.off] = true
		if len(seen) > maxCopcPages {
			return nil, hierarchyError("too many pages")
		}
		if p.off < 0 || p.size < 0 || p.size > maxPageBytes || p.off > size || p.size > size-p.off || p.size%copcEntrySize != 0 {
			return nil, hierarchyError("page at %d of %d bytes is invalid (file has %d bytes)", p.off, p.size, size)
		}
		buf := make([]byte, p.size)
		if err := readFull(src, buf, p.off); err != nil {
			return nil, fmt.Errorf("copc hierarchy page: %w", err)
		}
		for e := 0; e+copcEntrySize <= len(buf); e += copcEntrySize {
			b := buf[e:]
			le := binary.LittleEndian
			k := Key{int32(le.Uint32(b)), int32(le.Uint32(b[4:])), int32(le.Uint32(b[8:])), int32(le.Uint32(b[12:]))}
			off := int64(le.Uint64(b[16:]))
			nb := int32(le.Uint32(b[24:]))
			np := int32(le.Uint32(b[28:]))
			if !k.inOctree() {
				return nil, hierarchyError("node %v lies outside the octree", k)
			}
			if keys[k] {
				return nil, hierarchyError("node %v listed twice", k)
			}
			keys[k] = true
			switch {
			case np == -1:
				pending = append(pending, page{off, int64(nb)})
			case np < -1:
				return nil, hierarchyError("node %v has %d points", k, np)
			default:
				if nb < 0 || (np > 0 && (off < 0 || off > size || int64(nb) > size-off)) {
					return nil, hierarchyError("node %v (offset %d, %d bytes) is invalid", k, off, nb)
				}
				nodes = append(nodes, Node{Key: k, Offset: off, Bytes: nb, Points: np, Bounds: info.Bounds(k)})
			}
		}
	}
	for k := range keys {
		if parent := k.parent(); k.D > 0 && !keys[parent] {
			return nil, hierarchyError("node %v has no parent %v", k, parent)
		}
	}
	return nodes, nil
}

// maxDepth is the deepest level a key can address: its cell indexes are int32.
const maxDepth = 31

// inOctree says whether k is a cell of the octree: a level from the root (0) to maxDepth and
// indexes within that level's 2^D cells a side.
func (k Key) inOctree() bool {
	if k.D < 0 || k.D > maxDepth {
		return false
	}
	n := int64(1) << uint(k.D)
	return k.X >= 0 && int64(k.X) < n && k.Y >= 0 && int64(k.Y) < n && k.Z >= 0 && int64(k.Z) < n
}

// parent is the key of the cell that holds k's, one level up.
func (k Key) parent() Key { return Key{k.D - 1, k.X / 2, k.Y / 2, k.Z / 2} }

// NodesIntersecting returns the nodes holding points whose cube meets the
// rectangle [xmin, xmax] x [ymin, ymax].
func NodesIntersecting(nodes []Node, info *CopcInfo, xmin, ymin, xmax, ymax float64) []Node {
	var out []Node
	for _, n := range nodes {
		if n.Points <= 0 {
			continue
		}
		b := info.Bounds(n.Key)
		if b.MaxX < xmin || b.MinX > xmax || b.MaxY < ymin || b.MinY > ymax {
			continue
		}
		out = append(out, n)
	}
	return out
}
