#ifndef MODELSTOREBENCH_CLEVELDBBASELINE_SHIM_H
#define MODELSTOREBENCH_CLEVELDBBASELINE_SHIM_H

// LevelDB's C API, bound a second time for the benchmarks' baseline contenders: ModelStore
// imports its own CLevelDB module internally, so it is not visible from this package.
#include <leveldb/c.h>

#endif
