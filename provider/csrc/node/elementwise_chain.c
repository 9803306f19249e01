/* elementwise_chain.c - a chain of element-wise nodes run as one (elementwise_chain.h).
 *
 * A chain may start with a structured producer (Conv, ConvTranspose, Gemm, MatMul, com.microsoft FusedMatMul):
 * it runs first, whole, through its own om_node_run into the chain's output buffer (or a buffer of its own when
 * its elements are wider), and each tile then copies its elements of that result into the producer's tile
 * buffer before the members run. A BatchNormalization member runs its own per-channel steps
 * (om_batchnorm_node_span) over the tile; an input broadcast along one run of axes (Conv's [C, 1, 1] bias, Gemm's
 * [C] bias) is gathered into a tile buffer, element q of the tile reading the input element the broadcast gives
 * it. Every kernel sees the same operand values as in the unfused run, so the bits are the same.
 *
 * The tiled run: the output's elements [0, total) are cut into chunks of OM_CHAIN_CHUNK elements (the parallel
 * unit, om_parallel_ieee) and each chunk into tiles of OM_CHAIN_TILE; for each tile, member after member in
 * chain order runs its own element-wise entry (om_elementwise_run_tile) over the tile's elements, reading the
 * chain's inputs at the tile's offset (or their one element), and earlier members' results from tile buffers
 * (reused once their last reader has run: two for a linear chain, on the stack); the last member writes the
 * output. Each kernel computes every element on its
 * own, whatever the element's position in a call (the vector body and the one-lane tail give the same bits), so
 * an element gets the same IEEE operations, on the same operand values, as when the members run one by one over
 * whole tensors: the bits are the same. Knows nothing of ORT. */
#include "elementwise_chain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast.h" /* OM_MAX_RANK */
#include "core/om_ops.h"
#include "elementwise.h"
#include "node_family.h"
#include "parallel.h"

struct om_chain {
  size_t n, n_ext;
  om_node* members[OM_CHAIN_MAX_MEMBERS];
  size_t n_inputs[OM_CHAIN_MAX_MEMBERS];
  om_chain_src srcs[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS];
  int in_types[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS]; /* each member input's element type, 0: absent */
  int producer; /* 1: member 0 is a structured producer (om_chain_is_producer) */
  char names[400]; /* "'a' (Add) -> 'b' (Exp) -> ...", for messages */
};

void om_chain_destroy(om_chain* chain) {
  if (!chain) return;
  for (size_t m = 0; m < chain->n; m++) om_node_destroy(chain->members[m]);
  free(chain);
}

static om_chain* om_chain_fail(om_node* const* members, size_t n, om_chain* c) {
  if (c) c->n = 0;
  free(c);
  for (size_t m = 0; m < n; m++) om_node_destroy(members[m]);
  return NULL;
}

om_chain* om_chain_create(om_node* const* members, const size_t* n_inputs, const om_chain_src* const* srcs,
                          size_t n, const int* ext_types, size_t n_ext, char* err, size_t errlen) {
  if (n == 0 || n > OM_CHAIN_MAX_MEMBERS) {
    snprintf(err, errlen, "a fused chain has %zu members, not 1 to %d", n, OM_CHAIN_MAX_MEMBERS);
    return om_chain_fail(members, n, NULL);
  }
  om_chain* c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "out of memory");
    return om_chain_fail(members, n, NULL);
  }
  c->n_ext = n_ext;
  size_t at = 0;
  for (size_t m = 0; m < n; m++) {
    const om_node* node = members[m];
    const char* op = node ? om_op_row(node->op)->name : "?";
    int w = snprintf(c->names + at, sizeof c->names - at, "%s'%s' (%s)", m ? " -> " : "", node ? node->name : "",
                     op);
    if (w > 0) at = at + (size_t)w < sizeof c->names ? at + (size_t)w : sizeof c->names - 1;
  }
  for (size_t m = 0; m < n; m++) {
    const om_node* node = members[m];
    int kind_ok = node && (!node->family || node->op == OM_OP_BATCH_NORMALIZATION ||
                           (m == 0 && om_chain_is_producer(node->op)));
    if (!kind_ok || n_inputs[m] > OM_CHAIN_MAX_INPUTS || n_inputs[m] != node->n_inputs) {
      snprintf(err, errlen, "fused chain %s: member %zu is not an element-wise node, a BatchNormalization or a "
               "leading Conv, ConvTranspose, Gemm, MatMul or FusedMatMul, of %zu inputs at most", c->names, m,
               (size_t)OM_CHAIN_MAX_INPUTS);
      return om_chain_fail(members, n, c);
    }
    c->n_inputs[m] = n_inputs[m];
    for (size_t k = 0; k < n_inputs[m]; k++) {
      om_chain_src s = srcs[m][k];
      if (s.member >= (int)m || (s.member < 0 && (s.index < -1 || s.index >= (int)n_ext))) {
        snprintf(err, errlen, "fused chain %s: member %zu input %zu has no source", c->names, m, k);
        return om_chain_fail(members, n, c);
      }
      c->srcs[m][k] = s;
      c->in_types[m][k] = s.member >= 0 ? om_node_output_type(members[s.member]) : s.index >= 0 ? ext_types[s.index]
                                                                                                 : 0;
    }
  }
  for (size_t m = 0; m < n; m++) c->members[m] = members[m];
  c->n = n;
  c->producer = om_chain_is_producer(members[0]->op);
  return c;
}

