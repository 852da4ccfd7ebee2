#ifndef MODELSTOREBENCH_CMALLOCCOUNTER_H
#define MODELSTOREBENCH_CMALLOCCOUNTER_H

#include <stdint.h>

/// The number of allocations (malloc, calloc, realloc, memalign, posix_memalign,
/// aligned_alloc, valloc, pvalloc) made by any thread of the process since it started.
/// Always 0 where counting is not supported (anything but glibc); callers check
/// cmalloccounter_is_supported().
uint64_t cmalloccounter_allocations(void);

/// 1 if this build replaces the allocator's entry points (glibc on Linux), else 0.
int cmalloccounter_is_supported(void);

#endif
