/* lanes.h - the thin lane layer under the kernel bodies (in the spirit of SLEEF's per-ISA helpers).
 *
 * Included by elementwise.inc once per kernel path with OM_VB set to the vector width in bytes
 * (64, 32, 16) or 0 for the one-lane path. Every kernel body is written against these macros only; GCC's
 * vector extensions lower them to the instructions the enclosing `#pragma GCC target` allows.
 */
#ifndef OM_VB
#error "define OM_VB before including lanes.h"
#endif

#include <string.h>

/* The instruction set under a vector path: x86 (the 512, 256 and 128 paths, each under its `#pragma GCC target`)
 * or AArch64 Advanced SIMD (the 128 path; part of the base ISA, so no pragma). Code that reaches for intrinsics
 * tests these, never the compiler's target macros alone: a vector path on another ISA is then a build error
 * (an intrinsic left undeclared), not a silent fallback. Everything that is plain GCC vector extensions needs
 * neither. */
#if defined(__x86_64__) || defined(__i386__)
#define OM_ARCH_X86 1
#define OM_ARCH_NEON 0
#elif defined(__aarch64__)
#define OM_ARCH_X86 0
#define OM_ARCH_NEON 1
#else
#define OM_ARCH_X86 0
#define OM_ARCH_NEON 0
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the kernels assume little-endian lanes (x86-64, AArch64 Linux and macOS)"
#endif

/* Lanes of a vector of element type T on this path. */
#define OM_LANES(T) (OM_VB ? OM_VB / sizeof(T) : 1)
/* Declare V, a vector of T with `lanes` lanes, and M, the integer mask type GCC gives its comparisons. */
#define OM_VTYPES(T, MASKT, lanes)                                           \
  typedef T V __attribute__((vector_size((lanes) * sizeof(T)), unused));           \
  typedef MASKT M __attribute__((vector_size((lanes) * sizeof(MASKT)), unused))
#define OM_LOAD(v, p) memcpy(&(v), (p), sizeof(v))
#define OM_STORE(p, v) memcpy((p), &(v), sizeof(v))
/* Every lane of v set to the scalar s, bit for bit (adding s to a zero vector would turn -0 into +0). */
#define OM_SPLAT(v, s)                                                          \
  do {                                                                          \
    for (size_t l_ = 0; l_ < sizeof(v) / sizeof((v)[0]); l_++) (v)[l_] = (s); \
  } while (0)
/* Per-lane select on the bits: m ? a : b, with m all-ones or all-zeros per lane. */
#define OM_SEL(VT, MT, m, a, b) ((VT)(((MT)(m) & (MT)(a)) | (~(MT)(m) & (MT)(b))))

/* Software prefetch for the streaming loops (the f32 transcendentals consume 1 to 5 elements per nanosecond, so
 * the hardware prefetchers alone leave the loop waiting on memory once a tensor outgrows the caches): the input
 * line OM_PREFETCH_AHEAD elements ahead for reading into L1, the output line as far ahead for writing
 * (PREFETCHW on the 512 path, whose target includes PRFCHW; a plain prefetch elsewhere). The slow loops (the
 * transcendental kernels, exact and fast: OM_PREFETCH_STREAM_SLOW) also prefetch the input line
 * OM_PREFETCH_FAR elements ahead into L2 (locality 1: more lines in flight than L1's fill buffers allow;
 * +6 to +12% for the exact Erf, Tanh and Exp kernels on 16M floats, neutral at 1M; a far prefetch of the
 * output was slower). The cheap loops do not: there the extra instruction cost about 15% at 64K elements
 * (Add 11.2-11.5 -> 13.1-13.2 us a call, one-node sessions block-alternated with stock ORT). A hint only: it
 * never faults, past the end of a buffer included (the address is formed as an integer, not by pointer
 * arithmetic past the end), and never changes a result. Measured in docs/performance.md. */
#define OM_PREFETCH_AHEAD 512
#define OM_PREFETCH_FAR 4096
#if OM_VB == 0 /* the one-lane path finishes tails: nothing to stream */
#define OM_PREFETCH_IN(in) ((void)0)
#define OM_PREFETCH_OUT(out) ((void)0)
#define OM_PREFETCH_IN_FAR(in) ((void)0)
#else
#define OM_PREFETCH_IN(in) \
  __builtin_prefetch((const void*)((uintptr_t)(in) + OM_PREFETCH_AHEAD * sizeof(*(in))), 0, 3)
