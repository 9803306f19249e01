/* node_rnn.c - RNN, LSTM and GRU nodes (f32; f16 widened exactly to f32, the f32 steps, the outputs rounded
 * once; double: the same steps in binary64): attributes, shapes, the time loop (rnn_run_body.inc, once per
 * element type); docs/recurrent.md.
 *
 * Per direction: the input products of every step at once (one om_gemm over the T*N rows of X, the bias sum
 * as its C), then per step the state products (one om_gemm over the batch's rows) and the rest of the step
 * per row (rnn/rnn_step.c). Every element is its own dot product, so a row's bits depend on that row alone.
 * A constant W or R (an initializer) is packed once at creation. The activations (rnn/rnn_act.h) are read from
 * the node's lists at creation. Not served (refused at creation, so the node stays with stock ORT): other
 * element types; for double, Elu and Softplus (rnn_act.h); an unknown activation, a list of the wrong length,
 * a parameter neither given nor defaulted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "core/om_types.h"
#include "gemm/gemm.h"
#include "math/om_half.h"
#include "node_family.h"
#include "rnn/rnn_step.h"

enum { OM_RNN_LSTM, OM_RNN_GRU, OM_RNN_RNN };
enum { OM_RNN_IN_B = 3, OM_RNN_IN_SEQ = 4, OM_RNN_IN_H0 = 5, OM_RNN_IN_C0 = 6, OM_RNN_IN_P = 7 };

typedef struct om_rnn {
  int kind, gates, dirs, direction, layout, lbr, has_clip, input_forget;
  float clip;
  om_rnn_act acts[2][3]; /* per direction: f, g, h (om_rnn_acts) */
  int64_t hidden;
  om_gemm_packed* w[2];  /* W[d]^T: K = input_size, N = gates * hidden */
  om_gemm_packed* r[2];  /* R[d]^T: K = hidden, N = the state-product columns (om_rnn_state_cols) */
  om_gemm_packed* rh[2]; /* GRU, linear_before_reset = 0: R_h[d]^T, N = hidden */
  int64_t w_k;           /* the packed W's input_size */
} om_rnn;

typedef struct om_rnn_dims {
  int64_t T, N, I, H;
} om_rnn_dims;

static const char* om_rnn_op(const om_node* node) { return om_op_row(node->op)->name; }

/* The columns of the per-step state product: GRU with linear_before_reset = 0 takes gates z and r only (its
 * h gate multiplies the reset state, a second product). */
static int64_t om_rnn_state_cols(const om_rnn* r) {
  return (r->kind == OM_RNN_GRU && !r->lbr ? 2 : r->gates) * r->hidden;
}

/* The activations of a direction by kind (LSTM, GRU, RNN): how many, and the defaults. */
static const int om_rnn_per_dir[3] = {3, 2, 1};
static const int om_rnn_default_acts[3][3] = {{OM_RNN_ACT_SIGMOID, OM_RNN_ACT_TANH, OM_RNN_ACT_TANH},
                                              {OM_RNN_ACT_SIGMOID, OM_RNN_ACT_TANH, 0},
                                              {OM_RNN_ACT_TANH, 0, 0}};

