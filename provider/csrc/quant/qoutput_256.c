/* qoutput_256.c - the requantisation of qoutput.h for the 256 path (AVX2; body: qoutput_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX2
#define OM_QOUT_SYM 256
#include "qoutput_body.inc"
#endif
