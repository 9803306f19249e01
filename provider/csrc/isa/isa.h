/* isa.h - the kernel paths and their registry: one row per path, read by every kernel family.
 *
 * A path is one instantiation of each family's bodies for one instruction set (isa/target.h). Its row says its
 * user-visible name, the ISA it needs, whether this CPU has it, and each family's kernels for it; a family
 * looks its kernels up here and keeps no switch of its own. Adding a path (an SVE one, say) is one enum entry,
 * one row in isa/paths.c, one availability test in isa/cpu.c and one file per family. */
#ifndef OM_ISA_H
#define OM_ISA_H

/* Kernel paths, widest first. "512", "256", "128" and "scalar" are the names users give (path= option). */
enum { OM_PATH_512, OM_PATH_256, OM_PATH_128, OM_PATH_SCALAR, OM_PATH_COUNT };

struct om_kernel_table; /* kernels/kernels.h: element-wise, cast and Pow kernels */
struct om_gemm_kern;    /* gemm/gemm_internal.h: the matrix-product micro-kernels */
struct om_red_path;     /* reduce/reduce.h: the reduction, Softmax and LayerNorm kernels */
struct om_qgemm_kern;   /* quant/qgemm_internal.h: the exact integer matrix-product kernels */
struct om_dwconv_kern;  /* conv/dwconv.h: the depthwise convolution row kernels */
struct om_convd_kerns;  /* conv/convdirect.h: the direct convolution's tile kernels */
#define OM_QGEMM_EXTS 2 /* extension kernels a path may have */

typedef struct om_isa_path {
  const char* name;                       /* "512", "256", "128", "scalar" */
  const char* isa;                        /* the instruction set it needs, in words */
  int (*available)(void);                 /* 1 when this CPU runs it (isa/cpu.c) */
  const struct om_kernel_table* elementwise;
  const struct om_gemm_kern* gemm_f32;    /* NULL where this build has no such path */
  const struct om_gemm_kern* gemm_f64;
  const struct om_red_path* reduce;
  const struct om_qgemm_kern* qgemm;      /* u8 x s8 -> int32 dot products of four */
  /* The same with extensions the path's ISA does not require (on the 512 path AMX-INT8, then AVX-512 VNNI),
   * fastest first, each used where its ext_available says the CPU (and OS) has it; NULL past the last. Same
   * bits: the sums are exact integers. */
  const struct om_qgemm_kern* qgemm_ext[OM_QGEMM_EXTS];
  int (*ext_available[OM_QGEMM_EXTS])(void);
  const struct om_dwconv_kern* dwconv;
  const struct om_convd_kerns* convd;
} om_isa_path;

/* The row of a path, NULL when path is out of range. A path this build lacks (512 on AArch64) has a row that is
 * never available, with the scalar element-wise and reduction kernels and no GEMM kernels. */
const om_isa_path* om_isa_path_get(int path);

const char* om_path_name(int path);      /* "unknown" when out of range */
int om_path_from_name(const char* name); /* -1 when unknown */
int om_path_available(int path);         /* 1 when this CPU runs the path */
/* om_path_available asked once per path (0 <= path < OM_PATH_COUNT): it runs CPUID, which a virtual machine traps
 * (about 10 us a call: as long as a small product, more than a reduction of a few thousand elements). */
int om_path_available_cached(int path);
int om_path_best(void); /* widest available */
/* The element-wise table of a path; the scalar one when out of range. */
const struct om_kernel_table* om_path_table(int path);

/* isa/cpu.c: the CPUID / HWCAP tests behind each row's `available`. */
int om_cpu_has_avx512(void);
int om_cpu_has_avx512vnni(void); /* the 512 path's ISA and AVX512_VNNI */
/* the 512 path's ISA, AMX-TILE and AMX-INT8 with the OS saving tile state, and (Linux) this process allowed to
 * use the tile data (arch_prctl ARCH_REQ_XCOMP_PERM, asked on the first call) */
int om_cpu_has_amx_int8(void);
int om_cpu_has_avx2(void);
int om_cpu_has_sse42(void);
int om_cpu_has_asimd(void);

#endif
