/* c_tool: standalone -O1 */
/* port_bench.c - the execution-unit numbers behind "Division" in docs/exact-transcendentals.md (not the
 * library's code):
 *
 *   tools/c_tool.py port_bench
 *
 * Each line is a loop of independent AVX-512 instructions written in assembly (so the compiler cannot change
 * them), timed over 20M iterations, in core cycles per iteration. The clock comes first, from a chain of
 * dependent IMUL (latency 3 cycles on every recent x86 core). Read: a VDIVPD of 8 doubles occupies the
 * divider for about 16-17 cycles, 24 independent FMAs run beside one VDIVPD at no extra cost, and VRCP14PD
 * costs about two cycles of the vector ports. The last four lines: VSCALEFPD, VPSLLQ and VPADDQ are one
 * vector-port operation each, VCVTPS2PD and VCVTPD2PS two (why the 512 path scales by VSCALEFPD, tr_exp_parts.inc). Needs AVX-512F (the instructions are in the asm text). */
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define F8                                                                                             \
  " vfmadd231pd %%zmm0,%%zmm0,%%zmm1\n vfmadd231pd %%zmm0,%%zmm0,%%zmm2\n vfmadd231pd %%zmm0,%%zmm0,%%zmm3\n" \
  " vfmadd231pd %%zmm0,%%zmm0,%%zmm4\n vfmadd231pd %%zmm0,%%zmm0,%%zmm5\n vfmadd231pd %%zmm0,%%zmm0,%%zmm6\n" \
  " vfmadd231pd %%zmm0,%%zmm0,%%zmm7\n vfmadd231pd %%zmm0,%%zmm0,%%zmm8\n"
#define DIV " vdivpd %%zmm0,%%zmm9,%%zmm10\n"
/* Four independent instructions each (destinations zmm1-zmm4, not read), for the cost of other operations beside
 * 16 FMAs (8 cycles alone): a one-operation instruction adds 0.5 cycle each, a two-operation one 1 cycle. */
#define SCALEF4 " vscalefpd %%zmm0,%%zmm9,%%zmm1\n vscalefpd %%zmm0,%%zmm9,%%zmm2\n vscalefpd %%zmm0,%%zmm9,%%zmm3\n vscalefpd %%zmm0,%%zmm9,%%zmm4\n"
#define SHLADD4 " vpsllq $3,%%zmm0,%%zmm1\n vpaddq %%zmm0,%%zmm9,%%zmm2\n vpsllq $3,%%zmm0,%%zmm3\n vpaddq %%zmm0,%%zmm9,%%zmm4\n"
#define CVTW4 " vcvtps2pd %%ymm0,%%zmm1\n vcvtps2pd %%ymm0,%%zmm2\n vcvtps2pd %%ymm0,%%zmm3\n vcvtps2pd %%ymm0,%%zmm4\n"
#define CVTN4 " vcvtpd2ps %%zmm0,%%ymm1\n vcvtpd2ps %%zmm0,%%ymm2\n vcvtpd2ps %%zmm0,%%ymm3\n vcvtpd2ps %%zmm0,%%ymm4\n"
#define RCP2 " vrcp14pd %%zmm9,%%zmm10\n vrcp14pd %%zmm9,%%zmm11\n"
#define RUN(NAME, BODY)                                                                                   \
  do {                                                                                                    \
    double t0 = now();                                                                                    \
    __asm__ volatile("vbroadcastsd %1,%%zmm0\n vmovapd %%zmm0,%%zmm9\n mov %0,%%rcx\n1:\n" BODY             \
                     " sub $1,%%rcx\n jnz 1b\n"                                                           \
                     :                                                                                    \
                     : "r"(iters), "m"(one)                                                               \
                     : "rcx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
                       "xmm10", "xmm11");                                                                 \
    printf("%-26s %6.2f cycles per iteration\n", NAME, (now() - t0) * hz / (double)iters);               \
  } while (0)

int main(void) {
  const long iters = 20000000;
  const double one = 1.0;
  double t0 = now();
  __asm__ volatile("mov %0,%%rcx\n mov $3,%%rax\n1:\n imul %%rax,%%rax\n imul %%rax,%%rax\n imul %%rax,%%rax\n"
                   " imul %%rax,%%rax\n sub $1,%%rcx\n jnz 1b\n"
                   :
                   : "r"(5 * iters)
                   : "rcx", "rax");
  const double hz = 3.0 * 4.0 * 5.0 * (double)iters / (now() - t0);
  printf("clock (dependent IMUL, 3 cycles each): %.2f GHz\n", hz * 1e-9);
  RUN("VDIVPD zmm", DIV);
  RUN("16 FMA zmm", F8 F8);
  RUN("VDIVPD + 16 FMA", DIV F8 F8);
  RUN("VDIVPD + 24 FMA", DIV F8 F8 F8);
  RUN("32 FMA zmm", F8 F8 F8 F8);
  RUN("VDIVPD + 32 FMA", DIV F8 F8 F8 F8);
  RUN("2 VDIVPD + 48 FMA", DIV DIV F8 F8 F8 F8 F8 F8);
  RUN("8 VRCP14PD zmm", RCP2 RCP2 RCP2 RCP2);
  RUN("8 VRCP14PD + 16 FMA", RCP2 RCP2 RCP2 RCP2 F8 F8);
  RUN("8 VSCALEFPD + 16 FMA", SCALEF4 SCALEF4 F8 F8);
  RUN("4 VPSLLQ 4 VPADDQ + 16 FMA", SHLADD4 SHLADD4 F8 F8);
  RUN("8 VCVTPS2PD + 16 FMA", CVTW4 CVTW4 F8 F8);
  RUN("8 VCVTPD2PS + 16 FMA", CVTN4 CVTN4 F8 F8);
  return 0;
}