int om_chain_is_producer(int op) {
  return op == OM_OP_CONV || op == OM_OP_CONV_TRANSPOSE || op == OM_OP_GEMM || op == OM_OP_MATMUL ||
         op == OM_OP_FUSED_MATMUL;
}

int om_chain_output_type(const om_chain* chain) { return om_node_output_type(chain->members[chain->n - 1]); }

/* One call's member output shapes. */
typedef struct om_chain_shapes {
  int64_t dims[OM_CHAIN_MAX_MEMBERS][OM_MAX_RANK];
  size_t rank[OM_CHAIN_MAX_MEMBERS];
} om_chain_shapes;

/* Member m's inputs: the chain's (data, shapes, ranks), or an earlier member's output (its shape in sh; data
 * from member_out, or a non-NULL placeholder when NULL). */
static void om_chain_inputs(const om_chain* c, size_t m, const void* const* data, const int64_t* const* shapes,
                            const size_t* ranks, const om_chain_shapes* sh, void* const* member_out, const void** d,
                            const int64_t** s, size_t* r) {
  for (size_t k = 0; k < c->n_inputs[m]; k++) {
    om_chain_src src = c->srcs[m][k];
    if (src.member >= 0) {
      d[k] = member_out ? member_out[src.member] : (const void*)c;
      s[k] = sh->dims[src.member];
      r[k] = sh->rank[src.member];
    } else {
      d[k] = src.index >= 0 && data ? data[src.index] : NULL;
      s[k] = src.index >= 0 ? shapes[src.index] : NULL;
      r[k] = src.index >= 0 ? ranks[src.index] : 0;
    }
  }
}

static int om_chain_shapes_of(const om_chain* c, const int64_t* const* shapes, const size_t* ranks,
                              om_chain_shapes* sh, char* err, size_t errlen) {
  for (size_t m = 0; m < c->n; m++) {
    const void* d[OM_CHAIN_MAX_INPUTS];
    const int64_t* s[OM_CHAIN_MAX_INPUTS];
    size_t r[OM_CHAIN_MAX_INPUTS];
    om_chain_inputs(c, m, NULL, shapes, ranks, sh, NULL, d, s, r);
    char why[512];
    if (om_node_output_shape(c->members[m], c->n_inputs[m], s, r, sh->dims[m], &sh->rank[m], why, sizeof why) != 0) {
      snprintf(err, errlen, "fused chain %s: %s", c->names, why);
      return -1;
    }
  }
  return 0;
}

int om_chain_output_shape(const om_chain* chain, const int64_t* const* shapes, const size_t* ranks,
                          int64_t* out_shape, size_t* out_rank, char* err, size_t errlen) {
  om_chain_shapes* sh = malloc(sizeof *sh);
  if (!sh) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int r = om_chain_shapes_of(chain, shapes, ranks, sh, err, errlen);
  if (r == 0) {
    *out_rank = sh->rank[chain->n - 1];
    memcpy(out_shape, sh->dims[chain->n - 1], *out_rank * sizeof(int64_t));
  }
  free(sh);
  return r;
}

