#include "CModelStoreCRC.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <wmmintrin.h>
#define MODELSTORE_CRC_X86 1
#elif defined(__aarch64__) && (defined(__linux__) || defined(__APPLE__))
#include <arm_acle.h>
#define MODELSTORE_CRC_ARM 1
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7) // From the kernel's arch/arm64/include/uapi/asm/hwcap.h.
#endif
#endif
#endif

// MARK: - Portable: slicing-by-8

// The reflected Castagnoli polynomial.
#define MODELSTORE_CRC32C_POLYNOMIAL 0x82F63B78u

// table[0] is the classic byte table; table[k][b] is the CRC of byte b followed by k zero
// bytes, so eight table lookups consume eight input bytes at once.
static uint32_t modelstore_crc32c_table[8][256];
static pthread_once_t modelstore_crc32c_table_once = PTHREAD_ONCE_INIT;

static void modelstore_crc32c_build_table(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 1) ? (crc >> 1) ^ MODELSTORE_CRC32C_POLYNOMIAL : crc >> 1;
        }
        modelstore_crc32c_table[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = modelstore_crc32c_table[0][byte];
        for (int slice = 1; slice < 8; slice++) {
            crc = modelstore_crc32c_table[0][crc & 0xFF] ^ (crc >> 8);
            modelstore_crc32c_table[slice][byte] = crc;
        }
    }
}

// Loads 8 bytes as a little-endian number whatever the alignment and the CPU's byte order.
static inline uint64_t modelstore_load_le64(const unsigned char *bytes) {
    uint64_t word = 0;
    for (int index = 7; index >= 0; index--) {
        word = (word << 8) | bytes[index];
    }
    return word;
}

uint32_t modelstore_crc32c_extend_portable(uint32_t crc, const void *bytes, size_t length) {
    pthread_once(&modelstore_crc32c_table_once, modelstore_crc32c_build_table);
    const uint32_t (*table)[256] = modelstore_crc32c_table;
    const unsigned char *next = bytes;
    uint32_t state = ~crc;
    while (length >= 8) {
        uint64_t word = modelstore_load_le64(next) ^ state;
        state = table[7][word & 0xFF] ^ table[6][(word >> 8) & 0xFF] ^ table[5][(word >> 16) & 0xFF]
            ^ table[4][(word >> 24) & 0xFF] ^ table[3][(word >> 32) & 0xFF] ^ table[2][(word >> 40) & 0xFF]
            ^ table[1][(word >> 48) & 0xFF] ^ table[0][word >> 56];
        next += 8;
        length -= 8;
    }
    while (length > 0) {
        state = table[0][(state ^ *next) & 0xFF] ^ (state >> 8);
        next++;
        length--;
    }
    return ~state;
}

// MARK: - Hardware

#if MODELSTORE_CRC_X86

// The CRC instruction takes three cycles before its result can feed the next one, and issues
// one per cycle, so a single chain of it runs at a third of its throughput. An input of at least
// three stripes of MIN_STRIPE_WORDS words is cut into three stripes of equal length (up to
// MAX_STRIPE_WORDS words each, rounds of them for longer inputs) checksummed side by side, and
// the three states joined: a record of a few hundred bytes, the store's typical value, is then
// about three times faster than on one chain.
#define MODELSTORE_CRC32C_MIN_STRIPE_WORDS 4
#define MODELSTORE_CRC32C_MAX_STRIPE_WORDS 32

// Joining: the state after A then B is the state after A advanced over |B| zero bytes, xored
// with B's state from zero. Advancing a state s over 8n zero bytes multiplies it by x^(64n)
// modulo the polynomial; a carry-less multiplication of s by x^(64n - 33) mod P (bit-reflected,
// so the product's bit order gives one factor x), then one CRC step of the 64-bit product (the
// other x^32), does it. Entry [n] holds that constant, for n up to two stripes.
static uint32_t modelstore_crc32c_zeros_constant[2 * MODELSTORE_CRC32C_MAX_STRIPE_WORDS + 1];

static void modelstore_crc32c_build_zeros_constants(void) {
    // x^0, bit-reflected in 32 bits, is the top bit; multiplying by x shifts right, reducing the
    // x^32 that falls out by the polynomial.
    uint32_t power = 0x80000000u;
    uint32_t exponent = 0;
    for (uint32_t words = 1; words <= 2 * MODELSTORE_CRC32C_MAX_STRIPE_WORDS; words++) {
        for (; exponent < 64 * words - 33; exponent++) {
            power = (power & 1) ? (power >> 1) ^ MODELSTORE_CRC32C_POLYNOMIAL : power >> 1;
        }
        modelstore_crc32c_zeros_constant[words] = power;
    }
}

