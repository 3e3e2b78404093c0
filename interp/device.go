package interp

import (
	"fmt"
)

// ExactHitD2 is gdal_grid's squared distance (smoothing included, for invdist) under which a
// node takes a sample's value as is: the one definition that the CPU engine and a device's
// kernels (HIT_D2 of kernels/knn.cuh, checked by a test) share.
const ExactHitD2 = exactHitD2

// DeviceForm is the neighbourhood a device weighs at each node.
type DeviceForm int

const (
	DeviceGlobal  DeviceForm = iota // every sample
	DeviceNearest                   // the MaxPoints nearest, within Radius if any
	DeviceRadius                    // every sample within Radius
	// gdal_grid's forms (device_forms.go), whose Search says the rest
	DeviceNearestSample // the value of the nearest sample in the search area
	DeviceWindow        // a moving-window statistic over the search ellipse
	DeviceInvDistNN     // fixed-power weights over the MaxPoints nearest within Radius
	DeviceEllipse       // fixed-power weights over the search ellipse
)

// deviceFormNames name the forms in messages.
var deviceFormNames = map[DeviceForm]string{
	DeviceGlobal: "global", DeviceNearest: "nearest", DeviceRadius: "radius",
	DeviceNearestSample: "nearest sample", DeviceWindow: "window", DeviceInvDistNN: "invdistnn",
	DeviceEllipse: "ellipse",
}

func (f DeviceForm) String() string {
	if name, ok := deviceFormNames[f]; ok {
		return name
	}
	return fmt.Sprintf("DeviceForm(%d)", int(f))
}

// DeviceParams describes an inverse-distance weighting for a device engine (the GPU engine of
// the cuda build): all that such an engine knows of the algorithm. A node's value is the mean
// of the samples of its neighbourhood (Form) weighted by 1/(d^2 + Smooth2)^(p/2), where p is
// Power or, when Adaptive, AIDW's power from the mean distance to the K nearest samples; a
// sample with d^2 + Smooth2 < ExactHit gives its value instead (the first in input order).
type DeviceParams struct {
	Form      DeviceForm
	MaxPoints int     // DeviceNearest: the most samples weighed (not clamped to the samples)
	Radius    float64 // DeviceNearest, DeviceRadius: the search radius; 0 is unbounded
	MinPoints int     // fewer samples to weigh give NoData; 0: no bound
	NoData    float64
	ExactHit  float64 // squared distance of an exact hit; negative: no exact hits
	Smooth2   float64 // added to every squared distance
	Power     float64 // the fixed power (not Adaptive)

	// AIDW's adaptive power (Adaptive): R = r_obs/r_exp, r_obs the mean distance to the K
	// nearest samples, r_exp = ExpectedDistance(n, Area); mu from R between RMin and RMax
	// (MuFromR), the power from mu through Alphas (AlphaFromMu).
	Adaptive   bool
	K          int // clamped to the number of samples when a problem is given
	RMin, RMax float64
	Alphas     [5]float64
	Area       float64 // the study area, by the algorithm's rule; 0 without a problem
	RExp       float64 // r_exp; 0 without a problem

	// FarField lets the global form sum distant samples by a far-field expansion (the
	// algorithm's farfield key); the engine decides whether it pays.
	FarField bool

	// Search is the search area and statistic of gdal_grid's forms (device_forms.go).
	Search DeviceSearch
}

// MaxPower is the largest power the weighting uses.
func (d DeviceParams) MaxPower() float64 {
	if !d.Adaptive {
		return d.Power
	}
	m := d.Alphas[0]
	for _, v := range d.Alphas[1:] {
		m = max(m, v)
	}
	return m
}

// Bounds is a bounding box in absolute coordinates, as sample.Samples.Bounds gives it.
type Bounds struct{ MinX, MinY, MaxX, MaxY float64 }

// SampleBounds is the bounding box of p's samples.
func SampleBounds(p *Problem) Bounds {
	minX, minY, maxX, maxY := p.Samples.Bounds()
	return Bounds{minX, minY, maxX, maxY}
}

// DeviceAlgorithm is an algorithm that a device engine can run from its DeviceParams alone.
type DeviceAlgorithm interface {
	Algorithm
	// DeviceParams describes the algorithm on problem p, whose samples' bounding box is b (a
	// device engine passes the box it found on the device; SampleBounds finds it on the host).
	// With p nil it describes what does not depend on a problem (Area, RExp stay 0, K is not
	// clamped, the options are not validated), to tell whether a device can run these options
	// at all. ok false says that it cannot, or that the options are invalid for p, and why.
	DeviceParams(p *Problem, b Bounds) (d DeviceParams, ok bool, why string)
}

// reasoner is an engine that says why it does not run an algorithm.
type reasoner interface {
	WhyNot(a Algorithm) string
}

// holder is an engine whose own memory bounds the samples of a problem (a GPU's).
type holder interface {
	WhyNotHold(a Algorithm, n int) string
}

// WhyNotHold says why e cannot hold a problem of n samples for a in its memory, or "" when it
// can or does not say: a GPU engine keeps every sample on its device.
func WhyNotHold(e Engine, a Algorithm, n int) string {
	if h, ok := e.(holder); ok {
		return h.WhyNotHold(a, n)
	}
	return ""
}

// WhyNot says why e does not run a, or "" when it does (Engine.Supports). Engines that give
// no reason of their own get a generic one.
func WhyNot(e Engine, a Algorithm) string {
	if e.Supports(a) {
		return ""
	}
	if r, ok := e.(reasoner); ok {
		if why := r.WhyNot(a); why != "" {
			return why
		}
	}
	return fmt.Sprintf("%s does not run %s with these options", e.Name(), a.Name())
}
