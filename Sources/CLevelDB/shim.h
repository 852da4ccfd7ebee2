#ifndef MODELSTORE_CLEVELDB_SHIM_H
#define MODELSTORE_CLEVELDB_SHIM_H

// LevelDB's C API. Debian's libleveldb-dev and Homebrew's leveldb both install it as
// <leveldb/c.h>; neither ships a pkg-config file, so the module map links "leveldb" directly.
#include <leveldb/c.h>

#include <errno.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
// AT_FDCWD from <fcntl.h>, which is not included: its `struct stat` would then belong to this
// module too, and Swift would find two of them.
#define MODELSTORE_AT_FDCWD (-100)
#elif defined(__APPLE__)
#include <stdio.h>
#endif

// Renames `from` to `to` unless `to` exists, atomically: ModelStore builds a new database
// folder under a temporary name and moves it into place with this, so that a folder another
// process created first (or a user's empty folder) is never replaced. Swift cannot see
// renameat2 (glibc declares it only for _GNU_SOURCE), hence the raw system call. Returns 0,
// or -1 with errno set; EINVAL or ENOSYS means the file system or kernel cannot do it.
static inline int modelstore_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, MODELSTORE_AT_FDCWD, from, MODELSTORE_AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
#elif defined(__APPLE__)
    return renamex_np(from, to, RENAME_EXCL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

// Swaps `from` and `to` (both must exist) in one step: a restore that replaces a database puts
// the new one under the name and the old one under the staging name at once, so the name never
// holds nothing or half a database. Returns 0, or -1 with errno set; EINVAL or ENOSYS means the
// file system or kernel cannot do it.
static inline int modelstore_rename_exchange(const char *from, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, MODELSTORE_AT_FDCWD, from, MODELSTORE_AT_FDCWD, to, 2 /* RENAME_EXCHANGE */);
#elif defined(__APPLE__)
    return renamex_np(from, to, RENAME_SWAP);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
