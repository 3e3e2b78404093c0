// GDAL 3.6's CUBIC overview resampling of a Float32 chunk (GDALResampleChunk32R_ConvolutionT
// in gcore/overview.cpp, MIT licence), followed operation by operation: the same weights, the
// same order of sums, the same SSE2 column groups (whose lanes are plain IEEE doubles), so that
// every value is the same to the bit. See cubic.h.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cubic.h"

// GWKCubic (alg/gdalwarpkernel.cpp): Catmull-Rom.
static double cubic(double x) {
	double a = fabs(x);
	if (a <= 1.0) {
		double x2 = x * x;
		return x2 * (1.5 * a - 2.5) + 1;
	} else if (a <= 2.0) {
		double x2 = x * x;
		return x2 * (-0.5 * a + 2.5) - 4 * a + 2;
	}
	return 0.0;
}

// GWKCubic4Values: the weights of four taps, in place, and their sum.
static double cubic4(double *v) {
	double out[4];
	for (int k = 0; k < 4; k++) {
		const double a = fabs(v[k]);
		const double x2 = v[k] * v[k];
		double w = 0.0;
		if (a <= 1.0)
			w = x2 * (1.5 * a - 2.5) + 1.0;
		else if (a <= 2.0)
			w = x2 * (-0.5 * a + 2.5) - 4.0 * a + 2.0;
		out[k] = w;
	}
	for (int k = 0; k < 4; k++)
		v[k] = out[k];
	return out[0] + out[1] + out[2] + out[3];
}

// GetReplacementValueIfNoData: what a computed value equal to nodata becomes.
static float replacement(GDALDataType dt, int has_nodata, float nodata) {
	float r = 0.0f;
	if (!has_nodata)
		return r;
	switch (dt) {
	case GDT_Byte:
		return nodata == 255 ? 254.0f : nodata + 1;
	case GDT_UInt16:
		return nodata == 65535 ? 65534.0f : nodata + 1;
	case GDT_Int16:
		return nodata == 32767 ? 32766.0f : nodata + 1;
	case GDT_UInt32:
	case GDT_Int32: {
		r = nodata + 1;
		double v = nodata;
		const double top = dt == GDT_UInt32 ? (double)(UINT32_MAX - 128) : (double)(INT32_MAX - 64);
		if (r >= top) {
			while (r == nodata) {
				v -= 1.0;
				r = (float)v;
			}
		} else {
			while (r == nodata) {
				v += 1.0;
				r = (float)v;
			}
		}
		return r;
	}
	case GDT_Float32:
	case GDT_Float64:
		return nodata == 0 ? FLT_MIN : (float)(nodata + 1e-7 * nodata);
	default:
		return r;
	}
}

typedef struct {
	int has_nodata, integer;
	float min, max, nodata, repl;
	int64_t nodata_int;
} nodata_rule;

// replaceValIfNodata: a value is clamped to the type's range and moved off nodata.
static float off_nodata(const nodata_rule *r, float v) {
	if (!r->has_nodata)
		return v;
	float c = v;
	if (c < r->min)
		c = r->min;
	else if (c > r->max)
		c = r->max;
	if (r->integer) {
		if (r->nodata_int == (int64_t)roundf(c))
			return r->repl;
	} else if (r->nodata == c) {
		return r->repl;
	}
	return c;
}

static nodata_rule make_rule(GDALDataType dt, int has_nodata, float nodata) {
	nodata_rule r = {has_nodata, GDALDataTypeIsInteger(dt), -FLT_MAX, FLT_MAX, nodata,
		replacement(dt, has_nodata, nodata), (int64_t)nodata};
	switch (dt) {
	case GDT_Byte:
		r.min = 0, r.max = 255;
		break;
	case GDT_UInt16:
		r.min = 0, r.max = 65535;
		break;
	case GDT_Int16:
		r.min = -32768, r.max = 32767;
		break;
	case GDT_UInt32:
		r.min = 0, r.max = (float)UINT32_MAX;
		break;
	case GDT_Int32:
		r.min = (float)INT32_MIN, r.max = (float)INT32_MAX;
		break;
	default:
		break;
	}
	return r;
}

// weights fills w with the taps' weights for a tap centre at src, as the horizontal pass does
// (it steps the position by scale_weight tap by tap), and returns their sum.
static double weights_h(double *w, int start, int stop, double src, double sw) {
	double sum = 0.0;
	int n = start;
	double x = sw * (n - src + 0.5);
	for (; n + 3 < stop; n += 4) {
		w[n - start] = x;
		x += sw;
		w[n + 1 - start] = x;
		x += sw;
		w[n + 2 - start] = x;
		x += sw;
		w[n + 3 - start] = x;
		x += sw;
		sum += cubic4(w + n - start);
	}
	for (; n < stop; ++n, x += sw) {
		const double v = cubic(x);
		w[n - start] = v;
		sum += v;
	}
	return sum;
}

