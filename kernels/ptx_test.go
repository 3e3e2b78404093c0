package kernels

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPTXMatchesSources checks that aidw.ptx and aidw.fatbin were generated from the CUDA
// sources as they are now: ptx.sum (written by scripts/gen-ptx.sh) must list every *.cu and
// *.cuh file here, and them, the PTX and the fatbin with their current SHA-256.
func TestPTXMatchesSources(t *testing.T) {
	f, err := os.Open("ptx.sum")
	if err != nil {
		t.Fatalf("reading the PTX checksums: %v (run scripts/gen-ptx.sh)", err)
	}
	defer f.Close()
	recorded := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("ptx.sum: malformed line %q", line)
		}
		recorded[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sources, err := filepath.Glob("*.cu")
	if err != nil {
		t.Fatal(err)
	}
	headers, _ := filepath.Glob("*.cuh")
	want := append(append(sources, headers...), "aidw.ptx", "aidw.fatbin")
	for _, name := range want {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		got := hex.EncodeToString(h[:])
		switch rec, ok := recorded[name]; {
		case !ok:
			t.Errorf("%s is not in ptx.sum: regenerate the PTX (scripts/gen-ptx.sh)", name)
		case rec != got:
			t.Errorf("%s changed since aidw.ptx and aidw.fatbin were generated: regenerate them (scripts/gen-ptx.sh)", name)
		}
		delete(recorded, name)
	}
	for name := range recorded {
		t.Errorf("ptx.sum lists %s, which is not a source here", name)
	}
}
