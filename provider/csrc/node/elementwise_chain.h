/* elementwise_chain.h - a chain of element-wise nodes run as one (elementwise_chain.c): the execution provider's
 * fused nodes. Each member is an om_node of the element-wise family or a BatchNormalization, and member 0 may be
 * a structured producer (om_chain_is_producer), run whole first; a member's inputs are the chain's inputs or an
 * earlier member's output. Run tile by tile, every member over a tile before the next tile, when every member's
 * output has the chain's output shape and every input either that shape, one element or broadcast along one
 * run of axes (a [C, 1, 1] bias); else member by member over whole intermediate tensors. Either way each element gets the operations, and so the bits, it gets from
 * the members run one by one. Knows nothing of ORT. */
#ifndef OM_NODE_ELEMENTWISE_CHAIN_H
#define OM_NODE_ELEMENTWISE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "onemodel.h"

/* Most members of one chain (a longer run of nodes is cut into chains of at most this many). */
#define OM_CHAIN_MAX_MEMBERS 16
/* Elements of one tile, and of one parallel chunk (a whole number of tiles): constants, never from the thread
 * count or the kernel path. */
#define OM_CHAIN_TILE ((size_t)4096)
#define OM_CHAIN_CHUNK ((size_t)4 * OM_CHAIN_TILE)

/* Where a member's input comes from: member >= 0, that (earlier) member's output; else the chain's input
 * `index` (-1: absent). */
typedef struct om_chain_src {
  int member;
  int index;
} om_chain_src;

typedef struct om_chain om_chain;

/* Most inputs of one member. */
#define OM_CHAIN_MAX_INPUTS 8

/* A chain over n members (element-wise om_nodes, owned from here on, destroyed on failure too); member m has
 * n_inputs[m] inputs, from srcs[m][0..n_inputs[m]); the chain has n_ext inputs, of element types ext_types (0:
 * absent), and one output, the last member's. NULL with a message naming the members and the problem in err. */
om_chain* om_chain_create(om_node* const* members, const size_t* n_inputs, const om_chain_src* const* srcs,
                          size_t n, const int* ext_types, size_t n_ext, char* err, size_t errlen);
void om_chain_destroy(om_chain* chain);
/* 1 when op (OM_OP_*) may head a chain as its producer: Conv, ConvTranspose, Gemm, MatMul, FusedMatMul. */
int om_chain_is_producer(int op);
int om_chain_output_type(const om_chain* chain);
/* The chain's output shape from its inputs' shapes (NULL: absent input): each member's shape in turn. 0, or -1
 * with the failing member's message. */
int om_chain_output_shape(const om_chain* chain, const int64_t* const* shapes, const size_t* ranks,
                          int64_t* out_shape, size_t* out_rank, char* err, size_t errlen);
/* Compute the chain's output (allocated with the shape om_chain_output_shape gave). 0, or -1 with a message. */
int om_chain_run(const om_chain* chain, const void* const* data, const int64_t* const* shapes, const size_t* ranks,
                 void* out, om_parallel_for_fn parallel_for, void* host_ctx, char* err, size_t errlen);

#endif
