#include "ogr_read.h"

#include <stdlib.h>
#include <string.h>

enum { max_warnings_len = 4096 };

static void CPL_STDCALL aidw_handler(CPLErr level, CPLErrorNum num, const char *msg) {
	(void)num;
	aidw_err *e = (aidw_err *)CPLGetErrorHandlerUserData();
	if (level >= CE_Failure) {
		if (e->failure == NULL) {
			e->failure = CPLStrdup(msg);
		}
		return;
	}
	if (level != CE_Warning) {
		return;
	}
	size_t have = e->warnings ? strlen(e->warnings) : 0;
	size_t add = strlen(msg);
	if (have + add + 2 > max_warnings_len) {
		return;
	}
	e->warnings = (char *)CPLRealloc(e->warnings, have + add + 2);
	if (have > 0) {
		e->warnings[have++] = '\n';
	}
	memcpy(e->warnings + have, msg, add + 1);
}

// Every helper brackets its GDAL calls with begin/end: the handler stack is per thread and a
// cgo call stays on one thread, so the capture cannot leak into other goroutines' calls.
static void begin(aidw_err *e) {
	CPLErrorReset();
	CPLPushErrorHandlerEx(aidw_handler, e);
}

static void end(void) { CPLPopErrorHandler(); }

void aidw_err_free(aidw_err *e) {
	CPLFree(e->failure);
	CPLFree(e->warnings);
	e->failure = NULL;
	e->warnings = NULL;
}

void aidw_set_config(const char *key, const char *value) { CPLSetConfigOption(key, value); }

GDALDatasetH aidw_open_vector(const char *path, char **open_options, aidw_err *e) {
	begin(e);
	GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, NULL,
	                             (const char *const *)open_options, NULL);
	end();
	return ds;
}

void aidw_close(GDALDatasetH ds, aidw_err *e) {
	begin(e);
	GDALClose(ds);
	end();
}

static OGRGeometryH rect_polygon(const double *r) {
	OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing);
	OGR_G_AddPoint_2D(ring, r[0], r[1]);
	OGR_G_AddPoint_2D(ring, r[0], r[3]);
	OGR_G_AddPoint_2D(ring, r[2], r[3]);
	OGR_G_AddPoint_2D(ring, r[2], r[1]);
	OGR_G_AddPoint_2D(ring, r[0], r[1]);
	OGRGeometryH poly = OGR_G_CreateGeometry(wkbPolygon);
	OGR_G_AddGeometryDirectly(poly, ring);
	return poly;
}

OGRLayerH aidw_exec_sql(GDALDatasetH ds, const char *sql, const double *rect, aidw_err *e) {
	begin(e);
	OGRGeometryH filter = rect ? rect_polygon(rect) : NULL;
	OGRLayerH layer = GDALDatasetExecuteSQL(ds, sql, filter, NULL);
	if (filter) {
		OGR_G_DestroyGeometry(filter);
	}
	end();
	return layer;
}

void aidw_release_sql(GDALDatasetH ds, OGRLayerH layer, aidw_err *e) {
	begin(e);
	GDALDatasetReleaseResultSet(ds, layer);
	end();
}

int aidw_set_where(OGRLayerH layer, const char *where, aidw_err *e) {
	begin(e);
	OGRErr err = OGR_L_SetAttributeFilter(layer, where);
	end();
	if (err != OGRERR_NONE && e->failure == NULL) {
		e->failure = CPLStrdup("invalid attribute filter");
	}
	return err == OGRERR_NONE;
}

int aidw_layer_extent(OGRLayerH layer, double *env, aidw_err *e) {
	OGREnvelope s;
	begin(e);
	OGRErr err = OGR_L_GetExtent(layer, &s, TRUE);
	end();
	if (err != OGRERR_NONE) {
		return 0;
	}
	env[0] = s.MinX;
	env[1] = s.MinY;
	env[2] = s.MaxX;
	env[3] = s.MaxY;
	return 1;
}

char *aidw_layer_srs(OGRLayerH layer) {
	OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(layer);
	char *wkt = NULL;
	if (srs == NULL || OSRExportToWkt(srs, &wkt) != OGRERR_NONE) {
		CPLFree(wkt);
		return NULL;
	}
	return wkt;
}

