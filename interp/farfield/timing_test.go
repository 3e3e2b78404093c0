package farfield

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestTiming(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FF_N"))
	if n == 0 {
		t.Skip("FF_N")
	}
	leaf, _ := strconv.Atoi(os.Getenv("FF_LEAF"))
	r := rand.New(rand.NewPCG(3, 4))
	sx, sy := uniform(r, n, 0, 0, 1)
	sz := values(r, sx, sy)
	tx, ty := uniform(r, n, 0, 0, 1)
	al := alphas(r, n, 1.5, 3.5)
	t0 := time.Now()
	pl, _ := NewPlan(sx, sy, sz, Options{LeafSize: leaf})
	t1 := time.Now()
	num, den := make([]float64, n), make([]float64, n)
	if err := pl.Sums(context.Background(), tx, ty, al, num, den, nil); err != nil {
		t.Fatal(err)
	}
	p, q := pl.Order()
	t.Logf("n %d depth %d p %d q %d plan %v sums %v", n, pl.depth(n, n, 1), p, q, t1.Sub(t0), time.Since(t1))
}
