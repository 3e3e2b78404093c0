package grid

import ("testing";"math")

func BenchmarkKernCallReject(b *testing.B) {
	x := []int32{1,2,3,4,5,6,7,8}; y := x; ids := []int32{0,1,2,3,4,5,6,7}
	q := knnQuery{qx: 1e6, qy: 1e6, sx: 1, sy: 1, last: 11}
	var l knnLanes
	for i := range l.d2 { l.d2[i], l.id[i] = 1, math.MaxInt32 }
	for range b.N { knnScan32AVX512(&x[0], &y[0], &ids[0], 5, &q, &l) }
}
func BenchmarkKernCallFill(b *testing.B) {
	x := []int32{1,2,3,4,5,6,7,8}; y := x; ids := []int32{0,1,2,3,4,5,6,7}
	q := knnQuery{qx: 0, qy: 0, sx: 1, sy: 1, last: 11}
	var l knnLanes
	for range b.N {
		for i := range l.d2 { l.d2[i], l.id[i] = math.Inf(1), math.MaxInt32 }
		knnScan32AVX512(&x[0], &y[0], &ids[0], 5, &q, &l) }
}
func BenchmarkKernLaneInit(b *testing.B) {
	var l knnLanes
	for range b.N {
		for i := range l.d2 { l.d2[i], l.id[i] = math.Inf(1), math.MaxInt32 }
	}
}
