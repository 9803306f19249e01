/* tr_digest.c - digests of the f32 transcendental kernels' outputs over every f32 input (or a stride of them),
 * per 2^24-input shard, to compare two machines bit for bit without a reference.
 *
 * Build and run through tools/c_tool.py tr_digest (the library's sources and compile flags, as tools/verify/cr_verify.sh):
 *
 *   tools/c_tool.py tr_digest -p 512 exp tanh > x86.txt           # all 2^32 inputs of Exp and Tanh, exact mode
 *   tools/c_tool.py tr_digest -p 128 -t 61 log erf > arm.txt      # every 61st input
 *   tools/c_tool.py tr_digest -p 128 -f -r 0 0x1000000 exp         # fast mode, the first shard only
 *   tools/c_tool.py tr_digest -p 128 -t 61 -a 0.5 celu > arm.txt  # Celu with alpha 0.5
 *   diff x86.txt arm.txt                                   # no output: the same bits everywhere
 *
 * A kernel whose results were checked against MPFR for every input on one machine (tools/verify/cr_verify.sh) is then
 * correctly rounded on another machine with the same digests: the digests cover every output bit (FNV-1a with
 * 32-bit words: the results in input order, of the inputs lo, lo + stride, ... of each shard). Output: one line per
 * shard ("func mode shard inputs digest"), then one per function over all its shards; the path is not part of
 * a line, so digests of different paths compare with diff. Far cheaper than cr_verify under emulation: no
 * reference is computed, only the kernel runs (the same calls the library makes: the path's vector kernel,
 * the one-lane kernel for the tail).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"

/* The unary kernels, then the binary ones whose operand b is a broadcast parameter pair (Elu, Selu, Celu: the f32
 * alpha, then Selu's gamma; the ONNX defaults unless -a gives alpha). */
enum {
  F_EXP,
  F_LOG,
  F_TANH,
  F_SIGMOID,
  F_ERF,
  F_GELU_ERF,
  F_GELU_TANH,
  F_SIN,
  F_COS,
  F_SOFTPLUS,
  F_MISH,
  F_ELU,
  F_SELU,
  F_CELU,
  F_COUNT
};
#define F_FIRST_BIN F_ELU
static const char* const fnames[F_COUNT] = {"exp", "log",  "tanh",     "sigmoid", "erf", "gelu_erf", "gelu_tanh",
                                            "sin", "cos",  "softplus", "mish",    "elu", "selu",     "celu"};
static const int fkernel[F_COUNT] = {OM_K_EXP,      OM_K_LOG,       OM_K_TANH, OM_K_SIGMOID, OM_K_ERF,
                                     OM_K_GELU_ERF, OM_K_GELU_TANH, OM_K_SIN,  OM_K_COS,     OM_K_SOFTPLUS,
                                     OM_K_MISH,     OM_K_ELU,       OM_K_SELU, OM_K_CELU};
/* alpha (ONNX's defaults; -a sets it), then gamma (Selu) */
static float fparam[2] = {0, 1.05070102214813232421875f};

#define SHARD_BITS 24
#define NSHARDS (1u << (32 - SHARD_BITS))
#define BLOCK 4096u