// weights_v is weights_h as the vertical pass computes the positions (from the group's first).
static double weights_v(double *w, int start, int stop, double src, double sw) {
	double sum = 0.0;
	int n = start;
	double y = sw * (n - src + 0.5);
	for (; n + 3 < stop; n += 4, y += 4 * sw) {
		w[n - start] = y;
		w[n + 1 - start] = y + sw;
		w[n + 2 - start] = y + 2 * sw;
		w[n + 3 - start] = y + 3 * sw;
		sum += cubic4(w + n - start);
	}
	for (; n < stop; ++n, y += sw) {
		const double v = cubic(y);
		w[n - start] = v;
		sum += v;
	}
	return sum;
}

// GDALResampleConvolutionHorizontal (and _3rows, the same sums per row) for float.
static double conv_h(const float *p, const double *w, int n) {
	double a = 0.0, b = 0.0;
	int i = 0;
	for (; i + 3 < n; i += 4) {
		a += p[i] * w[i];
		a += p[i + 1] * w[i + 1];
		b += p[i + 2] * w[i + 2];
		b += p[i + 3] * w[i + 3];
	}
	for (; i < n; ++i)
		a += p[i] * w[i];
	return a + b;
}

// GDALResampleConvolutionVertical: the scalar sum of a column outside the groups of eight.
static double conv_v(const double *p, int stride, const double *w, int n) {
	double a = 0.0, b = 0.0;
	int i = 0, j = 0;
	for (; i + 3 < n; i += 4, j += 4 * stride) {
		a += p[j] * w[i];
		a += p[j + stride] * w[i + 1];
		b += p[j + 2 * stride] * w[i + 2];
		b += p[j + 3 * stride] * w[i + 3];
	}
	for (; i < n; ++i, j += stride)
		a += p[j] * w[i];
	return a + b;
}

// GDALResampleConvolutionVertical_8cols: one SSE2 lane, a plain running sum.
static float conv_v_lane(const double *p, int stride, const double *w, int n) {
	double acc = 0.0;
	for (int i = 0; i < n; ++i)
		acc += p[(size_t)i * stride] * w[i];
	return (float)acc;
}

// longest run of valid taps, for the negative-lobed kernel's rule (too few: no value)
static int longest_valid(const unsigned char *m, int stride, int n) {
	int run = 0, best = 0;
	for (int k = 0; k < n; k++) {
		if (m[(size_t)k * stride])
			run++;
		else if (run) {
			best = run > best ? run : best;
			run = 0;
		}
	}
	return run > best ? run : best;
}

