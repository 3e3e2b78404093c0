package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aidw/aidw/internal/lastest"
	"github.com/aidw/aidw/internal/outfile"
	"github.com/aidw/aidw/tiles"
)

// planJob plans a job and returns the manifest's path and its tile count.
func planJob(t *testing.T, dir, name string, args ...string) (string, int) {
	t.Helper()
	m := filepath.Join(dir, name)
	if code, _, stderr := runAidw(t, append(append([]string{"plan", "-q"}, args...), m)...); code != 0 {
		t.Fatalf("plan %v: exit %d: %s", args, code, stderr)
	}
	b, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	var mf tiles.Manifest
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	return m, len(mf.Tiles)
}

// runTiles computes every tile of a plan, one process each.
func runTiles(t *testing.T, m string, n int) {
	t.Helper()
	for i := range n {
		if code, _, stderr := runAidw(t, "grid", "--manifest", m, "--plan-tile", fmt.Sprint(i), "-q"); code != 0 {
			t.Fatalf("tile %d: exit %d: %s", i, code, stderr)
		}
	}
}

func mosaic(t *testing.T, m, dst string, extra ...string) {
	t.Helper()
	if code, _, stderr := runAidw(t, append(append([]string{"mosaic", "-q"}, extra...), m, dst)...); code != 0 {
		t.Fatalf("mosaic %s: exit %d: %s", dst, code, stderr)
	}
}

// plan, one process a tile, mosaic: the raster (GTiff, COG, VRT) is the in-memory run's, bit
// for bit, for several algorithms, bands and types.
func TestPlanTilesMosaic(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 4000, 1, false)
	for _, c := range []struct {
		alg   string
		extra []string
		bands int
	}{
		{"aidw:max_points=12", []string{"-ot", "Float32"}, 1},
		{"aidw:k=10:max_points=16:diagnostics=yes", nil, 5},
		{"invdistnn:radius=8:max_points=12:nodata=-9999", nil, 1},
		{"average:radius1=6:radius2=6", []string{"-ot", "Int16", "-co", "COMPRESS=DEFLATE"}, 1},
		{"nearest", nil, 1},
		{"linear", nil, 1},
		{"aidw", nil, 1}, // global: each tile loads every sample
	} {
		grid := append([]string{"-a", c.alg, "-tr", "2.5", "2.5"}, c.extra...)
		want := filepath.Join(dir, "want.tif")
		if code, _, stderr := runAidw(t, append(append(append([]string{"grid", "-q"}, grid...), in), want)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.alg, code, stderr)
		}
		m, n := planJob(t, dir, "plan.json", append(grid, "-tile", "23", in)...)
		if n != 12 {
			t.Fatalf("%s: %d tiles, want 12", c.alg, n)
		}
		runTiles(t, m, n)
		got, vrt, cog := filepath.Join(dir, "got.tif"), filepath.Join(dir, "got.vrt"), filepath.Join(dir, "cog.tif")
		mosaic(t, m, got)
		mosaic(t, m, vrt)
		mosaic(t, m, cog, "-of", "COG")
		for b := 1; b <= c.bands; b++ {
			w := readRaster(t, want, b)
			for _, g := range []string{got, vrt, cog} {
				r := readRaster(t, g, b)
				if r.dataType != w.dataType || r.hasNoData != w.hasNoData || r.nodata != w.nodata || r.bands != w.bands {
					t.Fatalf("%s %s band %d: type %v nodata %v %v bands %d, want %v %v %v %d", c.alg, g, b,
						r.dataType, r.hasNoData, r.nodata, r.bands, w.dataType, w.hasNoData, w.nodata, w.bands)
				}
				sameRaster(t, fmt.Sprintf("%s %s band %d", c.alg, filepath.Base(g), b), r, w)
			}
		}
		os.RemoveAll(tiles.TileDir(m))
	}
}

