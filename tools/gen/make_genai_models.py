"""Writes the ONNX Runtime GenAI test models of issue 36: testdata/genai/llama_fp32 and llama_int4, a
random-weight 2-layer Llama built by onnxruntime-genai's model builder for the CPU, each a folder the
generator loads (model.onnx, model.onnx.data, genai_config.json, the tokenizer).

    /work/toolvenv/bin/pip install onnxruntime-genai==0.18.0 transformers tokenizers cffi
    /work/toolvenv/bin/python tools/gen/make_genai_models.py

Run by hand, never in CI. The Hugging Face folder is made here, offline: LlamaConfig with hidden 64, 2
layers, 4 query and 2 key-value heads (head size 16), FFN 128, vocabulary 256, context 256, random weights
(seed 20261203); a word-level tokenizer over the tokens `t3` ... `t255` (made with `tokenizers`). The builder
(`python -m onnxruntime_genai.models.builder -e cpu -p fp32|int4`) writes GroupQueryAttention (packed QKV,
rotary with cos/sin caches, past/present KV sharing one buffer of the context length),
SkipSimplifiedLayerNormalization, SimplifiedLayerNormalization, MatMul (fp32) or MatMulNBits (int4, block
32), Sigmoid, Mul.

PyPI's torchvision (in the tool venv for the CNN models) does not load beside CPU torch, and transformers
imports it: a stub module stands in for `torchvision._meta_registrations`.
"""

from __future__ import annotations

import runpy
import shutil
import sys
import tempfile
import types
from pathlib import Path

sys.modules.setdefault("torchvision._meta_registrations", types.ModuleType("torchvision._meta_registrations"))
import torch  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "testdata" / "genai"
SEED = 20261203
KEEP = ("model.onnx", "model.onnx.data", "genai_config.json", "tokenizer.json", "tokenizer_config.json")


def hf_folder(path: Path) -> None:
    torch.manual_seed(SEED)
    cfg = LlamaConfig(
        vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, rms_norm_eps=1e-5, bos_token_id=1, eos_token_id=2,
        tie_word_embeddings=False,
    )
    LlamaForCausalLM(cfg).eval().save_pretrained(str(path), safe_serialization=True)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2} | {f"t{i}": i for i in range(3, 256)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    fast.save_pretrained(str(path))


def build(hf: Path, precision: str, out: Path, cache: Path) -> None:
    argv = sys.argv
    sys.argv = ["builder", "-i", str(hf), "-o", str(out), "-p", precision, "-e", "cpu", "-c", str(cache)]
    try:
        runpy.run_module("onnxruntime_genai.models.builder", run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise
    finally:
        sys.argv = argv


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="genai_") as tmp:
        hf = Path(tmp) / "hf"
        hf_folder(hf)
        for precision in ("fp32", "int4"):
            built = Path(tmp) / precision
            build(hf, precision, built, Path(tmp) / "cache")
            dst = OUT / f"llama_{precision}"
            shutil.rmtree(dst, ignore_errors=True)
            dst.mkdir(parents=True)
            for name in KEEP:
                shutil.copy(built / name, dst / name)
            print(f"wrote {dst}: {', '.join(sorted(p.name for p in dst.iterdir()))}")


if __name__ == "__main__":
    main()