#define OM_PREFETCH_OUT(out) \
  __builtin_prefetch((const void*)((uintptr_t)(out) + OM_PREFETCH_AHEAD * sizeof(*(out))), 1, 3)
#define OM_PREFETCH_IN_FAR(in) \
  __builtin_prefetch((const void*)((uintptr_t)(in) + OM_PREFETCH_FAR * sizeof(*(in))), 0, 1)
#endif
#define OM_PREFETCH_STREAM(in, out) \
  do {                              \
    OM_PREFETCH_IN(in);             \
    OM_PREFETCH_OUT(out);           \
  } while (0)
#define OM_PREFETCH_STREAM_SLOW(in, out) \
  do {                                   \
    OM_PREFETCH_IN(in);                  \
    OM_PREFETCH_IN_FAR(in);              \
    OM_PREFETCH_OUT(out);                \
  } while (0)

/* ---- per-ISA helpers where GCC's generic lowering is poor ---------------------------------------------------
 * Zero-extend `lanes` bytes at p to lanes of `width` bytes (2, 4 or 8) at out: GCC 12 scalarises
 * __builtin_convertvector from 8-bit lanes, so the vector paths use the PMOVZX instructions. Reads exactly
 * `lanes` bytes. */
#if OM_VB != 0 && OM_ARCH_X86
#include <immintrin.h>
#elif OM_VB != 0 && OM_ARCH_NEON
#include <arm_neon.h>
#endif
static inline __attribute__((always_inline)) void OM_FN(widen_u8)(const uint8_t* p, void* out, int width) {
#if OM_VB == 64
  if (width == 2) {
    __m256i b;
    memcpy(&b, p, 32);
    __m512i r = _mm512_cvtepu8_epi16(b);
    memcpy(out, &r, 64);
  } else if (width == 4) {
    __m128i b;
    memcpy(&b, p, 16);
    __m512i r = _mm512_cvtepu8_epi32(b);
    memcpy(out, &r, 64);
  } else {
    __m128i b = _mm_loadl_epi64((const __m128i*)(const void*)p);
    __m512i r = _mm512_cvtepu8_epi64(b);
    memcpy(out, &r, 64);
  }
#elif OM_VB == 32
  if (width == 2) {
    __m128i b;
    memcpy(&b, p, 16);
    __m256i r = _mm256_cvtepu8_epi16(b);
    memcpy(out, &r, 32);
  } else if (width == 4) {
    __m128i b = _mm_loadl_epi64((const __m128i*)(const void*)p);
    __m256i r = _mm256_cvtepu8_epi32(b);
    memcpy(out, &r, 32);
  } else {
    int32_t w;
    memcpy(&w, p, 4);
    __m256i r = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w));
    memcpy(out, &r, 32);
  }
#elif OM_VB == 16 && OM_ARCH_NEON
  /* UXTL (vmovl) doubles the lane width once per step, from the low half of the vector. */
  if (width == 2) {
    uint16x8_t r = vmovl_u8(vld1_u8(p));
    memcpy(out, &r, 16);
  } else if (width == 4) {
    uint32_t w;
    memcpy(&w, p, 4);
    uint32x4_t r = vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(w)))));
    memcpy(out, &r, 16);
  } else {
    uint16_t h;
    memcpy(&h, p, 2);
    uint64x2_t r = vmovl_u32(vget_low_u32(vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u16(vdup_n_u16(h)))))));
    memcpy(out, &r, 16);
  }
#elif OM_VB == 16
  if (width == 2) {
    __m128i b = _mm_loadl_epi64((const __m128i*)(const void*)p);
    __m128i r = _mm_cvtepu8_epi16(b);
    memcpy(out, &r, 16);
  } else if (width == 4) {
    int32_t w;
    memcpy(&w, p, 4);
    __m128i r = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w));
    memcpy(out, &r, 16);
  } else {
    uint16_t h;
    memcpy(&h, p, 2);
    __m128i r = _mm_cvtepu8_epi64(_mm_cvtsi32_si128(h));
    memcpy(out, &r, 16);
  }
#else
  uint64_t v = p[0];
  memcpy(out, &v, (size_t)width); /* little-endian x86 and the usual targets */
#endif
}
