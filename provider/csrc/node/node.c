/* node.c - one ONNX node: what every node shares. om_node_create checks the op against the op table (opset,
 * arity, element types, mode, kernel path) and hands the node to its family: the element-wise family
 * (elementwise.c) or a structured op's (node_family.h); the entries of onemodel.h then dispatch to it.
 * ORT-independent: the ORT glue and the Python tests both drive nodes through onemodel.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/om_ops.h"
#include "broadcast.h"
#include "elementwise.h"
#include "node_family.h"
#include "node_run.h"

/* struct om_node: node_family.h */

static void om_type_list(uint32_t mask, char* buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int t = 0; t < 32; t++) {
    if (!(mask & OM_TB(t))) continue;
    int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", om_type_name(t));
    if (w < 0 || (size_t)w >= len - used) return;
    used += (size_t)w;
  }
}

int om_path_count(void) { return OM_PATH_COUNT; }

/* The first opset (default domain) from which ONNX allows element type t for op id, where that is later than the
 * op's own first opset (om_ops.def's since_opset); 0 otherwise. */
static int om_type_since(int id, int t) {
  int is_int = (OM_TS_INT & OM_TB(t)) != 0;
  switch (id) {
    case OM_OP_RELU: return is_int ? 14 : 0;
    case OM_OP_MAX_POOL: return is_int ? 12 : 0;
    case OM_OP_PRELU: return is_int ? 9 : 0;
    case OM_OP_IS_NAN: case OM_OP_SOFTMAX: case OM_OP_LOG_SOFTMAX: return t == OM_T_BFLOAT16 ? 13 : 0;
    case OM_OP_IS_INF: return t == OM_T_BFLOAT16 || t == OM_T_FLOAT16 ? 20 : 0;
    case OM_OP_SOFTPLUS: case OM_OP_MISH: case OM_OP_ELU: case OM_OP_SELU: return t == OM_T_BFLOAT16 ? 22 : 0;
    case OM_OP_FLATTEN: /* Flatten-1: float types only */
      return t == OM_T_BFLOAT16 ? 13 : (t == OM_T_FLOAT || t == OM_T_FLOAT16 || t == OM_T_DOUBLE ? 0 : 9);
    case OM_OP_RESHAPE: case OM_OP_UNSQUEEZE: case OM_OP_SQUEEZE: case OM_OP_IDENTITY: case OM_OP_SHAPE:
    case OM_OP_SIZE: case OM_OP_TILE: case OM_OP_SPLIT:
    case OM_OP_TRANSPOSE: case OM_OP_CONCAT: case OM_OP_GATHER: case OM_OP_SLICE: case OM_OP_EXPAND:
      return t == OM_T_BFLOAT16 ? 13 : 0;
    case OM_OP_PAD: return t == OM_T_BFLOAT16 || t == OM_T_BOOL ? 13 : 0;
    case OM_OP_DEPTH_TO_SPACE: case OM_OP_SPACE_TO_DEPTH: case OM_OP_GATHER_ELEMENTS: case OM_OP_GATHER_ND:
    case OM_OP_SCATTER_ELEMENTS: case OM_OP_SCATTER_ND:
      return t == OM_T_BFLOAT16 ? 13 : 0;
    case OM_OP_ARG_MAX: case OM_OP_ARG_MIN: return t == OM_T_BFLOAT16 ? 13 : 0;
    case OM_OP_TOP_K: /* float types from opset 1, the integers from 11, bfloat16 from 24 */
      return t == OM_T_BFLOAT16 ? 24 : (t == OM_T_FLOAT || t == OM_T_FLOAT16 || t == OM_T_DOUBLE ? 0 : 11);
    case OM_OP_RESIZE: case OM_OP_NON_ZERO: return t == OM_T_BFLOAT16 ? 13 : 0;
    default: return 0;
  }
}

#define OM_FAIL(...)                        \
  do {                                      \
    snprintf(err, errlen, __VA_ARGS__);     \
    free(node);                             \
    return NULL;                            \
  } while (0)

