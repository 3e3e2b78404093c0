package paperbench

import (
	"fmt"
	"strings"
)

// aidw2015Table1 is Mei, Xu & Xu 2015, Table 1: AIDW, samples = nodes = 10K..1000K, ms; the
// CPU serial in double on an Intel Core i7-4700MQ, the GPU versions in single on a GeForce GT
// 730M (CUDA 7.0).
var aidw2015Table1 = []struct {
	version, layout string
	ms              [5]float64
}{
	{"CPU serial (double)", "-", [5]float64{6791, 168234, 673806, 16852984, 67471402}},
	{"GPU naive", "SoA", [5]float64{65.3, 863, 2884, 63599, 250574}},
	{"GPU naive", "AoaS", [5]float64{66.3, 875, 2933, 64593, 254488}},
	{"GPU tiled", "SoA", [5]float64{61.3, 714, 2242, 43843, 168189}},
	{"GPU tiled", "AoaS", [5]float64{61.6, 722, 2276, 44891, 172605}},
}

// writePublished writes what the papers reported for the family, for comparison.
func writePublished(b *strings.Builder, f Family) {
	switch f {
	case IDW2, IDW3:
		b.WriteString("\nPublished (Mei 2014; GeForce GT640, single precision, against a serial CPU version " +
			"on an Intel i5 3.2 GHz): over the CPU, naive 60x, tiled 120x, CDP 10x for power 2; 380x, 670x " +
			"and 78x for power 3.0; tiled about 2x naive. Mei & Tian 2016: the improved CDP version 2.9x " +
			"(power 2) and 1.5x (power 3.0) faster than the original; AoS/AoaS faster than SoA for naive " +
			"and tiled, SoA best for CDP.\n")
	case AIDW:
		b.WriteString("\n### Published: Mei, Xu & Xu 2015, Table 1 (ms; CPU: Intel Core i7-4700MQ, serial, " +
			"double; GPU: GeForce GT 730M, single)\n\n| Version | Layout |")
		for _, s := range PaperSizes {
			fmt.Fprintf(b, " %s |", FormatSize(s))
		}
		b.WriteString("\n|---|---|" + strings.Repeat("--:|", len(PaperSizes)) + "\n")
		for _, row := range aidw2015Table1 {
			fmt.Fprintf(b, "| %s | %s |", row.version, row.layout)
			for _, v := range row.ms {
				fmt.Fprintf(b, " %s |", formatMs(v))
			}
			b.WriteString("\n")
		}
		b.WriteString("\nMei, Xu & Xu 2016 (even-grid kNN, same GT 730M, single): up to 543x (naive weighting) " +
			"and 1017x (tiled weighting) over the 2015 CPU times; the kNN stage about 1% of the time at 1000K.\n")
	case BBox:
		b.WriteString("\nPublished (the reduction article: a sum of 1024 x 1024 integers, 100 runs in total, " +
			"ms): GeForce GT 750M two-pass 253.9 (unrolled 144.4), atomic single pass 132.5 (115.4), " +
			"retirement-counter single pass 1724.4 (1190.3); GTX 750 Ti 28.8 (30.3), 29.7 (29.5), 39.1 (33.0).\n")
	}
}
