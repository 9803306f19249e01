/* qoutput_512.c - the requantisation of qoutput.h for the 512 path (AVX-512; body: qoutput_body.inc). */
#include "isa/target.h"
#if OM_ISA_X86
OM_TARGET_X86_AVX512
#define OM_QOUT_SYM 512
#include "qoutput_body.inc"
#endif
