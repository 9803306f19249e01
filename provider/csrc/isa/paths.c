/* paths.c - the path registry (isa.h): each path's name, ISA, availability test and every family's kernels. */
#include <string.h>

#include "isa.h"
#include "target.h"

/* Each family's objects for each path, defined in its NAME_PATH.c files (kernels/, gemm/, reduce/, quant/,
 * conv/). Declared here with their struct types incomplete: the registry only holds their addresses. */
#define OM_ISA_FAMILIES(P)                                                                                     \
  extern const struct om_kernel_table om_table_##P;                                                            \
  extern const struct om_gemm_kern om_gemm_kern_f32_##P, om_gemm_kern_f64_##P;                                  \
  extern const struct om_red_path om_red_path_##P;                                                              \
  extern const struct om_qgemm_kern om_qgemm_kern_##P;                                                          \
  extern const struct om_dwconv_kern om_dwconv_kern_##P;                                                        \
  extern const struct om_convd_kerns om_convd_kern_##P;
OM_ISA_FAMILIES(scalar)
#if OM_ISA_X86
OM_ISA_FAMILIES(512)
OM_ISA_FAMILIES(256)
extern const struct om_qgemm_kern om_qgemm_kern_512vnni, om_qgemm_kern_512amx;
#endif
#if OM_ISA_X86 || OM_ISA_NEON
OM_ISA_FAMILIES(128)
#endif

static int om_always(void) { return 1; }
#if !OM_ISA_X86
static int om_never(void) { return 0; }
#endif

/* ...: the extension kernels and their tests, {kernels}, {tests} */
#define OM_ISA_ROW_EXT(NAME, ISA, AVAIL, P, ...)                                                      \
  {NAME, ISA, AVAIL, &om_table_##P, &om_gemm_kern_f32_##P, &om_gemm_kern_f64_##P, &om_red_path_##P, \
   &om_qgemm_kern_##P, __VA_ARGS__, &om_dwconv_kern_##P, &om_convd_kern_##P}
#define OM_ISA_ROW(NAME, ISA, AVAIL, P) OM_ISA_ROW_EXT(NAME, ISA, AVAIL, P, {NULL}, {NULL})
/* A path this build lacks: never available; scalar element-wise, reduction and integer kernels, no GEMM
 * kernels. */
#define OM_ISA_ABSENT(NAME, ISA) \
  {NAME, ISA, om_never, &om_table_scalar, NULL, NULL, &om_red_path_scalar, &om_qgemm_kern_scalar, {NULL}, {NULL}, \
   &om_dwconv_kern_scalar, &om_convd_kern_scalar}

#if OM_ISA_X86
#define OM_EXTS_512 {&om_qgemm_kern_512amx, &om_qgemm_kern_512vnni}, {om_cpu_has_amx_int8, om_cpu_has_avx512vnni}
#endif

static const om_isa_path om_isa_paths[OM_PATH_COUNT] = {
#if OM_ISA_X86
    [OM_PATH_512] = OM_ISA_ROW_EXT("512", "x86-64 AVX-512 (F, BW, DQ, VL) with AVX2, FMA, BMI2, F16C", om_cpu_has_avx512,
                                   512, OM_EXTS_512),
    [OM_PATH_256] = OM_ISA_ROW("256", "x86-64 AVX2, FMA, BMI2, F16C", om_cpu_has_avx2, 256),
    [OM_PATH_128] = OM_ISA_ROW("128", "x86-64 SSE4.2", om_cpu_has_sse42, 128),
#elif OM_ISA_NEON
    [OM_PATH_512] = OM_ISA_ABSENT("512", "x86-64 AVX-512"),
    [OM_PATH_256] = OM_ISA_ABSENT("256", "x86-64 AVX2"),
    [OM_PATH_128] = OM_ISA_ROW("128", "AArch64 Advanced SIMD (NEON)", om_cpu_has_asimd, 128),
#else
    [OM_PATH_512] = OM_ISA_ABSENT("512", "x86-64 AVX-512"),
    [OM_PATH_256] = OM_ISA_ABSENT("256", "x86-64 AVX2"),
    [OM_PATH_128] = OM_ISA_ABSENT("128", "x86-64 SSE4.2 or AArch64 Advanced SIMD"),
#endif
    [OM_PATH_SCALAR] = OM_ISA_ROW("scalar", "any CPU: one lane, C only", om_always, scalar),
};

const om_isa_path* om_isa_path_get(int path) {
  return (path >= 0 && path < OM_PATH_COUNT) ? &om_isa_paths[path] : NULL;
}

const char* om_path_name(int path) {
  const om_isa_path* p = om_isa_path_get(path);
  return p ? p->name : "unknown";
}

int om_path_from_name(const char* name) {
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (name && strcmp(name, om_isa_paths[p].name) == 0) return p;
  return -1;
}

int om_path_available(int path) {
  const om_isa_path* p = om_isa_path_get(path);
  return p ? p->available() : 0;
}

/* 0 unknown, 1 available, 2 not; relaxed atomics: racing first calls store the same value. */
int om_path_available_cached(int path) {
  static int known[OM_PATH_COUNT];
  int v = __atomic_load_n(&known[path], __ATOMIC_RELAXED);
  if (!v) {
    v = om_path_available(path) ? 1 : 2;
    __atomic_store_n(&known[path], v, __ATOMIC_RELAXED);
  }
  return v == 1;
}

int om_path_best(void) {
  for (int p = 0; p < OM_PATH_COUNT; p++)
    if (om_path_available(p)) return p;
  return OM_PATH_SCALAR;
}

const struct om_kernel_table* om_path_table(int path) {
  const om_isa_path* p = om_isa_path_get(path);
  return p ? p->elementwise : &om_table_scalar;
}
