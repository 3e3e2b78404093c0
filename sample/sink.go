package sample

// Sink takes samples window by window into memory of its own, a GPU's, for a reader that then
// need not hold them all: 1e9 LiDAR points are 16 GB of compact samples that a host under a
// memory budget cannot keep. The windows are the sink's: Next(nil) returns the first, empty, in
// the form and origin the sink was made for, with room for cap(QX) samples; Next(full) takes
// a filled window and returns an empty one for the samples after it, once one is free. The
// samples keep the order in which the windows come. A reader that handed its last window asks
// Flush what holds the samples.
type Sink interface {
	Next(full *Samples) (*Samples, error)
	// Len is how many samples the sink has taken.
	Len() int
	// Close frees what the sink holds that nothing prepared from it took.
	Close() error
}