// The state after 8 * words zero bytes.
__attribute__((target("sse4.2,pclmul")))
static inline uint64_t modelstore_crc32c_shift_product(uint32_t state, size_t words) {
    __m128i product = _mm_clmulepi64_si128(
        _mm_cvtsi32_si128((int)state), _mm_cvtsi32_si128((int)modelstore_crc32c_zeros_constant[words]), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

// The words and the last 0-7 bytes on one chain: no byte steps to an 8-byte boundary first (CPUs
// with SSE 4.2 load unaligned words at about the speed of aligned ones, and each byte step is a
// CRC instruction's latency on the chain), the tail in at most three steps.
__attribute__((target("sse4.2")))
static inline uint32_t modelstore_crc32c_chain_sse42(uint64_t state, const unsigned char *next, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, next, sizeof word);
        state = _mm_crc32_u64(state, word);
        next += 8;
        length -= 8;
    }
    uint32_t tail = (uint32_t)state;
    if (length >= 4) {
        uint32_t word;
        memcpy(&word, next, sizeof word);
        tail = _mm_crc32_u32(tail, word);
        next += 4;
        length -= 4;
    }
    if (length >= 2) {
        uint16_t half;
        memcpy(&half, next, sizeof half);
        tail = _mm_crc32_u16(tail, half);
        next += 2;
        length -= 2;
    }
    if (length > 0) {
        tail = _mm_crc32_u8(tail, *next);
    }
    return tail;
}

// Compiled for SSE 4.2 on its own, so the rest of the file (and the build) keeps the
// baseline x86-64 target; only called after the CPU said it has SSE 4.2.
__attribute__((target("sse4.2")))
static uint32_t modelstore_crc32c_extend_sse42(uint32_t crc, const void *bytes, size_t length) {
    return ~modelstore_crc32c_chain_sse42(~crc, bytes, length);
}

// The smallest and the first too large input of modelstore_crc32c_stripes_sized.
#define MODELSTORE_CRC32C_SIZED_MIN 72
#define MODELSTORE_CRC32C_SIZED_LIMIT (8 * (3 * MODELSTORE_CRC32C_MAX_STRIPE_WORDS - 1))

// The state after `length` bytes (MIN <= length < LIMIT: a record's value) from `state`, in three
// stripes with no branch that depends on the length but the stripes' loop: a record's length
// changes from one record to the next, and the mispredicted branches of a loop over the leftover
// words and of a tail of 4, 2 and 1 bytes cost more than the checksum's words (a sweep, whose
// records vary in length, paid about three times a fixed length's time).
//
// The bytes are read as a stream of whole words that gives the same state: from state 0, zero
// bytes change nothing, so the stream starts with the `length % 8` first bytes after 8 - that
// many zero bytes, then the rest of the input word by word; and a state carried in equals state 0
// with the state xored into the next four input bytes, so `state` is xored into the stream where
// the input starts. Then as many zero words in front as make the words a multiple of three, and
// three stripes of equal length, joined as in modelstore_crc32c_extend_sse42_stripes.
__attribute__((target("sse4.2,pclmul")))
static inline uint32_t modelstore_crc32c_stripes_sized(uint32_t state, const unsigned char *bytes, size_t length) {
    const size_t head = length & 7;
    const size_t words = length / 8 + 1;
    const size_t padding = (3 - words % 3) % 3;
    const size_t stripe = (words + padding) / 3;  // 4 ... MAX_STRIPE_WORDS words
    // The input's word w >= 1 of the stream (after the padding) is at rest + 8 (w - 1).
    const unsigned char *rest = bytes + head;
    uint64_t first, second, third, fourth;
    memcpy(&first, bytes, 8);
    memcpy(&second, rest, 8);
    memcpy(&third, rest + 8, 8);
    memcpy(&fourth, rest + 16, 8);
    // The first `head` bytes at the top of the word, zeros below (all zeros when head is 0; two
    // shifts, as one of 64 bits is undefined).
    first = (first << (8 * (7 - head))) << 8;
    unsigned __int128 carried = (unsigned __int128)state << (8 * (8 - head));
    first ^= (uint64_t)carried;
    second ^= (uint64_t)(carried >> 64);
    // The stream's first four words: `padding` zero words, then the input's first words.
    const uint64_t lead[6] = {0, 0, first, second, third, fourth};
    const uint64_t *stream = lead + 2 - padding;
    // Word j >= 4 of the stream (j > padding + 1) is at rest + 8 (j - padding - 1).
    const size_t offset = 8 * (padding + 1);
    uint64_t a = 0, b = 0, c = 0;
    for (size_t j = 0; j < 4; j++) {
        uint64_t middle, last;
        memcpy(&middle, rest + 8 * (stripe + j) - offset, 8);
        memcpy(&last, rest + 8 * (2 * stripe + j) - offset, 8);
        a = _mm_crc32_u64(a, stream[j]);
        b = _mm_crc32_u64(b, middle);
        c = _mm_crc32_u64(c, last);
    }
    for (size_t j = 4; j < stripe; j++) {
        uint64_t words3[3];
        memcpy(&words3[0], rest + 8 * j - offset, 8);
        memcpy(&words3[1], rest + 8 * (stripe + j) - offset, 8);
        memcpy(&words3[2], rest + 8 * (2 * stripe + j) - offset, 8);
        a = _mm_crc32_u64(a, words3[0]);
        b = _mm_crc32_u64(b, words3[1]);
        c = _mm_crc32_u64(c, words3[2]);
    }
    uint64_t shifted = modelstore_crc32c_shift_product((uint32_t)a, 2 * stripe)
        ^ modelstore_crc32c_shift_product((uint32_t)b, stripe);
    return (uint32_t)_mm_crc32_u64(0, shifted) ^ (uint32_t)c;
}

