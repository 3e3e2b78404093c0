package main

import (
	"fmt"
	"io"
	"sync/atomic"
)

// termProgress prints progress the way GDAL's command-line tools do
// ("0...10...20...30...40...50...60...70...80...90...100 - done."), so scripts and QGIS that
// parse gdal_grid's progress read aidw's too.
type termProgress struct {
	w        io.Writer
	lastTick int
}

func newTermProgress(w io.Writer) *termProgress {
	p := &termProgress{w: w, lastTick: -1}
	openProgress.Store(p)
	return p
}

// openProgress is the progress line being printed, if any: an error that ends the run starts
// on a new line rather than after "0...10...20".
var openProgress atomic.Pointer[termProgress]

// endProgressLine ends a progress line that was started and not finished.
func endProgressLine() {
	if p := openProgress.Swap(nil); p != nil && p.lastTick >= 0 && p.lastTick < 40 {
		fmt.Fprintln(p.w)
	}
}

// Update reports the fraction done, 0..1; fractions never go back.
func (p *termProgress) Update(done float64) {
	tick := min(40, max(0, int(done*40)))
	for p.lastTick < tick {
		p.lastTick++
		if p.lastTick%4 == 0 {
			fmt.Fprintf(p.w, "%d", p.lastTick/4*10)
		} else {
			fmt.Fprint(p.w, ".")
		}
		if p.lastTick == 40 {
			fmt.Fprint(p.w, " - done.\n")
		}
	}
}
