package lidar

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aidw/aidw/sample"
)

// lazBenchPoints and lazBenchChunks size the benchmark's virtual file: at least this many
// points, and chunks enough that each of 16 cores gets dozens, as of a survey's 62.5M-point
// file (1250 chunks).
const lazBenchPoints, lazBenchChunks = 4_000_000, 512

// BenchmarkReadLAZ reads a large virtual LAZ file through the reader's own path (its chunks
// decoded on GOMAXPROCS workers into compact samples, then gathered in file order): the chunks
// of autzen_trim.laz (point format 3) or 1_4_w_evlr.laz (format 6) repeated, there being no LAZ
// writer to make a large file. Run it at 1 and N cores; the decoding scales as N·rate(1)
// against rate(N) (scripts/bench-laz.sh scaling prints that efficiency):
//
//	go test ./lidar -run '^$' -bench ReadLAZ -cpu 1,16 -benchtime 3x
//
// cpu-ns/point is the CPU time (user + system) of the process a point, which grows with N
// only where the cores contend.
func BenchmarkReadLAZ(b *testing.B) {
	for _, c := range []struct {
		name, file string
		filter     Filter
	}{
		{"format3", "autzen_trim.laz", Filter{}},
		{"format3-ground", "autzen_trim.laz", Filter{Classes: []int{2}}},
		{"format6", "1_4_w_evlr.laz", Filter{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			src, err := OpenLocal(filepath.Join("..", "testdata", "laz", c.file))
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			f, err := Open(src)
			if err != nil {
				b.Fatal(err)
			}
			proto := newSamples(nil, []Header{f.Header}, true)
			d, err := newPointDecoder(f.Header, c.filter, proto)
			if err != nil {
				b.Fatal(err)
			}
			p, err := f.plan(context.Background(), d)
			if err != nil {
				b.Fatal(err)
			}
			var chunks []span
			points := 0
			for i := 0; i < lazBenchChunks || points < lazBenchPoints; i++ {
				s := p.chunks[i%len(p.chunks)]
				chunks = append(chunks, span{points, s.n})
				points += s.n
			}
			fill := func(i int, buf []byte) error { return p.fill(i%len(p.chunks), buf) }
			// one destination for every pass: a new one a pass would be cleared by one thread
			// (the runtime's, for memory it reuses), which a reader of a file does not pay
			dst := &sample.Samples{QuantumX: proto.QuantumX, QuantumY: proto.QuantumY,
				OriginX: proto.OriginX, OriginY: proto.OriginY}
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				dst.Truncate(0)
				if _, err := readChunks(context.Background(), plan{chunks: chunks, fill: fill, workers: p.workers}, f.RecordLength, d, dst, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			total := float64(points) * float64(b.N)
			b.ReportMetric(total/b.Elapsed().Seconds()/1e6, "Mpoints/s")
			b.ReportMetric(float64(cpuTime()-cpu0)/total, "cpu-ns/point")
		})
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
