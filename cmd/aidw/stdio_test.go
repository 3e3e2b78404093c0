package main

import (
	"bufio"
	"bytes"
	"github.com/aidw/aidw/internal/dirtest"
	"github.com/aidw/aidw/internal/testload"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Standard input and output in pipelines (issue 27): the binary runs with real pipes, and
// TMPDIR is a folder of the test's own, so that a spill or a temporary raster left behind is
// seen.

// piped runs the binary with stdin fed through a pipe and TMPDIR set to tmp, and returns its
// exit code, stdout and stderr.
func piped(t *testing.T, tmp string, stdin []byte, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := exec.Command(aidwBin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdin = bytes.NewReader(stdin) // not an *os.File: exec copies it through a pipe
	var stdout bytes.Buffer
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return exitCodeOf(t, cmd), stdout.Bytes(), stderr.String()
}

// emptyDir fails unless dir holds nothing.
func emptyDir(t *testing.T, dir, what string) {
	t.Helper()
	if names := dirtest.Names(t, dir); len(names) != 0 {
		t.Errorf("%s: left %v in %s", what, names, dir)
	}
}

// latencyBound is how long an interrupt may take to stop a run: a second, scaled by how busy
// the machine is now (internal/testload, AIDW_TEST_SLOWDOWN).
func latencyBound(t *testing.T) time.Duration {
	t.Helper()
	return testload.Bound(time.Second, testload.Factor())
}

// Text piped in (/vsistdin/ and -) gives the raster of the file, bit for bit: streamed when
// the samples are read once, spilled when a tiled run reads them twice.
func TestStdinText(t *testing.T) {
	src := "../../testdata/n43_samples.csv"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	out, tmp := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"streamed", []string{"-a", "invdistnn:radius=50"}},
		{"memory", []string{"-a", "invdist", "-memory", "300MB"}},
		{"tiles", []string{"-a", "invdistnn:radius=0.3", "-tile", "16"}},
	} {
		for _, stdin := range []string{"/vsistdin/", "-"} {
			t.Run(c.name+" "+stdin, func(t *testing.T) {
				grid := append([]string{"grid", "-q", "-zfield", "elevation", "-outsize", "40", "30"}, c.args...)
				want := filepath.Join(out, "file.tif")
				if code, _, stderr := runAidw(t, append(grid, src, want)...); code != 0 {
					t.Fatalf("from the file: exit %d: %s", code, stderr)
				}
				got := filepath.Join(out, "stdin.tif")
				if code, _, stderr := piped(t, tmp, data, append(grid, stdin, got)...); code != 0 {
					t.Fatalf("from standard input: exit %d: %s", code, stderr)
				}
				sameRaster(t, "piped text", readRaster(t, got, 1), readRaster(t, want, 1))
				emptyDir(t, tmp, "TMPDIR")
			})
		}
	}
}

