#ifndef MODELSTORE_JSON_SCAN_H
#define MODELSTORE_JSON_SCAN_H

// Finding the bytes of a string that JSON needs escaped, sixteen at a time.
//
// ModelStore's JSON encoder writes every key and string value through this scan. In Swift, a
// word-wide test takes about 27 instructions per eight bytes (the compiler does not turn
// SIMD16<UInt8> comparisons into vector instructions); here SSE2 on x86-64 and NEON on arm64,
// both part of the baseline of those architectures, test sixteen bytes in about a dozen, and
// other machines get a plain loop.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How many of the `count` bytes at `bytes` come before the first one that JSON escapes in a
/// string as Foundation's `JSONEncoder` does: a control character (below 0x20), `"`, `\` or
/// `/`. `count` when there is none. Never reads outside the `count` bytes; `bytes` needs no
/// alignment and may be NULL when `count` is 0. Thread-safe.
size_t modelstore_json_clean_prefix(const uint8_t *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
