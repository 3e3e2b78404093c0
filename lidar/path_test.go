package lidar

import "testing"

// TestIsLAS: the extension decides, in any case; a gzipped file is LAS only through GDAL's
// virtual file systems, which decompress it.
func TestIsLAS(t *testing.T) {
	for path, want := range map[string]bool{
		"a.las": true, "a.LAZ": true, "dir/a.Las": true, "a.copc.laz": true,
		"/vsigzip/a.las.gz": true, "/vsizip/t.zip/a.laz": true,
		"a.las.gz": false, "a.csv": false, "las": false, "a.lasx": false, "/vsigzip/a.csv.gz": false,
	} {
		if got := IsLAS(path); got != want {
			t.Errorf("IsLAS(%q) = %v, want %v", path, got, want)
		}
	}
}
