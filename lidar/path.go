package lidar

import (
	"path/filepath"
	"strings"
)

// IsLAS says whether path names a LAS-family file (LAS, LAZ, COPC), by its extension in any
// case: the one rule every reader, the census and the command go by. Through GDAL's virtual
// file systems a compressed file (/vsigzip/x.las.gz) is what its inner extension says.
func IsLAS(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".gz" && strings.HasPrefix(path, "/vsi") {
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	}
	return ext == ".las" || ext == ".laz"
}
