/* target.h - the instruction sets of the kernel paths, as target pragmas every family's path file starts with.
 *
 * One string per path, so the element-wise, GEMM and reduction copies of a path are compiled for the same ISA
 * and isa/cpu.c tests that ISA before any of them runs. Include this before any other header of the file: the
 * pragma applies to every function after it. x86-64 only; AArch64's 128 path is Advanced SIMD, part of the
 * base ISA, and needs no pragma. */
#ifndef OM_ISA_TARGET_H
#define OM_ISA_TARGET_H

#if defined(__x86_64__) || defined(__i386__)
#define OM_ISA_X86 1
/* prfchw (PREFETCHW) comes with every AVX-512 CPU; GCC's cpu model has no name to test it by. */
#define OM_TARGET_X86_AVX512 _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2,f16c,prfchw\")")
/* The 512 path's integer dot product: the same ISA plus AVX-512 VNNI (vpdpbusd), used where the CPU has it. */
#define OM_TARGET_X86_AVX512VNNI \
  _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx2,fma,bmi2,f16c,prfchw\")")
/* ... and its tile kernel: the 512 path's ISA plus AMX-TILE and AMX-INT8 (tdpbusd), used where the CPU has them. */
#define OM_TARGET_X86_AVX512AMX \
  _Pragma("GCC target(\"avx512f,avx512bw,avx512dq,avx512vl,amx-tile,amx-int8,avx2,fma,bmi2,f16c,prfchw\")")
#define OM_TARGET_X86_AVX2 _Pragma("GCC target(\"avx2,fma,bmi2,f16c\")")
#define OM_TARGET_X86_SSE42 _Pragma("GCC target(\"sse4.2\")")
#else
#define OM_ISA_X86 0
#endif

#if defined(__aarch64__)
#define OM_ISA_NEON 1
#else
#define OM_ISA_NEON 0
#endif

#endif
