"""The PyTorch side of specdec.neural: the same networks, for training and for checking the numpy code.

Every module here has a numpy twin in `specdec.neural`, which reads the weights this code saves.
The parameter names of `export` are the keys of the committed .npz files.

* `CharTransformer`: a GPT-2-style decoder-only transformer over characters: token and learned
  position embeddings, plus an embedding of each of the `shifts` previous characters (so that the
  first block sees the last few characters at once, as a short convolution would; it makes the
  small model learn far faster on one CPU), pre-norm blocks (LayerNorm, causal self-attention, LayerNorm, MLP with the
  tanh form of GELU), a final LayerNorm, and an output head tied to the token embedding. No biases
  in the linear layers; LayerNorm has weight and bias.
* `MedusaHeads`: k heads on the target's final (normed) hidden state; head j predicts the token
  j + 1 positions ahead: a residual SiLU layer, then its own output matrix.
* `EagleDrafter`: one linear layer on [feature, next token's embedding], then one transformer block
  (with an MLP of 2d rather than 4d, to keep the committed weights small);
  it predicts the target's next feature, read out by the target's own final norm and head.
* `EarlyExit`: for layer skipping, a residual linear layer (initialised to zero, so the untrained
  exit is the identity) between layer L and the target's final norm.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int, heads: int, hidden: int | None = None, dropout: float = 0.0):
        super().__init__()
        self.heads = heads
        self.dropout = dropout  # training only: on each branch's output before it joins the residual
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.proj = nn.Linear(width, width, bias=False)
        self.ln2 = nn.LayerNorm(width)
        self.fc = nn.Linear(width, hidden or 4 * width, bias=False)
        self.out = nn.Linear(hidden or 4 * width, width, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(width, dim=2)
        shape = (batch, length, self.heads, width // self.heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        if torch.is_autocast_enabled("cpu"):
            # Causal attention written out (what the fused kernel computes): under bfloat16 autocast
            # its matrix products run on the CPU's bfloat16 units, far faster than the fused kernel.
            scores = (q @ k.transpose(-1, -2)) * (width // self.heads) ** -0.5
            causal = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
            attended = scores.float().masked_fill(~causal, float("-inf")).softmax(-1).to(v.dtype) @ v
        else:
            attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + F.dropout(self.proj(attended.transpose(1, 2).reshape(batch, length, width)), self.dropout,
                          self.training)
        return x + F.dropout(self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh")), self.dropout, self.training)


class CharTransformer(nn.Module):
    def __init__(self, vocab: int, width: int, layers: int, heads: int, context: int, shifts: int = 0,
                 dropout: float = 0.0):
        super().__init__()
        # `dropout` acts in training only (module.train()); it is not part of the exported config.
        self.config = dict(vocab=vocab, width=width, layers=layers, heads=heads, context=context, shifts=shifts)
        self.dropout = dropout
        self.embed = nn.Embedding(vocab, width)
        self.position = nn.Embedding(context, width)
        # Embeddings of the 1st, 2nd, … previous character (row `vocab`: before the text starts).
        self.shift = nn.ModuleList(nn.Embedding(vocab + 1, width) for _ in range(shifts))
        self.blocks = nn.ModuleList(Block(width, heads, dropout=dropout) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        for name, parameter in self.named_parameters():
            if name.endswith(("qkv.weight", "fc.weight")) or name.startswith(("embed", "position", "shift")):
                nn.init.normal_(parameter, std=0.02)
            elif name.endswith(("proj.weight", "out.weight")):
                nn.init.normal_(parameter, std=0.02 / math.sqrt(2 * layers))

    def hidden(self, ids: torch.Tensor, layers: int | None = None) -> torch.Tensor:
        """The residual stream after the first `layers` blocks (all by default), before the final norm."""
        x = self.inputs(ids)
        for block in self.blocks[: len(self.blocks) if layers is None else layers]:
            x = block(x)
        return x

    def inputs(self, ids: torch.Tensor) -> torch.Tensor:
        """Token, position and previous-character embeddings: the input of the first block."""
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1], device=ids.device))
        for k, table in enumerate(self.shift, start=1):
            x = x + table(F.pad(ids, (k, 0), value=self.config["vocab"])[:, :-k])
        return F.dropout(x, self.dropout, self.training)

    def head(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.ln_f(hidden) @ self.embed.weight.T

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.hidden(ids))


class MedusaHeads(nn.Module):
    def __init__(self, target: CharTransformer, count: int):
        super().__init__()
        width, vocab = target.config["width"], target.config["vocab"]
        self.config = dict(count=count, width=width, vocab=vocab)
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(count))
        self.outputs = nn.ParameterList(nn.Parameter(target.embed.weight.detach().clone()) for _ in range(count))
        for layer in self.layers:
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, normed: torch.Tensor) -> list[torch.Tensor]:
        """Logits of head j (j = 1 … k) at each position: the token j + 1 positions ahead."""
        return [(normed + F.silu(layer(normed))) @ output.T for layer, output in zip(self.layers, self.outputs)]


class EagleDrafter(nn.Module):
    def __init__(self, target: CharTransformer):
        super().__init__()
        width, heads = target.config["width"], target.config["heads"]
        self.config = dict(width=width, heads=heads, hidden=2 * width)
        self.fuse = nn.Linear(2 * width, width)
        self.block = Block(width, heads, hidden=2 * width)
        with torch.no_grad():  # start as "the feature passes through": [I, 0]
            self.fuse.weight.zero_()
            self.fuse.weight[:, :width] = torch.eye(width)
            self.fuse.bias.zero_()

    def forward(self, features: torch.Tensor, next_embeddings: torch.Tensor) -> torch.Tensor:
        """Predicted feature at t + 1 from the feature at t and the embedding of token t + 1."""
        return self.block(self.fuse(torch.cat([features, next_embeddings], dim=-1)))


class EarlyExit(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.config = dict(width=width)
        self.adapter = nn.Linear(width, width)
        nn.init.zeros_(self.adapter.weight)
        nn.init.zeros_(self.adapter.bias)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden + self.adapter(hidden)


def export(module: nn.Module, prefix: str = "") -> dict[str, np.ndarray]:
    """The module's parameters as float16 numpy arrays, keyed by prefix + parameter name."""
    return {prefix + name: parameter.detach().cpu().numpy().astype(np.float16)
            for name, parameter in module.named_parameters()}


