"""Writes the small random-weight CNN test models testdata/models/resnet18_small.onnx and
mobilenet_v3_small_half.onnx (issue 34's vision models), from torchvision's own definitions.

    python3 -m venv /work/toolvenv
    /work/toolvenv/bin/pip install torch==2.13.0+cpu onnx onnxscript onnxruntime pillow
    /work/toolvenv/bin/pip install --no-deps torchvision
    /work/toolvenv/bin/python tools/gen/make_cnn_models.py

Run by hand, never in CI (it needs torch). PyPI's torchvision is a CUDA build whose ops library does not load
beside CPU torch; the model definitions need none of its ops, so a stub module stands in for
`torchvision._meta_registrations` before the import.

- resnet18_small: torchvision's ResNet with its BasicBlock, layers [2, 2, 2, 2] as ResNet-18, the widths
  divided by 4 (stem and stages 16, 32, 64, 128; the file stays under 5 MB), 100 classes.
- mobilenet_v3_small_half: torchvision's MobileNetV3-small at width_mult 0.5, 100 classes.

Both take `pixel_values` float32 [batch, 3, 64, 64] (batch dynamic) and give `logits` [batch, 100]. Every
parameter and BatchNormalization statistic is random (fixed seed), so no BatchNormalization is an identity.
Exported with the dynamo exporter at opset 18, checked with onnx.checker and run in onnxruntime against
torch before they are written.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import onnx
import torch
from torch import nn

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
from make_test_models import OUT, SEED, check_one_input, export_checked  # noqa: E402
from torchvision.models import mobilenetv3, resnet  # noqa: E402

CLASSES = 100
SIDE = 64


def resnet18_small() -> nn.Module:
    """torchvision's ResNet-18 (BasicBlock, [2, 2, 2, 2]) with its widths divided by 4."""
    net = resnet.ResNet(resnet.BasicBlock, [2, 2, 2, 2], num_classes=CLASSES)
    widths = (16, 32, 64, 128)
    net.inplanes = widths[0]
    net.conv1 = nn.Conv2d(3, widths[0], kernel_size=7, stride=2, padding=3, bias=False)
    net.bn1 = nn.BatchNorm2d(widths[0])
    net.layer1 = net._make_layer(resnet.BasicBlock, widths[0], 2)
    net.layer2 = net._make_layer(resnet.BasicBlock, widths[1], 2, stride=2)
    net.layer3 = net._make_layer(resnet.BasicBlock, widths[2], 2, stride=2)
    net.layer4 = net._make_layer(resnet.BasicBlock, widths[3], 2, stride=2)
    net.fc = nn.Linear(widths[3], CLASSES)
    return net


def mobilenet_v3_small_half() -> nn.Module:
    settings, last_channel = mobilenetv3._mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.5)
    return mobilenetv3.MobileNetV3(settings, last_channel, num_classes=CLASSES)


def randomize(net: nn.Module) -> None:
    """Random weights (He-scaled), biases, BatchNormalization scales, shifts and running statistics."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn_like(m.weight) * (2.0 / fan_in) ** 0.5)
                if m.bias is not None:
                    m.bias.copy_(0.05 * torch.randn_like(m.bias))
            elif isinstance(m, nn.BatchNorm2d):
                m.weight.copy_(1.0 + 0.1 * torch.randn_like(m.weight))
                m.bias.copy_(0.05 * torch.randn_like(m.bias))
                assert m.running_mean is not None and m.running_var is not None
                m.running_mean.copy_(0.1 * torch.randn_like(m.running_mean))
                m.running_var.copy_(0.5 + torch.rand_like(m.running_var))


def export(net: nn.Module, name: str) -> Path:
    net.eval()
    x = torch.randn(2, 3, SIDE, SIDE)
    batch = torch.export.Dim("batch", min=1, max=64)
    path = export_checked(net, (x,), name, ["pixel_values"], ["logits"], ({0: batch},),
                          "tools/gen/make_cnn_models.py")
    check_one_input(net, path, "pixel_values", ((1, 3, SIDE, SIDE), (3, 3, SIDE, SIDE)))
    return path


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    makers = {"resnet18_small": resnet18_small, "mobilenet_v3_small_half": mobilenet_v3_small_half}
    for name, make in makers.items():
        torch.manual_seed(SEED)
        net = make()
        randomize(net)
        p = export(net, name)
        m = onnx.load(str(p))
        ops = sorted({n.op_type for n in m.graph.node})
        print(f"wrote {p} ({p.stat().st_size} bytes): {', '.join(ops)}")


if __name__ == "__main__":
    main()
