package gdalio

import (
	"fmt"
	"strings"

	"github.com/aidw/aidw/internal/quote"
)

// CheckSRS checks a CRS given on the command line (flag names it: -a_srs), before any work,
// with a message that says what is wrong rather than OGR's error number.
func CheckSRS(flag, def string) error {
	if def == "" {
		return nil
	}
	register()
	if _, err := srsWKT(def); err != nil {
		why := "give EPSG:<code>, WKT, a PROJ string or a file holding one"
		if msg := err.Error(); !strings.Contains(msg, "unknown ogr error") {
			if _, after, ok := strings.Cut(msg, ": "); ok {
				why = after
			}
		}
		return fmt.Errorf("%s %s: not a valid CRS (%s)", flag, quote.Printable(def), why)
	}
	return nil
}