om_node* om_node_create(const char* node_name, const char* op, size_t n_inputs, const int* input_types,
                        const om_attrs* attrs, char* err, size_t errlen) {
  const char* nn = node_name ? node_name : "";
  om_node* node = NULL;
  int id = om_op_find(op);
  if (id < 0) OM_FAIL("node '%s' (op %s): not an operator of OneModel EP", nn, op);
  const om_op_info* row = om_op_row(id);
  op = row->name; /* messages name the op as its domain does */
  int opset = attrs->onnx_opset;
  if (opset > 0 && opset < row->since_opset)
    OM_FAIL("node '%s' (op %s): opset %d is not served; %s is served from opset %d", nn, op, opset, op,
            row->since_opset);
  if (n_inputs < (size_t)row->min_inputs || n_inputs > (size_t)row->max_inputs)
    OM_FAIL("node '%s' (op %s): %zu inputs given, expected %d to %d", nn, op, n_inputs, row->min_inputs,
            row->max_inputs);
  int t0 = input_types[0];
  char list[256];
  if (t0 < 0 || t0 >= 32 || !(row->input0_types & OM_TB(t0))) {
    om_type_list(row->input0_types, list, sizeof list);
    OM_FAIL("node '%s' (op %s): unsupported element type %s for input 0 (supported: %s)", nn, op,
            om_type_name(t0), list);
  }
  for (size_t k = 1; k < n_inputs; k++) {
    int tk = input_types[k];
    if (tk == 0 && k >= (size_t)row->min_inputs) continue; /* absent optional input */
    int ok;
    if (row->other_types) ok = tk >= 0 && tk < 32 && (row->other_types & OM_TB(tk));
    else ok = tk == t0;
    if (ok && id == OM_OP_WHERE && k == 2) ok = tk == input_types[1];
    if (!ok) {
      if (row->other_types && id != OM_OP_WHERE) {
        om_type_list(row->other_types, list, sizeof list);
        OM_FAIL("node '%s' (op %s): unsupported element type %s for input %zu (supported: %s)", nn, op,
                om_type_name(tk), k, list);
      }
      OM_FAIL("node '%s' (op %s): element type %s of input %zu does not match input %d (%s)", nn, op,
              om_type_name(tk), k, id == OM_OP_WHERE ? 1 : 0, om_type_name(id == OM_OP_WHERE ? input_types[1] : t0));
    }
  }
  int type_since = om_type_since(id, t0);
  if (opset > 0 && opset < type_since)
    OM_FAIL("node '%s' (op %s): element type %s needs opset %d or later (opset %d)", nn, op, om_type_name(t0),
            type_since, opset);
  if (attrs->mode != OM_MODE_EXACT && attrs->mode != OM_MODE_FAST)
    OM_FAIL("node '%s' (op %s): unknown mode %d", nn, op, attrs->mode);
  int path = attrs->path < 0 ? om_path_best() : attrs->path;
  if (path >= OM_PATH_COUNT || !om_path_available(path))
    OM_FAIL("node '%s' (op %s): kernel path '%s' is not available on this CPU", nn, op, om_path_name(path));

  node = calloc(1, sizeof *node);
  if (!node) OM_FAIL("node '%s' (op %s): out of memory", nn, op);
  node->op = id;
  node->type = t0;
  node->type1 = n_inputs > 1 ? input_types[1] : 0;
  node->out_type = t0;
  node->n_inputs = n_inputs;
  node->kflags = attrs->mode == OM_MODE_EXACT ? OM_FL_EXACT : 0;
  node->wide = om_path_table(path);
  node->one = om_path_table(OM_PATH_SCALAR);
  snprintf(node->name, sizeof node->name, "%s", nn);
  node->path = path;
  node->mode = attrs->mode;
  node->opset = opset;
  node->n_outputs = (size_t)row->max_outputs;
  if ((row->flags & OM_F_OUTN) && attrs->n_outputs > node->n_outputs)
    OM_FAIL("node '%s' (op %s): %zu outputs, more than the %zu served", nn, op, attrs->n_outputs, node->n_outputs);
  if ((row->flags & OM_F_OUTN) && attrs->n_outputs) node->n_outputs = attrs->n_outputs;
  if (!(row->flags & OM_F_OUTN) && attrs->n_outputs > node->n_outputs) /* e.g. GQA's output_qk: never written */
    OM_FAIL("node '%s' (op %s): output %zu is not served (at most %zu outputs)", nn, op, node->n_outputs,
            node->n_outputs);
  node->out_types[0] = t0;
  node->family = om_family_of(id);
  if (node->family) {
    node->impl = node->family->state_size ? calloc(1, node->family->state_size) : NULL;
    if (node->family->state_size && !node->impl) OM_FAIL("node '%s' (op %s): out of memory", nn, op);
    node->input_types = input_types;
    int created = node->family->create(node, attrs, err, errlen);
    node->input_types = NULL;
    if (created != 0) {
      om_node_destroy(node);
      return NULL;
    }
    node->out_type = node->out_types[0];
    return node;
  }
  if (om_elementwise_create(node, attrs, input_types, err, errlen) != 0) {
    free(node);
    return NULL;
  }
  return node;
}

