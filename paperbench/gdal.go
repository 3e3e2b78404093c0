package paperbench

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aidw/aidw/interp"
)

// GDALNote explains what the gdal_grid rows time.
const GDALNote = "gdal_grid grids onto a raster, not a list of points: its rows are the wall time of " +
	"the whole gdal_grid process (reading the case's samples from CSV through an OGR VRT, gridding with " +
	"GDAL_NUM_THREADS=ALL_CPUS, writing a Float64 ENVI raster) onto a raster with exactly as many nodes as " +
	"the case, over the same square; they are checked against the CPU float64 engine at a sample of that " +
	"raster's nodes."

// gdalVariants are the peers: gdal_grid's invdist over every sample (power 2, where gdal runs
// its float32 SIMD code) and invdistnn, as separate processes on the same data.
func gdalVariants() []Variant {
	notRun := ""
	if _, err := exec.LookPath("gdal_grid"); err != nil {
		notRun = "gdal_grid is not on PATH"
	}
	v := func(f Family, method, label string, p Precision, alg func(*Input) string) Variant {
		var run RunFunc
		if notRun == "" {
			run = gdalRun(alg)
		}
		return Variant{Name: VariantName(f, method, "", ""), Family: f, Device: CPU, Method: method,
			Label: label, Precision: p, Run: run, NotRun: notRun}
	}
	invdist := v(IDW2, "gdal-invdist", "gdal_grid invdist, all cores (peer)", F32,
		func(*Input) string { return "invdist:power=2" })
	// gdal's SIMD code sums the weights of every sample in float32: with a million samples
	// its relative error nears 1e-4, which is gdal's, not a fault to flag.
	invdist.Tolerance = 1e-3
	return []Variant{
		invdist,
		v(IDWNN, "gdal-invdistnn", "gdal_grid invdistnn, all cores (peer)", F64, func(in *Input) string {
			a := in.Alg.(*interp.InvDistNN)
			return fmt.Sprintf("invdistnn:power=%g:radius=%.17g:max_points=%d", a.Power, a.Radius, a.MaxPoints)
		}),
	}
}

// GDALVersion is gdal_grid's version line, or "" when it is not on PATH.
func GDALVersion() string {
	out, err := exec.Command("gdal_grid", "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gdalRun times gdal_grid with the algorithm string alg(in) on the input's samples, onto a
// raster with as many nodes as the input has, over the square.
func gdalRun(alg func(*Input) string) RunFunc {
	return func(ctx context.Context, in *Input) (*Output, error) {
		dir, err := os.MkdirTemp("", "aidw-bench-gdal")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		vrt, err := writeSamples(dir, in.Data)
		if err != nil {
			return nil, fmt.Errorf("writing the samples for gdal_grid: %w", err)
		}
		cols, rows := rasterShape(in.Nodes)
		img := filepath.Join(dir, "grid.img")
		side := strconv.FormatFloat(Side, 'g', -1, 64)
		cmd := exec.CommandContext(ctx, "gdal_grid", "-q", "--config", "GDAL_NUM_THREADS", "ALL_CPUS",
			"-a", alg(in), "-txe", "0", side, "-tye", "0", side,
			"-outsize", strconv.Itoa(cols), strconv.Itoa(rows), "-ot", "Float64", "-of", "ENVI",
			"-l", "samples", vrt, img)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		elapsed := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("gdal_grid: %w: %s", err, strings.TrimSpace(string(out)))
		}
		values, err := readENVI(img, cols*rows)
		if err != nil {
			return nil, err
		}
		nx, ny := rasterNodes(cols, rows)
		return &Output{Values: values, NodeX: nx, NodeY: ny, Elapsed: elapsed,
			Timing: fmt.Sprintf("gdal_grid process wall time onto %d x %d nodes, I/O included", cols, rows)}, nil
	}
}

// writeSamples writes the samples as samples.csv, every digit kept, with an OGR VRT beside it
// that gdal_grid reads, and returns the VRT's path.
func writeSamples(dir string, d *Data) (string, error) {
	f, err := os.Create(filepath.Join(dir, "samples.csv"))
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("x,y,z\n")
	var buf []byte
	for i := range d.X {
		buf = strconv.AppendFloat(buf[:0], d.X[i], 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, d.Y[i], 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, d.Z[i], 'g', -1, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	vrt := filepath.Join(dir, "samples.vrt")
	return vrt, os.WriteFile(vrt, []byte(`<OGRVRTDataSource><OGRVRTLayer name="samples">`+
		`<SrcDataSource relativeToVRT="1">samples.csv</SrcDataSource><GeometryType>wkbPoint</GeometryType>`+
		`<GeometryField encoding="PointFromColumns" x="x" y="y" z="z"/></OGRVRTLayer></OGRVRTDataSource>`), 0o644)
}

// readENVI reads n float64 values from a raw ENVI image, in the byte order its header names.
func readENVI(path string, n int) ([]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading gdal_grid's output: %w", err)
	}
	if len(raw) != 8*n {
		return nil, fmt.Errorf("gdal_grid's output %s has %d bytes, want %d", path, len(raw), 8*n)
	}
	hdr, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + ".hdr")
	if err != nil {
		return nil, fmt.Errorf("reading gdal_grid's output header: %w", err)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if strings.Contains(strings.ReplaceAll(string(hdr), " ", ""), "byteorder=1") {
		order = binary.BigEndian
	}
	values := make([]float64, n)
	for i := range values {
		values[i] = math.Float64frombits(order.Uint64(raw[8*i:]))
	}
	return values, nil
}
