//go:build !amd64

package grid

// knnLanes is KNN's vector search where the CPU has one; here it has none.
func (ix *Index) knnLanes(qx, qy float64, k int, maxD2 float64, dst []Neighbor) ([]Neighbor, bool) {
	return dst, false
}