static void reserve(aidw_points *p, long long more) {
	if (p->n + more <= p->cap) {
		return;
	}
	long long cap = p->cap ? p->cap : 4096;
	while (cap < p->n + more) {
		cap *= 2;
	}
	p->x = (double *)CPLRealloc(p->x, (size_t)cap * sizeof(double));
	p->y = (double *)CPLRealloc(p->y, (size_t)cap * sizeof(double));
	p->z = (double *)CPLRealloc(p->z, (size_t)cap * sizeof(double));
	p->cap = cap;
}

// add_vertices follows gdal_grid 3.6's ProcessCommonGeometry: points, the vertices of line
// strings and of every polygon ring (closing vertex included), and the members of multi
// geometries and collections; curves, surfaces and TINs contribute nothing.
static void add_vertices(aidw_points *p, OGRGeometryH g, int use_field, double field_z) {
	switch (wkbFlatten(OGR_G_GetGeometryType(g))) {
	case wkbPoint:
	case wkbLineString:
	case wkbLinearRing: {
		int n = OGR_G_GetPointCount(g);
		if (n <= 0) {
			return;
		}
		reserve(p, n);
		double *x = p->x + p->n, *y = p->y + p->n, *z = p->z + p->n;
		OGR_G_GetPoints(g, x, sizeof(double), y, sizeof(double), z, sizeof(double));
		if (use_field) {
			for (int i = 0; i < n; i++) {
				z[i] = field_z;
			}
		}
		p->n += n;
		return;
	}
	case wkbPolygon:
	case wkbMultiPoint:
	case wkbMultiLineString:
	case wkbMultiPolygon:
	case wkbGeometryCollection: {
		int n = OGR_G_GetGeometryCount(g);
		for (int i = 0; i < n; i++) {
			add_vertices(p, OGR_G_GetGeometryRef(g, i), use_field, field_z);
		}
		return;
	}
	default:
		return;
	}
}

// field_value reads the z field of a feature: 1 = value, 0 = null or empty (skip), -1 = a
// string that is not a number.
static int field_value(aidw_points *p, OGRFeatureH f, double *v) {
	if (!OGR_F_IsFieldSetAndNotNull(f, p->zfield)) {
		return 0;
	}
	if (!p->zfield_is_string) {
		*v = OGR_F_GetFieldAsDouble(f, p->zfield);
		return 1;
	}
	const char *s = OGR_F_GetFieldAsString(f, p->zfield);
	while (*s == ' ' || *s == '\t') {
		s++;
	}
	if (*s == '\0') {
		return 0;
	}
	char *endp = NULL;
	*v = CPLStrtod(s, &endp);
	while (*endp == ' ' || *endp == '\t') {
		endp++;
	}
	if (endp == s || *endp != '\0') {
		p->bad_fid = OGR_F_GetFID(f);
		p->bad_value = CPLStrdup(s);
		return -1;
	}
	return 1;
}

int aidw_read_points(aidw_points *p, long long min_points, aidw_err *e) {
	int status = 0;
	p->n = 0;
	begin(e);
	for (;;) {
		OGRFeatureH f = OGR_L_GetNextFeature(p->layer);
		if (f == NULL) {
			status = e->failure ? -1 : 0;
			break;
		}
		p->features++;
		OGRGeometryH g = OGR_F_GetGeometryRef(f);
		double fz = 0;
		int have = 1;
		if (g == NULL) {
			p->no_geometry++;
			have = 0;
		} else if (p->zfield >= 0) {
			have = field_value(p, f, &fz);
			if (have == 0) {
				p->null_field++;
			}
		}
		if (have == 1) {
			add_vertices(p, g, p->zfield >= 0, fz);
		}
		OGR_F_Destroy(f);
		if (have < 0 || e->failure) {
			status = -1;
			break;
		}
		if (p->n >= min_points) {
			status = 1;
			break;
		}
	}
	end();
	return status;
}

void aidw_points_free(aidw_points *p) {
	CPLFree(p->x);
	CPLFree(p->y);
	CPLFree(p->z);
	CPLFree(p->bad_value);
	p->x = p->y = p->z = NULL;
	p->bad_value = NULL;
	p->n = p->cap = 0;
}

