package laz

import (
	"bytes"
	"fmt"
	"testing"
)

// fieldBytes lists, per selectable field, the record bytes it owns in point
// format 6-10 records (offsets within the POINT14 part; rgb etc. handled apart).
func fieldMask(sel Fields, recLen int, lay *layout) []bool {
	keep := make([]bool, recLen)
	for i := 0; i < 12; i++ { // X, Y, Z
		keep[i] = true
	}
	keep[14] = true // return number, number of returns
	set := func(on bool, a, b int) {
		for i := a; i < b; i++ {
			keep[i] = keep[i] || on
		}
	}
	set(sel&Intensity != 0, 12, 14)
	set(sel&Classification != 0, 15, 17)
	set(sel&UserData != 0, 17, 18)
	set(sel&ScanAngle != 0, 18, 20)
	set(sel&PointSource != 0, 20, 22)
	set(sel&GPSTime != 0, 22, 30)
	if lay.rgb >= 0 {
		set(sel&RGB != 0, lay.rgb, lay.rgb+6)
		if lay.nir {
			set(sel&NIR != 0, lay.rgb+6, lay.rgb+8)
		}
	}
	if lay.wave >= 0 {
		set(sel&WavePacket != 0, lay.wave, lay.wave+29)
	}
	if lay.bytes >= 0 {
		set(sel&ExtraBytes != 0, lay.bytes, lay.bytes+lay.nbytes)
	}
	return keep
}

func TestSelection(t *testing.T) {
	sels := []Fields{XYZ, Classification, Intensity, ScanAngle, UserData, PointSource, GPSTime, RGB, NIR, WavePacket, ExtraBytes,
		Classification | GPSTime, RGB | NIR | Intensity, AllFields &^ WavePacket}
	for _, name := range []string{"1_4_w_evlr.laz", "fullwave.laz", "simple.copc.laz"} {
		f, r := openLAZ(t, name)
		all := decodeAllBytes(t, r, f, AllFields, 2)
		for _, sel := range sels {
			t.Run(fmt.Sprintf("%s/%#x", name, uint32(sel)), func(t *testing.T) {
				got := decodeAllBytes(t, r, f, sel, 2)
				keep := fieldMask(sel, f.recLen, r.lay)
				for i := range got {
					j := i % f.recLen
					want := all[i]
					if j == 15 && !keep[15] {
						want &= 0x30 // the scanner channel is always decoded
					} else if !keep[j] {
						want = 0
					}
					if got[i] != want {
						t.Fatalf("point %d byte %d: got %d want %d", i/f.recLen, j, got[i], want)
					}
				}
			})
		}
	}
	// Point10 files decode every field whatever the selection.
	f, r := openLAZ(t, "simple.laz")
	if !bytes.Equal(decodeAllBytes(t, r, f, XYZ, 1), decodeAllBytes(t, r, f, AllFields, 1)) {
		t.Fatal("point10: selection changed the output")
	}
}
