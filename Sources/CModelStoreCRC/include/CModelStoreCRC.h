#ifndef MODELSTORE_CRC32C_H
#define MODELSTORE_CRC32C_H

// CRC-32C (Castagnoli), computed with the CPU's CRC instruction where there is one.
//
// ModelStore's record envelope carries a CRC-32C that every read checks; a software loop
// would cost as much as the LevelDB block checksum it replaces, so this is C with the
// SSE 4.2 `crc32` instruction on x86-64 and the ARMv8 CRC extension on arm64, chosen once
// at run time, and a portable slicing-by-8 table otherwise.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The CRC-32C of `length` bytes at `bytes`, continuing from `crc`, the CRC-32C of the bytes
/// before them (0 to start). `extend(extend(0, a), b) == extend(0, a + b)`. `bytes` needs no
/// alignment and may be NULL when `length` is 0. Thread-safe.
uint32_t modelstore_crc32c_extend(uint32_t crc, const void *bytes, size_t length);

/// The checksum of a record envelope of `value_length` >= 7 bytes under the LevelDB key `key`:
/// the CRC-32C of the key, then, when `covers_head` is nonzero, of the value's bytes 0..<3, then
/// of the value from byte 7 (see RecordEnvelope.swift). The same result as three calls of
/// `modelstore_crc32c_extend`, in one call that chooses the code once. Thread-safe.
uint32_t modelstore_crc32c_record(
    const void *key, size_t key_length, const void *value, size_t value_length, int covers_head);

/// The same result as `modelstore_crc32c_extend`, always from the portable table code: for
/// tests that compare the two and for benchmarks.
uint32_t modelstore_crc32c_extend_portable(uint32_t crc, const void *bytes, size_t length);

/// The implementation `modelstore_crc32c_extend` uses on this machine: "sse4.2", "armv8-crc"
/// or "portable". A static string.
const char *modelstore_crc32c_implementation(void);

#ifdef __cplusplus
}
#endif

#endif // MODELSTORE_CRC32C_H
