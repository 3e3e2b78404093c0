// Command genlas writes a synthetic airborne LiDAR point cloud as a LAS file: a smooth
// terrain sampled by ground returns (class 2) under vegetation (classes 3-5, earlier returns),
// a little noise (class 7), some withheld and overlap points; in any LAS version 1.0-1.4 and
// point format 0-10, with the CRS as GeoTIFF keys (and WKT when given). The same flags give the
// same file, so benchmarks on it can be rerun anywhere.
//
//	go run ./scripts/genlas -n 10000000 -o /tmp/bench10m.las
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// config is what the flags set.
type config struct {
	n                int
	minor, format    int
	x0, y0, size     float64
	ground, noise    float64
	epsg, vertical   int
	wkt              string
	seed             uint64
	scale            float64
	withheld, overlp float64
}

func main() {
	var c config
	out := flag.String("o", "points.las", "output LAS file")
	flag.IntVar(&c.n, "n", 10_000_000, "number of points")
	version := flag.String("version", "1.4", "LAS version, 1.0 to 1.4")
	flag.IntVar(&c.format, "format", 6, "point data record format, 0-10 (the version must allow it)")
	flag.Float64Var(&c.x0, "x0", 450000, "west edge")
	flag.Float64Var(&c.y0, "y0", 5400000, "south edge")
	flag.Float64Var(&c.size, "size", 2000, "side of the square area, in metres")
	flag.Float64Var(&c.ground, "ground", 0.55, "fraction of ground points (class 2)")
	flag.Float64Var(&c.noise, "noise", 0.005, "fraction of noise points (class 7)")
	flag.Float64Var(&c.withheld, "withheld", 0.001, "fraction of points flagged withheld")
	flag.Float64Var(&c.overlp, "overlap", 0.02, "fraction of overlap points (flag in formats 6-10, class 12 before)")
	flag.IntVar(&c.epsg, "epsg", 32631, "EPSG code of the projected CRS (GeoTIFF keys); 0 for none")
	flag.IntVar(&c.vertical, "vertical", 5773, "EPSG code of the vertical CRS; 0 for none")
	wkt := flag.String("wkt", "", "WKT of the CRS for an OGC WKT record, or @file to read it from")
	flag.Float64Var(&c.scale, "scale", 0.001, "coordinate scale factor")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.Parse()
	if _, err := fmt.Sscanf(*version, "1.%d", &c.minor); err != nil || c.minor < 0 || c.minor > 4 {
		log.Fatalf("-version %s: use 1.0 to 1.4", *version)
	}
	maxFormat := []int{1, 1, 3, 5, 10}[c.minor]
	if c.format < 0 || c.format > maxFormat {
		log.Fatalf("-format %d: LAS 1.%d allows formats 0 to %d", c.format, c.minor, maxFormat)
	}
	if c.n <= 0 || c.size <= 0 || c.scale <= 0 {
		log.Fatal("-n, -size and -scale must be positive")
	}
	if (c.minor < 4 || c.format < 6) && c.n > math.MaxUint32 {
		log.Fatalf("-n %d: LAS 1.%d format %d counts points in 32 bits; use -version 1.4 -format 6", c.n, c.minor, c.format)
	}
	if (c.size+1000)/c.scale > math.MaxInt32 {
		log.Fatalf("-size %g at -scale %g overflows LAS's 32-bit coordinates", c.size, c.scale)
	}
	c.wkt = *wkt
	if strings.HasPrefix(c.wkt, "@") {
		b, err := os.ReadFile(c.wkt[1:])
		if err != nil {
			log.Fatal(err)
		}
		c.wkt = strings.TrimSpace(string(b))
	}
	if err := write(*out, c); err != nil {
		log.Fatal(err)
	}
}

// recordSize is the length of each point format's record (LAS 1.4 R15, tables 7-17).
var recordSize = []int{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67}

func headerSize(minor int) int {
	switch minor {
	case 3:
		return 235
	case 4:
		return 375
	}
	return 227
}

// vlr is a variable length record.
type vlr struct {
	user string
	id   uint16
	data []byte
}

