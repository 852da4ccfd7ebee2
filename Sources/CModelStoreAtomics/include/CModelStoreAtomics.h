#ifndef MODELSTORE_ATOMICS_H
#define MODELSTORE_ATOMICS_H

// Atomic operations on a 64-bit word, for ModelStore's lock-free counters and flags:
// sequentially consistent unless the name says relaxed, acquire or release.
//
// Why C: the Synchronization module's `Atomic` needs macOS 15 and ModelStore supports macOS 13;
// these are the compiler's `__atomic` builtins (GCC and Clang), inlined at every call site,
// so they cost what `Atomic` would. The word must be 8-byte aligned and only ever accessed
// through these functions.

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

/// The word's value.
static inline uint64_t modelstore_atomic_load(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_SEQ_CST);
}

/// Sets the word to `value`.
static inline void modelstore_atomic_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_SEQ_CST);
}

/// Adds `value` (wrapping) and returns the value before.
static inline uint64_t modelstore_atomic_fetch_add(uint64_t *word, uint64_t value) {
    return __atomic_fetch_add(word, value, __ATOMIC_SEQ_CST);
}

/// Subtracts `value` (wrapping) and returns the value before.
static inline uint64_t modelstore_atomic_fetch_sub(uint64_t *word, uint64_t value) {
    return __atomic_fetch_sub(word, value, __ATOMIC_SEQ_CST);
}

/// Sets the bits of `bits` and returns the value before.
static inline uint64_t modelstore_atomic_fetch_or(uint64_t *word, uint64_t bits) {
    return __atomic_fetch_or(word, bits, __ATOMIC_SEQ_CST);
}

/// Replaces the word with `desired` if it still holds `expected`; returns whether it did.
static inline bool modelstore_atomic_compare_exchange(uint64_t *word, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/// The byte's value, read without ordering: for the use sketch's counters (Eviction/UseSketch.swift),
/// where a lost update costs a little accuracy and nothing else.
static inline uint8_t modelstore_relaxed_load_byte(const uint8_t *byte) {
    return __atomic_load_n(byte, __ATOMIC_RELAXED);
}

/// Sets the byte to `value`, without ordering (see `modelstore_relaxed_load_byte`).
static inline void modelstore_relaxed_store_byte(uint8_t *byte, uint8_t value) {
    __atomic_store_n(byte, value, __ATOMIC_RELAXED);
}

/// The word's value, read without ordering: for the use sketch's read buffers
/// (Eviction/UseBuffer.swift), where a lost or repeated use costs a little accuracy and nothing else.
static inline uint64_t modelstore_relaxed_load(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/// Sets the word to `value`, without ordering (see `modelstore_relaxed_load`).
static inline void modelstore_relaxed_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

/// The word's value, ordered before the loads that follow it (pairs with `modelstore_release_store`).
static inline uint64_t modelstore_acquire_load(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Sets the word to `value` after the stores before it (pairs with `modelstore_acquire_load`).
static inline void modelstore_release_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Asks the CPU to bring the cache line of `address` in for a write, without waiting for it.
static inline void modelstore_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// A small number that stays the same on one thread and usually differs between two threads:
/// the calling thread's `pthread_self()`, mixed. For picking a stripe of a striped structure.
static inline uint64_t modelstore_thread_stripe(void) {
    // pthread_t is the address of the thread's descriptor (glibc, Darwin): its high bits,
    // multiplied by the golden ratio, spread neighbouring threads over the stripes.
    return ((uint64_t)(uintptr_t)pthread_self() * 0x9E3779B97F4A7C15ull) >> 40;
}

#endif
