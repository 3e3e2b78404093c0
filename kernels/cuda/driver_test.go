//go:build cuda

package cuda

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A cuda build on a host where the driver shows no GPU starts, and counting the devices says
// why there are none, so that -device auto can fall back to the CPU engine. The test runs
// itself again with every device hidden, as the driver's start happens once a process.
func TestDeviceCountWithoutGPU(t *testing.T) {
	if os.Getenv("AIDW_DRIVER_CHILD") == "1" {
		n, err := DeviceCount()
		os.Stdout.WriteString("count " + strings.Repeat("x", n) + "\nerror " + errText(err) + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDeviceCountWithoutGPU$")
	cmd.Env = append(os.Environ(), "AIDW_DRIVER_CHILD=1", "CUDA_VISIBLE_DEVICES=-1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test binary did not run with no GPU visible: %v\n%s", err, out)
	}
	want := "error the CUDA driver found no GPU: CUDA_ERROR_NO_DEVICE"
	if !strings.Contains(string(out), "count \n") || !strings.Contains(string(out), want) {
		t.Fatalf("with no GPU visible, DeviceCount gave\n%s\nwant no devices and %q", out, want)
	}
}

func errText(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

// putPTX holds one kernel, put(out, i, d), which writes its 8-byte parameters i and d to
// out[0] and out[1]: a launch must pass each argument as 8 bytes, in order.
const putPTX = `.version 7.0
.target sm_52
.address_size 64

.visible .entry put(.param .u64 out, .param .u64 i, .param .f64 d)
{
	.reg .b64 %rd<4>;
	.reg .f64 %fd<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [i];
	ld.param.f64 %fd1, [d];
	cvta.to.global.u64 %rd3, %rd1;
	st.global.u64 [%rd3], %rd2;
	st.global.f64 [%rd3+8], %fd1;
	ret;
}
`

func openPut(t *testing.T) *Device {
	t.Helper()
	d, err := Open(0, putPTX, "the test's PTX")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkPut launches put on d and checks what it wrote.
func checkPut(t *testing.T, d *Device, i int, v float64) {
	t.Helper()
	var got [2]uint64
	err := d.Do(func() error {
		b, err := AllocN[uint64](2)
		if err != nil {
			return err
		}
		defer b.Free()
		if err := d.Launch("put", Shape{GX: 1, GY: 1, Threads: 1}, Ptr(b), Int(i), F64(v)); err != nil {
			return err
		}
		if err := Synchronize("running put"); err != nil {
			return err
		}
		return Download(got[:], b, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if int(int64(got[0])) != i || math.Float64frombits(got[1]) != v {
		t.Fatalf("put(%d, %v) wrote %d and %v", i, v, int64(got[0]), math.Float64frombits(got[1]))
	}
}

// Devices of one GPU share its primary context: closing one leaves the others working, and a
// device opened after the last one closed gets the context afresh.
func TestDevicesShareThePrimaryContext(t *testing.T) {
	a, b := openPut(t), openPut(t)
	checkPut(t, b, -7, 2.5)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkPut(t, a, 1<<40+3, -1e-300)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c := openPut(t)
	defer c.Close()
	checkPut(t, c, math.MinInt64, math.Inf(1))
}

// A module the driver refuses gives its error by name, and leaves no hold on the context
// behind: the device opens with a good module afterwards.
func TestOpenRefusesABadModule(t *testing.T) {
	d, err := Open(0, "not a module", "junk")
	if err == nil {
		d.Close()
		t.Fatal("opened a device with a module of junk")
	}
	if !strings.Contains(err.Error(), "loading junk") || !strings.Contains(err.Error(), "CUDA_ERROR_") {
		t.Fatalf("the error %q does not name the module and the driver's error", err)
	}
	c := openPut(t)
	defer c.Close()
	checkPut(t, c, 42, 0.5)
}

// Staged copies (pinned buffers, a stream of their own, events between the pieces) carry more
// than a piece each way unchanged.
func TestStagedCopiesRoundTrip(t *testing.T) {
	d := openPut(t)
	defer d.Close()
	src := make([]uint64, StagePiece/8*5/2+3) // two and a half pieces, and a few more
	for i := range src {
		src[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	got := make([]uint64, len(src)-1)
	err := d.Do(func() error {
		b, err := UploadStagedNew(d, src)
		if err != nil {
			return err
		}
		defer b.Free()
		return DownloadStaged(d, got, b, 1)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != src[i+1] {
			t.Fatalf("element %d came back as %#x, went as %#x", i+1, got[i], src[i+1])
		}
	}
}
