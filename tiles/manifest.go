package tiles

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aidw/aidw/gdalio"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/raster"
)

// ManifestVersion is the version of the plan's files: the manifest's JSON shape and the
// layouts of what it names (plan.samples/'s index, plan.farfield). Version 4: the far field
// and a spill index of varints; a plan of an older aidw is refused by its version rather
// than as an unreadable index.
const ManifestVersion = 4

// Manifest is a planned tiled job: everything a worker needs to compute one tile on its own,
// on any machine that sees the inputs at the same paths, and everything the mosaic needs to
// assemble the tiles. Its Hash identifies the plan: every tile raster carries it.
type Manifest struct {
	Version int `json:"version"`
	// Args is `aidw grid`'s argument list, the destination left out; Dir the directory it was
	// given in, against which relative paths in Args are read.
	Args []string `json:"args"`
	Dir  string   `json:"dir"`
	// Algorithm is the -a string, canonical.
	Algorithm string `json:"algorithm"`
	Output    Output `json:"output"`
	Facts     Facts  `json:"facts"`
	// Halo is the algorithm's halo rule (a record: workers derive it again from the algorithm).
	Halo HaloInfo `json:"halo"`
	// Inputs are the job's input files with the boxes of their points that pass the filters
	// and their fingerprints.
	Inputs Inputs `json:"inputs"`
	// Spill is the directory of the samples the census spilled (absolute), which the tiles
	// read when the inputs are not LAS/LAZ; "" when they read the inputs.
	Spill string `json:"spill,omitempty"`
	// FarField proves the job's far field (global AIDW's), built once by the plan and saved
	// beside it (FarFieldPath), which every tile reads instead of building it; nil when the
	// job has none.
	FarField *FileProof `json:"farfield,omitempty"`
	// TileSize is the tile side in nodes; Tiles the tiles in row-major order.
	TileSize int           `json:"tile_size"`
	Tiles    []PlannedTile `json:"tiles"`
	// Hash is "sha256:" and the hex SHA-256 of the manifest's canonical JSON (compact, fields
	// in this order, as encoding/json writes them) with Hash left out.
	Hash string `json:"hash,omitempty"`
}

// Output is the output raster.
type Output struct {
	Cols         int        `json:"cols"`
	Rows         int        `json:"rows"`
	GeoTransform [6]float64 `json:"geotransform"`
	// SRS is the CRS as WKT or a user string (EPSG:n); "" for none.
	SRS string `json:"srs"`
	// Type is the GDAL data type (-ot; "" is Float64), Format the driver (-of; "" guesses it
	// from the mosaic's extension), Creation the creation options (-co).
	Type     string   `json:"type"`
	Format   string   `json:"format"`
	Creation []string `json:"creation_options"`
	// NoData is the algorithm's nodata value; SetNoData says whether the bands carry it.
	NoData    float64 `json:"nodata"`
	SetNoData bool    `json:"set_nodata"`
	// Bands are the names of the bands ("value", then diagnostics).
	Bands []string `json:"bands"`
	// Like is the template raster (-like, absolute) whose nodata nodes stay nodata, if any.
	Like string `json:"like,omitempty"`
}

// Target is the output's grid, without the template's mask.
func (o Output) Target() raster.Target {
	return raster.Target{Cols: o.Cols, Rows: o.Rows, GeoTransform: o.GeoTransform}
}

// HaloInfo records a job's halo rule.
type HaloInfo struct {
	Family string  `json:"family"`
	Halo   float64 `json:"halo,omitempty"`
	K      int     `json:"k,omitempty"`
	Extra  float64 `json:"extra,omitempty"`
	Layout bool    `json:"layout,omitempty"`
	// Triangles: see Rule.Triangles.
	Triangles bool `json:"triangles,omitempty"`
}

// Info is the record of rule r.
func (r Rule) Info() HaloInfo {
	return HaloInfo{Family: r.Family.String(), Halo: r.Halo, K: r.K, Extra: r.Extra, Layout: r.Layout, Triangles: r.Triangles}
}

// Inputs are a job's LAS/LAZ inputs (files without a usable point are left out).
type Inputs struct {
	Files []InputFile `json:"files"`
}

