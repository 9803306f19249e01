/* node_batchnorm.c - BatchNormalization nodes, inference (opsets 9, 14, 15; training_mode 0), onto
 * pool/batchnorm.h.
 *
 * X is [N, C, D1, ...] (rank 2 or more); scale, B, input_mean and input_var are 1-D of C elements of X's type
 * (opset 14 and 15 allow other types for them: those nodes stay with stock ONNX Runtime, as the op table gives
 * every input X's type). epsilon defaults to 1e-5; momentum only matters in training and is not read.
 * training_mode = 1 (opset 14 on) is refused at creation. Y has X's shape. The work is split over the N x C
 * planes in fixed chunks (om_parallel_ieee); each element's sequence depends on nothing but its channel.
 */
#include <stdio.h>

#include "node_family.h"
#include "parallel.h"
#include "core/om_ops.h"
#include "pool/batchnorm.h"

/* Elements per parallel chunk (whole planes, at least one): a few operations per element. */
#define OM_BN_CHUNK_ELEMS ((size_t)1 << 15)

static const char* const om_bn_input_names[5] = {"X", "scale", "B", "input_mean", "input_var"};

typedef struct om_batchnorm_node {
  float epsilon;
} om_batchnorm_node;

static int om_bn_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  om_batchnorm_node* b = node->impl;
  if (a->has_training_mode && a->training_mode != 0) {
    snprintf(err, errlen, "node '%s' (op BatchNormalization): training_mode %lld is not served (inference only: 0)",
             node->name, (long long)a->training_mode);
    return -1;
  }
  if (!om_batchnorm_supported(node->type)) {
    snprintf(err, errlen, "node '%s' (op BatchNormalization): no kernel for element type %s", node->name,
             om_type_name(node->type));
    return -1;
  }
  b->epsilon = a->has_epsilon ? a->epsilon : 1e-5f;
  return 0;
}

static int om_bn_rank_ok(const om_node* node, size_t rank, char* err, size_t errlen) {
  if (rank >= 2) return 0;
  snprintf(err, errlen, "node '%s' (op BatchNormalization): input 0 (X) must be [N, C, ...] (rank 2 or more), it "
           "has rank %zu", node->name, rank);
  return -1;
}

static int om_bn_check_ranks(const om_node* node, size_t n_inputs, const size_t* ranks, char* err, size_t errlen) {
  if (n_inputs > 0 && ranks[0] != OM_RANK_UNKNOWN && om_bn_rank_ok(node, ranks[0], err, errlen) != 0) return -1;
  for (size_t k = 1; k < n_inputs && k < 5; k++)
    if (ranks[k] != OM_RANK_UNKNOWN && ranks[k] != 1) {
      snprintf(err, errlen, "node '%s' (op BatchNormalization): input %zu (%s) must be 1-D [C], it has rank %zu",
               node->name, k, om_bn_input_names[k], ranks[k]);
      return -1;
    }
  return 0;
}

static int om_bn_shapes(const om_node* node, const om_node_io* io) {
  size_t rank = io->ranks[0];
  if (om_bn_rank_ok(node, rank, io->err, io->errlen) != 0) return -1;
  int64_t c = io->shapes[0][1];
  for (size_t k = 1; k < 5; k++)
    if (k >= io->n_inputs || io->ranks[k] != 1 || io->shapes[k][0] != c) {
      snprintf(io->err, io->errlen, "node '%s' (op BatchNormalization): input %zu (%s) must be 1-D of C = %lld "
               "elements (X's dimension 1)", node->name, k, om_bn_input_names[k], (long long)c);
      return -1;
    }
  for (size_t d = 0; d < rank; d++) io->out_shapes[d] = io->shapes[0][d];
  io->out_ranks[0] = rank;
  return 0;
}

typedef struct om_bn_task {
  const om_node* node;
  const om_node_io* io;
  size_t plane, channels;
} om_bn_task;

/* Planes (one (batch, channel) pair each) [begin, end) (om_parallel_ranges). */
static int om_bn_planes(const void* args, size_t begin, size_t end) {
  const om_bn_task* t = args;
  const om_batchnorm_node* b = t->node->impl;
  const void* const* d = t->io->data;
  om_batchnorm_planes(t->node->path, t->node->type, d[0], t->io->outs[0], t->plane, t->channels, begin, end, d[1], d[2], d[3], d[4],
                      b->epsilon);
  return 0;
}

static int om_bn_run(const om_node* node, const om_node_io* io) {
  const int64_t* shape = io->shapes[0];
  size_t channels = (size_t)shape[1];
  size_t planes = (size_t)shape[0] * channels;
  size_t plane = om_shape_count(shape + 2, io->ranks[0] - 2);
  if (planes == 0 || plane == 0) return 0;
  om_bn_task t = {node, io, plane, channels};
  return om_parallel_ranges(io->parallel_for, io->host_ctx, planes, OM_BN_CHUNK_ELEMS / plane, om_bn_planes, &t);
}

const om_family om_family_batchnorm = {sizeof(om_batchnorm_node), om_bn_create, om_bn_shapes, om_bn_run, NULL, NULL, NULL, om_bn_check_ranks};

/* ---- as a member of a fused chain (elementwise_chain.c) ------------------------------------------------------ */
void om_batchnorm_node_channels(const om_node* node, size_t channels, const void* scale, const void* bias,
                                const void* mean, const void* var, double* ch) {
  const om_batchnorm_node* b = node->impl;
  int t = node->type;
  for (size_t c = 0; c < channels; c++) {
    ch[3 * c] = om_batchnorm_value(t, mean, c);
    ch[3 * c + 1] = om_batchnorm_factor(t, om_batchnorm_value(t, scale, c), om_batchnorm_value(t, var, c), b->epsilon);
    ch[3 * c + 2] = om_batchnorm_value(t, bias, c);
  }
}

void om_batchnorm_node_span(const om_node* node, const double* ch, size_t channels, size_t inner, size_t pos,
                            const void* x, void* y, size_t len) {
  int t = node->type;
  size_t esz = om_type_size(t);
  for (size_t at = 0; at < len;) {
    size_t plane = (pos + at) / inner, c = plane % channels;
    size_t n = (plane + 1) * inner - (pos + at);
    if (n > len - at) n = len - at;
    const double* v = ch + 3 * c;
    om_batchnorm_plane(node->path, t, (const char*)x + at * esz, (char*)y + at * esz, n, v[0], v[1], v[2]);
    at += n;
  }
}
