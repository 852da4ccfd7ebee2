#ifndef MODELSTORE_CZSTD_SHIM_H
#define MODELSTORE_CZSTD_SHIM_H

// Zstandard's C API and its dictionary builder. Debian's libzstd-dev and Homebrew's zstd
// install both headers; the module map links "zstd" directly, as CLevelDB does for LevelDB.
// ZDICT_STATIC_LINKING_ONLY is not defined: only the stable ZDICT_trainFromBuffer is used.
#include <zstd.h>
#include <zdict.h>

#endif