// Inputs returns the record of the job's inputs, with absolute paths.
func (l *LAS) Inputs() (Inputs, error) { return inputsOf(l.Files) }

// Inputs returns the record of the job's inputs of any kind, with absolute paths.
func (c *Census) Inputs() (Inputs, error) { return inputsOf(c.Files) }

func inputsOf(files []InputFile) (Inputs, error) {
	in := Inputs{Files: []InputFile{}}
	for _, f := range files {
		if f.Points == 0 {
			continue
		}
		// an OGR datasource that is no file (a database, a /vsi path) is kept as given
		if _, err := os.Stat(f.Path); err == nil {
			abs, err := filepath.Abs(f.Path)
			if err != nil {
				return Inputs{}, err
			}
			f.Path = abs
			if f.Fingerprint, err = TakeFingerprint(abs); err != nil {
				return Inputs{}, err
			}
		}
		in.Files = append(in.Files, f)
	}
	return in, nil
}

// LAS returns the job's source from its record, for target t and the source options opt.
func (in Inputs) LAS(opt gdalio.SourceOptions, t raster.Target) *LAS {
	l := &LAS{Files: in.Files, Opt: opt}
	l.originX, l.originY = t.Centre()
	return l
}

// PlannedTile is a tile of the plan: its node window, the extent of its cells, the region
// whose samples it loads first (its nodes' box grown by Halo; absent when it needs every
// sample) and the input files whose points reach that region. A tile of the nearest family
// grows its region node by node where the first guess falls short, and then reads more of
// the job's inputs.
type PlannedTile struct {
	Index int `json:"index"`
	Tile
	Extent [4]float64  `json:"extent"`
	Halo   float64     `json:"halo"`
	Region *[4]float64 `json:"region,omitempty"`
	Inputs []string    `json:"inputs"`
}

// Plan lists the tiles of side nodes of computer c's job over inputs in.
func (c *Computer) Plan(side int, in Inputs) ([]PlannedTile, error) {
	t := c.cfg.Target
	ts, err := Split(t, side)
	if err != nil {
		return nil, err
	}
	out := make([]PlannedTile, len(ts))
	for i, tl := range ts {
		sub := tl.Target(t)
		xmin, ymin, xmax, ymax := sub.Extent()
		p := PlannedTile{Index: i, Tile: tl, Extent: [4]float64{xmin, ymin, xmax, ymax}, Inputs: []string{}}
		if r := c.Region(tl); r != nil {
			p.Region = r
			p.Halo = tl.Box(t)[0] - r[0]
		}
		for _, f := range in.Files {
			if p.Region == nil || Intersects(f.Box, *p.Region) {
				p.Inputs = append(p.Inputs, f.Path)
			}
		}
		out[i] = p
	}
	return out, nil
}

// Target is the grid of the tile's own raster: its window of t, without a mask.
func (tl Tile) Target(t raster.Target) raster.Target {
	g := t.GeoTransform
	c, r := float64(tl.Col0), float64(tl.Row0)
	return raster.Target{Cols: tl.Cols, Rows: tl.Rows, GeoTransform: [6]float64{
		g[0] + c*g[1] + r*g[2], g[1], g[2], g[3] + c*g[4] + r*g[5], g[4], g[5]}}
}

// canonical is the manifest's canonical JSON: compact, without the hash.
func (m *Manifest) canonical() ([]byte, error) {
	c := *m
	c.Hash = ""
	return json.Marshal(&c)
}

// ComputeHash returns the manifest's hash (see Hash).
func (m *Manifest) ComputeHash() (string, error) {
	b, err := m.canonical()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Write sets the manifest's hash and writes it to path (indented JSON), atomically.
func (m *Manifest) Write(path string) error {
	h, err := m.ComputeHash()
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	m.Hash = h
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	return outfile.WriteAtomic(path, append(b, '\n'))
}

// ReadManifest reads a manifest and checks its version and its hash.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s is not an aidw plan: %w", path, err)
	}
	if m.Version != ManifestVersion {
		return nil, fmt.Errorf("%s: plan version %d; this aidw reads version %d: plan again with this aidw", path, m.Version, ManifestVersion)
	}
	h, err := m.ComputeHash()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Hash != h {
		return nil, fmt.Errorf("%s: the plan's hash is %q but its content hashes to %s: it was edited after `aidw plan` wrote it; plan again", path, m.Hash, h)
	}
	if len(m.Tiles) == 0 {
		return nil, fmt.Errorf("%s: the plan has no tiles", path)
	}
	for i, tl := range m.Tiles {
		if tl.Index != i {
			return nil, fmt.Errorf("%s: tile %d has index %d", path, i, tl.Index)
		}
	}
	return &m, nil
}

