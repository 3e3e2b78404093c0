package interp

import "testing"

// FuzzParseAlgorithm feeds mutated -a strings to the parser: it never panics, and what it
// accepts prints (Canonical) as a string that parses to the same algorithm, every key and
// value included.
func FuzzParseAlgorithm(f *testing.F) {
	for _, d := range Registry {
		f.Add(d.Name)
	}
	for _, s := range []string{
		"aidw:k=8:alphas=1,2,3,4,5:rmin=0.1:rmax=1.5:max_points=12:radius=50:min_points=3:nodata=-9999",
		"invdist:power=3:smoothing=1:radius1=10:radius2=5:angle=30:max_points=20:min_points=2",
		"invdistnn:power=2:radius=5:max_points=12:min_points_per_quadrant=1:max_points_per_quadrant=4",
		"nearest:radius1=1:radius2=2:angle=45:nodata=0",
		"average:radius1=5:radius2=5:min_points=1", "count:radius1=3", "linear:radius=-1:nodata=5",
		"aidw:diagnostics=yes", "AIDW:K=3", "invdist:power=2:power=3:foo=1", "aidw:", "aidw:k",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		alg, _, err := ParseAlgorithm(s)
		if err != nil {
			return
		}
		c := Canonical(alg)
		again, _, err := ParseAlgorithm(c)
		if err != nil {
			t.Fatalf("%q parses, but its canonical form %q does not: %v", s, c, err)
		}
		if c2 := Canonical(again); c2 != c {
			t.Fatalf("%q: canonical %q parses back as %q", s, c, c2)
		}
	})
}