/* r->acts from `activations`, `activation_alpha` and `activation_beta` (docs/recurrent.md, "Activations"). */
static int om_rnn_create_acts(om_node* node, om_rnn* r, const om_attrs* a, char* err, size_t errlen) {
  const char *nn = node->name, *op = om_rnn_op(node);
  const int per = om_rnn_per_dir[r->kind];
  size_t n = a->n_rnn_acts, want = (size_t)(per * r->dirs);
  if (n == 0) {
    for (int d = 0; d < 2; d++)
      for (int q = 0; q < 3; q++) r->acts[d][q] = (om_rnn_act){om_rnn_default_acts[r->kind][q], 0.0f, 0.0f};
    return 0;
  }
  if (n == (size_t)-1)
    OM_FAIL_MSG("node '%s' (op %s): attribute activations cannot be read on this ONNX Runtime (1.30 or newer reads "
                "it)", nn, op);
  if (r->kind == OM_RNN_RNN && n == 2 && r->dirs == 1) n = 1; /* the schema's default, ["Tanh", "Tanh"]: ORT's rule */
  if (n != want)
    OM_FAIL_MSG("node '%s' (op %s): attribute activations has %zu entries, expected %zu (%d per direction)", nn, op,
                a->n_rnn_acts, want, per);
  size_t used[2] = {0, 0};
  const float* lists[2] = {a->rnn_act_alpha, a->rnn_act_beta};
  const size_t listed[2] = {a->n_rnn_act_alpha, a->n_rnn_act_beta};
  for (size_t q = 0; q < n; q++) {
    int kind = a->rnn_acts[q];
    if (kind <= 0 || kind >= OM_RNN_ACT_END)
      OM_FAIL_MSG("node '%s' (op %s): activations[%zu] is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                  "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus", nn, op, q);
    om_rnn_act act = {kind, 0.0f, 0.0f};
    for (int which = 0; which < 2; which++) {
      if (!(om_rnn_act_params(kind) & (1u << which))) continue;
      float* v = which ? &act.beta : &act.alpha;
      if (used[which] < listed[which] && used[which] < 8) *v = lists[which][used[which]++];
      else if (!om_rnn_act_default(kind, which, v))
        OM_FAIL_MSG("node '%s' (op %s): activation %s (activations[%zu]) needs its %s: activation_%s has no entry "
                    "left for it", nn, op, om_rnn_act_name(kind), q, which ? "beta" : "alpha",
                    which ? "beta" : "alpha");
    }
    r->acts[q / (size_t)per][q % (size_t)per] = act;
  }
  return 0;
}

static int om_rnn_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_rnn* r = node->impl;
  const char *nn = node->name, *op = om_rnn_op(node);
  r->kind = node->op == OM_OP_LSTM ? OM_RNN_LSTM : node->op == OM_OP_GRU ? OM_RNN_GRU : OM_RNN_RNN;
  r->gates = r->kind == OM_RNN_LSTM ? 4 : r->kind == OM_RNN_GRU ? 3 : 1;
  if (node->type != OM_T_FLOAT && node->type != OM_T_FLOAT16 && node->type != OM_T_DOUBLE)
    OM_FAIL_MSG("node '%s' (op %s): element type %s is not served (float16, float and double)", nn, op,
                om_type_name(node->type));
  for (size_t k = 1; k < node->n_inputs; k++) {
    int t = node->input_types[k], want = k == OM_RNN_IN_SEQ ? OM_T_INT32 : node->type;
    if (t && t != want)
      OM_FAIL_MSG("node '%s' (op %s): input %zu must be %s, got %s", nn, op, k, om_type_name(want), om_type_name(t));
  }
  if (!a->has_hidden_size || a->hidden_size <= 0 || a->hidden_size > ((int64_t)1 << 24))
    OM_FAIL_MSG("node '%s' (op %s): attribute hidden_size must be given, between 1 and 2^24", nn, op);
  if (a->rnn_direction < 0 || a->rnn_direction > 2)
    OM_FAIL_MSG("node '%s' (op %s): attribute direction must be forward, reverse or bidirectional", nn, op);
  if (a->has_layout && a->layout != 0 && a->layout != 1)
    OM_FAIL_MSG("node '%s' (op %s): attribute layout must be 0 or 1, got %lld", nn, op, (long long)a->layout);
  if (r->kind == OM_RNN_LSTM && a->has_input_forget && a->input_forget != 0 && a->input_forget != 1)
    OM_FAIL_MSG("node '%s' (op %s): attribute input_forget must be 0 or 1, got %lld", nn, op,
                (long long)a->input_forget);
  if (r->kind == OM_RNN_GRU && a->has_linear_before_reset && a->linear_before_reset != 0 &&
      a->linear_before_reset != 1)
    OM_FAIL_MSG("node '%s' (op %s): attribute linear_before_reset must be 0 or 1, got %lld", nn, op,
                (long long)a->linear_before_reset);
  if (a->has_clip && !(a->clip > 0.0f))
    OM_FAIL_MSG("node '%s' (op %s): attribute clip must be positive, got %g", nn, op, (double)a->clip);
  r->hidden = a->hidden_size;
  r->direction = a->rnn_direction;
  r->dirs = r->direction == 2 ? 2 : 1;
  r->layout = a->has_layout ? (int)a->layout : 0;
  r->lbr = r->kind == OM_RNN_GRU && a->has_linear_before_reset ? (int)a->linear_before_reset : 0;
  r->has_clip = a->has_clip;
  r->clip = a->clip;
  r->input_forget = r->kind == OM_RNN_LSTM && a->has_input_forget ? (int)a->input_forget : 0;
  if (om_rnn_create_acts(node, r, a, err, errlen) != 0) return -1;
  for (int q = 0; node->type == OM_T_DOUBLE && q < om_rnn_per_dir[r->kind] * r->dirs; q++) {
    int kind = r->acts[q / om_rnn_per_dir[r->kind]][q % om_rnn_per_dir[r->kind]].kind;
    if (!om_rnn_act_f64_served(kind))
      OM_FAIL_MSG("node '%s' (op %s): activation %s is not served for double (no correctly rounded binary64 "
                  "kernel for it in the library)", nn, op, om_rnn_act_name(kind));
  }
  for (size_t k = 0; k < node->n_outputs; k++) node->out_types[k] = node->type;
  return 0;
}

