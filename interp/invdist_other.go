//go:build !amd64

package interp

// oneKernelFor is the kernel of idw2All for n samples in all.
func oneKernelFor(int) oneKind { return oneGo }

// rowKernelFor is the kernel of idw2Row for n samples in all.
func rowKernelFor(int) rowKind { return rowGo }

func idw2AddSIMD(oneKind, []float64, []float64, []float64, float64, float64, []float64) int {
	panic("interp: no SIMD kernels on this architecture")
}

func idw2RowAddSIMD(rowKind, []float64, []float64, []float64, *[batchNodes]float64, float64, float64, []float64) {
	panic("interp: no SIMD kernels on this architecture")
}