int aidw_cubic_chunk(double x_ratio, double y_ratio, const float *chunk, const unsigned char *mask,
		int chunk_x0, int chunk_w, int chunk_y0, int chunk_h,
		int dst_x0, int dst_x1, int dst_y0, int dst_y1,
		GDALDataType dst_type, int has_nodata, float nodata, void *dst) {
	const int radius = 2;
	if (!has_nodata)
		nodata = 0.0f;
	const nodata_rule rule = make_rule(dst_type, has_nodata, nodata);
	const int dst_size = GDALGetDataTypeSizeBytes(dst_type);
	const int dst_w = dst_x1 - dst_x0;

	const double x_scale = 1.0 / x_ratio;
	const double x_sw = x_scale >= 1.0 ? 1.0 : x_scale;
	const double x_radius = radius / x_sw;
	const double y_scale = 1.0 / y_ratio;
	const double y_sw = y_scale >= 1.0 ? 1.0 : y_scale;
	const double y_radius = radius / y_sw;

	const int taps = (int)(2 + 2 * (x_radius > y_radius ? x_radius : y_radius) + 0.5);
	float *line = dst_type != GDT_Float32 ? malloc((size_t)dst_w * sizeof(float)) : NULL;
	double *hf = malloc((size_t)chunk_h * dst_w * sizeof(double));
	double *w = malloc((size_t)taps * sizeof(double));
	// each destination column's taps: their weights, first column in the chunk and count
	double *hw = malloc((size_t)dst_w * taps * sizeof(double));
	int *hstart = malloc((size_t)dst_w * sizeof(int)), *hcount = malloc((size_t)dst_w * sizeof(int));
	unsigned char *hmask = mask ? malloc((size_t)chunk_h * dst_w) : NULL;
	if ((dst_type != GDT_Float32 && !line) || !hf || !w || !hw || !hstart || !hcount || (mask && !hmask)) {
		free(line), free(hf), free(w), free(hw), free(hstart), free(hcount), free(hmask);
		return -1;
	}

	// horizontal pass: the weights of every destination column (GDAL computes them column by
	// column too), then the chunk row by row, so that hf and hmask are written in order, each
	// value with GDAL's operations
	const int chunk_right = chunk_x0 + chunk_w;
	for (int d = dst_x0; d < dst_x1; ++d) {
		const double src = (d + 0.5) * x_ratio;
		int start = (int)floor(src - x_radius + 0.5);
		if (start < chunk_x0)
			start = chunk_x0;
		int stop = (int)(src + x_radius + 0.5);
		if (stop > chunk_right)
			stop = chunk_right;
		const int count = stop - start;
		double *wd = hw + (size_t)(d - dst_x0) * taps;
		double sum = weights_h(wd, start, stop, src, x_sw);
		if (!mask && sum != 0) {
			const double inv = 1.0 / sum;
			for (int i = 0; i < count; ++i)
				wd[i] *= inv;
		}
		hstart[d - dst_x0] = start - chunk_x0;
		hcount[d - dst_x0] = count;
	}
	for (int r = 0; r < chunk_h; ++r) {
		const float *row = chunk + (size_t)r * chunk_w;
		double *hrow = hf + (size_t)r * dst_w;
		for (int c = 0; c < dst_w; ++c) {
			const double *wd = hw + (size_t)c * taps;
			const int count = hcount[c];
			const float *p = row + hstart[c];
			if (!mask) {
				hrow[c] = conv_h(p, wd, count);
				continue;
			}
			const unsigned char *m = mask + (size_t)r * chunk_w + hstart[c];
			unsigned char *hm = hmask + (size_t)r * dst_w + c;
			if (longest_valid(m, 1, count) < count / 2) {
				hrow[c] = 0.0, *hm = 0;
				continue;
			}
			double val = 0, wsum = 0;
			int i = 0;
			for (; i + 3 < count; i += 4) {
				const double w0 = wd[i] * m[i], w1 = wd[i + 1] * m[i + 1];
				const double w2 = wd[i + 2] * m[i + 2], w3 = wd[i + 3] * m[i + 3];
				val += p[i] * w0;
				val += p[i + 1] * w1;
				val += p[i + 2] * w2;
				val += p[i + 3] * w3;
				wsum += w0 + w1 + w2 + w3;
			}
			for (; i < count; ++i) {
				const double wi = wd[i] * m[i];
				val += p[i] * wi;
				wsum += wi;
			}
			if (wsum > 0.0)
				hrow[c] = val / wsum, *hm = 1;
			else
				hrow[c] = 0.0, *hm = 0;
		}
	}

	// vertical pass
	const int chunk_bottom = chunk_y0 + chunk_h;
	for (int d = dst_y0; d < dst_y1; ++d) {
		float *out = line ? line : (float *)dst + (size_t)(d - dst_y0) * dst_w;
		const double src = (d + 0.5) * y_ratio;
		int start = (int)floor(src - y_radius + 0.5);
		int stop = (int)(src + y_radius + 0.5);
		if (start < chunk_y0)
			start = chunk_y0;
		if (stop > chunk_bottom)
			stop = chunk_bottom;
		const int count = stop - start;
		double sum = weights_v(w, start, stop, src, y_sw);
		const double *rows = hf + (size_t)(start - chunk_y0) * dst_w;
		if (!mask) {
			if (sum != 0) {
				const double inv = 1.0 / sum;
				for (int i = 0; i < count; ++i)
					w[i] *= inv;
			}
			int c = 0;
			for (; c + 7 < dst_w; c += 8)
				for (int k = 0; k < 8; k++)
					out[c + k] = off_nodata(&rule, conv_v_lane(rows + c + k, dst_w, w, count));
			for (; c < dst_w; c++)
				out[c] = off_nodata(&rule, (float)conv_v(rows + c, dst_w, w, count));
		} else {
			const unsigned char *mrows = hmask + (size_t)(start - chunk_y0) * dst_w;
			for (int c = 0; c < dst_w; ++c) {
				double val = 0.0, wsum = 0.0;
				for (int i = 0; i < count; ++i) {
					const size_t j = (size_t)i * dst_w + c;
					const double wi = w[i] * mrows[j];
					val += rows[j] * wi;
					wsum += wi;
				}
				if (longest_valid(mrows + c, dst_w, count) < count / 2)
					out[c] = nodata;
				else if (wsum > 0.0)
					out[c] = off_nodata(&rule, (float)(val / wsum));
				else
					out[c] = nodata;
			}
		}
		if (line)
			GDALCopyWords(line, GDT_Float32, 4, (char *)dst + (size_t)(d - dst_y0) * dst_w * dst_size,
				dst_type, dst_size, dst_w);
	}
	free(line), free(hf), free(w), free(hw), free(hstart), free(hcount), free(hmask);
	return 0;
}
