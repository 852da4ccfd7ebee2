// Counts allocations by replacing glibc's allocation entry points in the executable.
//
// Why this works: in ELF, a symbol the executable defines comes first in the global lookup
// scope, so every shared library's call to malloc (libleveldb's operator new through
// libstdc++, SQLite, Foundation, the Swift runtime) binds to these definitions instead of
// libc's. glibc documents this kind of replacement ("Replacing malloc" in its manual) and
// exports its own implementation as __libc_malloc and friends, which these functions call,
// so the allocator, its memory layout and its speed are unchanged apart from one relaxed
// atomic increment per allocation. free is not replaced: it needs no counting, and the
// memory always comes from glibc's allocator.
//
// Elsewhere (macOS's two-level namespace, musl) the counter compiles to nothing and reports
// itself unsupported.

#include "CMallocCounter.h"

#if defined(__linux__) && defined(__GLIBC__)

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static _Atomic uint64_t allocationCount = 0;

static inline void countOne(void) {
    atomic_fetch_add_explicit(&allocationCount, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    countOne();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    countOne();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    countOne();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    countOne();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    countOne();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // The same checks glibc makes: a power of two that is a multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    countOne();
    void *memory = __libc_memalign(alignment, size);
    if (memory == NULL) {
        return ENOMEM;
    }
    *result = memory;
    return 0;
}

void *valloc(size_t size) {
    countOne();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    countOne();
    return __libc_pvalloc(size);
}

uint64_t cmalloccounter_allocations(void) {
    return atomic_load_explicit(&allocationCount, memory_order_relaxed);
}

int cmalloccounter_is_supported(void) {
    return 1;
}

#else

uint64_t cmalloccounter_allocations(void) {
    return 0;
}

int cmalloccounter_is_supported(void) {
    return 0;
}

#endif
