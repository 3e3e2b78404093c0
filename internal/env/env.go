// Package env declares every AIDW_* environment variable that aidw, its tests and its scripts
// read: the one list docs/environment.md is generated from, and that a test holds against the
// code (a variable read anywhere must be declared here, and one declared here must be read).
package env

import (
	"fmt"
	"strings"
)

// Var is one environment variable: its name, who reads it, and what it does.
type Var struct {
	Name   string
	Reader string // the package, test or script that reads it
	Effect string
}

// Vars is every AIDW_* environment variable, the program's first, then the tests' and the
// scripts'.
var Vars = []Var{
	{"AIDW_DEBUG", "cmd/aidw", "set to anything: an internal error (exit 2) prints its Go stack after the one ERROR line"},
	{"AIDW_CPUPROFILE", "cmd/aidw", "a file: the command writes a Go CPU profile of its whole run there (`go tool pprof`), for runs on hosts without Go"},
	{"AIDW_PTX", "kernels (cuda build)", "a PTX file the GPU engine loads instead of the one compiled in"},
	{"AIDW_GPU_FLOAT64", "kernels (cuda build)", "1: the GPU sums the global weights in float64 (within 1e-12 of the CPU engine, slower)"},
	{"AIDW_GPU_TIMES", "kernels (cuda build)", "1: each GPU prints, once its problem is done, how long it took to index the samples and to compute the nodes, and how much of that was gdal's quadtree order on the host"},
	{"AIDW_UPDATE", "tests: cmd/aidw, internal/env", "set: `go test -run TestGenerated` rewrites the generated files (README's algorithms table, QGIS's algorithms.json, docs/environment.md) instead of failing"},
	{"AIDW_LAZPERF", "tests: lidar/laz", "1: a missing laz-perf oracle (node, scripts/lazperf) fails the LAZ tests instead of skipping them; scripts/test.sh sets it"},
	{"AIDW_DRIVER_CHILD", "tests: kernels/cuda (cuda build)", "1: the run of TestDeviceCountWithoutGPU that its parent starts with no GPU visible (CUDA_VISIBLE_DEVICES=-1)"},
	{"AIDW_LAZ_CPUTIME", "tests: lidar/laz", "set: runs the test that measures the LAZ decoder's CPU time per point"},
	{"AIDW_TEST_SLOWDOWN", "tests: internal/testload (cmd/aidw, tiles)", "a factor above 1 that scales the tests' bounds on how soon an interrupt stops a run, beyond the load they measure, on a machine slow for other reasons (a sanitizer, an emulator)"},
	{"AIDW_VERSION", "scripts/deb.sh", "the Debian package's version (default: the plugin's version, the commit's date and hash)"},
	{"AIDW_MAINTAINER", "scripts/deb.sh", "the Debian package's maintainer, name <email>"},
	{"AIDW_IMAGE", "scripts/image.sh, scripts/image-test.sh", "the container image's name (default localhost/aidw:latest)"},
	{"AIDW_IMAGE_ARCHIVE", "scripts/image.sh", "also save the image as an OCI archive to this file, for machines without podman"},
	{"AIDW_MIRROR", "scripts/image.sh", "the Debian mirror the image is built from (default: the host's apt sources)"},
	{"AIDW_IMAGE_TEST_BUILD", "scripts/image-test.sh", "0: use the image already built instead of building it"},
	{"AIDW_COMMIT", "scripts/gpu-bench.sh", "the commit the GPU benchmark's report names when the bundle it ran from has no git"},
	{"AIDW_BIN", "qgis/tests (scripts/qgis-test.sh)", "the aidw executable the QGIS test runs for reference"},
	{"AIDW_PLUGIN_DIR", "qgis/tests (scripts/qgis-test.sh)", "the folder holding the installed aidw_processing plugin"},
	{"AIDW_TESTDATA", "qgis/tests (scripts/qgis-test.sh)", "the repository's testdata folder"},
}

// Markdown is the table of Vars, as docs/environment.md holds it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Variable | Read by | Effect |\n|---|---|---|\n")
	for _, v := range Vars {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, v.Reader, v.Effect)
	}
	return b.String()
}
