package laz

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// The fixtures are small, so the benchmarks decode them over and over: b.N
// passes over all chunks of the file, every chunk of every pass a job for a
// pool of workers, as DecodeAll does for one large file.
func benchDecode(b *testing.B, name string, sel Fields) {
	f, r := openLAZ(b, name)
	chunks := r.Chunks()
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			dsts := make([][]byte, workers)
			for i := range dsts {
				dsts[i] = make([]byte, int(f.count)*f.recLen)
			}
			b.SetBytes(int64(f.count) * int64(f.recLen))
			b.ResetTimer()
			jobs := int64(b.N) * int64(len(chunks))
			var next atomic.Int64
			var wg sync.WaitGroup
			var failed atomic.Value
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(dst []byte) {
					defer wg.Done()
					for {
						j := next.Add(1) - 1
						if j >= jobs {
							return
						}
						ci := int(j % int64(len(chunks)))
						c := chunks[ci]
						if err := r.DecodeChunk(ci, dst[c.FirstPoint*uint64(f.recLen):], sel); err != nil {
							failed.Store(err)
							return
						}
					}
				}(dsts[w])
			}
			wg.Wait()
			b.StopTimer()
			if err := failed.Load(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(f.count)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpoints/s")
		})
	}
}

// BenchmarkDecodeAutzen: point format 3 (POINT10, GPSTIME11, RGB12), x, y, z and classification.
func BenchmarkDecodeAutzen(b *testing.B) { benchDecode(b, "autzen_trim.laz", Classification) }

// BenchmarkDecodePoint14: point format 6 (POINT14 only: the common LAS 1.4 case), x, y, z
// and classification: 4 of its 9 layers are decoded, the other 5 skipped unread.
func BenchmarkDecodePoint14(b *testing.B) { benchDecode(b, "1_4_w_evlr.laz", Classification) }

// BenchmarkDecodePoint14Fullwave: point format 10 (POINT14, RGBNIR14, WAVEPACKET14), the
// largest point14 fixture, x, y, z and classification (4 of 12 layers).
func BenchmarkDecodePoint14Fullwave(b *testing.B) { benchDecode(b, "fullwave.laz", Classification) }

// BenchmarkDecodePoint14FullwaveAll decodes every layer of the same file.
func BenchmarkDecodePoint14FullwaveAll(b *testing.B) { benchDecode(b, "fullwave.laz", AllFields) }