// TileDir is the directory of a plan's tile rasters: <plan stem>.tiles beside the plan.
func TileDir(manifestPath string) string {
	return strings.TrimSuffix(manifestPath, filepath.Ext(manifestPath)) + ".tiles"
}

// TilePath is the raster of tile i of the plan at manifestPath.
func TilePath(manifestPath string, i int) string {
	return filepath.Join(TileDir(manifestPath), fmt.Sprintf("tile-%05d.tif", i))
}

// Metadata keys of a tile raster: the plan's hash and the tile's index.
const (
	MetaPlan = "AIDW_PLAN"
	MetaTile = "AIDW_TILE"
)

// Proof is the record, beside a tile raster (ProofPath), that it was written whole: the plan
// and tile it belongs to and the raster's size and SHA-256. A raster renamed into place is
// whole when written, but a file system can still lose its end (a node that fails before its
// writes reach the shared storage, a copy cut short), and GDAL opens many a truncated GeoTIFF.
type Proof struct {
	Plan string `json:"plan"`
	Tile int    `json:"tile"`
	FileProof
}

// FileProof is what the plan records of a file written for it (a tile raster, the far
// field): its size and SHA-256, checked when it is read.
type FileProof struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ProofPath is the proof of completion of the tile raster at tilePath.
func ProofPath(tilePath string) string { return tilePath + ".done" }

// WriteProof records, atomically, that the tile raster at tilePath, tile i of the plan with
// hash plan, is complete as it is now.
func WriteProof(tilePath, plan string, i int) error {
	fp, err := fileProof(tilePath)
	if err != nil {
		return err
	}
	b, err := json.Marshal(Proof{plan, i, fp})
	if err != nil {
		return err
	}
	return outfile.WriteAtomic(ProofPath(tilePath), append(b, '\n'))
}

// ErrForeign marks a tile raster of another plan or another tile.
var ErrForeign = errors.New("of another plan")

// CheckProof says why the tile raster at tilePath is not tile i of the plan with hash plan,
// complete: its proof is missing or unreadable, names another plan or tile (ErrForeign), or
// records another size or checksum than the raster's now. nil means it is proven.
func CheckProof(tilePath, plan string, i int) error {
	b, err := os.ReadFile(ProofPath(tilePath))
	if err != nil {
		return errors.New("no record of its completion")
	}
	var p Proof
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("its record of completion is unreadable: %w", err)
	}
	if p.Plan != plan || p.Tile != i {
		return ErrForeign
	}
	now, err := fileProof(tilePath)
	switch {
	case err != nil:
		return err
	case now.Size != p.Size:
		return fmt.Errorf("%d bytes, %d when written", now.Size, p.Size)
	case now.SHA256 != p.SHA256:
		return fmt.Errorf("its checksum is not the one recorded when written")
	}
	return nil
}