// A plan of a global form whose samples do not fit half the budget: each tile's worker
// spills the plan's inputs and streams every sample past its nodes, as aidw grid -memory
// does, and the mosaic is the in-memory run's, bit for bit.
func TestPlanGlobalStreams(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 6000, 2, false)
	for _, alg := range []string{"count", "aidw", "aidw:k=9:diagnostics=yes", "invdist", "average_distance_pts"} {
		grid := []string{"-a", alg, "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "100", "75"}
		want := filepath.Join(dir, "want.tif")
		if code, _, stderr := runAidw(t, append(append(append([]string{"grid", "-q"}, grid...), in), want)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", alg, code, stderr)
		}
		m, n := planJob(t, dir, "plan.json", append(grid, "-memory", "600KB", in)...)
		if n < 2 {
			t.Fatalf("%s: %d tiles under -memory 600KB, want several", alg, n)
		}
		for i := range n {
			code, stdout, stderr := runAidw(t, "grid", "--manifest", m, "--plan-tile", fmt.Sprint(i))
			if code != 0 {
				t.Fatalf("%s tile %d: exit %d: %s", alg, i, code, stderr)
			}
			if !strings.Contains(stdout, "samples stream past its nodes") || !strings.Contains(stdout, "100 - done.") {
				t.Fatalf("%s tile %d: not streamed to the end: %q", alg, i, stdout)
			}
		}
		got := filepath.Join(dir, "got.tif")
		mosaic(t, m, got)
		w := readRaster(t, want, 1)
		for b := 1; b <= w.bands; b++ {
			sameRaster(t, fmt.Sprintf("%s band %d", alg, b), readRaster(t, got, b), readRaster(t, want, b))
		}
		os.RemoveAll(tiles.TileDir(m))
	}
}

// A global-AIDW plan above the far field's thresholds (10,000 samples, 2e9 sample-node pairs)
// builds the field once, beside the plan, and every tile reads it instead of building it
// again, over LAS inputs (read by region) and CSV (read from plan.samples/): the mosaic is
// the one-shot raster, bit for bit. A far field missing or damaged is refused by name, and
// the tile is left undone.
func TestPlanGlobalFarField(t *testing.T) {
	dir := t.TempDir()
	las := filepath.Join(dir, "las")
	lastest.Survey(t, las, 12000, 3, false)
	csv := filepath.Join(dir, "s.csv")
	var b strings.Builder
	b.WriteString("x,y,z\n")
	rng := rand.New(rand.NewPCG(7, 8))
	for range 12000 {
		fmt.Fprintf(&b, "%.2f,%.2f,%.3f\n", 450000+200*rng.Float64(), 5400000+150*rng.Float64(), 100+10*rng.NormFloat64())
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := []string{"-a", "aidw", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "500", "400"}
	for _, in := range []string{las, csv} {
		want := filepath.Join(dir, "want.tif")
		if code, _, stderr := runAidw(t, append(append(append([]string{"grid", "-q"}, grid...), in), want)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", in, code, stderr)
		}
		m, n := planJob(t, dir, "plan.json", append(grid, "-tile", "250", in)...)
		mf, err := tiles.ReadManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		far := tiles.FarFieldPath(m)
		if st, err := os.Stat(far); err != nil || mf.FarField == nil || st.Size() != mf.FarField.Size || n != 4 {
			t.Fatalf("%s: the plan's far field %v (%v), proof %+v, %d tiles", in, far, err, mf.FarField, n)
		}
		for i := range n {
			code, stdout, stderr := runAidw(t, "grid", "--manifest", m, "--plan-tile", fmt.Sprint(i))
			if code != 0 || !strings.Contains(stdout, "the far field read from "+far) || strings.Contains(stdout, "stream past") {
				t.Fatalf("%s tile %d: exit %d, %q %q, want the far field read from the plan", in, i, code, stdout, stderr)
			}
		}
		got := filepath.Join(dir, "got.tif")
		mosaic(t, m, got)
		sameRaster(t, "far field over "+filepath.Base(in), readRaster(t, got, 1), readRaster(t, want, 1))
		os.RemoveAll(tiles.TileDir(m))
	}
	m := filepath.Join(dir, "plan.json")
	far := tiles.FarFieldPath(m)
	whole, err := os.ReadFile(far)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"cut short": whole[:len(whole)/2], "missing": nil} {
		os.Remove(far)
		if data != nil {
			os.WriteFile(far, data, 0o644)
		}
		code, _, stderr := runAidw(t, "grid", "-q", "--manifest", m, "--plan-tile", "1")
		if code == 0 || !strings.Contains(stderr, far) || !strings.Contains(stderr, "plan again") {
			t.Fatalf("a far field %s: exit %d, %q", name, code, stderr)
		}
		if _, err := os.Stat(tiles.TilePath(m, 1)); err == nil {
			t.Fatalf("a far field %s: the tile was written", name)
		}
	}
}

