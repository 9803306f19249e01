/* node_dropout.c - Dropout at inference (opsets 7, 10, 12, 13, 22): output 0 is input 0's bytes (one copy, none
 * when the host gives the input's own buffer), the optional mask (output 1, bool, opset 12 on) all true; `ratio`
 * (input 1) is not read. training_mode (input 2, bool, opset 12 on) must be false: a constant one is checked when
 * the kernel is made (true is an error then), another at every run (true is a run error naming node and op).
 * Training (a random mask) is not served; neither is the mask before opset 12 (stock ORT 1.31.1 gives an all-false
 * one at opset 10, ONNX's reference all true; before 10 it has input 0's type). docs/shape-ops.md.
 */
#include <stdio.h>
#include <string.h>

#include "core/om_ops.h"
#include "node_family.h"

enum { OM_DROPOUT_TRAINING = 2 };

typedef struct om_dropout_node {
  int training_known; /* training_mode was a constant (false) */
} om_dropout_node;

static const char* om_do_name(const om_node* node) { return om_op_row(node->op)->name; }

static int om_do_create(om_node* node, const om_attrs* a, char* err, size_t errlen) {
  if (a->n_outputs > 1 && node->opset > 0 && node->opset < 12)
    OM_FAIL_MSG("node '%s' (op %s): the mask output before opset 12 is not served", node->name, om_do_name(node));
  if (node->n_inputs > OM_DROPOUT_TRAINING && node->input_types[OM_DROPOUT_TRAINING] &&
      node->input_types[OM_DROPOUT_TRAINING] != OM_T_BOOL)
    OM_FAIL_MSG("node '%s' (op %s): input 2 (training_mode) must be bool, got %s", node->name, om_do_name(node),
                om_type_name(node->input_types[OM_DROPOUT_TRAINING]));
  for (size_t k = 0; k < node->n_outputs; k++) node->out_types[k] = k == 1 ? OM_T_BOOL : node->type;
  return 0;
}

/* 0 when training_mode (one bool) is false, else -1 with the message. */
static int om_do_training_false(const om_node* node, const void* data, const int64_t* shape, size_t rank, char* err,
                                size_t errlen) {
  size_t count = om_shape_count(shape, rank);
  if (count == 1 && !*(const unsigned char*)data) return 0;
  snprintf(err, errlen, "node '%s' (op %s): training_mode must be one false value (inference only), got %s",
           node->name, om_do_name(node), count == 1 ? "true" : "a tensor that is not a scalar");
  return -1;
}

static int om_do_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                              char* err, size_t errlen) {
  if (k != OM_DROPOUT_TRAINING) return 0;
  if (om_do_training_false(node, data, shape, rank, err, errlen) != 0) return -1;
  ((om_dropout_node*)node->impl)->training_known = 1;
  return 0;
}

static int om_do_shapes(const om_node* node, const om_node_io* io) {
  for (size_t k = 0; k < io->n_outputs; k++) {
    memcpy(io->out_shapes + k * OM_NODE_MAX_RANK, io->shapes[0], io->ranks[0] * sizeof(int64_t));
    io->out_ranks[k] = io->ranks[0];
  }
  (void)node;
  return 0;
}

static int om_do_run(const om_node* node, const om_node_io* io) {
  const om_dropout_node* s = node->impl;
  if (!s->training_known && io->n_inputs > OM_DROPOUT_TRAINING && io->shapes[OM_DROPOUT_TRAINING] &&
      om_do_training_false(node, io->data[OM_DROPOUT_TRAINING], io->shapes[OM_DROPOUT_TRAINING],
                           io->ranks[OM_DROPOUT_TRAINING], io->err, io->errlen) != 0)
    return -1;
  size_t count = om_shape_count(io->shapes[0], io->ranks[0]);
  if (io->n_outputs > 0 && io->outs[0] && io->outs[0] != io->data[0] && count)
    memcpy(io->outs[0], io->data[0], count * om_type_size(node->type));
  if (io->n_outputs > 1 && io->outs[1] && count) memset(io->outs[1], 1, count);
  return 0;
}

const om_family om_family_dropout = {.state_size = sizeof(om_dropout_node), .create = om_do_create,
                                     .shapes = om_do_shapes, .run = om_do_run, .set_constant = om_do_set_constant};
