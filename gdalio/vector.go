package gdalio

/*
#include <math.h>
#include <stdlib.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>

// aidw_write_residuals writes the residual point layer in one call, so that GDAL's error state,
// which is per thread, is read on the thread that set it. It returns NULL, or the failure
// (CPLFree it).
static char *aidw_write_residuals(const char *driver, const char *path, const char *name, const char *wkt,
		long long n, const double *x, const double *y, const double *obs, const int *fold,
		int nalg, char **alg, const double *pred) {
	CPLErrorReset();
	CPLPushErrorHandler(CPLQuietErrorHandler);
	char *err = NULL;
	OGRSpatialReferenceH srs = NULL;
	GDALDatasetH ds = NULL;
	GDALDriverH drv = GDALGetDriverByName(driver);
	if (drv == NULL) {
		err = CPLStrdup("no such driver");
		goto done;
	}
	ds = GDALCreate(drv, path, 0, 0, 0, GDT_Unknown, NULL);
	if (ds == NULL) {
		goto fail;
	}
	if (wkt != NULL && wkt[0] != 0) {
		srs = OSRNewSpatialReference(wkt);
		if (srs == NULL) {
			goto fail;
		}
		OSRSetAxisMappingStrategy(srs, OAMS_TRADITIONAL_GIS_ORDER);
	}
	OGRLayerH layer = GDALDatasetCreateLayer(ds, name, srs, wkbPoint, NULL);
	if (layer == NULL) {
		goto fail;
	}
	static const char *names[] = {"sample", "fold", "algorithm", "x", "y", "observed", "predicted", "residual"};
	static const OGRFieldType types[] = {OFTInteger, OFTInteger, OFTString, OFTReal, OFTReal, OFTReal, OFTReal, OFTReal};
	for (int k = 0; k < 8; k++) {
		OGRFieldDefnH fd = OGR_Fld_Create(names[k], types[k]);
		OGRErr e = OGR_L_CreateField(layer, fd, TRUE);
		OGR_Fld_Destroy(fd);
		if (e != OGRERR_NONE) {
			goto fail;
		}
	}
	int tx = GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
	OGRFeatureDefnH defn = OGR_L_GetLayerDefn(layer);
	for (int a = 0; a < nalg; a++) {
		for (long long i = 0; i < n; i++) {
			OGRFeatureH f = OGR_F_Create(defn);
			OGRGeometryH g = OGR_G_CreateGeometry(wkbPoint);
			OGR_G_SetPoint_2D(g, 0, x[i], y[i]);
			OGR_F_SetGeometryDirectly(f, g);
			OGR_F_SetFieldInteger(f, 0, (int)(i + 1));
			OGR_F_SetFieldInteger(f, 1, fold[i]);
			OGR_F_SetFieldString(f, 2, alg[a]);
			OGR_F_SetFieldDouble(f, 3, x[i]);
			OGR_F_SetFieldDouble(f, 4, y[i]);
			OGR_F_SetFieldDouble(f, 5, obs[i]);
			double p = pred[(long long)a * n + i];
			if (!isnan(p)) {
				OGR_F_SetFieldDouble(f, 6, p);
				OGR_F_SetFieldDouble(f, 7, p - obs[i]);
			}
			OGRErr e = OGR_L_CreateFeature(layer, f);
			OGR_F_Destroy(f);
			if (e != OGRERR_NONE) {
				goto fail;
			}
		}
	}
	if (tx && GDALDatasetCommitTransaction(ds) != OGRERR_NONE) {
		goto fail;
	}
	GDALClose(ds);
	ds = NULL;
	if (CPLGetLastErrorType() >= CE_Failure) {
		goto fail;
	}
	goto done;
fail:
	err = CPLStrdup(CPLGetLastErrorMsg()[0] ? CPLGetLastErrorMsg() : "unknown GDAL failure");
done:
	if (ds != NULL) {
		GDALClose(ds);
	}
	if (srs != NULL) {
		OSRRelease(srs);
	}
	CPLPopErrorHandler();
	return err;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/aidw/aidw/internal/outfile"
)

// Residuals are cross-validation results to write as a point layer: per sample its place,
// observation and fold, and per algorithm its predictions.
type Residuals struct {
	// X, Y (absolute coordinates), Observed and Fold (from 1; each sample its own under
	// leave-one-out) have one entry per sample, in input order.
	X, Y, Observed []float64
	Fold           []int
	// Algorithms are the -a strings; Predicted[a][i] is algorithm a's prediction of sample i,
	// NaN where it made none.
	Algorithms []string
	Predicted  [][]float64
	// SRS is the samples' CRS (WKT or anything -a_srs takes), "" for none.
	SRS string
}

// WriteResiduals writes one point feature per sample and algorithm, with the fields sample
// (its number in input order, from 1), fold, algorithm, x, y, observed, predicted and residual
// (predicted - observed; both null where the algorithm made no prediction). The format comes
// from the extension (any OGR driver that creates vector data: GeoPackage, Shapefile,
// GeoJSON, CSV, ...). The layer is written beside path and renamed into place when complete.
func WriteResiduals(path string, r Residuals) error {
	register()
	n := len(r.X)
	if len(r.Y) != n || len(r.Observed) != n || len(r.Fold) != n || len(r.Predicted) != len(r.Algorithms) {
		return fmt.Errorf("residuals for %s: inconsistent lengths", path)
	}
	for _, p := range r.Predicted {
		if len(p) != n {
			return fmt.Errorf("residuals for %s: %d predictions for %d samples", path, len(p), n)
		}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("residual layer %s is a directory", path)
	}
	driver, err := vectorFormat(path)
	if err != nil {
		return err
	}
	wkt, err := srsWKT(r.SRS)
	if err != nil {
		return err
	}
	tmp, err := outfile.Reserve(path, filepath.Ext(path))
	if err != nil {
		return err
	}
	// The driver creates the dataset itself; the reserved name only makes it unique.
	os.Remove(tmp)
	if err := writeResiduals(driver, tmp, r, wkt); err != nil {
		removeDataset(tmp)
		return fmt.Errorf("writing residuals %s: %w", path, err)
	}
	if err := renameDataset(tmp, path); err != nil {
		removeDataset(tmp)
		return fmt.Errorf("writing residuals %s: %w", path, err)
	}
	return nil
}

func writeResiduals(driver, tmp string, r Residuals, wkt string) error {
	n := len(r.X)
	pred := make([]float64, 0, n*len(r.Algorithms))
	for _, p := range r.Predicted {
		pred = append(pred, p...)
	}
	fold := make([]C.int, n)
	for i, f := range r.Fold {
		fold[i] = C.int(f)
	}
	algs, freeAlgs := cStrings(r.Algorithms)
	defer freeAlgs()
	cs := []*C.char{C.CString(driver), C.CString(tmp), C.CString(layerName(tmp)), C.CString(wkt)}
	defer func() {
		for _, s := range cs {
			C.free(unsafe.Pointer(s))
		}
	}()
	var px, py, po, pp *C.double
	var pf *C.int
	if n > 0 {
		px, py, po = (*C.double)(&r.X[0]), (*C.double)(&r.Y[0]), (*C.double)(&r.Observed[0])
		pf = &fold[0]
	}
	if len(pred) > 0 {
		pp = (*C.double)(&pred[0])
	}
	msg := C.aidw_write_residuals(cs[0], cs[1], cs[2], cs[3], C.longlong(n), px, py, po, pf,
		C.int(len(r.Algorithms)), algs, pp)
	if msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return errors.New(oneLine(C.GoString(msg)))
	}
	return nil
}

// layerName is the layer's name: the destination's base name without extension, as ogr2ogr
// names the layer of a new file. tmp is the temporary name, whose unique part is dropped.
func layerName(tmp string) string {
	stem := strings.TrimSuffix(filepath.Base(tmp), filepath.Ext(tmp))
	if i := strings.LastIndex(stem, outfile.TempInfix); i > 0 {
		stem = stem[:i]
	}
	return stem
}

// removeDataset removes the files of a temporary dataset.
func removeDataset(tmp string) {
	files, _ := datasetFiles(tmp)
	for _, f := range files {
		os.RemoveAll(f) // a unique temporary name: a directory there is a dataset's (Zarr)
	}
}

// vectorFormat is the OGR driver that creates vector files with path's extension.
func vectorFormat(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext == "" {
		return "", fmt.Errorf("residual layer %s: give a file extension (.gpkg, .shp, .geojson, .csv, ...)", path)
	}
	for i := range int(C.GDALGetDriverCount()) {
		d := C.GDALGetDriver(C.int(i))
		if driverItem(d, "DCAP_VECTOR") == "" || driverItem(d, "DCAP_CREATE") == "" {
			continue
		}
		for _, e := range strings.Fields(strings.ToLower(driverItem(d, "DMD_EXTENSIONS"))) {
			if e == ext {
				return C.GoString(C.GDALGetDriverShortName(d)), nil
			}
		}
	}
	return "", fmt.Errorf("residual layer %s: no OGR driver writes .%s files", path, ext)
}

// CheckVectorDestination fails early when path cannot take a residual layer: an unknown
// extension, or a folder that is missing or not writable. It creates nothing.
func CheckVectorDestination(path string) error {
	register()
	if _, err := vectorFormat(path); err != nil {
		return err
	}
	return CheckDestination(path)
}