// A finished tile is not computed again; a stale temporary is removed; a killed or missing
// tile, a tile of another plan and an edited plan are refused by the mosaic.
func TestPlanIdempotentAndRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 3000, 4, false)
	m, n := planJob(t, dir, "job.json", "-a", "invdistnn:radius=6", "-tr", "4", "4", "-tile", "20", in)
	runTiles(t, m, n)
	tile1 := tiles.TilePath(m, 1)
	if filepath.Base(filepath.Dir(tile1)) != "job.tiles" || filepath.Base(tile1) != "tile-00001.tif" {
		t.Fatalf("tile raster %s", tile1)
	}
	st, _ := os.Stat(tile1)
	// a worker killed before it could clean up: its temporary names a process that is gone
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := outfile.TempNameOf(tile1, gone.Process.Pid)
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runAidw(t, "grid", "--manifest", m, "--plan-tile", "1")
	if code != 0 || !strings.Contains(stdout, "done already") {
		t.Fatalf("rerun of a finished tile: exit %d, %q %q", code, stdout, stderr)
	}
	if st2, _ := os.Stat(tile1); !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("a finished tile was written again")
	}
	// the tile is lost (a killed worker leaves none): the mosaic says which
	os.Remove(tile1)
	dst := filepath.Join(dir, "out.tif")
	code, _, stderr = runAidw(t, "mosaic", m, dst)
	if code == 0 || !strings.Contains(stderr, "1 missing (1)") {
		t.Fatalf("mosaic with tile 1 missing: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatalf("a failed mosaic left %s", dst)
	}
	code, _, stderr = runAidw(t, "grid", "--manifest", m, "--plan-tile", "1", "-q")
	if code != 0 {
		t.Fatalf("tile 1 again: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Fatalf("the stale temporary %s is still there", stale)
	}
	mosaic(t, m, dst)
	// a tile cut short on the shared storage: the mosaic names it, a worker computes it again
	whole, _ := os.ReadFile(tile1)
	if err := os.Truncate(tile1, int64(len(whole)/2)); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runAidw(t, "mosaic", m, dst)
	if code == 0 || !strings.Contains(stderr, "1 damaged (1: ") {
		t.Fatalf("mosaic with tile 1 truncated: exit %d, %q", code, stderr)
	}
	code, stdout, stderr = runAidw(t, "grid", "--manifest", m, "--plan-tile", "1")
	if code != 0 || strings.Contains(stdout, "done already") {
		t.Fatalf("rerun of a truncated tile: exit %d, %q %q", code, stdout, stderr)
	}
	if again, _ := os.ReadFile(tile1); string(again) != string(whole) {
		t.Fatalf("tile 1 computed again: %d bytes, %d before", len(again), len(whole))
	}
	mosaic(t, m, dst)
	// an input touched, or its header rewritten in place, after planning: refused by name
	files, _ := filepath.Glob(filepath.Join(in, "*.la?"))
	touched := files[len(files)-1]
	st, _ = os.Stat(touched)
	head, _ := os.ReadFile(touched)
	for _, change := range []func(){
		func() { os.Chtimes(touched, st.ModTime(), st.ModTime().Add(time.Hour)) },
		func() {
			f, _ := os.OpenFile(touched, os.O_WRONLY, 0)
			f.WriteAt([]byte{head[10] ^ 1}, 10) // the project ID, a field no reader checks
			f.Close()
			os.Chtimes(touched, st.ModTime(), st.ModTime())
		},
	} {
		change()
		for _, args := range [][]string{{"mosaic", m, dst}, {"grid", "--manifest", m, "--plan-tile", "0"}} {
			if code, _, stderr := runAidw(t, args...); code == 0 || !strings.Contains(stderr, "input "+touched+" changed after planning") {
				t.Fatalf("%v over a changed input: exit %d, %q", args, code, stderr)
			}
		}
		os.WriteFile(touched, head, 0o644)
		os.Chtimes(touched, st.ModTime(), st.ModTime())
	}
	mosaic(t, m, dst)
	// another plan at the same path: the old tiles are not its own
	keep := filepath.Join(dir, "keep.tif")
	os.Rename(tiles.TilePath(m, 2), keep)
	planJob(t, dir, "job.json", "-a", "invdistnn:radius=7", "-tr", "4", "4", "-tile", "20", in)
	code, _, stderr = runAidw(t, "mosaic", m, dst)
	if code == 0 || !strings.Contains(stderr, "of another plan") || !strings.Contains(stderr, "missing (2)") {
		t.Fatalf("mosaic over another plan's tiles: exit %d, %q", code, stderr)
	}
	// a worker of the new plan recomputes a tile of the old one
	code, stdout, _ = runAidw(t, "grid", "--manifest", m, "--plan-tile", "0")
	if code != 0 || strings.Contains(stdout, "done already") {
		t.Fatalf("tile 0 of the new plan: exit %d, %q", code, stdout)
	}
	// an edited plan
	b, _ := os.ReadFile(m)
	os.WriteFile(m, []byte(strings.Replace(string(b), "radius=7", "radius=9", 1)), 0o644)
	for _, args := range [][]string{{"mosaic", m, dst}, {"grid", "--manifest", m, "--plan-tile", "0"}} {
		if code, _, stderr := runAidw(t, args...); code == 0 || !strings.Contains(stderr, "edited") {
			t.Fatalf("%v over an edited plan: exit %d, %q", args, code, stderr)
		}
	}
	// arguments
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "-tile", "20", in, filepath.Join(dir, "p.tif")}, ".json"},
		{[]string{"plan", "-tile", "20", "-preview", "x.png", in, filepath.Join(dir, "p.json")}, "aidw mosaic"},
		{[]string{"plan", "-a", "aidw", "-tile", "20", filepath.Join(dir, "nothere"), filepath.Join(dir, "p.json")}, "nothere"},
		{[]string{"grid", "--manifest", filepath.Join(dir, "none.json"), "--plan-tile", "0"}, "none.json"},
		{[]string{"grid", "--manifest", m, "-a", "nearest"}, "only --plan-tile"},
		{[]string{"mosaic", m}, "the plan and the destination"},
	} {
		if code, _, stderr := runAidw(t, c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: exit %d, %q; want an error naming %q", c.args, code, stderr, c.want)
		}
	}
}

