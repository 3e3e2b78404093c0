//go:build !amd64

package interp

// windowKernel is windowAVX2's, which only amd64 has.
type windowKernel struct{}

var windowHalf = 0 // windowAVX2's, which only amd64 has

// windowFastStart says that windowFast cannot run: it is assembly, which only amd64 has.
func windowFastStart(w *windowSpan, wb *windowBuf, y float64) bool { return false }

func windowFast(w *windowSpan, wb *windowBuf, px, py, zs []float64, y float64) {}
