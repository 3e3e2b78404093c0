package main

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lasPoints is a LAS file decoded by the test itself (header fields at the offsets of the
// ASPRS specification), independently of gdalio's reader.
type lasPoints struct {
	header []byte // everything before the point records
	recLen int
	recs   [][]byte
	xyz    [][3]float64
}

var le = binary.LittleEndian

func decodeLAS(t *testing.T, path string) *lasPoints {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	minor := b[25]
	off, recLen, count := int(le.Uint32(b[96:])), int(le.Uint16(b[105:])), int(le.Uint32(b[107:]))
	if minor >= 4 {
		if le.Uint32(b[243:]) != 0 {
			t.Fatalf("%s has EVLRs, which this test does not copy into tiles", path)
		}
		count = int(le.Uint64(b[247:]))
	}
	p := &lasPoints{header: b[:off], recLen: recLen}
	for i := range count {
		r := b[off+i*recLen : off+(i+1)*recLen]
		var v [3]float64
		for k := range 3 {
			v[k] = float64(int32(le.Uint32(r[4*k:])))*p.f64(131+8*k) + p.f64(155+8*k)
		}
		p.recs, p.xyz = append(p.recs, r), append(p.xyz, v)
	}
	return p
}

// f64 is the header's float64 at byte at (scales from 131, offsets from 155).
func (p *lasPoints) f64(at int) float64 { return math.Float64frombits(le.Uint64(p.header[at:])) }

// write writes the records keep selects as a LAS file with the same header, VLRs, scale and
// offset, its point count and bounding box set to the records'.
func (p *lasPoints) write(t *testing.T, path string, keep func(xyz [3]float64) bool) int {
	t.Helper()
	h := slices.Clone(p.header)
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	var body []byte
	n := 0
	for i, v := range p.xyz {
		if !keep(v) {
			continue
		}
		body = append(body, p.recs[i]...)
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
		n++
	}
	le.PutUint32(h[107:], uint32(n))
	for i := range 5 {
		le.PutUint32(h[111+4*i:], 0) // points by return: unknown here
	}
	if h[25] >= 4 {
		le.PutUint64(h[247:], uint64(n))
		for i := range 15 {
			le.PutUint64(h[255+8*i:], 0)
		}
	}
	for k := range 3 {
		le.PutUint64(h[179+16*k:], math.Float64bits(hi[k]))
		le.PutUint64(h[187+16*k:], math.Float64bits(lo[k]))
	}
	if err := os.WriteFile(path, append(h, body...), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// splitLAS writes the points of src as four tiles, the quadrants around (cx, cy), into dir.
func splitLAS(t *testing.T, src, dir string, cx, cy float64) []string {
	t.Helper()
	p := decodeLAS(t, src)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var tiles []string
	for q := range 4 {
		path := filepath.Join(dir, fmt.Sprintf("tile_%d.las", q))
		n := p.write(t, path, func(v [3]float64) bool { return (v[0] >= cx) == (q&1 == 1) && (v[1] >= cy) == (q&2 == 2) })
		if n == 0 {
			t.Fatalf("tile %d of %s is empty: a useless split", q, src)
		}
		tiles = append(tiles, path)
	}
	return tiles
}

func genLAS(t *testing.T, path string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "../../scripts/genlas", "-o", path}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genlas: %v\n%s", err, out)
	}
}

// sameRaster fails unless the two rasters are the same, every value bit for bit.
func sameRaster(t *testing.T, what string, got, want rasterBand) {
	t.Helper()
	if got.cols != want.cols || got.rows != want.rows || got.gt != want.gt || got.wkt != want.wkt {
		t.Fatalf("%s: %dx%d %v, want %dx%d %v (or the CRS differs)", what, got.cols, got.rows, got.gt, want.cols, want.rows, want.gt)
	}
	for i, v := range got.values {
		if math.Float64bits(v) != math.Float64bits(want.values[i]) {
			t.Fatalf("%s: node %d is %.17g, the whole file gives %.17g", what, i, v, want.values[i])
		}
	}
}

// gridTiles grids the whole file and its tiles (shuffled, as a directory, as a quoted pattern)
// with each algorithm and checks that every raster is the whole file's, bit for bit.
func gridTiles(t *testing.T, whole string, tiles []string, grid []string, algs []string) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	tileDir := filepath.Dir(tiles[0])
	for _, alg := range algs {
		run := func(srcs ...string) rasterBand {
			t.Helper()
			dst := filepath.Join(dir, "out.tif")
			args := append(append([]string{"grid", "-q", "-a", alg}, grid...), append(srcs, dst)...)
			if code, _, stderr := runAidw(t, args...); code != 0 {
				t.Fatalf("%s %v: exit %d: %s", alg, srcs, code, stderr)
			}
			return readRaster(t, dst, 1)
		}
		want := run(whole)
		shuffled := slices.Clone(tiles)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		sameRaster(t, alg+", tiles "+fmt.Sprint(shuffled), run(shuffled...), want)
		sameRaster(t, alg+", a directory of tiles", run(tileDir), want)
		sameRaster(t, alg+", a pattern", run(filepath.Join(tileDir, "tile_*.las")), want)
	}
}

