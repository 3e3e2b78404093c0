package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLog2PosAccuracy checks Log2Pos against math.Log2, beyond rounding to the result's ulp, over the whole normal range, densely
// around 1 (where log2 is near 0) and across every table interval.
func TestLog2PosAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	check := func(x float64) {
		// Beyond the approximation's own error, both results are rounded to their ulp.
		want := math.Log2(x)
		if err := math.Abs(Log2Pos(x)-want) - 0x1p-52*math.Abs(want); err > worst {
			worst = err
		}
	}
	for range 1_000_000 {
		check(math.Exp2(rng.Float64()*2040 - 1020))
		check(1 + (rng.Float64()-0.5)*1e-3)
		check(1e-13 + rng.Float64()*1e13)
	}
	for j := range 1<<log2TableBits + 1 {
		edge := 1 + float64(j)/(1<<log2TableBits)
		check(edge)
		check(math.Nextafter(edge, 0))
	}
	if worst > 1e-15 {
		t.Errorf("Log2Pos: worst absolute error %.3g, want <= 1e-15", worst)
	}
	t.Logf("Log2Pos worst absolute error %.3g", worst)
}

// TestExp2Accuracy checks exp2 against math.Exp2 over its whole domain.
func TestExp2Accuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	check := func(x float64) {
		want := math.Exp2(x)
		if err := math.Abs(Exp2(x)-want) / want; err > worst {
			worst = err
		}
	}
	for range 1_000_000 {
		check(rng.Float64()*2000 - 1000)
		check((rng.Float64() - 0.5) * 1e-2)
	}
	for j := -1000 * (1 << exp2TableBits); j <= 1000*(1<<exp2TableBits); j += 37 {
		c := float64(j) / (1 << exp2TableBits)
		check(c)
		check(c + 0.5/(1<<exp2TableBits))
		check(math.Nextafter(c+0.5/(1<<exp2TableBits), 0))
	}
	if worst > 2e-15 {
		t.Errorf("exp2: worst relative error %.3g, want <= 2e-15", worst)
	}
	t.Logf("exp2 worst relative error %.3g", worst)
}

// TestWeightAccuracy checks the weight as AIDW computes it, relative to the nearest sample's,
// against math.Pow over the distances and powers AIDW meets.
func TestWeightAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0.0
	for range 1_000_000 {
		alpha := rng.Float64() * 6
		d2min := math.Exp2(rng.Float64()*80 - 43) // 1e-13 .. 1e11
		d2 := d2min * math.Exp2(rng.Float64()*60)
		c := -alpha / 2
		got := Exp2(c*Log2Pos(d2) - c*Log2Pos(d2min))
		want := math.Pow(math.Sqrt(d2), -alpha) / math.Pow(math.Sqrt(d2min), -alpha)
		if want < 1e-290 {
			continue
		}
		if err := math.Abs(got-want) / want; err > worst {
			worst = err
		}
	}
	if worst > 1e-13 {
		t.Errorf("weights: worst relative error %.3g vs math.Pow, want <= 1e-13", worst)
	}
	t.Logf("weight worst relative error %.3g", worst)
}