void om_node_destroy(om_node* node) {
  if (!node) return;
  if (node->family && node->family->destroy) node->family->destroy(node);
  else free(node->impl);
  free(node);
}

int om_node_output_type(const om_node* node) { return node->out_type; }

size_t om_node_output_count(const om_node* node) { return node->n_outputs; }

int om_node_output_type_at(const om_node* node, size_t k) {
  return k < node->n_outputs ? (node->family ? node->out_types[k] : node->out_type) : 0;
}

int om_node_input_shapes_output(const om_node* node, size_t k) {
  return node->family && node->family->shape_input ? node->family->shape_input(node, k) : 0;
}

size_t om_shape_count(const int64_t* shape, size_t rank) {
  size_t n = 1;
  for (size_t d = 0; d < rank; d++) n *= (size_t)shape[d];
  return n;
}

int om_node_set_constant_input(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen) {
  if (k < node->n_inputs && om_node_rank_served(node, k, rank, err, errlen) != 0) return -1;
  if (!node->family || !node->family->set_constant || k >= node->n_inputs) return 0;
  return node->family->set_constant(node, k, data, shape, rank, err, errlen);
}

int om_node_input_type_only(const om_node* node, size_t k) {
  return (node->op == OM_OP_CAST_LIKE || node->op == OM_OP_CAST) && k == 1;
}

int om_node_output_shape(const om_node* node, size_t n_inputs, const int64_t* const* shapes, const size_t* ranks,
                         int64_t* out_shape, size_t* out_rank, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (om_node_ranks_served(node, n_inputs, ranks, err, errlen) != 0) return -1;
  if (node->family) { /* output 0 of a structured node whose shape depends on no input's data */
    int64_t all[OM_MAX_RANK];
    size_t all_ranks[1];
    for (size_t k = 0; k < n_inputs; k++)
      if (om_node_input_shapes_output(node, k)) {
        snprintf(err, errlen, "node '%s' (op %s): the output shape needs input %zu's data (om_node_output_shapes)",
                 node->name, opn, k);
        return -1;
      }
    if (om_node_output_shapes(node, n_inputs, NULL, shapes, ranks, 1, all, all_ranks, err, errlen) != 0) return -1;
    memcpy(out_shape, all, all_ranks[0] * sizeof(int64_t));
    *out_rank = all_ranks[0];
    return 0;
  }
  return om_elementwise_output_shape(node, n_inputs, shapes, ranks, out_shape, out_rank, err, errlen);
}

int om_node_run(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen) {
  int64_t expect[OM_MAX_RANK];
  size_t expect_rank = 0;
  if (om_node_output_shape(node, n_inputs, shapes, ranks, expect, &expect_rank, err, errlen) != 0) return -1;
  if (expect_rank != out_rank || memcmp(expect, out_shape, out_rank * sizeof(int64_t)) != 0) {
    snprintf(err, errlen, "node '%s' (op %s): output buffer shape does not match the broadcast shape", node->name,
             om_op_row(node->op)->name);
    return -1;
  }
  return om_node_run_shaped(node, n_inputs, data, shapes, ranks, out, out_shape, out_rank, parallel_for, host_ctx,
                            err, errlen);
}

int om_node_run_shaped(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                       const size_t* ranks, void* out, const int64_t* out_shape, size_t out_rank,
                       om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen) {
  if (node->family) {
    void* outs[1] = {out};
    return om_node_run_outputs(node, n_inputs, data, shapes, ranks, 1, outs, out_shape, &out_rank, parallel_for,
                               host_ctx, err, errlen);
  }
  return om_elementwise_run(node, n_inputs, data, shapes, ranks, out, out_shape, out_rank, parallel_for, host_ctx, err,
                            errlen);
}

/* ---- every node: the multi-output entries ---------------------------------------------------------------- */

