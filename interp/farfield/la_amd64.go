package farfield

import "golang.org/x/sys/cpu"

// haveAVX512 says whether the AVX-512 loops of la_amd64.s can run.
var haveAVX512 = cpu.X86.HasAVX512F

// haveAVX2FMA says whether its AVX2 loops can run: the CPU has AVX2 and FMA3. They run only
// where haveAVX512 is false.
var haveAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// matvec4AVX512 adds, for the 4 rows a_i = a[i*stride:][:n] (i < 4), a_i . x to y[i] and
// a_i . u to v[i].
//
//go:noescape
func matvec4AVX512(a *float64, stride int, x, u *float64, n int, y, v *float64)

// combineAVX512 sets gz[k] = sum_m la[m] fz[m*n+k] and g1[k] likewise from f1, k < n, m < q.
//
//go:noescape
func combineAVX512(la *float64, q int, fz, f1 *float64, n int, gz, g1 *float64)

// matvec4x2AVX512 is matvec4AVX512 on two pairs of vectors: (x1, u1) into (y1, v1) and
// (x2, u2) into (y2, v2).
//
//go:noescape
func matvec4x2AVX512(a *float64, stride int, x1, u1, x2, u2 *float64, n int, y1, v1, y2, v2 *float64)

// matvec4AVX2 is matvec4AVX512 with AVX2 and FMA.
//
//go:noescape
func matvec4AVX2(a *float64, stride int, x, u *float64, n int, y, v *float64)

// matvec2x2AVX2 is matvec4x2AVX512 with AVX2 and FMA on the 2 rows a[0:n] and
// a[stride:][:n], into y1[0:2], v1[0:2], y2[0:2] and v2[0:2].
//
//go:noescape
func matvec2x2AVX2(a *float64, stride int, x1, u1, x2, u2 *float64, n int, y1, v1, y2, v2 *float64)

// combineAVX2 is combineAVX512 with AVX2 and FMA.
//
//go:noescape
func combineAVX2(la *float64, q int, fz, f1 *float64, n int, gz, g1 *float64)