unsigned char *aidw_next_wkb(OGRLayerH layer, int *len, aidw_err *e) {
	*len = 0;
	begin(e);
	OGRFeatureH f = OGR_L_GetNextFeature(layer);
	unsigned char *buf = NULL;
	if (f != NULL) {
		OGRGeometryH g = OGR_F_GetGeometryRef(f);
		buf = (unsigned char *)CPLMalloc(1);
		if (g != NULL) {
			int size = OGR_G_WkbSize(g);
			buf = (unsigned char *)CPLRealloc(buf, size > 0 ? size : 1);
			if (OGR_G_ExportToIsoWkb(g, wkbNDR, buf) == OGRERR_NONE) {
				*len = size;
			}
		}
		OGR_F_Destroy(f);
	}
	end();
	return buf;
}

unsigned char *aidw_wkt_to_wkb(const char *wkt, int *len, aidw_err *e) {
	*len = 0;
	begin(e);
	OGRGeometryH g = NULL;
	char *text = (char *)wkt;
	OGRErr err = OGR_G_CreateFromWkt(&text, NULL, &g);
	unsigned char *buf = NULL;
	if (err == OGRERR_NONE && g != NULL) {
		int size = OGR_G_WkbSize(g);
		buf = (unsigned char *)CPLMalloc(size > 0 ? size : 1);
		if (OGR_G_ExportToIsoWkb(g, wkbNDR, buf) == OGRERR_NONE) {
			*len = size;
		}
	}
	if (g != NULL) {
		OGR_G_DestroyGeometry(g);
	}
	end();
	return buf;
}

static OGRSpatialReferenceH user_srs(const char *def) {
	OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
	if (OSRSetFromUserInput(srs, def) != OGRERR_NONE) {
		OSRDestroySpatialReference(srs);
		return NULL;
	}
	OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
	return srs;
}

OGRCoordinateTransformationH aidw_new_transform(const char *from, const char *to, int *same, aidw_err *e) {
	*same = 0;
	begin(e);
	OGRCoordinateTransformationH ct = NULL;
	OGRSpatialReferenceH a = user_srs(from), b = user_srs(to);
	if (a == NULL || b == NULL) {
		if (e->failure == NULL) {
			e->failure = CPLStrdup(a == NULL ? "invalid source CRS" : "invalid target CRS");
		}
	} else if (OSRIsSame(a, b)) {
		*same = 1;
	} else {
		ct = OCTNewCoordinateTransformation(a, b);
	}
	if (a) {
		OSRDestroySpatialReference(a);
	}
	if (b) {
		OSRDestroySpatialReference(b);
	}
	end();
	return ct;
}

void aidw_transform(OGRCoordinateTransformationH ct, int n, double *x, double *y, int *ok, aidw_err *e) {
	begin(e);
	// a point that fails is reported by ok[]; the errors GDAL raises for it are not failures
	OCTTransformEx(ct, n, x, y, NULL, ok);
	end();
	aidw_err_free(e);
}

// aidw_cancel_progress stops GDAL's work as soon as *arg is set.
static int CPL_STDCALL aidw_cancel_progress(double done, const char *msg, void *arg) {
	(void)done;
	(void)msg;
	return *(volatile int *)arg == 0;
}

int aidw_translate(const char *src, const char *dst, char **argv, volatile int *cancel, aidw_err *e) {
	begin(e);
	int rc = 1;
	GDALDatasetH in = GDALOpenEx(src, GDAL_OF_RASTER | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
	if (in != NULL) {
		GDALTranslateOptions *opt = GDALTranslateOptionsNew(argv, NULL);
		if (opt != NULL) {
			GDALTranslateOptionsSetProgress(opt, aidw_cancel_progress, (void *)cancel);
			GDALDatasetH out = GDALTranslate(dst, in, opt, NULL);
			GDALTranslateOptionsFree(opt);
			if (out != NULL) {
				GDALClose(out);
				rc = CPLGetLastErrorType() >= CE_Failure || *cancel;
			}
		}
		GDALClose(in);
	}
	if (rc && e->failure == NULL) {
		e->failure = CPLStrdup(*cancel ? "interrupted" : "unknown GDAL failure");
	}
	end();
	return rc;
}
