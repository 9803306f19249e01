/* ort_attrs_resize.c - Resize's and Upsample's string attributes into om_attrs (see ort_attrs.h). Knows nothing
 * of math: the names' codes are om_resize_attr_code's (onemodel.h). */
#include <stdio.h>

#include "ort_attrs.h"

int om_attrs_read_resize(const om_attr_source* src, unsigned flags, om_attrs* attrs, char* err, size_t errlen) {
  static const char* const names[4] = {"mode", "coordinate_transformation_mode", "nearest_mode",
                                       "keep_aspect_ratio_policy"};
  int* fields[4] = {&attrs->resize_mode, &attrs->resize_coord, &attrs->resize_nearest, &attrs->resize_aspect};
  char sval[64];
  for (int q = 0; q < 4; q++) {
    /* `mode` is OneModel's own after the rewrite, which keeps the node's as `onnx_mode` */
    const char* read_as = q == 0 && (flags & OM_ATTRS_ONEMODEL) ? "onnx_mode" : names[q];
    int r = src->get_string(src->ctx, read_as, sval, sizeof sval, err, errlen);
    if (r < 0) return -1;
    if (r == 0) *fields[q] = om_resize_attr_code(names[q], sval);
  }
  return 0;
}
