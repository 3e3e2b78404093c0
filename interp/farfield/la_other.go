//go:build !amd64

package farfield

// haveAVX512 and haveAVX2FMA are false: only amd64 has the assembly loops.
const (
	haveAVX512  = false
	haveAVX2FMA = false
)

func matvec4AVX512(a *float64, stride int, x, u *float64, n int, y, v *float64) {
	panic("farfield: no assembly on this architecture")
}

func combineAVX512(la *float64, q int, fz, f1 *float64, n int, gz, g1 *float64) {
	panic("farfield: no assembly on this architecture")
}

func matvec4x2AVX512(a *float64, stride int, x1, u1, x2, u2 *float64, n int, y1, v1, y2, v2 *float64) {
	panic("farfield: no assembly on this architecture")
}

func matvec4AVX2(a *float64, stride int, x, u *float64, n int, y, v *float64) {
	panic("farfield: no assembly on this architecture")
}

func matvec2x2AVX2(a *float64, stride int, x1, u1, x2, u2 *float64, n int, y1, v1, y2, v2 *float64) {
	panic("farfield: no assembly on this architecture")
}

func combineAVX2(la *float64, q int, fz, f1 *float64, n int, gz, g1 *float64) {
	panic("farfield: no assembly on this architecture")
}
