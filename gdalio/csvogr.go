package gdalio

import (
	"path/filepath"
	"strings"
)

// csvOpenOptions completes the open options of a delimited-text file that goes through OGR's
// CSV driver (because of -where, -sql or -oo), so that OGR finds the columns the native reader
// finds: x, y and z by name, case-insensitive (field_1..3 when the file has no header), and
// numbers as numbers (AUTODETECT_TYPE), not strings. Options the user gave stay as given.
func csvOpenOptions(path string, oo []string) []string {
	if !textExtensions[strings.ToLower(filepath.Ext(path))] {
		return oo
	}
	out := append([]string(nil), oo...)
	for _, kv := range [][2]string{
		{"X_POSSIBLE_NAMES", "x,field_1"},
		{"Y_POSSIBLE_NAMES", "y,field_2"},
		{"Z_POSSIBLE_NAMES", "z,field_3"},
		{"AUTODETECT_TYPE", "YES"},
	} {
		if !hasOption(oo, kv[0]) {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}