int om_node_output_shapes(const om_node* node, size_t n_inputs, const void* const* data,
                          const int64_t* const* shapes, const size_t* ranks, size_t n_outputs, int64_t* out_shapes,
                          size_t* out_ranks, char* err, size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (n_outputs == 0 || n_outputs > node->n_outputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu outputs asked for, the node has at most %zu", node->name, opn,
             n_outputs, node->n_outputs);
    return -1;
  }
  if (om_node_ranks_served(node, n_inputs, ranks, err, errlen) != 0) return -1;
  if (!node->family) return om_node_output_shape(node, n_inputs, shapes, ranks, out_shapes, out_ranks, err, errlen);
  if (n_inputs != node->n_inputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu inputs at run time, %zu at creation", node->name, opn, n_inputs,
             node->n_inputs);
    return -1;
  }
  for (size_t k = 0; k < n_inputs; k++)
    if (shapes[k] == NULL && ranks[k] != 0) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu has a rank but no shape", node->name, opn, k);
      return -1;
    }
  om_node_io io = {n_inputs, data, shapes, ranks, n_outputs, NULL, out_shapes, out_ranks, NULL, NULL, err, errlen};
  if (node->family->shapes(node, &io) != 0) return -1;
  for (size_t o = 0; o < n_outputs; o++) { /* the element count and its size in bytes must fit */
    size_t count = 1, esz = om_type_size(node->out_types[o]) ? om_type_size(node->out_types[o]) : 1; /* 4-bit: 1 */
    int zero = 0;
    for (size_t d = 0; d < out_ranks[o]; d++) zero |= out_shapes[o * OM_MAX_RANK + d] == 0;
    for (size_t d = 0; !zero && d < out_ranks[o]; d++) {
      size_t e = (size_t)out_shapes[o * OM_MAX_RANK + d];
      if (count > SIZE_MAX / e || count * e > (size_t)INT64_MAX / esz) {
        snprintf(err, errlen, "node '%s' (op %s): output %zu has more elements than memory can address",
                 node->name, opn, o);
        return -1;
      }
      count *= e;
    }
  }
  return 0;
}

int om_node_run_outputs(const om_node* node, size_t n_inputs, const void* const* data, const int64_t* const* shapes,
                        const size_t* ranks, size_t n_outputs, void* const* outs, const int64_t* out_shapes,
                        const size_t* out_ranks, om_parallel_for_fn parallel_for, void* host_ctx, char* err,
                        size_t errlen) {
  const char* opn = om_op_row(node->op)->name;
  if (om_node_ranks_served(node, n_inputs, ranks, err, errlen) != 0) return -1;
  if (!node->family) {
    if (n_outputs != 1 || !outs[0]) {
      snprintf(err, errlen, "node '%s' (op %s): an element-wise node has exactly one output", node->name, opn);
      return -1;
    }
    return om_node_run_shaped(node, n_inputs, data, shapes, ranks, outs[0], out_shapes, out_ranks[0], parallel_for,
                              host_ctx, err, errlen);
  }
  if (n_inputs != node->n_inputs || n_outputs == 0 || n_outputs > node->n_outputs) {
    snprintf(err, errlen, "node '%s' (op %s): %zu inputs and %zu outputs at run time, %zu and at most %zu at creation",
             node->name, opn, n_inputs, n_outputs, node->n_inputs, node->n_outputs);
    return -1;
  }
  for (size_t k = 0; k < n_inputs; k++)
    if (shapes[k] && !data[k] && om_shape_count(shapes[k], ranks[k]) > 0) {
      snprintf(err, errlen, "node '%s' (op %s): input %zu has no data", node->name, opn, k);
      return -1;
    }
  /* Output 0 is every family's result, the others (LayerNormalization's Mean and InvStdDev) come with it: when
   * the host wants only those (a compiled node whose Y nobody reads), output 0 goes to scratch memory. run
   * reads out_shapes and out_ranks only: io's pointers are not const for shapes' sake. */
  om_node_io io = {n_inputs, data, shapes, ranks, n_outputs, outs, (int64_t*)out_shapes, (size_t*)out_ranks,
                   parallel_for, host_ctx, err, errlen};
  int wanted = 0;
  for (size_t o = 1; o < n_outputs; o++) wanted |= outs[o] != NULL;
  size_t count0 = om_shape_count(out_shapes, out_ranks[0]);
  if (outs[0] || !count0) return node->family->run(node, &io); /* a zero-size output is never written */
  if (!wanted) return 0;                                          /* no output wanted: nothing to compute */
  const size_t esz0 = om_type_size(node->out_types[0]) ? om_type_size(node->out_types[0]) : 1; /* 4-bit: 1 */
  void* scratch = count0 <= SIZE_MAX / esz0 ? malloc(count0 * esz0) : NULL;
  if (!scratch) {
    snprintf(err, errlen, "node '%s' (op %s): out of memory for output 0, which no one reads", node->name, opn);
    return -1;
  }
  void* with0[OM_MAX_OUTPUTS] = {scratch};
  for (size_t o = 1; o < n_outputs; o++) with0[o] = outs[o];
  io.outs = with0;
  int rc = node->family->run(node, &io);
  free(scratch);
  return rc;
}