static void om_rnn_destroy(om_node* node) {
  om_rnn* r = node->impl;
  if (r)
    for (int d = 0; d < 2; d++) {
      om_gemm_packed_free(r->w[d]);
      om_gemm_packed_free(r->r[d]);
      om_gemm_packed_free(r->rh[d]);
    }
  free(r);
}

/* 1 when input k is shape[0 .. rank), else 0 with a message naming node, op, input and both shapes. */
static int om_rnn_shape_is(const om_node* node, const om_node_io* io, size_t k, const char* what, const int64_t* want,
                           size_t rank) {
  int ok = io->ranks[k] == rank;
  for (size_t q = 0; ok && q < rank; q++) ok = io->shapes[k][q] == want[q];
  if (ok) return 1;
  char got[200], exp[200];
  om_shape_text(io->shapes[k], io->ranks[k], got, sizeof got);
  om_shape_text(want, rank, exp, sizeof exp);
  snprintf(io->err, io->errlen, "node '%s' (op %s): %s (input %zu) is %s, expected %s", node->name, om_rnn_op(node),
           what, k, got, exp);
  return 0;
}

static int om_rnn_present(const om_node_io* io, size_t k) { return k < io->n_inputs && io->shapes[k] != NULL; }

/* The dimensions from X and R, every input's shape checked against them: 0, or -1 with a message in io->err. */
static int om_rnn_dims_of(const om_node* node, const om_node_io* io, om_rnn_dims* dm) {
  const om_rnn* r = node->impl;
  const char* op = om_rnn_op(node);
  if (io->ranks[0] != 3) {
    char sx[200];
    om_shape_text(io->shapes[0], io->ranks[0], sx, sizeof sx);
    snprintf(io->err, io->errlen, "node '%s' (op %s): X must be 3-D, got %s", node->name, op, sx);
    return -1;
  }
  const int64_t* x = io->shapes[0];
  dm->T = r->layout ? x[1] : x[0];
  dm->N = r->layout ? x[0] : x[1];
  dm->I = x[2];
  dm->H = r->hidden;
  int64_t D = r->dirs, GH = r->gates * dm->H;
  int64_t w[3] = {D, GH, dm->I}, rr[3] = {D, GH, dm->H}, b[2] = {D, 2 * GH}, seq[1] = {dm->N};
  int64_t state[3] = {D, dm->N, dm->H}, p[2] = {D, 3 * dm->H};
  if (r->layout) {
    state[0] = dm->N;
    state[1] = D;
  }
  if (!om_rnn_shape_is(node, io, 1, "W", w, 3) || !om_rnn_shape_is(node, io, 2, "R", rr, 3)) return -1;
  if (om_rnn_present(io, OM_RNN_IN_B) && !om_rnn_shape_is(node, io, OM_RNN_IN_B, "B", b, 2)) return -1;
  if (om_rnn_present(io, OM_RNN_IN_SEQ) && !om_rnn_shape_is(node, io, OM_RNN_IN_SEQ, "sequence_lens", seq, 1)) return -1;
  if (om_rnn_present(io, OM_RNN_IN_H0) && !om_rnn_shape_is(node, io, OM_RNN_IN_H0, "initial_h", state, 3)) return -1;
  if (r->kind == OM_RNN_LSTM && om_rnn_present(io, OM_RNN_IN_C0) &&
      !om_rnn_shape_is(node, io, OM_RNN_IN_C0, "initial_c", state, 3))
    return -1;
  if (r->kind == OM_RNN_LSTM && om_rnn_present(io, OM_RNN_IN_P) && !om_rnn_shape_is(node, io, OM_RNN_IN_P, "P", p, 2))
    return -1;
  return 0;
}

