"""The EP's two-valued options (provider/csrc/ep/ep_factory.c, om_ep_choice): a value that is neither of the
two fails session creation with an error naming the option, its two values and the value given."""

from __future__ import annotations

import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onemodel_ep
from onemodel_ep.ep import EP_NAME, ep_devices
from tests.ep.ep_sessions import make_model

pytestmark = pytest.mark.skipif(not onemodel_ep.ep_supported(), reason="needs the plugin EP (ORT 1.24+)")

F = TensorProto.FLOAT


@pytest.mark.parametrize(
    ("option", "values", "bad"),
    [
        ("fuse", ("0", "1"), "yes"),
        ("fold", ("0", "1"), "yes"),
        ("qdq_groups", ("0", "1"), "2"),
        ("strict", ("0", "1"), "yes"),
        ("dispatch", ("registry", "compile"), "fused"),
    ],
)
def test_bad_two_valued_option_is_a_session_error(option: str, values: tuple[str, str], bad: str) -> None:
    m = make_model([helper.make_node("Exp", ["x"], ["y"], name="e")], {"x": (F, [4])}, {"y": (F, [4])})
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.add_provider_for_devices(ep_devices(), {option: bad})
    want = f'{EP_NAME} option \'{option}\' must be "{values[0]}" or "{values[1]}", got "{bad}"'
    with pytest.raises(Exception, match=want):
        ort.InferenceSession(m.SerializeToString(), so, enable_fallback=0)