// runAidwEnv runs the binary with extra environment variables.
func runAidwEnv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(aidwBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stdout.String(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// Without --plan-tile a worker takes SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX (Kubernetes
// Indexed Jobs); --plan-tile wins over both.
func TestTileIndexFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 2000, 5, false)
	m, n := planJob(t, dir, "env.json", "-a", "nearest", "-tr", "5", "5", "-tile", "16", in)
	clean := []string{"SLURM_ARRAY_TASK_ID=", "JOB_COMPLETION_INDEX="}
	exists := func(i int) bool { _, err := os.Stat(tiles.TilePath(m, i)); return err == nil }
	for _, c := range []struct {
		env  []string
		args []string
		tile int
	}{
		{[]string{"SLURM_ARRAY_TASK_ID=2"}, nil, 2},
		{[]string{"JOB_COMPLETION_INDEX=3"}, nil, 3},
		{[]string{"SLURM_ARRAY_TASK_ID=4", "JOB_COMPLETION_INDEX=5"}, nil, 4},
		{[]string{"SLURM_ARRAY_TASK_ID=5", "JOB_COMPLETION_INDEX=6"}, []string{"--plan-tile", "1"}, 1},
	} {
		code, _, stderr := runAidwEnv(t, append(clean, c.env...), append([]string{"grid", "--manifest", m, "-q"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v %v: exit %d: %s", c.env, c.args, code, stderr)
		}
		for i := range n {
			if exists(i) != (i == c.tile) {
				t.Fatalf("%v %v: tile %d exists: %v; want tile %d computed", c.env, c.args, i, exists(i), c.tile)
			}
		}
		os.Remove(tiles.TilePath(m, c.tile))
	}
	// the spelling before --plan-tile still works, with a one-line warning
	code, _, stderr := runAidwEnv(t, clean, "grid", "--manifest", m, "-q", "--tile", "2")
	if code != 0 || !exists(2) || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--plan-tile") {
		t.Fatalf("--tile 2: exit %d, tile 2 computed: %v, stderr %q: want the tile and one warning naming --plan-tile", code, exists(2), stderr)
	}
	os.Remove(tiles.TilePath(m, 2))
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "which tile"},
		{[]string{"JOB_COMPLETION_INDEX=x"}, "JOB_COMPLETION_INDEX"},
		{[]string{"SLURM_ARRAY_TASK_ID=" + fmt.Sprint(n)}, fmt.Sprintf("tiles 0 to %d", n-1)},
	} {
		if code, _, stderr := runAidwEnv(t, append(clean, c.env...), "grid", "--manifest", m); code == 0 || !strings.Contains(stderr, c.want) {
			t.Fatalf("%v: exit %d, %q; want an error naming %q", c.env, code, stderr, c.want)
		}
	}
}