static int om_rnn_shapes(const om_node* node, const om_node_io* io) {
  const om_rnn* r = node->impl;
  om_rnn_dims dm;
  if (om_rnn_dims_of(node, io, &dm) != 0) return -1;
  int64_t* y = io->out_shapes;
  if (r->layout) { /* Y [N, T, D, H], Y_h and Y_c [N, D, H] */
    int64_t yv[4] = {dm.N, dm.T, r->dirs, dm.H};
    memcpy(y, yv, sizeof yv);
  } else { /* Y [T, D, N, H], Y_h and Y_c [D, N, H] */
    int64_t yv[4] = {dm.T, r->dirs, dm.N, dm.H};
    memcpy(y, yv, sizeof yv);
  }
  io->out_ranks[0] = 4;
  for (size_t k = 1; k < io->n_outputs; k++) {
    int64_t* s = y + k * OM_NODE_MAX_RANK;
    s[0] = r->layout ? dm.N : r->dirs;
    s[1] = r->layout ? r->dirs : dm.N;
    s[2] = dm.H;
    io->out_ranks[k] = 3;
  }
  return 0;
}

static int om_rnn_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  om_rnn* r = node->impl;
  int64_t H = r->hidden, GH = r->gates * H;
  if ((k != 1 && k != 2) || rank != 3 || shape[0] != r->dirs || shape[1] != GH || shape[2] <= 0) return 0;
  if (k == 2 && shape[2] != H) return 0; /* the run reports the shape */
  float* wide = NULL; /* float16: the constant widened (exactly) to f32, packed as f32's */
  if (node->type == OM_T_FLOAT16) {
    size_t cnt = (size_t)(r->dirs * GH * shape[2]);
    wide = malloc(cnt * sizeof(float));
    if (!wide) OM_FAIL_MSG("node '%s' (op %s): out of memory packing a constant", node->name, om_rnn_op(node));
    for (size_t q = 0; q < cnt; q++) wide[q] = om_f16_to_f32(((const uint16_t*)data)[q]);
  }
  const int et = node->type == OM_T_DOUBLE ? OM_T_DOUBLE : OM_T_FLOAT; /* the packed (and computing) type */
  const size_t es = et == OM_T_DOUBLE ? sizeof(double) : sizeof(float);
  const char* base = wide ? (const char*)wide : data;
  for (int d = 0; d < r->dirs; d++) {
    int64_t K = shape[2];
    const char* m = base + (size_t)d * (size_t)(GH * K) * es;
    if (k == 1) {
      r->w[d] = om_gemm_pack_b(node->path, et, (size_t)K, (size_t)GH, m, 1, (ptrdiff_t)K);
      r->w_k = K;
      if (!r->w[d]) break;
      continue;
    }
    r->r[d] = om_gemm_pack_b(node->path, et, (size_t)H, (size_t)om_rnn_state_cols(r), m, 1, (ptrdiff_t)H);
    if (r->r[d] && r->kind == OM_RNN_GRU && !r->lbr) {
      r->rh[d] = om_gemm_pack_b(node->path, et, (size_t)H, (size_t)H, m + (size_t)(2 * H * H) * es, 1, (ptrdiff_t)H);
      if (!r->rh[d]) break;
    }
    if (!r->r[d]) break;
  }
  free(wide);
  for (int d = 0; d < r->dirs; d++)
    if ((k == 1 && !r->w[d]) || (k == 2 && (!r->r[d] || (r->kind == OM_RNN_GRU && !r->lbr && !r->rh[d]))))
      OM_FAIL_MSG("node '%s' (op %s): out of memory packing the constant %s", node->name, om_rnn_op(node),
                  k == 1 ? "W" : "R");
  return 0;
}

/* C[M, N] = A[M, K] . B^T in element type `type` (float, double), B stored [N, K] (row stride ldb) or packed;
 * with bias: + bias[j] (one rounding). */
static int om_rnn_gemm(const om_node* node, const om_node_io* io, int type, size_t M, size_t N, size_t K,
                       const void* A, const void* B, const om_gemm_packed* packed, const void* bias, void* C) {
  om_gemm_args g = om_gemm_args_rows(node->path, type, OM_MODE_EXACT, M, N, K, A, C);
  g.B = B;
  g.rsb = 1;
  g.csb = (ptrdiff_t)K;
  g.packed_b = packed;
  if (bias) om_gemm_row_bias(&g, bias);
  if (M == 0 || N == 0) return 0;
  int rc = om_gemm(&g, io->parallel_for, io->host_ctx);
  if (rc == 0) return 0;
  snprintf(io->err, io->errlen, rc == -2 ? "node '%s' (op %s): internal error: om_gemm refused its arguments"
                                         : "node '%s' (op %s): out of memory",
           node->name, om_rnn_op(node));
  return -1;
}