// Splitting a LAS file into four tiles and gridding the tiles gives the raster of the whole file,
// bit for bit, with every algorithm. The synthetic file has points on a 1 m lattice, with
// duplicates, and nodes on that lattice, so that exact hits and ties in distance are common.
func TestLASTilesBitForBit(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.las")
	genLAS(t, whole, "-n", "12000", "-size", "120", "-scale", "1", "-version", "1.4", "-format", "6")
	tiles := splitLAS(t, whole, filepath.Join(dir, "tiles"), 450050, 5400070)
	grid := []string{"-txe", "449999", "450119", "-tye", "5399999", "5400119", "-outsize", "60", "60"}
	gridTiles(t, whole, tiles, grid, []string{"aidw", "aidw:max_points=12", "aidw:radius=3",
		"invdist", "invdist:power=3:radius1=4:radius2=3:angle=30:max_points=8", "invdistnn:radius=5:max_points=12",
		"nearest", "nearest:radius1=2:radius2=2", "average:radius1=3:radius2=3", "minimum:radius1=3:radius2=3",
		"average_distance_pts:radius1=3:radius2=3", "count:radius1=2:radius2=2", "linear"})

	// The exact-hit rule in canonical order: duplicates at a node give the lowest value.
	p := decodeLAS(t, whole)
	at := map[[2]float64][]float64{}
	for _, v := range p.xyz {
		at[[2]float64{v[0], v[1]}] = append(at[[2]float64{v[0], v[1]}], v[2])
	}
	dst := filepath.Join(dir, "hits.tif")
	if code, _, stderr := runAidw(t, append(append([]string{"grid", "-q"}, grid...), whole, dst)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readRaster(t, dst, 1)
	dups := 0
	for row := range r.rows {
		for col := range r.cols {
			x, y := r.gt[0]+(float64(col)+0.5)*r.gt[1], r.gt[3]+(float64(row)+0.5)*r.gt[5]
			zs := at[[2]float64{x, y}]
			if len(zs) == 0 {
				continue
			}
			if len(zs) > 1 && slices.Min(zs) != slices.Max(zs) {
				dups++
			}
			if got := r.values[row*r.cols+col]; got != slices.Min(zs) {
				t.Fatalf("node at %v,%v: %v, want the lowest of the samples there, %v", x, y, got, zs)
			}
		}
	}
	if dups == 0 {
		t.Fatal("no node on duplicates of different values: a useless test")
	}
}

// The same with Haystack_Rock.las, the real survey of the README's worked example.
func TestHaystackTilesBitForBit(t *testing.T) {
	whole := filepath.Join("../../testdata", "Haystack_Rock.las")
	tiles := splitLAS(t, whole, filepath.Join(t.TempDir(), "tiles"), 2230900, 252250)
	gridTiles(t, whole, tiles, []string{"-tr", "2", "2"}, []string{"aidw", "aidw:max_points=12", "invdistnn:radius=10", "linear"})
}

// The README's DEM of Haystack_Rock.las (its command, with -ot Float64 for a comparison at
// 1e-9), and the global form too, equal the AIDW definition, evaluated by the float64
// brute force bruteAIDW on the test's own decoding of the file, to 1e-9 relative, on every 16th
// node of every 16th row (the brute force weighs every sample at every node). The reference takes
// the samples in canonical order (y, x, z), the order whose first sample an exact hit takes.
//
// The reference places samples relative to the grid's corner from the file's integers, exactly
// in quanta of 0.01 m, then scaled: absolute float64 coordinates near 2.2e6 m would each be
// off by up to 2.3e-10 m, enough to move a value near 0 m by more than 1e-9 of itself.
func TestHaystackDEM(t *testing.T) {
	src := filepath.Join("../../testdata", "Haystack_Rock.las")
	p := decodeLAS(t, src)
	const cornerX, cornerY = 2230738, 252411
	pts := make([][3]float64, len(p.recs))
	for i, r := range p.recs {
		for k, corner := range []float64{cornerX, cornerY} {
			scale, offset := p.f64(131+8*k), p.f64(155+8*k)
			m := math.Round(offset / scale)
			if math.Abs(offset/scale-m) > 1e-6 || math.Abs(1/scale-math.Round(1/scale)) > 1e-9 {
				t.Fatalf("scale %g, offset %g: the reference needs an offset of whole quanta that divide 1", scale, offset)
			}
			q := int64(int32(le.Uint32(r[4*k:]))) + int64(m) - int64(corner)*int64(math.Round(1/scale))
			pts[i][k] = float64(q) * scale
		}
		pts[i][2] = p.xyz[i][2]
	}
	slices.SortFunc(pts, func(a, b [3]float64) int {
		return cmp.Or(cmp.Compare(a[1], b[1]), cmp.Compare(a[0], b[0]), cmp.Compare(a[2], b[2]))
	})
	xs, ys, zs := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, v := range pts {
		xs[i], ys[i], zs[i] = v[0], v[1], v[2]
		minX, minY, maxX, maxY = min(minX, v[0]), min(minY, v[1]), max(maxX, v[0]), max(maxY, v[1])
	}
	area := (maxX - minX) * (maxY - minY)
	for _, c := range []struct {
		alg       string
		maxPoints int
	}{{"aidw:max_points=12", 12}, {"aidw", 0}} {
		t.Run(c.alg, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "dem.tif")
			if code, _, stderr := runAidw(t, "grid", "-q", "-a", c.alg, "-txe", "2230738", "2231105",
				"-tye", "252070", "252411", "-tr", "1", "1", "-ot", "Float64", src, dst); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			r := readRaster(t, dst, 1)
			if r.cols != 367 || r.rows != 341 || r.gt != [6]float64{cornerX, 1, 0, cornerY, 0, -1} {
				t.Fatalf("grid %dx%d %v: want 367x341 cells of 1 m", r.cols, r.rows, r.gt)
			}
			checked := 0
			for row := 7; row < r.rows; row += 16 {
				for col := 7; col < r.cols; col += 16 {
					x, y := float64(col)+0.5, -(float64(row) + 0.5)
					want := bruteAIDW(xs, ys, zs, x, y, area, 15, c.maxPoints)
					if got := r.values[row*r.cols+col]; math.Abs(got-want) > 1e-9*math.Abs(want) {
						t.Fatalf("node %d,%d: %.15g, want %.15g", col, row, got, want)
					}
					checked++
				}
			}
			t.Logf("%d nodes equal the brute force", checked)
		})
	}
}

