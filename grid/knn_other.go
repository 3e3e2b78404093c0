//go:build !amd64

package grid

// knnVector says whether KNN has a vector kernel: not on this architecture.
var knnVector = false

// maxLanes is the largest k a vector kernel serves: none here.
const maxLanes = 0

// knnLanes is KNN's vector search where the CPU has one; here it has none.
func (ix *Index) knnLanes(qx, qy float64, k int, maxD2 float64, dst []Neighbor) ([]Neighbor, bool) {
	return dst, false
}
