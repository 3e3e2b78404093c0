//go:build !cuda

package paperbench

// RegisterGPU leaves the GPU variants of `aidw bench` as the registry catalogues them:
// not run, since this build has no GPU engine. The cuda build's gpu_cuda.go defines it
// to implement them (see Registry.Implement).
func RegisterGPU(*Registry) error { return nil }
