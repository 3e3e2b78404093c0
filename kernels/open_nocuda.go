//go:build !cuda

package kernels

import (
	"errors"

	"github.com/aidw/aidw/interp"
)

// OpenEngines reports that this build has no GPU engine; the cuda build (open_cuda.go) has one.
func OpenEngines([]int) ([]interp.Engine, error) {
	return nil, errors.New("this aidw was built without GPU support (build with -tags cuda)")
}

// OrdersCompact is false: this build has no GPU engine.
func OrdersCompact(interp.Algorithm) bool { return false }