/* ---- the tiled run ----------------------------------------------------------------------------------------- */
enum { OM_SRC_NONE, OM_SRC_FULL, OM_SRC_ONE, OM_SRC_MEMBER, OM_SRC_PERIOD };

/* A BatchNormalization member's planes shorter than this send the chain to the whole-tensor run (a plane is
 * one call of the step): only speed, never bits, depends on it. */
#define OM_CHAIN_BN_MIN_PLANE ((size_t)64)

typedef struct om_chain_job {
  const om_chain* c;
  unsigned char how[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS]; /* OM_SRC_* */
  const char* base[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS];  /* FULL, ONE: the chain input's data */
  size_t esz[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS];
  size_t scratch_at[OM_CHAIN_MAX_MEMBERS]; /* member m's tile buffer in the chunk's scratch (all but the last) */
  size_t gather_at;                        /* PERIOD: input k's gathered tile at gather_at + k tiles */
  size_t period[OM_CHAIN_MAX_MEMBERS][OM_CHAIN_MAX_INPUTS][2]; /* PERIOD: (count, inner) of om_chain_periodic */
  double* bn_ch[OM_CHAIN_MAX_MEMBERS];     /* a BatchNormalization member's om_batchnorm_node_channels */
  size_t bn_c[OM_CHAIN_MAX_MEMBERS], bn_inner[OM_CHAIN_MAX_MEMBERS];
  const char* prod; /* the producer's whole result (member 0, when c->producer) */
  size_t prod_esz;
  size_t scratch_bytes;
  char* out;
  size_t osz, total;
  int failed;
} om_chain_job;

static const int64_t om_one_shape[1] = {1};

/* Output elements [t, t + len) of an input of `count` elements broadcast so that output element i reads its
 * element (i / inner) % count, gathered into dst (elements of esz bytes). */
static void om_chain_gather(char* dst, const char* src, size_t esz, size_t count, size_t inner, size_t t,
                            size_t len) {
  size_t blk = t / inner, in = t % inner, c = blk % count;
  for (size_t q = 0; q < len;) {
    if (inner == 1) { /* a contiguous run of the input */
      size_t n = count - c < len - q ? count - c : len - q;
      memcpy(dst + q * esz, src + c * esz, n * esz);
      q += n;
      c = 0;
      continue;
    }
    size_t n = inner - in < len - q ? inner - in : len - q;
    const char* v = src + c * esz;
    char* o = dst + q * esz;
    switch (esz) {
      case 2: for (size_t i = 0; i < n; i++) memcpy(o + 2 * i, v, 2); break;
      case 4: for (size_t i = 0; i < n; i++) memcpy(o + 4 * i, v, 4); break;
      case 8: for (size_t i = 0; i < n; i++) memcpy(o + 8 * i, v, 8); break;
      default: for (size_t i = 0; i < n; i++) memcpy(o + esz * i, v, esz); break;
    }
    q += n;
    in = 0;
    if (++c == count) c = 0;
  }
}

/* Scratch of up to this many bytes lives on the stack (two tiles of 8-byte elements: a linear chain's two
 * live buffers); more is allocated per chunk. */
#define OM_CHAIN_STACK_SCRATCH (2 * OM_CHAIN_TILE * 8)

