package farfield

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// A Field built from samples streamed in chunks, its targets' near fields from a Near of each
// tile's leaves, gives the in-memory Field's bits at every target: with the leaves summed
// directly and by far operators, one power per box and mixed; a Near short of a target's
// leaves says so.
func TestStreamedFieldEqualsField(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	sx, sy := uniform(r, 6000, 0, 0, 1000)
	cx, cy := uniform(r, 3000, 400, 300, 100) // a cluster: leaves of many samples
	sx, sy = append(sx, cx...), append(sy, cy...)
	sz := values(r, sx, sy)
	tx, ty := uniform(r, 5000, -50, -20, 1100)
	al := alphas(r, len(tx), 1.5, 3.5)
	for j := range al {
		if tx[j] > 500 {
			al[j] = 3.5
		}
	}
	box := [4]float64{-50, -20, 1050, 1080}
	sbox := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for i := range sx {
		sbox = [4]float64{min(sbox[0], sx[i]), min(sbox[1], sy[i]), max(sbox[2], sx[i]), max(sbox[3], sy[i])}
	}
	ctx := context.Background()
	for _, o := range []Options{{Leaves: LeavesDirect, LeafSize: 40}, {Leaves: LeavesOperators, LeafSize: 40}, {}} {
		pl, err := NewPlan(sx, sy, sz, o)
		if err != nil {
			t.Fatal(err)
		}
		pw := pl.Powers(box, len(tx))
		for j := range tx {
			pw.Add(tx[j], ty[j], al[j])
		}
		want, err := pl.Field(ctx, box, len(tx), pw)
		if err != nil {
			t.Fatal(err)
		}
		spl, err := NewStreamPlan(len(sx), sbox, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := spl.NewBuilder(box, len(tx))
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < len(sx); lo += 777 {
			hi := min(lo+777, len(sx))
			if err := b.Add(ctx, sx[lo:hi], sy[lo:hi], sz[lo:hi]); err != nil {
				t.Fatal(err)
			}
		}
		spw := spl.Powers(box, len(tx))
		for j := range tx {
			spw.Add(tx[j], ty[j], al[j])
		}
		got, err := b.Field(ctx, spw)
		if err != nil {
			t.Fatal(err)
		}
		if got.t.d != want.t.d || got.t.fields != want.t.fields || got.t.d < 3 && o.LeafSize > 0 {
			t.Fatalf("streamed tree of depth %d, fields %d; in memory %d, %d (want 3 or more with a leaf size)", got.t.d, got.t.fields, want.t.d, want.t.fields)
		}
		bytes, leaf, err := StreamSize(len(sx), sbox, o, box, len(tx))
		ops := 0
		for _, op := range spl.ops {
			ops += len(op)
		}
		if err != nil || leaf != got.t.sd/float64(int(1)<<got.t.d) || bytes < 8*float64(ops)+spl.treeBytes(got.t.d, got.t.fields) {
			t.Fatalf("StreamSize: %v bytes, leaf %v (%v); the plan has %d operators' values, its leaves %v", bytes, leaf, err, ops, got.t.sd/float64(int(1)<<got.t.d))
		}
		s, ws := got.NewScratch(), want.NewScratch()
		// tiles of targets: a square of 200 at a time
		for x0 := -50.0; x0 < 1050; x0 += 200 {
			for y0 := -20.0; y0 < 1080; y0 += 200 {
				tile := [4]float64{x0, y0, x0 + 200, y0 + 200}
				nb := got.NearBox(tile)
				w := got.t.sd / float64(int(1)<<got.t.d)
				load := [4]float64{nb[0] - 1e-6*w, nb[1] - 1e-6*w, nb[2] + 1e-6*w, nb[3] + 1e-6*w}
				var nx, ny, nz []float64
				for i := range sx {
					if sx[i] > load[0] && sx[i] < load[2] && sy[i] > load[1] && sy[i] < load[3] {
						nx, ny, nz = append(nx, sx[i]), append(ny, sy[i]), append(nz, sz[i])
					}
				}
				nr := got.NewNear(nb, nx, ny, nz)
				for j := range tx {
					if !(tx[j] >= tile[0] && tx[j] < tile[2] && ty[j] >= tile[1] && ty[j] < tile[3]) {
						continue
					}
					num, den, _, ok := got.AtNear(s, nr, tx[j], ty[j], al[j])
					wn, wd, _ := want.At(ws, tx[j], ty[j], al[j])
					if !ok || math.Float64bits(num) != math.Float64bits(wn) || math.Float64bits(den) != math.Float64bits(wd) {
						t.Fatalf("options %+v, target %d: streamed %v %v (ok %v), in memory %v %v", o, j, num, den, ok, wn, wd)
					}
				}
				if _, _, _, ok := got.AtNear(s, nr, tile[0]-300, tile[1]-300, 2); ok && got.t.d >= 4 && tile[0] > 300 && tile[1] > 300 {
					t.Fatalf("a target far from the Near's leaves was summed")
				}
			}
		}
	}
}
