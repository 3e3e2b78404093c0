//go:build !cuda

package main

import (
	"errors"

	"github.com/aidw/aidw/interp"
)

// newGPUEngine reports that this build has no GPU engine; the cuda build (gpu_cuda.go) has one.
func newGPUEngine() (interp.Engine, error) {
	return nil, errors.New("this aidw was built without GPU support (build with -tags cuda)")
}