// With PCLMULQDQ too (every x86-64 CPU with SSE 4.2 since 2010): three stripes side by side.
__attribute__((target("sse4.2,pclmul")))
static uint32_t modelstore_crc32c_extend_sse42_stripes(uint32_t crc, const void *bytes, size_t length) {
    if (length >= MODELSTORE_CRC32C_SIZED_MIN && length < MODELSTORE_CRC32C_SIZED_LIMIT) {
        return ~modelstore_crc32c_stripes_sized(~crc, bytes, length);
    }
    const unsigned char *next = bytes;
    uint64_t state = ~crc;
    while (length >= 3 * 8 * MODELSTORE_CRC32C_MIN_STRIPE_WORDS) {
        size_t words = length / (3 * 8);
        if (words > MODELSTORE_CRC32C_MAX_STRIPE_WORDS) words = MODELSTORE_CRC32C_MAX_STRIPE_WORDS;
        const size_t stripe = 8 * words;
        uint64_t first = state, second = 0, third = 0;
        for (size_t offset = 0; offset < stripe; offset += 8) {
            uint64_t words3[3];
            memcpy(&words3[0], next + offset, 8);
            memcpy(&words3[1], next + stripe + offset, 8);
            memcpy(&words3[2], next + 2 * stripe + offset, 8);
            first = _mm_crc32_u64(first, words3[0]);
            second = _mm_crc32_u64(second, words3[1]);
            third = _mm_crc32_u64(third, words3[2]);
        }
        // The first state advanced over two stripes and the second over one, in one CRC step of
        // the sum of their products, then the third state added.
        uint64_t shifted = modelstore_crc32c_shift_product((uint32_t)first, 2 * words)
            ^ modelstore_crc32c_shift_product((uint32_t)second, words);
        state = (uint32_t)_mm_crc32_u64(0, shifted) ^ (uint32_t)third;
        next += 3 * stripe;
        length -= 3 * stripe;
    }
    return ~modelstore_crc32c_chain_sse42(state, next, length);
}

#endif

#if MODELSTORE_CRC_ARM

__attribute__((target("crc")))
static uint32_t modelstore_crc32c_extend_armv8(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *next = bytes;
    uint32_t state = ~crc;
    while (length > 0 && ((uintptr_t)next & 7) != 0) {
        state = __crc32cb(state, *next);
        next++;
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, next, sizeof word);
        state = __crc32cd(state, word);
        next += 8;
        length -= 8;
    }
    while (length > 0) {
        state = __crc32cb(state, *next);
        next++;
        length--;
    }
    return ~state;
}

#endif

// MARK: - Dispatch

typedef uint32_t (*modelstore_crc32c_function)(uint32_t, const void *, size_t);

// Chosen once by modelstore_crc32c_choose; pthread_once orders the writes before every read.
static modelstore_crc32c_function modelstore_crc32c_chosen = modelstore_crc32c_extend_portable;
static const char *modelstore_crc32c_chosen_name = "portable";
static pthread_once_t modelstore_crc32c_choice_once = PTHREAD_ONCE_INIT;

static void modelstore_crc32c_choose(void) {
#if MODELSTORE_CRC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) {
        modelstore_crc32c_chosen = modelstore_crc32c_extend_sse42;
        modelstore_crc32c_chosen_name = "sse4.2";
        if (__builtin_cpu_supports("pclmul")) {
            modelstore_crc32c_build_zeros_constants();
            modelstore_crc32c_chosen = modelstore_crc32c_extend_sse42_stripes;
        }
    }
#elif MODELSTORE_CRC_ARM
#if defined(__APPLE__)
    // Every Apple arm64 CPU has the CRC extension.
    int supported = 1;
#else
    int supported = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
    if (supported) {
        modelstore_crc32c_chosen = modelstore_crc32c_extend_armv8;
        modelstore_crc32c_chosen_name = "armv8-crc";
    }
#endif
}

uint32_t modelstore_crc32c_extend(uint32_t crc, const void *bytes, size_t length) {
    pthread_once(&modelstore_crc32c_choice_once, modelstore_crc32c_choose);
    return modelstore_crc32c_chosen(crc, bytes, length);
}

uint32_t modelstore_crc32c_record(
    const void *key, size_t key_length, const void *value, size_t value_length, int covers_head) {
    pthread_once(&modelstore_crc32c_choice_once, modelstore_crc32c_choose);
    modelstore_crc32c_function extend = modelstore_crc32c_chosen;
    const unsigned char *bytes = value;
    uint32_t crc = extend(0, key, key_length);
    if (covers_head) {
        crc = extend(crc, bytes, 3);
    }
    return extend(crc, bytes + 7, value_length - 7);
}

const char *modelstore_crc32c_implementation(void) {
    pthread_once(&modelstore_crc32c_choice_once, modelstore_crc32c_choose);
    return modelstore_crc32c_chosen_name;
}