static void om_chain_chunk(void* vjob, size_t i) {
  om_chain_job* j = vjob;
  const om_chain* c = j->c;
  size_t e, s = om_chunk_begin(i, OM_CHAIN_CHUNK, j->total, &e);
  _Alignas(64) char stack[OM_CHAIN_STACK_SCRATCH];
  char* scratch = j->scratch_bytes <= sizeof stack ? stack : malloc(j->scratch_bytes);
  if (!scratch) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (size_t t = s; t < e; t += OM_CHAIN_TILE) {
    size_t len = e - t < OM_CHAIN_TILE ? e - t : OM_CHAIN_TILE;
    int64_t len_shape[1] = {(int64_t)len};
    for (size_t m = 0; m < c->n; m++) {
      if (m == 0 && c->producer) { /* the producer's tile of its whole result */
        memcpy(scratch + j->scratch_at[0], j->prod + t * j->prod_esz, len * j->prod_esz);
        continue;
      }
      const void* d[OM_CHAIN_MAX_INPUTS];
      const int64_t* sh[OM_CHAIN_MAX_INPUTS];
      size_t rk[OM_CHAIN_MAX_INPUTS];
      for (size_t k = 0; k < c->n_inputs[m]; k++) {
        switch (j->how[m][k]) {
          case OM_SRC_FULL: d[k] = j->base[m][k] + t * j->esz[m][k]; sh[k] = len_shape; rk[k] = 1; break;
          case OM_SRC_ONE: d[k] = j->base[m][k]; sh[k] = om_one_shape; rk[k] = 0; break;
          case OM_SRC_MEMBER:
            d[k] = scratch + j->scratch_at[c->srcs[m][k].member];
            sh[k] = len_shape;
            rk[k] = 1;
            break;
          case OM_SRC_PERIOD:
            d[k] = scratch + j->gather_at + k * OM_CHAIN_TILE * 8;
            om_chain_gather((char*)d[k], j->base[m][k], j->esz[m][k], j->period[m][k][0], j->period[m][k][1], t,
                            len);
            sh[k] = len_shape;
            rk[k] = 1;
            break;
          default: d[k] = NULL; sh[k] = NULL; rk[k] = 0; break;
        }
      }
      void* o = m + 1 == c->n ? j->out + t * j->osz : scratch + j->scratch_at[m];
      if (j->bn_ch[m]) om_batchnorm_node_span(c->members[m], j->bn_ch[m], j->bn_c[m], j->bn_inner[m], t, d[0], o, len);
      else om_elementwise_run_tile(c->members[m], c->n_inputs[m], d, sh, rk, o, len);
    }
  }
  if (scratch != stack) free(scratch);
}

static int om_same_shape(const int64_t* a, size_t ra, const int64_t* b, size_t rb) {
  return ra == rb && (ra == 0 || memcmp(a, b, ra * sizeof *a) == 0);
}

/* An input of shape (s, r) broadcast to the output (fin, frank) whose dimensions other than 1 form one run of
 * axes, equal to the output's there: output element i reads input element (i / inner) % count. 1 with count
 * and inner, else 0. */
static int om_chain_periodic(const int64_t* s, size_t r, const int64_t* fin, size_t frank, size_t* count,
                             size_t* inner) {
  if (r > frank) return 0;
  size_t off = frank - r, a = r, b = 0;
  for (size_t d = 0; d < r; d++)
    if (s[d] != 1) {
      if (a == r) a = d;
      b = d;
    }
  if (a == r) return 0;
  *count = 1;
  for (size_t d = a; d <= b; d++) {
    if (s[d] != fin[off + d]) return 0;
    *count *= (size_t)s[d];
  }
  *inner = om_shape_count(fin + off + b + 1, frank - off - b - 1);
  return *inner > 0;
}

/* A BatchNormalization member m: its per-channel values from the chain's inputs 1..4; 1, or 0 (the whole run). */
static int om_chain_plan_bn(const om_chain* c, size_t m, const void* const* data, const int64_t* fin, size_t frank,
                            om_chain_job* j) {
  if (frank < 2 || c->n_inputs[m] != 5) return 0;
  size_t channels = (size_t)fin[1], inner = om_shape_count(fin + 2, frank - 2);
  if (inner < OM_CHAIN_BN_MIN_PLANE) return 0;
  const void* p[5];
  for (size_t k = 1; k < 5; k++) {
    om_chain_src src = c->srcs[m][k];
    if (src.member >= 0 || src.index < 0 || !data[src.index]) return 0;
    p[k] = data[src.index];
    j->how[m][k] = OM_SRC_NONE;
  }
  j->bn_ch[m] = malloc((channels ? channels : 1) * 3 * sizeof(double));
  if (!j->bn_ch[m]) return 0;
  om_batchnorm_node_channels(c->members[m], channels, p[1], p[2], p[3], p[4], j->bn_ch[m]);
  j->bn_c[m] = channels;
  j->bn_inner[m] = inner;
  return 1;
}

/* Fill the job's sources: 1 when every member's output has the chain's output shape and every input read is
 * that shape, one element or a run of axes broadcast (the tiled run applies), else 0. */
