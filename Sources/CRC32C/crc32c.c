#include "crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int t = 1; t < 8; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
    }
}

uint32_t wf_crc32c_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, build_table);
    const uint8_t *p = data;
    crc = ~crc;
    // Slicing by eight: eight table lookups for eight bytes, with no dependency between them.
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        word ^= crc;
        crc = table[7][word & 0xFF] ^ table[6][(word >> 8) & 0xFF] ^ table[5][(word >> 16) & 0xFF] ^
              table[4][(word >> 24) & 0xFF] ^ table[3][(word >> 32) & 0xFF] ^ table[2][(word >> 40) & 0xFF] ^
              table[1][(word >> 48) & 0xFF] ^ table[0][word >> 56];
        p += 8;
        length -= 8;
    }
    while (length--) crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xFF];
    return ~crc;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = data;
    uint64_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    while (length--) c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

static int has_sse42;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static void detect_cpu(void) { has_sse42 = __builtin_cpu_supports("sse4.2"); }

uint32_t wf_crc32c(uint32_t crc, const void *data, size_t length) {
    pthread_once(&cpu_once, detect_cpu);
    return has_sse42 ? crc32c_sse42(crc, data, length) : wf_crc32c_portable(crc, data, length);
}
#else
uint32_t wf_crc32c(uint32_t crc, const void *data, size_t length) { return wf_crc32c_portable(crc, data, length); }
#endif
