package lidar

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/aidw/aidw/sample"
)

// A LAZ file reads as its LAS twin, bit for bit, whatever the filters and the attribute
// gridded: the decoder decodes only the fields a run needs, and those must be right.
func TestLAZReadsAsItsLASTwin(t *testing.T) {
	fields := []string{"", "intensity", "classification", "return_number", "scan_angle", "user_data",
		"point_source_id", "gps_time"}
	filters := append([]Filter{{Returns: "first", DropWithheld: true}, {ZRange: &[2]float64{0, 1e9}}}, testFilters...)
	for _, name := range []string{"simple", "1_4_w_evlr"} {
		base := filepath.Join("..", "testdata", "laz", name)
		for _, field := range fields {
			for _, flt := range filters {
				flt.Field = field
				what := fmt.Sprintf("%s %+v", name, flt)
				las, laz := &sample.Samples{}, &sample.Samples{}
				hl, err := readLocal(base+".las", flt, las)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				hz, err := readLocal(base+".laz", flt, laz)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if hl.PointCount != hz.PointCount || hl.SRS != hz.SRS || las.Len() != laz.Len() {
					t.Fatalf("%s: LAZ %d of %d points (%q), LAS %d of %d (%q)", what, laz.Len(), hz.PointCount, hz.SRS, las.Len(), hl.PointCount, hl.SRS)
				}
				for i := range las.X {
					if las.X[i] != laz.X[i] || las.Y[i] != laz.Y[i] || math.Float64bits(las.Z[i]) != math.Float64bits(laz.Z[i]) {
						t.Fatalf("%s: point %d differs", what, i)
					}
				}
			}
		}
	}
}

// Reading a file checks the context between chunks: a cancelled read stops, leaves the samples
// as they were and says why.
func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{"simple.las", "simple.laz"} {
		s := &sample.Samples{}
		s.Add(1, 2, 3)
		_, _, err := ReadFile(ctx, OpenLocal, filepath.Join("..", "testdata", "laz", p), Filter{}, s)
		if err != context.Canceled || s.Len() != 1 {
			t.Errorf("%s: %v with %d samples, want context.Canceled and the 1 sample there before", p, err, s.Len())
		}
	}
}

// Each hands over, in order and batch by batch, exactly the samples Read gives, from LAS in
// many small chunks and from LAZ; an error of the callback stops the reading and is returned.
func TestEachEqualsRead(t *testing.T) {
	for _, name := range []string{"simple.las", "simple.laz", "1_4_w_evlr.laz"} {
		path := filepath.Join("..", "testdata", "laz", name)
		for _, flt := range []Filter{{}, {Classes: []int{2}}, {Returns: "last", Field: "intensity"}} {
			src, err := OpenLocal(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(src)
			if err != nil {
				t.Fatal(err)
			}
			f.chunkPoints = 37
			want := &sample.Samples{}
			if _, err := f.Read(context.Background(), flt, want); err != nil {
				t.Fatal(err)
			}
			got := &sample.Samples{}
			batches := 0
			_, err = f.Each(context.Background(), flt, got, func(b *sample.Samples) error {
				batches++
				got.X, got.Y, got.Z = append(got.X, b.X...), append(got.Y, b.Y...), append(got.Z, b.Z...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got.Len() != want.Len() || (name == "simple.las" && batches < 2) {
				t.Fatalf("%s %+v: %d samples in %d batches, Read gives %d", name, flt, got.Len(), batches, want.Len())
			}
			for i := range want.X {
				if got.X[i] != want.X[i] || got.Y[i] != want.Y[i] || math.Float64bits(got.Z[i]) != math.Float64bits(want.Z[i]) {
					t.Fatalf("%s %+v: sample %d differs", name, flt, i)
				}
			}
			stop := errors.New("enough")
			calls := 0
			if _, err := f.Each(context.Background(), flt, got, func(*sample.Samples) error { calls++; return stop }); err != stop || calls != 1 {
				t.Fatalf("%s: a failing callback gives %v after %d calls", name, err, calls)
			}
			src.Close()
		}
	}
}
