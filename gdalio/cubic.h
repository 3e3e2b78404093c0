// aidw_cubic_chunk makes the CUBIC overview pixels of one chunk exactly as GDAL 3.6's
// GDALResampleChunk32R_ConvolutionT<float> does for its overviews (gcore/overview.cpp), so that
// chunks can be resampled on every core and the overviews still match those of GDAL's COG
// driver bit for bit. GDAL does not export that function.
#ifndef AIDW_CUBIC_H
#define AIDW_CUBIC_H

#include <gdal.h>

// The chunk holds source rows chunk_y0.. (chunk_h of them) and columns chunk_x0.. (chunk_w), as
// Float32 (GDAL's working type for CUBIC on any source but Byte and UInt16), and, when mask is
// not NULL, their validity (0: nodata). Destination pixels [dst_x0, dst_x1) x [dst_y0, dst_y1)
// are written row-major into dst as dst_type, each at its whole-raster position
// ((i + 0.5) * ratio in the source), as GDAL writes them. Returns 0, or -1 when out of memory.
int aidw_cubic_chunk(double x_ratio, double y_ratio, const float *chunk, const unsigned char *mask,
		int chunk_x0, int chunk_w, int chunk_y0, int chunk_h,
		int dst_x0, int dst_x1, int dst_y0, int dst_y1,
		GDALDataType dst_type, int has_nodata, float nodata, void *dst);

#endif
