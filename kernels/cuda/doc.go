// Package cuda is the device plumbing under the GPU engine (package kernels) and the papers'
// GPU experiments (paperbench/gpu), over its own small binding to the CUDA driver API
// (driver.go), in the cuda build: a Device (a GPU's primary context with a module loaded,
// driven from one OS thread), device Buffers and their copies, kernel launches with 8-byte
// arguments only (Arg), and CUDA-event timelines.
//
// Launchers of particular kernels, with typed parameters, live beside their CUDA sources'
// users: kernels/launch.go for the engine's, paperbench/gpu for the papers'.
package cuda
