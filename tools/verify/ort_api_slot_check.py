"""Check members of the installed ONNX Runtime's OrtApi and OrtEpApi that provider/csrc declares by index.

    python tools/verify/ort_api_slot_check.py

ORT's wheels ship no C headers, so provider/csrc/ort/ort_api.h and ort_ep_api.h declare the members we call by
index. This makes a 2x3x4 float tensor through members 69 (CreateCpuMemoryInfo) and 49
(CreateTensorWithDataAsOrtValue), calls member 414 on it, and checks that it reads back the element type FLOAT
and the shape; it sets a session config entry (10, 130) and reads it back through 237
(HasSessionConfigEntry) and 238 (GetSessionConfigEntry); and through 317 (GetEpApi) it builds a kernel
definition with OrtEpApi members 21-26 and 32 and reads it back with 34-37, and makes and releases a kernel
registry (18, 19) and a tensor data type (40). The compile dispatch's graph members are read on objects of
ORT's model-editor API (291; its members 0, 5 and 6 make a type, a value and a node), whose implementations
answer each graph query with a NOT_IMPLEMENTED status of their own wording: 326
(ValueInfo_GetInitializerValue) must name the initializer value, 331 (ValueInfo_IsConstantInitializer) the
constant initializer, 356 (Node_GetOutputs) the output value infos, and the fused chains' (ep_fuse.c) 324
(ValueInfo_GetValueNumConsumers) the number of consumers, 325 (ValueInfo_GetValueConsumers) the consumers,
330 (ValueInfo_IsGraphOutput) the graph output (ORT 1.31.1, 2026-12-04); OrtEpApi member 2
(EpGraphSupportInfo_AddNodesToFuse) must refuse a NULL support info with INVALID_ARGUMENT before it reads the
node list. Member 78 (GetAllocatorWithDefaultOptions) gives an allocator whose Alloc and Free (the head of
OrtAllocator as ort_api.h declares it) allocate and release a block; member 417
(KernelInfoGetAttributeArray_string), which reads a kernel's list with it, needs a kernel's info, so
tests/nodes/test_rnn_activations.py checks it end to end (a list it misread would not give the reference's
bits). Likewise members 236 (KernelInfoGetAttribute_tensor, a kernel's tensor attribute) and 362
(OpAttr_GetTensorAttributeAsOrtValue, a graph node's; both released through 96, ReleaseValue) need a kernel's
info or a graph's node: tests/nodes/test_constant_of_shape.py reads ConstantOfShape's `value` of every type
through each (the rewrite, the EP) and checks the bits (ORT 1.31.1, 2026-12-04). Prints each result; exits 1
if one does not match, or if the runtime's C API is older than 24.
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
    return 0 if ok and _session_config(api) and _allocator(api) and _ep_api(api) and _graph_api(api) else 1


class _AllocatorHead(ctypes.Structure):
    """OrtAllocator's first members as ort_api.h declares them."""

    _fields_ = [("version", ctypes.c_uint32),
                ("alloc", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)),
                ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p))]


def _allocator(api: ctypes.Array) -> bool:
    """Member 78 (GetAllocatorWithDefaultOptions), which ort_attrs_lists.c hands member 417, and the head of
    OrtAllocator: allocate 64 bytes through its Alloc, write them, give them back through its Free."""
    vp, P = ctypes.c_void_p, ctypes.POINTER
    alloc = vp()
    st = ctypes.CFUNCTYPE(vp, P(vp))(api[78])(ctypes.byref(alloc))
    ok = st is None and bool(alloc.value)
    version = -1
    if ok:
        head = ctypes.cast(alloc, P(_AllocatorHead)).contents
        version = head.version
        block = head.alloc(alloc, 64)
        ok = version >= 1 and bool(block)
        if block:
            ctypes.memset(block, 0x5A, 64)
            head.free(alloc, block)
    print(f"member 78: status {st}, allocator version {version}: "
          + ("GetAllocatorWithDefaultOptions" if ok else "MISMATCH"))
    return ok


