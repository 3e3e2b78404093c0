package paperbench

import (
	"testing"

	"github.com/aidw/aidw/interp"
)

// TestExactHitIsInterps: the papers' serial versions take a sample's value within the same
// distance as aidw's algorithms and the GPU kernels (interp.ExactHitD2, HIT_D2 of knn.cuh).
func TestExactHitIsInterps(t *testing.T) {
	if exactHit != interp.ExactHitD2 {
		t.Errorf("paperbench's exactHit %g, interp.ExactHitD2 %g", exactHit, interp.ExactHitD2)
	}
}
