#ifndef MODELSTORE_CLEVELDB_SHIM_H
#define MODELSTORE_CLEVELDB_SHIM_H

// LevelDB's C API. Debian's libleveldb-dev and Homebrew's leveldb both install it as
// <leveldb/c.h>; neither ships a pkg-config file, so the module map links "leveldb" directly.
#include <leveldb/c.h>

#endif
