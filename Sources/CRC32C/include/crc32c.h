// CRC-32C (Castagnoli), the checksum of every graph file section: SSE4.2's crc32 instruction where the CPU has
// it, a table otherwise. Both give the same value.
#ifndef WAYFINDER_CRC32C_H
#define WAYFINDER_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Extends `crc` (0 to start) over `length` bytes.
uint32_t wf_crc32c(uint32_t crc, const void *data, size_t length);

/// The same with the table alone, for tests that compare both paths.
uint32_t wf_crc32c_portable(uint32_t crc, const void *data, size_t length);

#ifdef __cplusplus
}
#endif

#endif
