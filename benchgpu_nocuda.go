//go:build !cuda

package main

import "github.com/aidw/aidw/paperbench"

// registerGPUBench leaves the GPU variants of `aidw bench` as the registry catalogues them:
// not run, since this build has no GPU engine. The cuda build's benchgpu_cuda.go defines it
// to implement them (see paperbench.Registry.Implement).
func registerGPUBench(*paperbench.Registry) error { return nil }
