package lidar

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aidw/aidw/lidar/laz"
	"github.com/aidw/aidw/sample"
)

// A COPC file whose hierarchy gives a node more points than the whole header declares is
// refused with an error, before its buffers are sized from that count (a fuzzed file asked for
// tens of gigabytes and brought the process down).
func TestCOPCNodeCountBeyondHeader(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "laz", "simple.copc.laz"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytesSource{bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	info, err := laz.ParseCopcInfo(f.COPC)
	if err != nil {
		t.Fatal(err)
	}
	// the root page's first entry: key (16 bytes), offset (8), bytes (4), points (4)
	binary.LittleEndian.PutUint32(b[info.RootHierOffset+28:], 1<<31-1)
	f, err = Open(bytesSource{bytes.NewReader(b)})
	if err != nil {
		t.Fatal(err)
	}
	box := [4]float64{-1e12, -1e12, 1e12, 1e12}
	everywhere := Filter{Samples: &sample.Filter{ZMultiply: 1, Region: &sample.Region{Rect: &box, BBox: box}}}
	_, err = f.Read(context.Background(), everywhere, &sample.Samples{})
	if err == nil || !strings.Contains(err.Error(), "more points than the header") {
		t.Fatalf("got %v, want an error about the node's points", err)
	}
}