func (c config) vlrs() []vlr {
	var out []vlr
	if c.epsg != 0 {
		keys := [][2]uint16{{1024, 1}, {3072, uint16(c.epsg)}, {3076, 9001}}
		if c.vertical != 0 {
			keys = append(keys, [2]uint16{4096, uint16(c.vertical)}, [2]uint16{4099, 9001})
		}
		b := make([]byte, 8+8*len(keys))
		binary.LittleEndian.PutUint16(b[0:], 1)
		binary.LittleEndian.PutUint16(b[2:], 1)
		binary.LittleEndian.PutUint16(b[6:], uint16(len(keys)))
		for i, k := range keys {
			binary.LittleEndian.PutUint16(b[8+8*i:], k[0])
			binary.LittleEndian.PutUint16(b[8+8*i+4:], 1)
			binary.LittleEndian.PutUint16(b[8+8*i+6:], k[1])
		}
		out = append(out, vlr{"LASF_Projection", 34735, b})
	}
	if c.wkt != "" {
		out = append(out, vlr{"LASF_Projection", 2112, append([]byte(c.wkt), 0)})
	}
	return out
}

// terrain is the ground height at (x, y), in metres above the area's base.
func terrain(x, y float64) float64 {
	return 100 + 20*math.Sin(x/700)*math.Cos(y/900) + 4*math.Sin(x/97+y/131) + 0.5*math.Cos(x/13-y/17)
}

// point is one generated point.
type point struct {
	x, y, z           float64
	class             uint8
	ret, rets         uint8
	withheld, overlap bool
	intensity         uint16
	gps               float64
	rgb               [3]uint16
	nir               uint16
	scanAngle         float64 // degrees
}

func (c config) draw(rng *rand.Rand, i int) point {
	x, y := rng.Float64()*c.size, rng.Float64()*c.size
	g := terrain(x, y)
	p := point{x: c.x0 + x, y: c.y0 + y, gps: 1e5 + float64(i)*1e-5,
		scanAngle: rng.Float64()*40 - 20, intensity: uint16(200 + rng.IntN(800))}
	switch u := rng.Float64(); {
	case u < c.ground:
		// the last return of a pulse that may have hit vegetation first
		p.class, p.z = 2, g+rng.NormFloat64()*0.03
		p.rets = uint8(1 + rng.IntN(3))
		p.ret = p.rets
	case u < c.ground+c.noise:
		p.class, p.z = 7, g+(rng.Float64()-0.5)*100
		p.ret, p.rets = 1, 1
	default:
		h := 0.3 + rng.ExpFloat64()*6
		p.class = 3
		if h > 2 {
			p.class = 4
		}
		if h > 5 {
			p.class = 5
		}
		p.z = g + h
		p.rets = uint8(2 + rng.IntN(3))
		p.ret = uint8(1 + rng.IntN(int(p.rets)-1))
	}
	p.withheld = rng.Float64() < c.withheld
	p.overlap = rng.Float64() < c.overlp
	shade := uint16(math.Min(65535, (p.z-60)*800))
	p.rgb = [3]uint16{shade / 2, shade, shade / 3}
	p.nir = 65535 - shade
	return p
}

func write(path string, c config) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	vlrs := c.vlrs()
	hs := headerSize(c.minor)
	offset := hs
	for _, v := range vlrs {
		offset += 54 + len(v.data)
	}
	if c.minor == 0 {
		offset += 2
	}
	// The header's box and counts are known at the end: write the points first.
	if _, err := f.Seek(int64(offset), io.SeekStart); err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rl := recordSize[c.format]
	rec := make([]byte, rl)
	rng := rand.New(rand.NewPCG(c.seed, c.seed^0x9e3779b97f4a7c15))
	origin := [3]float64{math.Floor(c.x0), math.Floor(c.y0), 0}
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	var byReturn [15]uint64
	for i := range c.n {
		p := c.draw(rng, i)
		var q [3]int32
		for k, v := range [3]float64{p.x, p.y, p.z} {
			q[k] = int32(math.Round((v - origin[k]) / c.scale))
			v = float64(q[k])*c.scale + origin[k]
			lo[k], hi[k] = math.Min(lo[k], v), math.Max(hi[k], v)
		}
		byReturn[p.ret-1]++
		encode(rec, c.format, q, p)
		if _, err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	h := header(c, hs, offset, len(vlrs), origin, lo, hi, byReturn)
	if _, err := f.WriteAt(h, 0); err != nil {
		return err
	}
	pos := int64(hs)
	for _, v := range vlrs {
		b := make([]byte, 54+len(v.data))
		if c.minor == 0 {
			binary.LittleEndian.PutUint16(b, 0xAABB)
		}
		copy(b[2:18], v.user)
		binary.LittleEndian.PutUint16(b[18:], v.id)
		binary.LittleEndian.PutUint16(b[20:], uint16(len(v.data)))
		copy(b[22:54], "genlas")
		copy(b[54:], v.data)
		if _, err := f.WriteAt(b, pos); err != nil {
			return err
		}
		pos += int64(len(b))
	}
	if c.minor == 0 {
		_, err = f.WriteAt([]byte{0xDD, 0xCC}, pos)
	}
	return err
}