static int om_chain_plan(const om_chain* c, const void* const* data, const int64_t* const* shapes,
                         const size_t* ranks, const om_chain_shapes* sh, om_chain_job* j) {
  const int64_t* fin = sh->dims[c->n - 1];
  size_t frank = sh->rank[c->n - 1], n_gather = 0;
  for (size_t m = 0; m < c->n; m++) {
    const om_node* node = c->members[m];
    if (!om_same_shape(sh->dims[m], sh->rank[m], fin, frank) || om_type_size(om_node_output_type(node)) > 8)
      return 0;
    if (m == 0 && c->producer) continue; /* run whole before the tiles */
    if (node->op == OM_OP_BATCH_NORMALIZATION && !om_chain_plan_bn(c, m, data, fin, frank, j)) return 0;
    size_t gathered = 0;
    for (size_t k = 0; k < c->n_inputs[m]; k++) {
      om_chain_src src = c->srcs[m][k];
      if (j->bn_ch[m] && k > 0) continue;
      j->esz[m][k] = om_type_size(c->in_types[m][k]);
      if (om_node_input_type_only(node, k)) j->how[m][k] = OM_SRC_NONE;
      else if (src.member >= 0) j->how[m][k] = OM_SRC_MEMBER;
      else if (src.index < 0 || !shapes[src.index]) j->how[m][k] = OM_SRC_NONE;
      else {
        j->base[m][k] = data[src.index];
        if (om_shape_count(shapes[src.index], ranks[src.index]) == 1) j->how[m][k] = OM_SRC_ONE;
        else if (om_same_shape(shapes[src.index], ranks[src.index], fin, frank)) j->how[m][k] = OM_SRC_FULL;
        else if (!j->bn_ch[m] && om_chain_periodic(shapes[src.index], ranks[src.index], fin, frank,
                                                   &j->period[m][k][0], &j->period[m][k][1])) {
          j->how[m][k] = OM_SRC_PERIOD;
          gathered = k + 1;
        } else return 0;
      }
    }
    if (gathered > n_gather) n_gather = gathered;
  }
  /* Tile buffers by liveness: member m's buffer is free again once the last member reading it has run, so a
   * linear chain needs two, whatever its length. Each slot holds a tile of 8-byte elements. */
  size_t slot_free_after[OM_CHAIN_MAX_MEMBERS], n_slots = 0; /* the member after which each slot is free */
  for (size_t m = 0; m + 1 < c->n; m++) {
    size_t last = m;
    for (size_t r = m + 1; r < c->n; r++)
      for (size_t k = 0; k < c->n_inputs[r]; k++)
        if (c->srcs[r][k].member == (int)m) last = r;
    size_t slot = n_slots;
    for (size_t q = 0; q < n_slots; q++)
      if (slot_free_after[q] < m) { /* its last reader ran before m: m may write it */
        slot = q;
        break;
      }
    if (slot == n_slots) n_slots++;
    slot_free_after[slot] = last;
    j->scratch_at[m] = slot * OM_CHAIN_TILE * 8;
  }
  j->gather_at = n_slots * OM_CHAIN_TILE * 8;
  n_slots += n_gather;
  j->scratch_bytes = n_slots ? n_slots * OM_CHAIN_TILE * 8 : 1;
  return 1;
}

/* Member by member over whole intermediate tensors: a chain whose shapes the tiled run does not take. */
static int om_chain_run_whole(const om_chain* c, const void* const* data, const int64_t* const* shapes,
                              const size_t* ranks, const om_chain_shapes* sh, void* out, om_parallel_for_fn pf,
                              void* host, char* err, size_t errlen) {
  void* mid[OM_CHAIN_MAX_MEMBERS] = {0};
  int r = 0;
  for (size_t m = 0; r == 0 && m < c->n; m++) {
    size_t bytes = om_shape_count(sh->dims[m], sh->rank[m]) * om_type_size(om_node_output_type(c->members[m]));
    mid[m] = m + 1 == c->n ? out : malloc(bytes ? bytes : 1);
    if (!mid[m]) {
      snprintf(err, errlen, "fused chain %s: out of memory", c->names);
      r = -1;
      break;
    }
    const void* d[OM_CHAIN_MAX_INPUTS];
    const int64_t* s[OM_CHAIN_MAX_INPUTS];
    size_t rk[OM_CHAIN_MAX_INPUTS];
    om_chain_inputs(c, m, data, shapes, ranks, sh, mid, d, s, rk);
    char why[512];
    if (om_node_run(c->members[m], c->n_inputs[m], d, s, rk, mid[m], sh->dims[m], sh->rank[m], pf, host, why,
                    sizeof why) != 0) {
      snprintf(err, errlen, "fused chain %s: %s", c->names, why);
      r = -1;
    }
  }
  for (size_t m = 0; m + 1 < c->n; m++) free(mid[m]);
  return r;
}