// The xargs form, two workers at a time, then the mosaic: the in-memory raster. A second
// pass over every tile computes nothing.
func TestPlanXargs(t *testing.T) {
	if _, err := exec.LookPath("xargs"); err != nil {
		t.Skip("no xargs")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 4000, 6, false)
	grid := []string{"-a", "aidw:max_points=12", "-tr", "2", "2", "-ot", "Float32"}
	want := filepath.Join(dir, "want.tif")
	if code, _, stderr := runAidw(t, append(append(append([]string{"grid", "-q"}, grid...), in), want)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, n := planJob(t, dir, "m.json", append(grid, "-tile", "30", in)...)
	if n < 6 {
		t.Fatalf("%d tiles", n)
	}
	for pass := range 2 {
		cmd := exec.Command("sh", "-c", fmt.Sprintf(`seq 0 %d | xargs -P 2 -I{} "%s" grid --manifest m.json --plan-tile {}`, n-1, aidwBin))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("xargs: %v: %s", err, out)
		}
		if done := strings.Count(string(out), "done already"); (pass == 0) != (done == 0) || pass == 1 && done != n {
			t.Fatalf("pass %d: %d tiles done already: %s", pass, done, out)
		}
	}
	got, png := filepath.Join(dir, "got.tif"), filepath.Join(dir, "quicklook.png")
	mosaic(t, m, got, "-preview", png)
	sameRaster(t, "xargs mosaic", readRaster(t, got, 1), readRaster(t, want, 1))
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatalf("the mosaic's -preview: %v", err)
	}
}

