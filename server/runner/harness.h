/* runner/harness.h: the C ABI of libhone_harness.so, the timing kernels and helpers both
 * candidate runners use (hone-runner links it; the python runner loads it with ctypes), so that
 * every candidate and the reference are flushed, held and marked by the same code. The ABI is
 * fixed: protocol/WORKER.md ("The candidate protocol") names these kernels. Call the functions
 * from the thread that owns the CUDA context (each runner's main thread); the library keeps one
 * last-error record per thread. */
#ifndef HONE_HARNESS_H
#define HONE_HARNESS_H

#include <stddef.h>

#if defined(__GNUC__)
#define HONE_HARNESS_API __attribute__((visibility("default")))
#else
#define HONE_HARNESS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 4 (hone_harness_flush_l2 added; 3: hone_harness_flush_prologue; 2: hone_mix). */
HONE_HARNESS_API int hone_harness_version(void);
/* 1 when the library was built with CUDA; 0 when only the CPU functions work (the CUDA functions
 * then return 801, cudaErrorNotSupported). */
HONE_HARNESS_API int hone_harness_has_cuda(void);

/* All CUDA functions return 0 or a cudaError_t value; stream is a cudaStream_t (NULL: the legacy
 * default stream). They launch on the calling thread's current device and do not synchronise. */

/* Kernel "hone_flush": reads every byte of the device buffer [buffer, buffer + bytes) (leaving
 * clean L2 lines: nothing is written there) and XORs into the device word *sink the XOR of the
 * buffer's 4-byte-aligned 32-bit words (a partial word at either end counts the bytes present),
 * so the reads cannot be optimised away. */
HONE_HARNESS_API int hone_harness_flush(void* stream, const void* buffer, size_t bytes, void* sink);
/* The same read of the buffer, without hone_flush's eviction of the SMs' instruction caches: the
 * L2 flush of plain events (KernelBench's, triton's do_bench), before each call of a call-time
 * pass. hone_harness_flush, which also runs a long stretch of code in each block, stands before
 * device-time calls, as ncu's cache control flushes every cache before each kernel. */
HONE_HARNESS_API int hone_harness_flush_l2(void* stream, const void* buffer, size_t bytes, void* sink);
/* The arguments of hone_harness_flush_prologue: hone_flush's buffer, its size and its sink. */
typedef struct hone_harness_flush_args {
  const void* buffer;
  size_t bytes;
  void* sink;
} hone_harness_flush_args;
/* hone_harness_flush(stream, a->buffer, a->bytes, a->sink) for `args`, a hone_harness_flush_args*:
 * the kernel prologue (hone_cupti.h, hone_cupti_kernel_prologue) both runners arm around a counted
 * call, so that each of the call's kernels starts from a flushed cache, as under ncu. */
HONE_HARNESS_API int hone_harness_flush_prologue(void* stream, void* args);
/* Kernel "hone_hold" (one thread): spins until the 32-bit word at release_word (a device-visible
 * address, e.g. registered host memory from hone_harness_register) is non-zero, read with
 * system-scope acquire loads, or until timeout_ns of %globaltimer have passed (clamped to 120 s);
 * on timeout it writes 1 to the 32-bit word at timed_out_word (system scope, fenced). */
HONE_HARNESS_API int hone_harness_hold(void* stream, const void* release_word, unsigned long long timeout_ns,
                                       void* timed_out_word);
/* Kernel "hone_spin" (one thread): runs for ns of %globaltimer (clamped to 10 s), the fixed
 * hold before a records call. */
HONE_HARNESS_API int hone_harness_spin(void* stream, unsigned long long ns);
/* Kernel "hone_marker" (one thread): writes 1 to the 32-bit word at word (system scope, fenced). */
HONE_HARNESS_API int hone_harness_marker(void* stream, void* word);
/* cudaHostRegister(host, bytes, cudaHostRegisterMapped) and cudaHostGetDevicePointer: *device_ptr
 * is the address kernels use for that memory. */
HONE_HARNESS_API int hone_harness_register(void* host, size_t bytes, void** device_ptr);
/* cudaHostUnregister(host). */
HONE_HARNESS_API int hone_harness_unregister(void* host);
/* The calling thread's last failed call of this library: writes "cudaErrorName: message" (at most
 * len bytes, NUL-terminated; "" when none) and returns its code (0 when none). */
HONE_HARNESS_API int hone_harness_last_error(char* text, int len);

/* Kernel "hone_mix": a timed call's fresh input. For each of the `count` elements of `elem_bytes`
 * bytes (1, 2, 4 or 8) of dst, dst[e] = sets[hone_harness_mix_choice(seed, e) % n_sets][e]; `sets`
 * is a host array of n_sets (1..8) device buffers of `count` elements each, none overlapping dst.
 * Every element comes from a set chosen for it alone, so a call's input is new as a whole and in
 * every row: no cache keyed by an input's content, or a part of it, hits (protocol/WORKER.md). */
HONE_HARNESS_API int hone_harness_mix(void* stream, void* dst, const void* const* sets, int n_sets, size_t elem_bytes,
                                      size_t count, unsigned seed);
/* CPU: the same on host memory, now; returns 0, or 22 (EINVAL) for bad arguments. */
HONE_HARNESS_API int hone_harness_host_mix(void* dst, const void* const* sets, int n_sets, size_t elem_bytes,
                                           size_t count, unsigned seed);
/* The hash behind both (runner/mix_choice.h), for the judge's and the tests' own use. */
HONE_HARNESS_API unsigned hone_harness_mix_choice(unsigned seed, unsigned long long element);

/* CPU: reads every 64-byte cache line of [buffer, buffer + bytes) (summed into a volatile), the
 * host device's cache flush. */
HONE_HARNESS_API void hone_harness_host_flush(const void* buffer, size_t bytes);
/* CPU: writes back and evicts every cache line of [p, p + bytes) from every cache level (x86-64
 * clflush, AArch64 dc civac, then a full fence), so what was just written there is as cold as a
 * flush leaves the rest. The CPU runners write a timed call's inputs after the flush and evict them:
 * written before, they would sit in memory the candidate's threads can read for the whole flush.
 * Returns 0, or 95 (EOPNOTSUPP) where this build's CPU has no user-mode eviction (nothing done). */
HONE_HARNESS_API int hone_harness_host_evict(const void* p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
