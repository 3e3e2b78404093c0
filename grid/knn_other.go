//go:build !amd64

package grid

// kernel is a vector kernel of KNN's: none on this architecture, only knnSearch in Go.
type kernel int

const goKernel kernel = 0

func (k kernel) String() string { return "go" }

// knnKernels are the kernels this CPU runs; knnKernel is KNN's.
var (
	knnKernels = []kernel{goKernel}
	knnKernel  = goKernel
)

// knnLanes is KNN's vector search where the CPU has one; here it has none.
func (ix *Index) knnLanes(qx, qy float64, k int, maxD2 float64, dst []Neighbor) ([]Neighbor, bool) {
	return dst, false
}