/* Offsets (in elements) of Y's row (t, d, n) and of a state row (d, n) (initial_h, Y_h), by layout. */
static size_t om_rnn_y_at(const om_rnn* r, const om_rnn_dims* dm, int64_t t, int d, int64_t n) {
  int64_t row = r->layout ? (n * dm->T + t) * r->dirs + d : (t * r->dirs + d) * dm->N + n;
  return (size_t)(row * dm->H);
}
static size_t om_rnn_state_at(const om_rnn* r, const om_rnn_dims* dm, int d, int64_t n) {
  return (size_t)((r->layout ? n * r->dirs + d : d * dm->N + n) * dm->H);
}

/* Row n's sequence length: sequence_lens[n], or T. */
static int64_t om_rnn_len_of(const int32_t* seq, int64_t T, int64_t n) { return seq ? seq[n] : T; }

#define OM_RT float
#define OM_RTYPE OM_T_FLOAT
#define OM_RSFX _f32
#define OM_RSTEP(n) n
#include "rnn_run_body.inc"
#undef OM_RT
#undef OM_RTYPE
#undef OM_RSFX
#undef OM_RSTEP

#define OM_RT double
#define OM_RTYPE OM_T_DOUBLE
#define OM_RSFX _f64
#define OM_RSTEP(n) n##_f64
#include "rnn_run_body.inc"

/* float16: every float input widened exactly to f32, the f32 run into f32 outputs, each output rounded once to
 * float16 (docs/recurrent.md, "Element types"). */
static int om_rnn_run_f16(const om_node* node, const om_node_io* io) {
  const om_rnn* r = node->impl;
  om_rnn_dims dm;
  if (om_rnn_dims_of(node, io, &dm) != 0) return -1;
  size_t n_in = io->n_inputs < 8 ? io->n_inputs : 8, n_out = io->n_outputs < 3 ? io->n_outputs : 3;
  size_t in_at[8] = {0}, out_at[3] = {0}, total = 0;
  size_t state = (size_t)(r->dirs * dm.N * dm.H), out_n[3] = {(size_t)dm.T * state, state, state};
  int packed[8] = {0}; /* W, R packed at creation for every direction: the run does not read them */
  packed[1] = r->w[0] && (r->dirs == 1 || r->w[1]) && r->w_k == dm.I;
  packed[2] = r->r[0] && (r->dirs == 1 || r->r[1]);
  for (size_t k = 0; k < n_in; k++) {
    in_at[k] = total;
    if (k != OM_RNN_IN_SEQ && !packed[k] && om_rnn_present(io, k))
      total += om_shape_count(io->shapes[k], io->ranks[k]);
  }
  for (size_t k = 0; k < n_out; k++) {
    out_at[k] = total;
    if (io->outs[k]) total += out_n[k];
  }
  float* buf = malloc((total ? total : 1) * sizeof(float));
  if (!buf) {
    snprintf(io->err, io->errlen, "node '%s' (op %s): out of memory", node->name, om_rnn_op(node));
    return -1;
  }
  const void* data[8] = {NULL};
  void* outs[3] = {NULL};
  for (size_t k = 0; k < n_in; k++) {
    data[k] = packed[k] ? NULL : io->data[k];
    if (k == OM_RNN_IN_SEQ || packed[k] || !om_rnn_present(io, k)) continue;
    size_t cnt = om_shape_count(io->shapes[k], io->ranks[k]);
    const uint16_t* h = io->data[k];
    for (size_t q = 0; q < cnt; q++) buf[in_at[k] + q] = om_f16_to_f32(h[q]);
    data[k] = buf + in_at[k];
  }
  for (size_t k = 0; k < n_out; k++) outs[k] = io->outs[k] ? buf + out_at[k] : NULL;
  om_node_io wide = *io;
  wide.n_inputs = n_in;
  wide.data = data;
  wide.n_outputs = n_out;
  wide.outs = outs;
  int rc = om_rnn_run_f32(node, &wide);
  for (size_t k = 0; rc == 0 && k < n_out; k++) {
    uint16_t* y = io->outs[k];
    for (size_t q = 0; y && q < out_n[k]; q++) y[q] = om_f32_to_f16(buf[out_at[k] + q]);
  }
  free(buf);
  return rc;
}

static int om_rnn_run(const om_node* node, const om_node_io* io) {
  if (node->type == OM_T_DOUBLE) return om_rnn_run_f64(node, io);
  return node->type == OM_T_FLOAT16 ? om_rnn_run_f16(node, io) : om_rnn_run_f32(node, io);
}

const om_family om_family_rnn = {.state_size = sizeof(om_rnn),
                                 .create = om_rnn_create,
                                 .shapes = om_rnn_shapes,
                                 .run = om_rnn_run,
                                 .set_constant = om_rnn_set_constant,
                                 .destroy = om_rnn_destroy};
