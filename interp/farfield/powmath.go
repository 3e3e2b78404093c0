package farfield

import (
	"math"

	"github.com/aidw/aidw/internal/fastmath"
)

// weight is d2^c (c = -alpha/2) for d2 >= exactHitD2; weights beyond 2^+-1000 are clamped
// there (math.Pow takes over outside, so that they under- and overflow as math.Pow's do).
func weight(d2, c float64) float64 {
	t := c * fastmath.Log2Pos(d2)
	if t < -1000 || t > 1000 {
		return math.Pow(d2, c)
	}
	return fastmath.Exp2(t)
}
