#include "CModelStoreJSON.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

static inline int needs_escape(uint8_t byte) {
    return byte < 0x20 || byte == '"' || byte == '\\' || byte == '/';
}

// Loads without alignment; a constant-size memcpy compiles to one move.
static inline uint64_t load64(const uint8_t *bytes) {
    uint64_t word;
    memcpy(&word, bytes, sizeof word);
    return word;
}

static inline uint32_t load32(const uint8_t *bytes) {
    uint32_t word;
    memcpy(&word, bytes, sizeof word);
    return word;
}

#if defined(__SSE2__)

typedef __m128i block_t;
// A bit per byte of a block, set for the bytes to escape.
typedef unsigned escape_mask_t;

static inline block_t load_block(const uint8_t *bytes) { return _mm_loadu_si128((const __m128i *)bytes); }

// The block whose low eight bytes are `low` and high eight bytes `high`, in memory order.
static inline block_t make_block(uint64_t low, uint64_t high) { return _mm_set_epi64x((long long)high, (long long)low); }

static inline escape_mask_t escape_mask(block_t bytes) {
    // Unsigned "below 0x20": the byte is unchanged by taking the minimum with 0x1F.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1F)), bytes);
    const __m128i quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'));
    const __m128i slash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('/'));
    const __m128i any = _mm_or_si128(_mm_or_si128(control, quote), _mm_or_si128(backslash, slash));
    return (escape_mask_t)_mm_movemask_epi8(any);
}

// The flags of bytes 0 to 7 and the index of a block's first flagged byte.
#define LOW_HALF_FLAGS 0xFFu
static inline size_t first_flag(escape_mask_t mask) { return (size_t)__builtin_ctz(mask); }

#define HAS_BLOCKS 1

#elif defined(__ARM_NEON)

typedef uint8x16_t block_t;
// Four bits per byte of a block, set for the bytes to escape.
typedef uint64_t escape_mask_t;

static inline block_t load_block(const uint8_t *bytes) { return vld1q_u8(bytes); }

static inline block_t make_block(uint64_t low, uint64_t high) {
    return vcombine_u8(vcreate_u8(low), vcreate_u8(high));
}

static inline escape_mask_t escape_mask(block_t bytes) {
    const uint8x16_t control = vcleq_u8(bytes, vdupq_n_u8(0x1F));
    const uint8x16_t quote = vceqq_u8(bytes, vdupq_n_u8('"'));
    const uint8x16_t backslash = vceqq_u8(bytes, vdupq_n_u8('\\'));
    const uint8x16_t slash = vceqq_u8(bytes, vdupq_n_u8('/'));
    const uint8x16_t any = vorrq_u8(vorrq_u8(control, quote), vorrq_u8(backslash, slash));
    // Narrowing each 16-bit lane by four bits leaves a nibble per byte in one 64-bit word.
    const uint8x8_t nibbles = vshrn_n_u16(vreinterpretq_u16_u8(any), 4);
    return vget_lane_u64(vreinterpret_u64_u8(nibbles), 0);
}

#define LOW_HALF_FLAGS 0xFFFFFFFFull
static inline size_t first_flag(escape_mask_t mask) { return (size_t)__builtin_ctzll(mask) >> 2; }

#define HAS_BLOCKS 1

#endif

#ifdef HAS_BLOCKS

// 8 to 15 bytes: the first eight and the last eight, overlapping, as one block. A flag in the low half is
// byte `i`; in the high half, lane `8 + j` is byte `count - 8 + j`, and a flag there counts only if the low
// half has none (the overlapping bytes are flagged in both).
static size_t clean_prefix_short(const uint8_t *bytes, size_t count) {
    const escape_mask_t mask = escape_mask(make_block(load64(bytes), load64(bytes + count - 8)));
    if (!mask) return count;
    if (mask & LOW_HALF_FLAGS) return first_flag(mask);
    return count - 16 + first_flag(mask);
}

// 4 to 7 bytes: the same with halves of four, the upper half of the block a clean 'A'.
static size_t clean_prefix_tiny(const uint8_t *bytes, size_t count) {
    const uint64_t low = (uint64_t)load32(bytes) | ((uint64_t)load32(bytes + count - 4) << 32);
    const escape_mask_t mask = escape_mask(make_block(low, 0x4141414141414141ull));
    if (!mask) return count;
    const size_t lane = first_flag(mask);
    return lane < 4 ? lane : count - 8 + lane;
}

#endif

size_t modelstore_json_clean_prefix(const uint8_t *bytes, size_t count) {
#ifdef HAS_BLOCKS
    if (count >= 16) {
        size_t index = 0;
        for (; index + 16 <= count; index += 16) {
            const escape_mask_t mask = escape_mask(load_block(bytes + index));
            if (mask) return index + first_flag(mask);
        }
        if (index == count) return count;
        // The last block overlaps bytes already found clean, so its first flag is past them.
        const size_t last = count - 16;
        const escape_mask_t mask = escape_mask(load_block(bytes + last));
        return mask ? last + first_flag(mask) : count;
    }
    if (count >= 8) return clean_prefix_short(bytes, count);
    if (count >= 4) return clean_prefix_tiny(bytes, count);
#endif
    for (size_t index = 0; index < count; index++) {
        if (needs_escape(bytes[index])) return index;
    }
    return count;
}