static uint64_t fnv_words(uint64_t h, const uint32_t* w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= w[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Digest and input count of the inputs lo, lo + stride, ... below hi (64-bit bounds: hi may be 2^32). */
static uint64_t digest_range(int path, int func, unsigned flags, uint64_t lo, uint64_t hi, uint64_t stride,
                             uint64_t* count) {
  static float in[BLOCK], out[BLOCK];
  const int bin = func >= F_FIRST_BIN;
  const om_un_fn fn = bin ? 0 : om_path_table(path)->un[fkernel[func]][OM_T_FLOAT];
  const om_un_fn tail = bin ? 0 : om_path_table(OM_PATH_SCALAR)->un[fkernel[func]][OM_T_FLOAT];
  const om_bin_fn bfn = bin ? om_path_table(path)->bin[fkernel[func]][OM_T_FLOAT] : 0;
  const om_bin_fn btail = bin ? om_path_table(OM_PATH_SCALAR)->bin[fkernel[func]][OM_T_FLOAT] : 0;
  uint64_t h = 0xcbf29ce484222325ull, c = 0;
  for (uint64_t b = lo; b < hi;) {
    size_t n = 0;
    for (; n < BLOCK && b < hi; n++, b += stride) {
      uint32_t u = (uint32_t)b;
      memcpy(&in[n], &u, 4);
    }
    if (bin) { /* bcast bit 1: operand b is one element (the parameters), as the library calls it */
      size_t done = bfn(in, fparam, out, n, 2u, flags);
      if (done < n) btail(in + done, fparam, out + done, n - done, 2u, flags);
    } else {
      size_t done = fn(in, out, n, flags);
      if (done < n) tail(in + done, out + done, n - done, flags);
    }
    h = fnv_words(h, (const uint32_t*)(const void*)out, n);
    c += n;
  }
  *count = c;
  return h;
}

int main(int argc, char** argv) {
  int path = om_path_best(), jobs = 1, fast = 0, have_alpha = 0;
  float alpha = 0;
  uint64_t lo = 0, hi = 1ull << 32, stride = 1;
  int a = 1;
  for (; a < argc && argv[a][0] == '-'; a++) {
    if (!strcmp(argv[a], "-p") && a + 1 < argc) {
      path = om_path_from_name(argv[++a]);
      if (path < 0 || !om_path_available(path)) {
        fprintf(stderr, "tr_digest: path %s is not available here\n", argv[a]);
        return 2;
      }
    } else if (!strcmp(argv[a], "-j") && a + 1 < argc) {
      jobs = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-f")) {
      fast = 1;
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      stride = strtoull(argv[++a], 0, 0);
    } else if (!strcmp(argv[a], "-a") && a + 1 < argc) {
      alpha = strtof(argv[++a], 0);
      have_alpha = 1;
    } else if (!strcmp(argv[a], "-r") && a + 2 < argc) {
      lo = strtoull(argv[++a], 0, 0);
      hi = strtoull(argv[++a], 0, 0);
    } else {
      break;
    }
  }
  if (a >= argc || jobs < 1 || stride < 1 || lo >= hi || hi > (1ull << 32) ||
      (have_alpha && (!(alpha - alpha == 0) || alpha == 0))) {
    fprintf(stderr, "usage: tr_digest [-p path] [-j jobs] [-f] [-t stride] [-r lo hi] [-a alpha] FUNC...\n"
                    "  FUNC: exp log tanh sigmoid erf gelu_erf gelu_tanh sin cos softplus mish elu selu celu\n"
                    "  -a: the alpha of elu, selu, celu (finite, not 0; default ONNX's)\n");
    return 2;
  }
  const unsigned flags = fast ? 0u : OM_FL_EXACT;
  const char* mode = fast ? "fast" : "exact";
  fprintf(stderr, "tr_digest: path %s, %s, inputs [%#llx, %#llx) stride %llu, %d jobs\n", om_path_name(path), mode,
          (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)stride, jobs);
  for (; a < argc; a++) {
    int func = -1;
    for (int f = 0; f < F_COUNT; f++)
      if (!strcmp(argv[a], fnames[f])) func = f;
    if (func < 0) {
      fprintf(stderr, "tr_digest: unknown function %s\n", argv[a]);
      return 2;
    }
    fparam[0] = have_alpha ? alpha : func == F_SELU ? 1.67326319217681884765625f : 1.0f;
    /* Shards in [s0, s1) touch [lo, hi); each worker takes every jobs-th shard and writes its lines to a
     * shared array, printed in shard order by the parent. */
    const uint64_t shard = 1ull << SHARD_BITS;
    const unsigned s0 = (unsigned)(lo / shard), s1 = (unsigned)((hi + shard - 1) / shard);
    static uint64_t dig[NSHARDS], cnt[NSHARDS];
    int fds[64][2];
    if (jobs > 64) jobs = 64;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int w = 0; w < jobs; w++) {
      if (pipe(fds[w]) != 0) return 1;
      pid_t pid = fork();
      if (pid < 0) return 1;
      if (pid == 0) {
        close(fds[w][0]);
        for (unsigned s = s0 + (unsigned)w; s < s1; s += (unsigned)jobs) {
          uint64_t a0 = (uint64_t)s * shard, a1 = a0 + shard;
          if (a0 < lo) a0 = lo;
          if (a1 > hi) a1 = hi;
          /* the first input of the stride at or after a0, counted from lo */
          uint64_t first = lo + (a0 - lo + stride - 1) / stride * stride;
          uint64_t rec[3] = {s, 0, 0};
          rec[1] = first < a1 ? digest_range(path, func, flags, first, a1, stride, &rec[2]) : 0;
          if (write(fds[w][1], rec, sizeof rec) != (ssize_t)sizeof rec) _exit(1);
        }
        _exit(0);
      }
      close(fds[w][1]);
    }
    for (int w = 0; w < jobs; w++) {
      uint64_t rec[3];
      while (read(fds[w][0], rec, sizeof rec) == (ssize_t)sizeof rec) {
        dig[rec[0]] = rec[1];
        cnt[rec[0]] = rec[2];
      }
      close(fds[w][0]);
    }
    int bad = 0;
    for (int w = 0; w < jobs; w++) {
      int st = 0;
      wait(&st);
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad = 1;
    }
    if (bad) {
      fprintf(stderr, "tr_digest: a worker failed\n");
      return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t all = 0xcbf29ce484222325ull, total = 0;
    for (unsigned s = s0; s < s1; s++) {
      if (!cnt[s]) continue;
      printf("%s %s shard %03u inputs %llu digest %016llx\n", fnames[func], mode, s, (unsigned long long)cnt[s],
             (unsigned long long)dig[s]);
      uint32_t d2[2] = {(uint32_t)dig[s], (uint32_t)(dig[s] >> 32)};
      all = fnv_words(all, d2, 2);
      total += cnt[s];
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s %s all inputs %llu digest %016llx\n", fnames[func], mode, (unsigned long long)total,
           (unsigned long long)all);
    fflush(stdout);
    fprintf(stderr, "tr_digest: %s %s: %llu inputs in %.1f s (%.2f M/s)\n", fnames[func], mode,
            (unsigned long long)total, secs, (double)total / secs * 1e-6);
    memset(cnt, 0, sizeof cnt);
  }
  return 0;
}
