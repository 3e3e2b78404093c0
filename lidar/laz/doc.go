// Package laz decodes LAZ (LASzip-compressed LAS) point data and reads the
// COPC octree hierarchy, in pure Go, without cgo or a LAS reader: the caller
// parses the LAS header and VLRs and hands over the LASzip VLR, the point
// offset, count and record length, and an io.ReaderAt.
//
// LASzip codes each point as a prediction from the previous points plus a
// correction, entropy-coded by an adaptive arithmetic coder whose models
// learn as they go. Because the models depend on everything decoded before,
// the points are cut into chunks (50,000 points by default, or sized per
// chunk as in COPC) that restart the models: chunks are the unit of random
// access and of parallel decoding, and the chunk table at the end of the
// point data says where each one starts.
//
// Point formats 0-5 (compressors 1 and 2) code all fields of a point in one
// stream, so every field must be decoded to reach the next point. Point
// formats 6-10 (compressor 3, "layered") give every group of fields its own
// stream within the chunk (X/Y with the returns, Z, classification, flags,
// intensity, scan angle, user data, point source, GPS time, RGB, NIR, wave
// packet, each extra byte), with the byte size of each up front: a reader
// that needs only coordinates and classes skips the other streams unread,
// which is what Fields selects. Models are also kept per scanner channel.
//
// A valid stream is always consumed exactly, so a decoder that runs past
// its bytes, stops short of them, or reaches a state no encoder produces
// signals corruption; errors name the chunk. LAZ carries no checksums, so a
// damaged byte near the end of a short stream can still go unnoticed.
package laz
