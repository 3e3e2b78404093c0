package paperbench

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Env describes where and when a run happened.
type Env struct {
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	Command string `json:"command"`
	CPU     string `json:"cpu"`
	Cores   int    `json:"cores"`
	// Threads is GOMAXPROCS: the workers of the CPU engine.
	Threads int      `json:"threads"`
	Go      string   `json:"go"`
	GPU     *GPUInfo `json:"gpu,omitempty"`
	GDAL    string   `json:"gdal,omitempty"`
	// LoadStart and LoadEnd are the 1, 5 and 15 minute load averages: other work on the
	// machine slows the CPU variants.
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end,omitempty"`
}

// CollectEnv describes this machine and checkout now; command is the command line to record.
func CollectEnv(command string) Env {
	return Env{
		Date:      time.Now().UTC().Format(time.RFC3339),
		Commit:    commit(),
		Command:   command,
		CPU:       cpuModel(),
		Cores:     runtime.NumCPU(),
		Threads:   runtime.GOMAXPROCS(0),
		Go:        runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		GDAL:      GDALVersion(),
		LoadStart: LoadAverage(),
	}
}

// commit is `git rev-parse --short HEAD`, "unknown" outside a checkout, marked when tracked
// files have uncommitted changes.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil &&
		len(strings.TrimSpace(string(st))) > 0 {
		c += " (uncommitted changes)"
	}
	return c
}

// cpuModel is the first "model name" of /proc/cpuinfo, else the architecture.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// LoadAverage is the 1, 5 and 15 minute load averages of /proc/loadavg, or "unknown".
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
