package laz

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

func decodeAllBytes(t testing.TB, r *Reader, f *lasFile, sel Fields, workers int) []byte {
	t.Helper()
	dst := make([]byte, int(f.count)*f.recLen)
	if err := r.DecodeAll(context.Background(), workers, sel, dst); err != nil {
		t.Fatalf("%s: %v", f.path, err)
	}
	return dst
}

func firstDiff(a, b []byte, recLen int) string {
	for i := range a {
		if a[i] != b[i] {
			return fmt.Sprintf("point %d byte %d: got %d want %d", i/recLen, i%recLen, a[i], b[i])
		}
	}
	return "equal"
}

func TestTwins(t *testing.T) {
	for _, name := range []string{"simple", "1_4_w_evlr"} {
		t.Run(name, func(t *testing.T) {
			las, err := parseLAS(fixture(name + ".las"))
			if err != nil {
				t.Fatal(err)
			}
			f, r := openLAZ(t, name+".laz")
			if f.count != las.count || f.recLen != las.recLen {
				t.Fatalf("laz has %d points of %d bytes, las %d of %d", f.count, f.recLen, las.count, las.recLen)
			}
			for _, w := range []int{1, 2} {
				got := decodeAllBytes(t, r, f, AllFields, w)
				if want := las.points(); !bytes.Equal(got, want) {
					t.Fatalf("workers %d: %s", w, firstDiff(got, want, f.recLen))
				}
			}
		})
	}
}

func TestDecodeAllCancel(t *testing.T) {
	f, r := openLAZ(t, "autzen_trim.laz")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := make([]byte, int(f.count)*f.recLen)
	if err := r.DecodeAll(ctx, 2, AllFields, dst); err != context.Canceled {
		t.Fatalf("cancelled context: got %v", err)
	}
	if err := r.DecodeAll(context.Background(), 2, AllFields, dst[:10]); err == nil {
		t.Fatal("short destination: no error")
	}
}