// The Kubernetes manifests (deploy/k8s) run the image that scripts/image.sh builds: they name
// its tag, leave its entrypoint (aidw) to run their arguments, share one ReadWriteMany volume of
// a configurable storage class, and their four steps, run here in order with the volume as a
// folder (plan, the Indexed Job's pods by JOB_COMPLETION_INDEX with the tile count taken from
// the plan's log as deploy/k8s/README.md takes it, mosaic), give the one-shot raster (issue 28).
func TestKubernetesManifests(t *testing.T) {
	root := filepath.Join("..", "..")
	script, err := os.ReadFile(filepath.Join(root, "scripts", "image.sh"))
	if err != nil {
		t.Fatal(err)
	}
	_, tag, _ := strings.Cut(string(script), "IMAGE=${AIDW_IMAGE:-")
	tag, _, _ = strings.Cut(tag, "}")
	if !strings.Contains(string(script), `ENTRYPOINT ["/usr/local/bin/aidw"]`) || tag == "" {
		t.Fatalf("scripts/image.sh: no aidw entrypoint or default tag (%q)", tag)
	}
	data := t.TempDir() // stands for the volume at /data
	steps := map[string][]string{}
	for _, name := range []string{"10-volume", "20-plan", "30-tiles", "40-mosaic"} {
		b, err := os.ReadFile(filepath.Join(root, "deploy", "k8s", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		yaml := string(b)
		for _, line := range strings.Split(yaml, "\n") {
			l := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(l, "command:"):
				t.Fatalf("%s overrides the image's entrypoint: %s", name, l)
			case strings.HasPrefix(l, "image:") && strings.Fields(l)[1] != tag:
				t.Fatalf("%s runs %s, not scripts/image.sh's %s", name, l, tag)
			case strings.HasPrefix(l, "args:"):
				var args []string
				if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "args:")), &args); err != nil {
					t.Fatalf("%s: %q: %v", name, l, err)
				}
				for k, a := range args {
					args[k] = strings.ReplaceAll(a, "/data", data)
				}
				steps[name] = args
			}
		}
		want := map[string][]string{
			"10-volume": {`accessModes: ["ReadWriteMany"]`, `storageClassName: "${AIDW_STORAGE_CLASS}"`},
			"20-plan":   {"claimName: aidw-data", "mountPath: /data"},
			"30-tiles":  {"completionMode: Indexed", "completions: ${AIDW_TILES}", "backoffLimitPerIndex: 2", "restartPolicy: Never", "claimName: aidw-data", "mountPath: /data"},
			"40-mosaic": {"claimName: aidw-data", "mountPath: /data"},
		}[name]
		for _, w := range want {
			if !strings.Contains(yaml, w) {
				t.Fatalf("%s lacks %q", name, w)
			}
		}
	}
	plan, tile, mos := steps["20-plan"], steps["30-tiles"], steps["40-mosaic"]
	if len(plan) < 3 || plan[0] != "plan" || len(tile) < 3 || tile[0] != "grid" || tile[1] != "--manifest" || len(mos) < 3 || mos[0] != "mosaic" {
		t.Fatalf("the steps run %q, %q, %q", plan, tile, mos)
	}
	lastest.Survey(t, filepath.Join(data, "survey"), 3000, 7, false)
	for k := range plan[:len(plan)-1] {
		if plan[k] == "-tile" {
			plan[k+1] = "40" // several tiles over this small survey
		}
	}
	code, stdout, stderr := runAidw(t, plan...)
	_, count, _ := strings.Cut(stdout, ": ")
	var n int
	if _, err := fmt.Sscanf(count, "%d tiles of ", &n); code != 0 || err != nil || n < 2 {
		t.Fatalf("the plan step: exit %d, %q %q: no tile count", code, stdout, stderr)
	}
	for i := range n {
		if code, _, stderr := runAidwEnv(t, []string{"SLURM_ARRAY_TASK_ID=", fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, tile...); code != 0 {
			t.Fatalf("pod %d: exit %d: %s", i, code, stderr)
		}
	}
	if code, _, stderr := runAidw(t, mos...); code != 0 {
		t.Fatalf("the mosaic step: exit %d: %s", code, stderr)
	}
	want := filepath.Join(data, "want.tif")
	oneShot := []string{"grid", "-q"}
	for k := 1; k < len(plan)-1; k++ {
		if plan[k] == "-tile" {
			k++ // in memory
			continue
		}
		oneShot = append(oneShot, plan[k])
	}
	oneShot = append(oneShot, want)
	if code, _, stderr := runAidw(t, oneShot...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameRaster(t, "the Kubernetes steps", readRaster(t, mos[len(mos)-1], 1), readRaster(t, want, 1))
}

// A plan with a -like template (its nodata nodes stay nodata) and relative paths, its workers
// and mosaic run from another directory: the in-memory raster.
func TestPlanLikeTemplateRelativePaths(t *testing.T) {
	dir := t.TempDir()
	lastest.Survey(t, filepath.Join(dir, "in"), 3000, 8, false)
	run := func(wd string, args ...string) {
		t.Helper()
		cmd := exec.Command(aidwBin, args...)
		cmd.Dir = wd
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v in %s: %v: %s", args, wd, err, out)
		}
	}
	run(dir, "grid", "-q", "-a", "invdistnn:radius=2.5:nodata=-9999", "-tr", "2", "2", "in", "tmpl.tif")
	grid := []string{"-a", "aidw:max_points=8", "-like", "tmpl.tif", "in"}
	run(dir, append(append([]string{"grid", "-q"}, grid...), "want.tif")...)
	run(dir, append(append([]string{"plan", "-q", "-tile", "30"}, grid...), "p.json")...)
	other := t.TempDir()
	m := filepath.Join(dir, "p.json")
	var mf tiles.Manifest
	b, _ := os.ReadFile(m)
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	if mf.Output.Like != filepath.Join(dir, "tmpl.tif") || !mf.Output.SetNoData {
		t.Fatalf("the plan's template %q, nodata set %v", mf.Output.Like, mf.Output.SetNoData)
	}
	for i := range mf.Tiles {
		run(other, "grid", "--manifest", m, "--plan-tile", fmt.Sprint(i), "-q")
	}
	run(other, "mosaic", "-q", m, "got.tif")
	want, got := readRaster(t, filepath.Join(dir, "want.tif"), 1), readRaster(t, filepath.Join(other, "got.tif"), 1)
	if !got.hasNoData || got.nodata != want.nodata {
		t.Fatalf("nodata %v %v, want %v", got.hasNoData, got.nodata, want.nodata)
	}
	sameRaster(t, "-like plan", got, want)
}