// fileProof is the size and hex SHA-256 of a file.
func fileProof(path string) (FileProof, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileProof{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileProof{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return FileProof{n, hex.EncodeToString(h.Sum(nil))}, nil
}

// Fingerprint tells an input changed after planning from the one planned, cheaply: its size,
// modification time and a hash of its head (a LAS/LAZ file's header and VLRs, where its
// extent, scales and CRS are; another file's first headBytes). Workers and the mosaic refuse
// a plan whose inputs changed: tiles of old and new data would be mixed.
type Fingerprint struct {
	Size    int64  `json:"size"`
	ModTime string `json:"mtime"`
	Head    string `json:"head_sha256"`
}

// headBytes is how much of a file that is not LAS/LAZ its fingerprint hashes, and the most of
// a LAS/LAZ file's header and VLRs.
const headBytes = 1 << 20

// TakeFingerprint is the fingerprint of the file at path now.
func TakeFingerprint(path string) (Fingerprint, error) {
	f, err := os.Open(path)
	if err != nil {
		return Fingerprint{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Fingerprint{}, err
	}
	fp := Fingerprint{Size: st.Size(), ModTime: st.ModTime().UTC().Format(time.RFC3339Nano)}
	if st.IsDir() { // a folder datasource (shapefiles): its own entry's time
		return fp, nil
	}
	n := int64(headBytes)
	var hdr [100]byte
	if _, err := io.ReadFull(f, hdr[:]); err == nil && string(hdr[:4]) == "LASF" {
		n = min(n, int64(binary.LittleEndian.Uint32(hdr[96:]))) // offset to the point records
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return Fingerprint{}, fmt.Errorf("reading %s: %w", path, err)
	}
	fp.Head = hex.EncodeToString(h.Sum(nil))
	return fp, nil
}

// Check refuses inputs that changed since the plan was made, naming the first.
func (in Inputs) Check() error {
	for _, f := range in.Files {
		if f.ModTime == "" {
			continue // not a file
		}
		now, err := TakeFingerprint(f.Path)
		var why string
		switch {
		case err != nil:
			why = err.Error()
		case now.Size != f.Size:
			why = fmt.Sprintf("%d bytes, %d when planned", now.Size, f.Size)
		case now.ModTime != f.ModTime:
			why = fmt.Sprintf("modified at %s, %s when planned", now.ModTime, f.ModTime)
		case now.Head != f.Head:
			why = "its header differs from the one planned"
		default:
			continue
		}
		return fmt.Errorf("input %s changed after planning (%s): plan again", f.Path, why)
	}
	return nil
}

// SpillDir is the directory of a plan's spilled samples: <plan stem>.samples beside the plan.
func SpillDir(manifestPath string) string {
	return strings.TrimSuffix(manifestPath, filepath.Ext(manifestPath)) + ".samples"
}

// FarFieldPath is the saved far field of a plan: <plan stem>.farfield beside the plan.
func FarFieldPath(manifestPath string) string {
	return strings.TrimSuffix(manifestPath, filepath.Ext(manifestPath)) + ".farfield"
}

// WriteFarField builds the far field of computer c's job (SaveFar, powers from tiles of side
// nodes) and writes it to path atomically, returning its proof for the manifest.
func WriteFarField(ctx context.Context, c *Computer, side int, path string, progress func(float64)) (*FileProof, error) {
	outfile.RemoveStale(path) // a killed plan's field, as large as this one
	h := sha256.New()
	var size int64
	err := outfile.WriteAtomicFrom(path, func(w io.Writer) error {
		cw := &countingWriter{w: io.MultiWriter(w, h)}
		err := c.SaveFar(ctx, side, cw, progress)
		size = cw.n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("the plan's far field: %w", err)
	}
	return &FileProof{Size: size, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// ReadFarField gives computer c the job's far field saved at path, checked against the
// plan's proof in the one read that loads it: a missing or damaged file is refused, by name
// (a worker does not build it again: every tile would then pay for the whole field, and
// what damaged it may have damaged more; planning again writes it whole).
func ReadFarField(ctx context.Context, c *Computer, path string, proof FileProof) error {
	damaged := func(why string) error {
		return fmt.Errorf("the plan's far field %s is damaged (%s): plan again", path, why)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the plan's far field %s is missing: plan again", path)
	} else if err != nil {
		return fmt.Errorf("the plan's far field: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("the plan's far field: %w", err)
	}
	if st.Size() != proof.Size {
		return damaged(fmt.Sprintf("%d bytes, %d when planned", st.Size(), proof.Size))
	}
	h := sha256.New()
	err = c.LoadFar(ctx, io.TeeReader(f, h))
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return damaged(err.Error())
	case hex.EncodeToString(h.Sum(nil)) != proof.SHA256:
		c.far = nil
		return damaged("its checksum is not the one recorded when planned")
	}
	return nil
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