def load(module: nn.Module, arrays, prefix: str = "") -> nn.Module:
    """Set the module's parameters from `export`'s arrays (read as float32)."""
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            parameter.copy_(torch.from_numpy(np.asarray(arrays[prefix + name], dtype=np.float32)))
    return module


def round_to_float16(module: nn.Module) -> None:
    """Round every parameter to float16 and back, so that training code sees the committed weights."""
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(parameter.half().float())


@torch.no_grad()
def greedy_decode(model: CharTransformer, prompt_ids, steps: int, cached: bool = True) -> list[int]:
    """Greedy decoding with PyTorch: recompute the whole text per character, or keep a KV cache.

    The PyTorch twin of `specdec.neural.generate` at temperature 0, for the benchmark.
    """
    ids = [int(i) for i in prompt_ids]
    if not cached:
        for _ in range(steps):
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
        return ids[len(prompt_ids):]
    width, heads = model.config["width"], model.config["heads"]
    keys: list[torch.Tensor | None] = [None] * len(model.blocks)
    values: list[torch.Tensor | None] = [None] * len(model.blocks)

    def run(new: list[int], start: int) -> torch.Tensor:
        text = torch.tensor(ids[: start + len(new)])
        x = model.embed(text[start:]) + model.position(torch.arange(start, start + len(new)))
        for k, table in enumerate(model.shift, start=1):
            before = torch.arange(start, start + len(new)) - k
            previous = torch.where(before >= 0, text[before.clamp(min=0)], torch.tensor(model.config["vocab"]))
            x = x + table(previous)
        for layer, block in enumerate(model.blocks):
            q, k, v = block.qkv(block.ln1(x)).split(width, dim=1)
            q, k, v = (t.view(len(new), heads, -1).transpose(0, 1) for t in (q, k, v))
            keys[layer] = k if keys[layer] is None else torch.cat([keys[layer], k], dim=1)
            values[layer] = v if values[layer] is None else torch.cat([values[layer], v], dim=1)
            mask = torch.ones(len(new), start + len(new), dtype=torch.bool).tril(diagonal=start)
            attended = F.scaled_dot_product_attention(q, keys[layer], values[layer], attn_mask=mask)
            x = x + block.proj(attended.transpose(0, 1).reshape(len(new), width))
            x = x + block.out(F.gelu(block.fc(block.ln2(x)), approximate="tanh"))
        return model.head(x[-1])

    logits = run(ids, 0)
    for _ in range(steps):
        ids.append(int(logits.argmax()))
        logits = run(ids[-1:], len(ids) - 1)
    return ids[len(prompt_ids):]