// A budget so small that a global form would read its spill thousands of times is refused up
// front, naming a budget that works; that budget is taken (issue 28).
func TestTinyBudgetRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	lastest.Survey(t, in, 60000, 3, false)
	grid := []string{"-a", "aidw:farfield=no", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "1000", "750"}
	for _, cmd := range [][]string{
		append(append([]string{"grid", "-q", "-memory", "1MB"}, grid...), in, filepath.Join(dir, "o.tif")),
		append(append([]string{"plan", "-q", "-memory", "1MB"}, grid...), in, filepath.Join(dir, "p.json")),
	} {
		code, _, stderr := runAidw(t, cmd...)
		_, named, found := strings.Cut(stderr, "give -memory ")
		if code == 0 || !strings.Contains(stderr, "samples stream from the spill") || !found {
			t.Fatalf("%v: exit %d, %q; want a refusal naming a budget", cmd[:4], code, stderr)
		}
		budget, _, _ := strings.Cut(named, " or more")
		planned := filepath.Join(dir, "ok.json")
		if code, _, stderr := runAidw(t, append(append([]string{"plan", "-q", "-memory", budget}, grid...), in, planned)...); code != 0 {
			t.Fatalf("plan under the budget named, %s: exit %d, %q", budget, code, stderr)
		}
	}
}

// A plan takes what grid takes: over a CSV and over a GeoPackage, the census spills the samples
// once beside the plan, the tiles read them there, and the mosaic is the one-shot raster, bit
// for bit, for a bounded and a global form (issue 28).
func TestPlanTextAndOGRInputs(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "pts.csv")
	surveyLineCSV(t, csv, 5000)
	gpkg := filepath.Join(dir, "pts.gpkg")
	if _, err := exec.LookPath("ogr2ogr"); err != nil {
		t.Skip("ogr2ogr is not installed")
	}
	if out, err := exec.Command("ogr2ogr", "-f", "GPKG", gpkg, csv, "-nln", "pts",
		"-oo", "X_POSSIBLE_NAMES=x", "-oo", "Y_POSSIBLE_NAMES=y", "-oo", "AUTODETECT_TYPE=YES").CombinedOutput(); err != nil {
		t.Fatalf("ogr2ogr: %v: %s", err, out)
	}
	for _, c := range []struct {
		in  string
		alg string
	}{
		{csv, "invdistnn:radius=8:max_points=12"},
		{csv, "aidw"},
		{gpkg, "aidw:max_points=12"},
		{gpkg, "average:radius1=6:radius2=6"},
	} {
		grid := []string{"-a", c.alg, "-zfield", "z", "-txe", "450000", "450200", "-tye", "5400000", "5400150", "-outsize", "80", "60"}
		want := filepath.Join(dir, "want.tif")
		if code, _, stderr := runAidw(t, append(append(append([]string{"grid", "-q"}, grid...), c.in), want)...); code != 0 {
			t.Fatalf("%s on %s: exit %d: %s", c.alg, c.in, code, stderr)
		}
		m, n := planJob(t, dir, "plan.json", append(grid, "-tile", "25", c.in)...)
		if _, err := os.Stat(tiles.SpillDir(m)); err != nil || n != 12 {
			t.Fatalf("%s on %s: %d tiles, samples %v", c.alg, c.in, n, err)
		}
		runTiles(t, m, n)
		got := filepath.Join(dir, "got.tif")
		mosaic(t, m, got)
		sameRaster(t, c.alg+" on "+filepath.Base(c.in), readRaster(t, got, 1), readRaster(t, want, 1))
		os.RemoveAll(tiles.TileDir(m))
	}
}