// LAS and LAZ piped in give the file's raster bit for bit (nodata included), in memory and
// in tiles.
func TestStdinLAS(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/laz/*.la[sz]")
	files = append(files, "../../testdata/Haystack_Rock.las")
	out, tmp := t.TempDir(), t.TempDir()
	for _, f := range files {
		for _, mode := range [][]string{nil, {"-memory", "300MB"}} {
			t.Run(filepath.Base(f)+strings.Join(mode, " "), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				grid := append([]string{"grid", "-q", "-outsize", "32", "24"}, mode...)
				want, got := filepath.Join(out, "file.tif"), filepath.Join(out, "stdin.tif")
				if code, _, stderr := runAidw(t, append(grid, f, want)...); code != 0 {
					t.Fatalf("from the file: exit %d: %s", code, stderr)
				}
				if code, _, stderr := piped(t, tmp, data, append(grid, "/vsistdin/", got)...); code != 0 {
					t.Fatalf("from standard input: exit %d: %s", code, stderr)
				}
				g, w := readRaster(t, got, 1), readRaster(t, want, 1)
				if g.hasNoData != w.hasNoData || g.nodata != w.nodata {
					t.Errorf("nodata %v %g, the file gives %v %g", g.hasNoData, g.nodata, w.hasNoData, w.nodata)
				}
				sameRaster(t, "piped "+filepath.Base(f), g, w)
				emptyDir(t, tmp, "TMPDIR")
			})
		}
	}
}

// A raster to /vsistdout/ is the file the same run writes (GTiff), or what gdal_translate
// makes of it (XYZ, AAIGrid); progress then goes to stderr, never into the raster.
func TestStdoutRaster(t *testing.T) {
	src := "../../testdata/n43_samples.csv"
	out, tmp := t.TempDir(), t.TempDir()
	grid := []string{"grid", "-zfield", "elevation", "-a", "invdist", "-outsize", "40", "30"}
	tif := filepath.Join(out, "file.tif")
	if code, _, stderr := runAidw(t, append(append([]string{}, grid...), "-q", src, tif)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, format := range []string{"", "XYZ", "AAIGrid"} {
		t.Run(format, func(t *testing.T) {
			want, err := os.ReadFile(tif)
			if format != "" {
				ref := filepath.Join(out, "ref."+format)
				if b, err := exec.Command("gdal_translate", "-q", "-of", format, tif, ref).CombinedOutput(); err != nil {
					t.Fatalf("gdal_translate: %v: %s", err, b)
				}
				want, err = os.ReadFile(ref)
			}
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{}, grid...)
			if format != "" {
				args = append(args, "-of", format)
			}
			code, got, stderr := piped(t, tmp, nil, append(args, src, "/vsistdout/")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("standard output: %d bytes, not the %d of the file", len(got), len(want))
			}
			if !strings.Contains(stderr, "100 - done.\n") {
				t.Errorf("stderr %q: want the progress", stderr)
			}
			emptyDir(t, tmp, "TMPDIR")
		})
	}
}

// A reader that closes the pipe early (| head) ends the run quietly, as SIGPIPE ends a GDAL
// utility (status 141, no message), and leaves no temporary file.
func TestStdoutClosedPipe(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command(aidwBin, "grid", "-q", "-zfield", "elevation", "-a", "invdist", "-outsize", "300", "300",
		"-of", "XYZ", "../../testdata/n43_samples.csv", "/vsistdout/")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || len(strings.Fields(first)) != 3 {
		t.Fatalf("first line %q (%v): want x y z", first, err)
	}
	r.Close()
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 141 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q: want 141 and no message", code, stderr.String())
	}
	emptyDir(t, tmp, "TMPDIR")
}

// Bad input on standard input is one ERROR line naming standard input (not a temporary
// file), exit 1, and nothing left behind: no output, no spill.
func TestStdinErrors(t *testing.T) {
	laz, err := os.ReadFile("../../testdata/laz/simple.laz")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stdin []byte
		srcs  []string
		want  string
	}{
		{"bad text", []byte("x,y,z\n1,2,3\n4,5,oops\n"), []string{"-"}, `reading standard input: line 3: z value "oops" is not a number`},
		{"empty", nil, []string{"/vsistdin/"}, "reading standard input: no data lines"},
		{"truncated LAZ", laz[:3000], []string{"-"}, "reading standard input: "},
		{"twice", nil, []string{"-", "/vsistdin/"}, "standard input (- or /vsistdin/) can be a source once only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, tmp := t.TempDir(), t.TempDir()
			args := append(append([]string{"grid", "-q", "-outsize", "10", "10"}, c.srcs...), filepath.Join(out, "o.tif"))
			code, _, stderr := piped(t, tmp, c.stdin, args...)
			if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ERROR: "+c.want) {
				t.Errorf("exit %d, stderr %q: want exit 1 and ERROR: %s...", code, stderr, c.want)
			}
			if strings.Contains(stderr, tmp) {
				t.Errorf("stderr %q names the spill", stderr)
			}
			emptyDir(t, out, "the output folder")
			emptyDir(t, tmp, "TMPDIR")
		})
	}
	if code, _, stderr := piped(t, t.TempDir(), laz, "plan", "-outsize", "10", "10", "-", filepath.Join(t.TempDir(), "p.json")); code != 1 || !strings.Contains(stderr, "standard input cannot be the source of a plan") {
		t.Errorf("plan: exit %d, stderr %q", code, stderr)
	}
}

// An interrupt stops a run that waits on an idle pipe, streamed or spilling, and one whose
// raster waits on a reader that stopped reading, within a second: exit 130, nothing left.
func TestStdioInterrupt(t *testing.T) {
	var text bytes.Buffer
	text.WriteString("x,y,z\n")
	for i := 0; text.Len() < 2<<20; i++ {
		text.WriteString(strconv.Itoa(i%1000) + "," + strconv.Itoa(i/1000) + ",1\n")
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"streamed", nil},
		{"spilled", []string{"-memory", "300MB"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, tmp := t.TempDir(), t.TempDir()
			cmd := exec.Command(aidwBin, append(append([]string{"grid", "-q", "-outsize", "10", "10"}, c.args...), "-", filepath.Join(out, "o.tif"))...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			w, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			// a pipe holds 64 KiB: once 2 MiB are written, aidw is reading; then the pipe idles
			if _, err := w.Write(text.Bytes()); err != nil {
				t.Fatal(err)
			}
			interrupt(t, cmd, &stderr)
			emptyDir(t, out, "the output folder")
			emptyDir(t, tmp, "TMPDIR")
		})
	}
	t.Run("stalled stdout", func(t *testing.T) {
		tmp := t.TempDir()
		cmd := exec.Command(aidwBin, "grid", "-zfield", "elevation", "-a", "invdist", "-outsize", "300", "300",
			"../../testdata/n43_samples.csv", "/vsistdout/")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		r, w, err := os.Pipe() // never read: the raster's 700 KB fill it
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		progress, perr := cmd.StderrPipe()
		if perr != nil {
			t.Fatal(perr)
		}
		cmd.Stdout = w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		var stderr strings.Builder
		buf := make([]byte, 256)
		for !strings.Contains(stderr.String(), "done.") {
			n, err := progress.Read(buf)
			if err != nil {
				t.Fatalf("stderr ended before the progress did: %q", stderr.String())
			}
			stderr.Write(buf[:n])
		}
		time.Sleep(200 * time.Millisecond) // the copy to standard output has filled the pipe
		interrupt(t, cmd, nil)
		emptyDir(t, tmp, "TMPDIR")
	})
}

// interrupt sends SIGINT to cmd and checks that it exits 130 within latencyBound, saying so
// on stderr when given.
func interrupt(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder) {
	t.Helper()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("still running 10 s after SIGINT")
	}
	if took := time.Since(sent); took > latencyBound(t) {
		t.Errorf("exited %v after SIGINT, want within %v", took, latencyBound(t))
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if stderr != nil && strings.TrimSpace(stderr.String()) != "ERROR: interrupted" {
		t.Errorf("stderr %q, want ERROR: interrupted", stderr.String())
	}
}
