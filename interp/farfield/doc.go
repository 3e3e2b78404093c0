// Package farfield computes global inverse-distance sums with a per-target power by a
// far-field (interpolation-based fast summation) scheme.
package farfield
