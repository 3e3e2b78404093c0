// C helpers for what godal v0.0.18 does not expose: reading OGR layers (attribute filters,
// null fields, field definitions, and a batched vertex loop so that Go pays one cgo call per
// batch of features instead of several per vertex) and a cancellable gdal_translate. They
// share one error capture (aidw_err).
#ifndef AIDW_OGR_READ_H
#define AIDW_OGR_READ_H

#include <gdal.h>
#include <gdal_utils.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_error.h>
#include <cpl_conv.h>

// aidw_err collects what GDAL reports during one helper call: the first failure, and the
// warnings (newline-separated, bounded).
typedef struct {
	char *failure;
	char *warnings;
} aidw_err;

void aidw_err_free(aidw_err *e);

void aidw_set_config(const char *key, const char *value);

GDALDatasetH aidw_open_vector(const char *path, char **open_options, aidw_err *e);
void aidw_close(GDALDatasetH ds, aidw_err *e);
OGRLayerH aidw_exec_sql(GDALDatasetH ds, const char *sql, const double *rect, aidw_err *e);
void aidw_release_sql(GDALDatasetH ds, OGRLayerH layer, aidw_err *e);
int aidw_set_where(OGRLayerH layer, const char *where, aidw_err *e);
int aidw_layer_extent(OGRLayerH layer, double *env, aidw_err *e);
char *aidw_layer_srs(OGRLayerH layer);

// aidw_points reads the vertices of a layer's features in batches. zfield < 0 takes Z from the
// geometry; otherwise from that field (numeric, or a string holding a number).
typedef struct {
	OGRLayerH layer;
	int zfield;
	int zfield_is_string;
	// the batch: n points in x, y, z (capacity cap, grown as a feature needs)
	double *x, *y, *z;
	long long n, cap;
	// counts over the whole layer
	long long features, null_field, no_geometry;
	// a string field value that is not a number: its feature id and text (owned)
	long long bad_fid;
	char *bad_value;
} aidw_points;

// aidw_read_points fills the batch with at least min_points points or up to the end of the
// layer: returns 1 when a batch is ready, 0 at the end (batch possibly non-empty), -1 on error.
int aidw_read_points(aidw_points *p, long long min_points, aidw_err *e);
void aidw_points_free(aidw_points *p);

// aidw_next_wkb returns the ISO WKB of the next feature's geometry (CPLFree it), or NULL at the
// end of the layer; *len is 0 for a feature without geometry.
unsigned char *aidw_next_wkb(OGRLayerH layer, int *len, aidw_err *e);

// aidw_wkt_to_wkb parses WKT into ISO WKB (CPLFree it); NULL when the WKT is invalid.
unsigned char *aidw_wkt_to_wkb(const char *wkt, int *len, aidw_err *e);

// aidw_new_transform builds the transformation between two CRS definitions (WKT or any
// SetFromUserInput string) in GIS axis order; NULL with *same set when they are the same CRS,
// NULL without it on error.
OGRCoordinateTransformationH aidw_new_transform(const char *from, const char *to, int *same, aidw_err *e);

// aidw_transform transforms n points in place; ok[i] says whether point i succeeded.
void aidw_transform(OGRCoordinateTransformationH ct, int n, double *x, double *y, int *ok, aidw_err *e);

// aidw_translate runs gdal_translate's library form from src to dst with argv, checking
// *cancel between blocks of lines; it returns 0 on success.
int aidw_translate(const char *src, const char *dst, char **argv, volatile int *cancel, aidw_err *e);

#endif
