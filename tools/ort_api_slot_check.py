"""Check that member 414 of the installed ONNX Runtime's OrtApi is GetTensorElementTypeAndShapeDataReference.

    python tools/ort_api_slot_check.py

ORT's wheels ship no C headers, so provider/csrc/ort_api.h declares the members we call by index. This
makes a 2x3x4 float tensor through members 69 (CreateCpuMemoryInfo) and 49 (CreateTensorWithDataAsOrtValue),
calls member 414 on it, and checks that it reads back the element type FLOAT and the shape. Prints the
result; exits 1 if it does not match, or if the runtime's C API is older than 24 (no member 414 there).
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys

import onnxruntime as ort


def main() -> int:
    libs = glob.glob(os.path.join(os.path.dirname(ort.__file__), "capi", "libonnxruntime.so*"))
    if not libs:
        print("no libonnxruntime.so in the onnxruntime package")
        return 1
    lib = ctypes.CDLL(libs[0])
    lib.OrtGetApiBase.restype = ctypes.c_void_p
    vp, P = ctypes.c_void_p, ctypes.POINTER
    base = ctypes.cast(lib.OrtGetApiBase(), P(vp))
    version = ctypes.CFUNCTYPE(ctypes.c_char_p)(base[1])().decode()
    major, minor = (int(x) for x in version.split(".")[:2])
    if (major, minor) < (1, 24):
        print(f"ONNX Runtime {version}: C API below 24, member 414 absent")
        return 1
    api = ctypes.cast(ctypes.CFUNCTYPE(vp, ctypes.c_uint32)(base[0])(24), P(vp))
    mem = vp()
    assert ctypes.CFUNCTYPE(vp, ctypes.c_int, ctypes.c_int, P(vp))(api[69])(1, 0, ctypes.byref(mem)) is None
    buf = (ctypes.c_float * 24)()
    dims = (ctypes.c_int64 * 3)(2, 3, 4)
    i64, sz = ctypes.c_int64, ctypes.c_size_t
    make = ctypes.CFUNCTYPE(vp, vp, vp, sz, P(i64), sz, ctypes.c_int, P(vp))
    value = vp()
    assert make(api[49])(mem, ctypes.cast(buf, vp), 96, dims, 3, 1, ctypes.byref(value)) is None
    shape_ref = ctypes.CFUNCTYPE(vp, vp, P(ctypes.c_int), P(P(ctypes.c_int64)), P(ctypes.c_size_t))(api[414])
    elem, shape, rank = ctypes.c_int(-1), P(ctypes.c_int64)(), ctypes.c_size_t(0)
    status = shape_ref(value, ctypes.byref(elem), ctypes.byref(shape), ctypes.byref(rank))
    got = [shape[i] for i in range(rank.value)] if shape and rank.value <= 8 else None
    ok = status is None and elem.value == 1 and got == [2, 3, 4]
    print(f"ONNX Runtime {version}: member 414 gave status {status}, type {elem.value}, shape {got}: "
          + ("GetTensorElementTypeAndShapeDataReference" if ok else "MISMATCH"))
    ctypes.CFUNCTYPE(None, vp)(api[96])(value)  # ReleaseValue
    ctypes.CFUNCTYPE(None, vp)(api[94])(mem)  # ReleaseMemoryInfo
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