/* The producer (member 0) over the whole output, into the chain's output buffer when its elements fit there,
 * else into a buffer of its own (*own, freed by the caller). */
static int om_chain_run_producer(const om_chain* c, const void* const* data, const int64_t* const* shapes,
                                 const size_t* ranks, const om_chain_shapes* sh, om_chain_job* j, void** own,
                                 om_parallel_for_fn pf, void* host, char* err, size_t errlen) {
  j->prod_esz = om_type_size(om_node_output_type(c->members[0]));
  void* buf = j->out;
  if (j->prod_esz > j->osz) buf = *own = malloc(j->total * j->prod_esz);
  if (!buf) {
    snprintf(err, errlen, "fused chain %s: out of memory", c->names);
    return -1;
  }
  const void* d[OM_CHAIN_MAX_INPUTS];
  const int64_t* s[OM_CHAIN_MAX_INPUTS];
  size_t rk[OM_CHAIN_MAX_INPUTS];
  char why[512];
  om_chain_inputs(c, 0, data, shapes, ranks, sh, NULL, d, s, rk);
  if (om_node_run(c->members[0], c->n_inputs[0], d, s, rk, buf, sh->dims[0], sh->rank[0], pf, host, why,
                  sizeof why) != 0) {
    snprintf(err, errlen, "fused chain %s: %s", c->names, why);
    return -1;
  }
  j->prod = buf;
  return 0;
}

int om_chain_run(const om_chain* chain, const void* const* data, const int64_t* const* shapes, const size_t* ranks,
                 void* out, om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen) {
  const om_chain* c = chain;
  om_chain_shapes* sh = malloc(sizeof *sh);
  om_chain_job* j = calloc(1, sizeof *j);
  int r = sh && j ? 0 : -1;
  if (r) snprintf(err, errlen, "out of memory");
  if (!r) r = om_chain_shapes_of(c, shapes, ranks, sh, err, errlen);
  for (size_t m = 0; !r && m < c->n; m++) {
    const void* d[OM_CHAIN_MAX_INPUTS];
    const int64_t* s[OM_CHAIN_MAX_INPUTS];
    size_t rk[OM_CHAIN_MAX_INPUTS];
    char why[512];
    om_chain_inputs(c, m, data, shapes, ranks, sh, NULL, d, s, rk);
    if (c->members[m]->family) continue; /* a producer or BatchNormalization: its own run checks */
    if (om_elementwise_inputs_present(c->members[m], c->n_inputs[m], d, why, sizeof why) != 0) {
      snprintf(err, errlen, "fused chain %s: %s", c->names, why);
      r = -1;
    }
  }
  size_t total = r ? 0 : om_shape_count(sh->dims[c->n - 1], sh->rank[c->n - 1]);
  void* prod_own = NULL;
  if (!r && total > 0) {
    if (om_chain_plan(c, data, shapes, ranks, sh, j)) {
      j->c = c;
      j->out = out;
      j->osz = om_type_size(om_chain_output_type(c));
      j->total = total;
      if (c->producer) r = om_chain_run_producer(c, data, shapes, ranks, sh, j, &prod_own, parallel_for, host_ctx,
                                                 err, errlen);
      if (!r) om_parallel_ieee(parallel_for, host_ctx, (total + OM_CHAIN_CHUNK - 1) / OM_CHAIN_CHUNK, om_chain_chunk,
                               j);
      if (!r && j->failed) {
        snprintf(err, errlen, "fused chain %s: out of memory", c->names);
        r = -1;
      }
    } else {
      r = om_chain_run_whole(c, data, shapes, ranks, sh, out, parallel_for, host_ctx, err, errlen);
    }
  }
  if (j)
    for (size_t m = 0; m < c->n; m++) free(j->bn_ch[m]);
  free(prod_own);
  free(sh);
  free(j);
  return r;
}