def _session_config(api: ctypes.Array) -> bool:
    vp, cp, P = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER
    so = vp()
    assert ctypes.CFUNCTYPE(vp, P(vp))(api[10])(ctypes.byref(so)) is None  # CreateSessionOptions
    add_entry = ctypes.CFUNCTYPE(vp, vp, cp, cp)(api[130])  # AddSessionConfigEntry
    assert add_entry(so, b"ep.x.mode", b"fast") is None
    has = ctypes.c_int(-1)
    st = ctypes.CFUNCTYPE(vp, vp, cp, P(ctypes.c_int))(api[237])(so, b"ep.x.mode", ctypes.byref(has))
    buf, size = ctypes.create_string_buffer(16), ctypes.c_size_t(16)
    get_entry = ctypes.CFUNCTYPE(vp, vp, cp, cp, P(ctypes.c_size_t))(api[238])
    st2 = get_entry(so, b"ep.x.mode", buf, ctypes.byref(size))
    ctypes.CFUNCTYPE(None, vp)(api[100])(so)  # ReleaseSessionOptions
    ok = st is None and has.value == 1 and st2 is None and buf.value == b"fast"
    verdict = "Has/GetSessionConfigEntry" if ok else "MISMATCH"
    print(f"members 237, 238: has {has.value}, value {buf.value!r}: {verdict}")
    return ok


def _ep_api(api: ctypes.Array) -> bool:
    vp, cp, P, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER, ctypes.c_int
    ep_api = ctypes.CFUNCTYPE(vp)(api[317])()
    if not ep_api:
        print("member 317 (GetEpApi) gave NULL: MISMATCH")
        return False
    e = ctypes.cast(ep_api, P(vp))
    builder, kdef, reg, dtype = vp(), vp(), vp(), vp()
    status = [
        ctypes.CFUNCTYPE(vp, P(vp))(e[21])(ctypes.byref(builder)),
        ctypes.CFUNCTYPE(vp, vp, cp)(e[23])(builder, b"Add"),
        ctypes.CFUNCTYPE(vp, vp, cp)(e[24])(builder, b""),
        ctypes.CFUNCTYPE(vp, vp, ci, ci)(e[25])(builder, 7, 1000),
        ctypes.CFUNCTYPE(vp, vp, cp)(e[26])(builder, b"SlotCheckEP"),
        ctypes.CFUNCTYPE(vp, vp, P(vp))(e[32])(builder, ctypes.byref(kdef)),
    ]
    op = ctypes.CFUNCTYPE(cp, vp)(e[34])(kdef)
    domain = ctypes.CFUNCTYPE(cp, vp)(e[35])(kdef)
    start, end = ci(0), ci(0)
    status.append(ctypes.CFUNCTYPE(vp, vp, P(ci), P(ci))(e[36])(kdef, ctypes.byref(start), ctypes.byref(end)))
    epname = ctypes.CFUNCTYPE(cp, vp)(e[37])(kdef)
    status.append(ctypes.CFUNCTYPE(vp, P(vp))(e[18])(ctypes.byref(reg)))
    status.append(ctypes.CFUNCTYPE(vp, ci, P(vp))(e[40])(1, ctypes.byref(dtype)))
    ctypes.CFUNCTYPE(None, vp)(e[19])(reg)  # ReleaseKernelRegistry
    ctypes.CFUNCTYPE(None, vp)(e[33])(kdef)  # ReleaseKernelDef
    ctypes.CFUNCTYPE(None, vp)(e[22])(builder)  # ReleaseKernelDefBuilder
    got = (op, domain, start.value, end.value, epname)
    ok = all(s is None for s in status) and got == (b"Add", b"", 7, 1000, b"SlotCheckEP") and bool(dtype)
    verdict = "as declared" if ok else "MISMATCH"
    print(f"OrtEpApi (member 317) 18-37, 40: kernel def read back as {got}: {verdict}")
    return ok


def _status_text(api: ctypes.Array, status: int | None) -> tuple[int, str]:
    """The error code and message of `status` (0 and "" for success), released."""
    if not status:
        return 0, ""
    vp = ctypes.c_void_p
    code = ctypes.CFUNCTYPE(ctypes.c_int, vp)(api[1])(status)
    text = ctypes.CFUNCTYPE(ctypes.c_char_p, vp)(api[2])(status) or b""
    ctypes.CFUNCTYPE(None, vp)(api[93])(status)  # ReleaseStatus
    return code, text.decode(errors="replace")


