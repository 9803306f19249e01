"""Writes the small random-weight OCR, segmentation and audio test models of issue 34:
testdata/models/unet_small.onnx, crnn_small.onnx and audio_gru_small.onnx, defined here in plain torch.

    python3 -m venv /work/toolvenv
    /work/toolvenv/bin/pip install torch==2.13.0+cpu onnx onnxscript onnxruntime
    /work/toolvenv/bin/python tools/gen/make_seq_models.py

Run by hand, never in CI (it needs torch).

- unet_small: a two-level U-Net on `pixel_values` float32 [batch, 3, 64, 64] to `mask` [batch, 2, 64, 64]:
  Conv + GroupNorm + Relu, MaxPool, Conv + InstanceNorm + Relu, MaxPool, Conv + Relu, ConvTranspose (k 2,
  s 2) up, Concat with the skip, a bilinear Resize (scale 2, half_pixel) up, Concat, Conv.
- crnn_small: a CRNN text recogniser on `image` float32 [batch, 1, 32, 100] to `log_probs` [25, batch, 37]:
  three Conv + Relu + MaxPool stages, the mean over the height, a 2-layer bidirectional LSTM (hidden 32),
  Linear, LogSoftmax.
- audio_gru_small: a voice-activity-style model on `features` float32 [batch, 40, 32] (40 mel bins, 32
  frames; the exporter fails on this GRU with the frames dynamic) to `speech_prob` [batch, 16, 1]: two
  Conv1d + Relu (the second with stride 2), a GRU (hidden 48), Linear, Sigmoid.

Every parameter is random (fixed seed), exported with the dynamo exporter at opset 18 (LSTM and GRU stay
ONNX LSTM and GRU nodes), checked with onnx.checker and run in onnxruntime against torch before it is written.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx
import torch
from make_test_models import OUT, SEED, check_one_input, export_checked
from torch import nn
from torch.nn import functional as F  # noqa: N812


def _block(cin: int, cout: int, norm: nn.Module | None) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, padding=1)]
    if norm is not None:
        layers.append(norm)
    layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class UNetSmall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc1 = _block(3, 16, nn.GroupNorm(4, 16))
        self.enc2 = _block(16, 32, nn.InstanceNorm2d(32, affine=True))
        self.mid = _block(32, 64, None)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec2 = _block(64, 32, None)
        self.dec1 = _block(32 + 16, 16, None)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = F.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=False)
        return self.head(self.dec1(torch.cat([d1, e1], dim=1)))


class CrnnSmall(nn.Module):
    CLASSES = 37

    def __init__(self) -> None:
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
        )
        self.rnn = nn.LSTM(48, 32, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(64, self.CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.cnn(x).mean(dim=2)  # [batch, 48, width / 4]
        y, _ = self.rnn(f.permute(2, 0, 1))  # [time, batch, 64]
        return F.log_softmax(self.fc(y), dim=-1)


class AudioGruSmall(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(40, 64, 5, padding=2)
        self.conv2 = nn.Conv1d(64, 64, 3, stride=2, padding=1)
        self.gru = nn.GRU(64, 48)
        self.fc = nn.Linear(48, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv2(F.relu(self.conv1(x))))  # [batch, 64, frames / 2]
        y, _ = self.gru(h.permute(2, 0, 1))  # [frames / 2, batch, 48]
        return torch.sigmoid(self.fc(y)).transpose(0, 1)


def randomize(net: nn.Module) -> None:
    """Random weights and biases; non-trivial norm scales and shifts."""
    with torch.no_grad():
        for name, p in net.named_parameters():
            if "norm" in type(dict(net.named_modules())[name.rsplit(".", 1)[0]]).__name__.lower():
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.1 * torch.randn_like(p))
            elif p.dim() > 1:
                p.copy_(torch.randn_like(p) * (2.0 / p[0].numel()) ** 0.5)
            else:
                p.copy_(0.05 * torch.randn_like(p))


Spec = tuple[Callable[[], nn.Module], str, str, tuple[int, ...], dict[int, str], tuple[tuple[int, ...], ...]]
SPECS: dict[str, Spec] = {
    # name: (maker, input name, output name, export shape, dynamic axes, shapes checked in onnxruntime)
    "unet_small": (UNetSmall, "pixel_values", "mask", (2, 3, 64, 64), {0: "batch"},
                   ((1, 3, 64, 64), (3, 3, 64, 64))),
    "crnn_small": (CrnnSmall, "image", "log_probs", (2, 1, 32, 100), {0: "batch"},
                   ((1, 1, 32, 100), (3, 1, 32, 100))),
    "audio_gru_small": (AudioGruSmall, "features", "speech_prob", (2, 40, 32), {0: "batch"},
                        ((1, 40, 32), (3, 40, 32))),
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (make, in_name, out_name, shape, axes, checks) in SPECS.items():
        torch.manual_seed(SEED)
        net = make()
        randomize(net)
        net.eval()
        dims = {i: torch.export.Dim(n, min=1, max=64) for i, n in axes.items()}
        x = torch.randn(*shape)
        path = export_checked(net, (x,), name, [in_name], [out_name], (dims,), "tools/gen/make_seq_models.py")
        check_one_input(net, path, in_name, checks)
        m = onnx.load(str(path))
        ops = sorted({n.op_type for n in m.graph.node})
        print(f"wrote {path} ({path.stat().st_size} bytes): {', '.join(ops)}")


if __name__ == "__main__":
    main()
