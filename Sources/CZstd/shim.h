#ifndef MODELSTORE_CZSTD_SHIM_H
#define MODELSTORE_CZSTD_SHIM_H

// Zstandard's C API and its dictionary builder. Debian's libzstd-dev and Homebrew's zstd
// install both headers; the module map links "zstd" directly, as CLevelDB does for LevelDB.
//
// ZDICT_STATIC_LINKING_ONLY exposes ZDICT_trainFromBuffer_fastCover and its parameters, which
// the shared library exports too (Debian's 1.5.4, Homebrew's): with fixed parameters it trains
// in 12 ms and 1 MiB instead of the default trainer's 90-140 ms and 11 MiB, for the same ratio
// (measured on the benchmark's profiles; PERFORMANCE.md, "Footprint"). The struct comes from
// the installed header, which matches the installed library.
#define ZDICT_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zdict.h>

#endif