func header(c config, hs, offset, nvlr int, origin, lo, hi [3]float64, byReturn [15]uint64) []byte {
	h := make([]byte, hs)
	le := binary.LittleEndian
	copy(h, "LASF")
	if c.wkt != "" && c.minor == 4 {
		le.PutUint16(h[6:], 1<<4) // the CRS is WKT
	}
	h[24], h[25] = 1, byte(c.minor)
	copy(h[26:58], "aidw genlas")
	copy(h[58:90], "aidw scripts/genlas")
	le.PutUint16(h[90:], 1)
	le.PutUint16(h[92:], 2026)
	le.PutUint16(h[94:], uint16(hs))
	le.PutUint32(h[96:], uint32(offset))
	le.PutUint32(h[100:], uint32(nvlr))
	h[104] = byte(c.format)
	le.PutUint16(h[105:], uint16(recordSize[c.format]))
	// Formats 6-10 keep the legacy counts 0.
	if c.format < 6 {
		le.PutUint32(h[107:], uint32(c.n))
		for r := range 5 {
			le.PutUint32(h[111+4*r:], uint32(byReturn[r]))
		}
	}
	for k := range 3 {
		le.PutUint64(h[131+8*k:], math.Float64bits(c.scale))
		le.PutUint64(h[155+8*k:], math.Float64bits(origin[k]))
		le.PutUint64(h[179+16*k:], math.Float64bits(hi[k]))
		le.PutUint64(h[187+16*k:], math.Float64bits(lo[k]))
	}
	if c.minor == 4 {
		le.PutUint64(h[247:], uint64(c.n))
		for r := range 15 {
			le.PutUint64(h[255+8*r:], byReturn[r])
		}
	}
	return h
}

// encode writes a point's record in the given format; wave packet fields stay zero.
func encode(r []byte, format int, q [3]int32, p point) {
	le := binary.LittleEndian
	clear(r)
	for k := range 3 {
		le.PutUint32(r[4*k:], uint32(q[k]))
	}
	le.PutUint16(r[12:], p.intensity)
	if format < 6 {
		r[14] = p.ret&7 | (p.rets&7)<<3
		class := p.class
		if p.overlap {
			class = 12
		}
		r[15] = class & 31
		if p.withheld {
			r[15] |= 0x80
		}
		r[16] = byte(int8(math.Round(p.scanAngle)))
		if format == 1 || format >= 3 {
			le.PutUint64(r[20:], math.Float64bits(p.gps))
		}
		if at := map[int]int{2: 20, 3: 28, 5: 28}[format]; at > 0 {
			putRGB(r[at:], p.rgb)
		}
		return
	}
	r[14] = p.ret&15 | (p.rets&15)<<4
	if p.withheld {
		r[15] |= 0x04
	}
	if p.overlap {
		r[15] |= 0x08
	}
	r[16] = p.class
	le.PutUint16(r[18:], uint16(int16(math.Round(p.scanAngle/0.006))))
	le.PutUint64(r[22:], math.Float64bits(p.gps))
	if format == 7 || format == 8 || format == 10 {
		putRGB(r[30:], p.rgb)
	}
	if format == 8 || format == 10 {
		le.PutUint16(r[36:], p.nir)
	}
}

func putRGB(b []byte, rgb [3]uint16) {
	for k, v := range rgb {
		binary.LittleEndian.PutUint16(b[2*k:], v)
	}
}