def _graph_api(api: ctypes.Array) -> bool:
    vp, cp, P, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER, ctypes.c_size_t
    editor = ctypes.CFUNCTYPE(vp)(api[291])()  # GetModelEditorApi
    if not editor:
        print("member 291 (GetModelEditorApi) gave NULL: MISMATCH")
        return False
    m = ctypes.cast(editor, P(vp))
    tinfo, typ, vi, node = vp(), vp(), vp(), vp()
    assert ctypes.CFUNCTYPE(vp, P(vp))(api[57])(ctypes.byref(tinfo)) is None  # CreateTensorTypeAndShapeInfo
    assert ctypes.CFUNCTYPE(vp, vp, ctypes.c_int)(api[58])(tinfo, 1) is None  # SetTensorElementType FLOAT
    assert ctypes.CFUNCTYPE(vp, vp, P(vp))(m[0])(tinfo, ctypes.byref(typ)) is None  # CreateTensorTypeInfo
    assert ctypes.CFUNCTYPE(vp, cp, vp, P(vp))(m[5])(b"v", typ, ctypes.byref(vi)) is None  # CreateValueInfo
    ins, outs = (cp * 1)(b"v"), (cp * 1)(b"w")
    make_node = ctypes.CFUNCTYPE(vp, cp, cp, cp, P(cp), sz, P(cp), sz, P(vp), sz, P(vp))(m[6])  # CreateNode
    assert make_node(b"Exp", b"", b"n", ins, 1, outs, 1, None, 0, ctypes.byref(node)) is None
    value, flag, out, count, idx = vp(), ctypes.c_bool(), (vp * 1)(), sz(), (ctypes.c_int64 * 1)()
    consumers = ctypes.CFUNCTYPE(vp, vp, P(vp), P(ctypes.c_int64), sz)(api[325])  # GetValueConsumers
    got = {
        326: _status_text(api, ctypes.CFUNCTYPE(vp, vp, P(vp))(api[326])(vi, ctypes.byref(value))),
        331: _status_text(api, ctypes.CFUNCTYPE(vp, vp, P(ctypes.c_bool))(api[331])(vi, ctypes.byref(flag))),
        356: _status_text(api, ctypes.CFUNCTYPE(vp, vp, P(vp), sz)(api[356])(node, out, 1)),
        324: _status_text(api, ctypes.CFUNCTYPE(vp, vp, P(sz))(api[324])(vi, ctypes.byref(count))),
        325: _status_text(api, consumers(vi, out, idx, 1)),
        330: _status_text(api, ctypes.CFUNCTYPE(vp, vp, P(ctypes.c_bool))(api[330])(vi, ctypes.byref(flag))),
    }
    e = ctypes.cast(ctypes.CFUNCTYPE(vp)(api[317])(), P(vp))
    nodes = (vp * 1)(node)
    fuse = ctypes.CFUNCTYPE(vp, vp, P(vp), sz, vp)(e[2])  # EpGraphSupportInfo_AddNodesToFuse
    got[2] = _status_text(api, fuse(None, nodes, 1, None))
    ctypes.CFUNCTYPE(None, vp)(api[286])(node)  # ReleaseNode
    ctypes.CFUNCTYPE(None, vp)(api[285])(vi)  # ReleaseValueInfo
    ctypes.CFUNCTYPE(None, vp)(api[98])(typ)  # ReleaseTypeInfo
    ctypes.CFUNCTYPE(None, vp)(api[99])(tinfo)  # ReleaseTensorTypeAndShapeInfo
    not_implemented, invalid_argument = 9, 2
    want = {
        326: (not_implemented, "initializer value", "ValueInfo_GetInitializerValue"),
        331: (not_implemented, "constant initializer", "ValueInfo_IsConstantInitializer"),
        356: (not_implemented, "output OrtValueInfos", "Node_GetOutputs"),
        324: (not_implemented, "number of consumers", "ValueInfo_GetValueNumConsumers"),
        325: (not_implemented, "getting the consumers", "ValueInfo_GetValueConsumers"),
        330: (not_implemented, "graph output", "ValueInfo_IsGraphOutput"),
        2: (invalid_argument, "SupportInfo", "OrtEpApi EpGraphSupportInfo_AddNodesToFuse"),
    }
    ok = True
    for k, (code, words, name) in want.items():
        c, text = got[k]
        good = c == code and words.lower() in text.lower()
        ok = ok and good
        print(f"member {k}: status {c} {text!r}: " + (name if good else "MISMATCH"))
    return ok


if __name__ == "__main__":
    sys.exit(main())
