package gridding

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/aidw/aidw/interp"
)

// smallGPU stands in for a GPU engine whose memory holds at most hold samples.
type smallGPU struct {
	interp.CPU
	hold int
}

func (g *smallGPU) Name() string { return "gpu:0 (small)" }

func (g *smallGPU) WhyNotHold(a interp.Algorithm, n int) string {
	if n > g.hold {
		return fmt.Sprintf("%d samples, %s holds %d", n, g.Name(), g.hold)
	}
	return ""
}

// TestHoldingFallsBack: samples a GPU cannot hold go to the CPU engine under -device auto, with
// a warning, and stop -device gpu with the reason and the ways out; samples it holds stay on it.
func TestHoldingFallsBack(t *testing.T) {
	gpu := &smallGPU{hold: 100}
	for _, c := range []struct {
		device  string
		n       int
		engine  string // the engine's name, "" for an error
		message string // in the warning or the error
	}{
		{"auto", 100, gpu.Name(), ""},
		{"gpu", 100, gpu.Name(), ""},
		{"auto", 101, (&interp.CPU{}).Name(), "running on the CPU engine"},
		{"gpu", 101, "", "-device gpu: 101 samples, gpu:0 (small) holds 100: tile the run with -memory"},
	} {
		var warn bytes.Buffer
		r, err := newRun(&Options{Algorithm: "aidw", Device: c.device, Warnings: &warn})
		if err != nil {
			t.Fatal(err)
		}
		eng, err := r.holding(gpu, c.n)
		switch {
		case c.engine == "" && (err == nil || !strings.Contains(err.Error(), c.message)):
			t.Errorf("-device %s, %d samples: error %v, want one with %q", c.device, c.n, err, c.message)
		case c.engine != "" && (err != nil || eng.Name() != c.engine):
			t.Errorf("-device %s, %d samples: %v, %v; want %s", c.device, c.n, eng, err, c.engine)
		case c.engine != "" && ((c.message == "") != (warn.Len() == 0) || !strings.Contains(warn.String(), c.message)):
			t.Errorf("-device %s, %d samples: warned %q, want %q", c.device, c.n, warn.String(), c.message)
		}
	}
}
