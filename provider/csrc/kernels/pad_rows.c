/* pad_rows.c - the rows of a padded tensor (pad_rows.h). */
#include "pad_rows.h"

#include <string.h>

#define OM_PAD_TYPED(T, body)      \
  do {                             \
    T v_;                          \
    memcpy(&v_, plan->value, sizeof v_); \
    body                           \
  } while (0)

void om_pad_fill(const om_pad_row_plan* plan, void* dst, size_t count) {
  switch (plan->esz) {
    case 1: memset(dst, plan->value[0], count); break;
    case 2: OM_PAD_TYPED(uint16_t, { uint16_t* d = dst; for (size_t i = 0; i < count; i++) d[i] = v_; }); break;
    case 4: OM_PAD_TYPED(uint32_t, { uint32_t* d = dst; for (size_t i = 0; i < count; i++) d[i] = v_; }); break;
    default: OM_PAD_TYPED(uint64_t, { uint64_t* d = dst; for (size_t i = 0; i < count; i++) d[i] = v_; }); break;
  }
}

/* Output elements [b, e) of a row through the map. */
#define OM_PAD_MAPPED(T)                                      \
  do {                                                        \
    T* d = dst;                                               \
    const T* s = src;                                         \
    T v_;                                                     \
    memcpy(&v_, plan->value, sizeof v_);                      \
    for (size_t o = b; o < e; o++) d[o] = map[o] < 0 ? v_ : s[map[o]]; \
  } while (0)

static void om_pad_mapped(const om_pad_row_plan* plan, void* dst, const void* src, size_t b, size_t e) {
  const int64_t* map = plan->map;
  switch (plan->esz) {
    case 1: OM_PAD_MAPPED(uint8_t); break;
    case 2: OM_PAD_MAPPED(uint16_t); break;
    case 4: OM_PAD_MAPPED(uint32_t); break;
    default: OM_PAD_MAPPED(uint64_t); break;
  }
}

void om_pad_row(const om_pad_row_plan* plan, void* dst, const void* src) {
  if (!src) {
    om_pad_fill(plan, dst, plan->width);
    return;
  }
  size_t esz = plan->esz, mb = plan->mid_begin, me = mb + plan->mid_len;
  om_pad_mapped(plan, dst, src, 0, mb);
  if (plan->mid_len)
    memcpy((char*)dst + mb * esz, (const char*)src + (size_t)plan->mid_src * esz, plan->mid_len * esz);
  om_pad_mapped(plan, dst, src, me, plan->width);
}
