// Package gdalbool reads a boolean word as GDAL does (CPLTestBool): the algorithms' yes/no
// options and the creation options aidw follows itself take the same words.
package gdalbool

import "strings"

// Parse is v's value, and whether v is one of the words: yes, true, on, 1 or no, false, off, 0,
// in any case.
func Parse(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "yes", "true", "on", "1":
		return true, true
	case "no", "false", "off", "0":
		return false, true
	}
	return false, false
}
