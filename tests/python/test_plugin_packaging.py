"""ORT's plugin-EP packaging convention: get_library_path(), get_ep_names(), get_ep_name()."""

from __future__ import annotations

import os

import onnxruntime as ort
import pytest

import onemodel_ep
from onemodel_ep import ep


def test_library_path_and_ep_names():
    path = onemodel_ep.get_library_path()
    assert os.path.isfile(path) and os.path.basename(path).startswith("_native")
    assert onemodel_ep.library_path() == path  # the older name stays
    assert onemodel_ep.get_ep_names() == ["OneModelExecutionProvider"]
    assert onemodel_ep.get_ep_name() == "OneModelExecutionProvider" == onemodel_ep.EP_NAME


@pytest.mark.skipif(not ep.ep_supported(), reason="this onnxruntime cannot load plugin EPs")
def test_ort_lists_the_named_ep_of_the_library():
    ep.register_library()  # registers get_library_path() under ep.REGISTRATION_NAME
    names = {d.ep_name for d in ort.get_ep_devices()}
    assert set(onemodel_ep.get_ep_names()) <= names
    assert onemodel_ep.get_ep_name() in names
