package farfield

import (
	"bytes"
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
		size, leaf, err := StreamSize(len(sx), sbox, o, box, len(tx))
		ops := 0
		for _, op := range spl.ops {
			ops += len(op)
		}
		if err != nil || leaf != got.t.sd/float64(int(1)<<got.t.d) || size < 8*float64(ops)+spl.treeBytes(got.t.d, got.t.fields) {
			t.Fatalf("StreamSize: %v bytes, leaf %v (%v); the plan has %d operators' values, its leaves %v", size, leaf, err, ops, got.t.sd/float64(int(1)<<got.t.d))
		}
		// saved and loaded, as a plan's tiles take it: the same bits, and no far operators built
		var saved bytes.Buffer
		if err := got.Save(ctx, &saved); err != nil {
			t.Fatal(err)
		}
		lpl, err := NewStreamPlan(len(sx), sbox, o)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := lpl.LoadField(ctx, &saved, box, len(tx))
		if err != nil {
			t.Fatalf("options %+v: %v", o, err)
		}
		if lpl.opsBuilt || len(loaded.t.single) != len(got.t.single) || loaded.t.fast != got.t.fast {
			t.Fatalf("options %+v: the loaded field built its operators (%v) or lost its single powers (%v, %v)", o, lpl.opsBuilt, loaded.t.single, got.t.single)
		}
		s, ws, ls := got.NewScratch(), want.NewScratch(), loaded.NewScratch()
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
				nr, lnr := got.NewNear(nb, nx, ny, nz), loaded.NewNear(nb, nx, ny, nz)
				for j := range tx {
					if !(tx[j] >= tile[0] && tx[j] < tile[2] && ty[j] >= tile[1] && ty[j] < tile[3]) {
						continue
					}
					num, den, _, ok := got.AtNear(s, nr, tx[j], ty[j], al[j])
					wn, wd, _ := want.At(ws, tx[j], ty[j], al[j])
					if !ok || math.Float64bits(num) != math.Float64bits(wn) || math.Float64bits(den) != math.Float64bits(wd) {
						t.Fatalf("options %+v, target %d: streamed %v %v (ok %v), in memory %v %v", o, j, num, den, ok, wn, wd)
					}
					ln, ld, _, ok := loaded.AtNear(ls, lnr, tx[j], ty[j], al[j])
					if !ok || math.Float64bits(ln) != math.Float64bits(wn) || math.Float64bits(ld) != math.Float64bits(wd) {
						t.Fatalf("options %+v, target %d: loaded %v %v (ok %v), in memory %v %v", o, j, ln, ld, ok, wn, wd)
					}
				}
				if _, _, _, ok := got.AtNear(s, nr, tile[0]-300, tile[1]-300, 2); ok && got.t.d >= 4 && tile[0] > 300 && tile[1] > 300 {
					t.Fatalf("a target far from the Near's leaves was summed")
				}
			}
		}
	}
}

// A saved field that is not the job's, or is damaged, is refused, whatever part is wrong; a
// cancelled context stops the save and the load.
func TestLoadFieldRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sx, sy := uniform(r, 4000, 0, 0, 1000)
	sz := values(r, sx, sy)
	box := [4]float64{0, 0, 1000, 1000}
	sbox := [4]float64{0, 0, 1000, 1000}
	ctx := context.Background()
	o := Options{Leaves: LeavesDirect, LeafSize: 40, AlphaMin: 1, AlphaMax: 3}
	build := func() (*Plan, *Field) {
		pl, err := NewStreamPlan(len(sx), sbox, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pl.NewBuilder(box, 2000)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, sx, sy, sz); err != nil {
			t.Fatal(err)
		}
		pw := pl.Powers(box, 2000)
		for i := range 2000 {
			pw.Add(float64(i%50)*20, float64(i/50)*25, 3) // one power: boxes of a single power
		}
		f, err := b.Field(ctx, pw)
		if err != nil {
			t.Fatal(err)
		}
		return pl, f
	}
	pl, f := build()
	if len(f.t.single) == 0 || !f.t.direct() {
		t.Fatalf("the field has no single powers (%v) or no direct leaves", f.t.single)
	}
	var saved bytes.Buffer
	if err := f.Save(ctx, &saved); err != nil {
		t.Fatal(err)
	}
	good := saved.Bytes()
	more, err := NewStreamPlan(len(sx)+1, sbox, o)
	if err != nil {
		t.Fatal(err)
	}
	load := func(b []byte, box [4]float64, pl *Plan) error {
		_, err := pl.LoadField(ctx, bytes.NewReader(b), box, 2000)
		return err
	}
	if err := load(good, box, pl); err != nil {
		t.Fatalf("the saved field: %v", err)
	}
	flip := func(at int) []byte {
		b := append([]byte(nil), good...)
		b[at] ^= 0x40
		return b
	}
	header := len(fieldMagic) + 8*len(fieldHeader(pl, f.t, 0))
	for name, c := range map[string]struct {
		b   []byte
		box [4]float64
		pl  *Plan
	}{
		"truncated":           {good[:len(good)-3], box, pl},
		"empty":               {nil, box, pl},
		"with bytes beyond":   {append(append([]byte(nil), good...), 0), box, pl},
		"of another version":  {flip(len(fieldMagic) - 1), box, pl},
		"of other orders":     {flip(len(fieldMagic)), box, pl},
		"of another square":   {flip(len(fieldMagic) + 8*6), box, pl},
		"with counts damaged": {flip(header + 4*7 + 3), box, pl},
		"with powers damaged": {flip(len(good) - 1), box, pl},
		"for another raster":  {good, [4]float64{0, 0, 1500, 1000}, pl},
		"of more samples":     {good, box, more},
	} {
		if err := load(c.b, c.box, c.pl); err == nil {
			t.Errorf("a saved field %s was loaded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := f.Save(cancelled, &bytes.Buffer{}); err == nil {
		t.Errorf("a save under a cancelled context went through")
	}
	if _, err := pl.LoadField(cancelled, bytes.NewReader(good), box, 2000); err == nil {
		t.Errorf("a load under a cancelled context went through")
	}
}