// Several sources: a LAS destination is refused (it would be a tile overwritten by a raster),
// as are a pattern matching nothing and tiles in different CRSs.
func TestTilesBadInput(t *testing.T) {
	dir := t.TempDir()
	las := filepath.Join("../../testdata", "Haystack_Rock.las")
	p := decodeLAS(t, las)
	tile := filepath.Join(dir, "copy.las")
	p.write(t, tile, func([3]float64) bool { return true })
	before, _ := os.ReadFile(tile)
	// The same points in another projected CRS: the GeoTIFF keys' ProjectedCSTypeGeoKey (3072)
	// set to UTM zone 10N.
	h := p.header
	for at := int(le.Uint16(h[94:])); at+54 <= len(h); at += 54 + int(le.Uint16(h[at+20:])) {
		if le.Uint16(h[at+18:]) != 34735 {
			continue
		}
		keys := h[at+54:]
		for k := 1; k <= int(le.Uint16(keys[6:])); k++ {
			if e := keys[8*k:]; le.Uint16(e) == 3072 && le.Uint16(e[2:]) == 0 {
				le.PutUint16(e[6:], 32610)
			}
		}
	}
	utm := filepath.Join(dir, "utm.las")
	p.write(t, utm, func([3]float64) bool { return true })
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{las, tile}, "the destination " + tile + " is a LAS file"},
		{[]string{filepath.Join(dir, "nothing*.las"), filepath.Join(dir, "o.tif")}, "matches no file"},
		{[]string{"-l", "x", las, tile, filepath.Join(dir, "o.tif")}, "a LAS file has no layers"},
		{[]string{las, utm, filepath.Join(dir, "o.tif")}, "are in different CRSs"},
	} {
		code, _, stderr := runAidw(t, append([]string{"grid", "-q"}, c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want an error saying %q", c.args, code, stderr, c.want)
		}
	}
	if after, _ := os.ReadFile(tile); !slices.Equal(before, after) {
		t.Error("the LAS file named as destination was changed")
	}
}
