/* qgemm_512amx.c - the 512 path's integer matrix-product kernel with AMX-INT8, used where the CPU has it and the
 * OS lets this process use the tiles (isa/cpu.c, om_cpu_has_amx_int8).
 *
 * A tile of 32 rows x 32 columns is four int32 accumulator tiles (tmm0-3) of 16 x 16; each step of 64 k takes two
 * A tiles (tmm4, tmm5: 16 rows x 64 uint8 of packed A) and two B tiles (tmm6, tmm7: 16 groups of four k x 16
 * columns of the packed panel, whose 32 columns make a row of 128 bytes) and four tdpbusd: each adds, to every
 * int32 element, 64 products of a uint8 and an int8 summed exactly (no saturation), like vpdpbusd. The packed
 * operands are those of every kernel (qgemm_internal.h) with kq a multiple of 16; the corrections are added
 * in AVX-512 int32 lanes modulo 2^32, as in qgemm_body.inc. */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512AMX
#include <immintrin.h>
#include <string.h>

#include "qgemm_internal.h"

typedef uint32_t om_qv16 __attribute__((vector_size(64)));

typedef struct om_tilecfg { /* LDTILECFG's 64-byte operand, palette 1 */
  uint8_t palette, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} om_tilecfg;

static om_qv16 om_qld16(const void* p) {
  om_qv16 v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* A task's tiles: eight of 16 rows x 64 bytes, configured once per task and released after it. */
static void om_qtask_begin_512amx(void) {
  om_tilecfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.palette = 1;
  for (int t = 0; t < 8; t++) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  /* Not GCC 12's _tile_loadconfig: its asm operand is a pointer-sized object, so the stores to the rest of cfg
   * may be removed as dead (they were: the tile configuration was invalid and LDTILECFG faulted). */
  __asm__ volatile("ldtilecfg %0" : : "m"(cfg));
}

static void om_qtask_end_512amx(void) { _tile_release(); }

static void om_qtile_512amx(size_t kq, const uint8_t* a, size_t lda, const int8_t* panel, const uint32_t* cs,
                            const uint32_t* zb, const uint32_t* za, const uint32_t* r, uint32_t* c, size_t ldc,
                            size_t mrows, size_t nvalid) {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (size_t q = 0; q < kq; q += 16) {
    _tile_loadd(4, a + q * 4, (long)lda);
    _tile_loadd(5, a + 16 * lda + q * 4, (long)lda);
    _tile_loadd(6, panel + q * 32 * 4, 128);
    _tile_loadd(7, panel + q * 32 * 4 + 64, 128);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  uint32_t acc[32][32];
  _tile_stored(0, &acc[0][0], 128);
  _tile_stored(1, &acc[0][16], 128);
  _tile_stored(2, &acc[16][0], 128);
  _tile_stored(3, &acc[16][16], 128);
  for (size_t i = 0; i < mrows; i++) {
    uint32_t tmp[32];
    uint32_t* out = nvalid == 32 ? c + i * ldc : tmp;
    for (int v = 0; v < 2; v++) {
      om_qv16 y = om_qld16(&acc[i][v * 16]) + om_qld16(zb + v * 16) * r[i] - om_qld16(cs + v * 16) * za[i];
      memcpy(out + v * 16, &y, sizeof y);
    }
    if (out == tmp) memcpy(c + i * ldc, tmp, nvalid * sizeof *tmp);
  }
}

const om_qgemm_kern om_qgemm_kern_512amx = {"512-amx", 32, 32, 16, om_qtile_512amx, om_qtask_begin_512amx,
                                            om_qtask_end_512amx, om_qgemm_prep_a_512, NULL};
#endif
