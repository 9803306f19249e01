/* int_input.h - the integer lists of the data-movement ops (Reshape's shape, Unsqueeze's and Squeeze's axes,
 * Slice's starts, ends, axes and steps, Expand's shape): read from an int32 or int64 input, once at creation
 * when the input is a constant (an initializer), else per run, when the output shape depends on its data; and
 * axes checked against a rank, with errors naming node and op. Knows nothing of ORT.
 */
#ifndef OM_NODE_INT_INPUT_H
#define OM_NODE_INT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "broadcast.h"
#include "node_family.h"

#define OM_INT_INPUTS 5

typedef struct om_int_list {
  int known; /* the values are here (for a run: the input is present) */
  size_t n;
  int64_t v[OM_MAX_RANK];
} om_int_list;

/* A family's integer inputs. A family whose state (node->impl) starts with this struct takes
 * om_int_inputs_set_constant and om_int_inputs_shape_input as its set_constant and shape_input. */
typedef struct om_int_inputs {
  unsigned mask;                    /* bit k: input k is an integer list and present */
  int scalar_ok;                    /* a rank-0 input is a list of one (Squeeze's and Unsqueeze's axes) */
  const char* what[OM_INT_INPUTS];  /* its name in messages: "shape", "axes", ... */
  int type[OM_INT_INPUTS];          /* OM_T_INT32 or OM_T_INT64 */
  om_int_list v[OM_INT_INPUTS];     /* known: a constant input, or the attribute of an older opset */
} om_int_inputs;

/* Input k (of element type `type`, 0: absent) is the integer list `what`. */
void om_int_input_declare(om_int_inputs* ii, size_t k, const char* what, int type);

/* The create of a family whose whole state is an om_int_inputs with one list, input k (Expand's shape,
 * Tile's repeats): node->impl set; 0, or -1 with a message. */
int om_int_inputs_create_one(om_node* node, size_t k, const char* what, char* err, size_t errlen);

int om_int_inputs_set_constant(om_node* node, size_t k, const void* data, const int64_t* shape, size_t rank,
                               char* err, size_t errlen);
int om_int_inputs_shape_input(const om_node* node, size_t k);

/* The list of input k for the call io: the known one, or read from io's data into buf (buf->known 0: the input
 * is absent in this call). NULL with a message in io->err when it cannot be read. */
const om_int_list* om_int_inputs_get(const om_node* node, const om_node_io* io, size_t k, om_int_list* buf);

/* Where a node's axes come from: the attribute before opset `since`, input 1 from it (when the opset is unknown,
 * whichever the node has: the EP's kernels, direct calls). *input_form set; 0, or -1 with a message when the
 * node has the other form's. */
int om_axes_form(const om_node* node, const om_attrs* a, int has_input1, int since, int* input_form, char* err,
                 size_t errlen);

/* Axis a of a tensor of rank `rank` into [0, rank) in *out: 0, or -1 with "<what> a is out of range for rank
 * `rank` (allowed: -rank to rank - 1)" naming node and op. */
int om_axis_in_range(const om_node* node, int64_t a, size_t rank, const char* what, int64_t* out, char* err,
                     size_t errlen);

/* A family's check_ranks where the one rule is its `axis` against input 0's rank: 0 when that rank is unknown
 * (or there is no input) or the axis is in range, else -1 with om_axis_in_range's message. */
int om_axis_check_input0(const om_node* node, int64_t axis, size_t n_inputs, const size_t* ranks, char* err,
                         size_t errlen);

#endif
