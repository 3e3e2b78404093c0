// GDAL's C API cannot drop a dataset's dirty blocks; its C++ API can.
#include <gdal_priv.h>

extern "C" void aidw_discard_on_close(GDALDatasetH ds) {
	// GDAL then drops the blocks still cached, unwritten, and deletes the dataset on close
	GDALDataset::FromHandle(ds)->MarkSuppressOnClose();
}
