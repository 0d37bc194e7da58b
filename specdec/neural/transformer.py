"""A decoder-only transformer over characters, in numpy: the forward pass, the KV cache, sampling.

This is the whole network that the neural lessons use as the target (and, smaller, as a draft). It
reads in one sitting:

1. **Embedding.** Character ``x`` at position ``t`` becomes ``E[x] + P[t] + S₁[x₋₁] + S₂[x₋₂] + S₃[x₋₃]``:
   token and learned position embeddings (width d), plus embeddings of the three previous
   characters, so that the first block sees the last few characters at once (as a short
   convolution would); with them, a model this small learns in minutes on one CPU.
2. **Blocks**, each with a residual stream: ``h += Attention(LayerNorm(h))`` then
   ``h += MLP(LayerNorm(h))``. Attention splits d into heads; each position's query is compared with
   the keys of itself and every earlier position (causal), softmax(q·k / √d_head) weights their
   values. The MLP is ``W_out · GELU(W_in · h)`` with a 4d hidden layer.
3. **Output.** A final LayerNorm, then the logits ``E · h`` (the head is the token embedding
   itself, "tied").

**The KV cache.** A position's keys and values depend only on itself and what came before, so
they are computed once and kept: decoding one more character runs the network on that character
alone, attending to the cached keys and values. A verify pass runs it on γ + 1 new positions at
once. `KVCache.truncate` throws away the keys of rejected draft positions; `KVCache.keep` keeps
one path of a token tree. Cached and uncached runs give the same logits (up to float32 rounding).

**Sampling at a temperature.** `probabilities` turns logits into softmax(z / T) in float64;
T = 0 is greedy decoding (a one-hot row on the argmax).

Weights are float32 copies of the float16 numbers committed in ``weights/models.npz``; the PyTorch
code that trained them is ``training/torch_models.py`` at the repository root.

>>> from specdec.neural import load_target
>>> target = load_target()
>>> ids = target.encode("def ")
>>> logits = target.logits(target.forward(ids))
>>> logits.shape == (4, len(target.vocab))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: LayerNorm's epsilon, as in PyTorch.
LAYER_NORM_EPS = 1e-5
_GELU_SCALE = math.sqrt(2.0 / math.pi)
#: Cache positions beyond the context: a token tree's nodes all sit in the cache during its verify pass.
TREE_ROOM = 128


@dataclass(frozen=True)
class Config:
    """Shape of a transformer: vocabulary size, width d, number of blocks, heads, context length."""

    vocab: int
    width: int
    layers: int
    heads: int
    context: int
    shifts: int = 0
    """How many previous characters the input embeds besides the current one."""

    @property
    def head_width(self) -> int:
        return self.width // self.heads


class KVCache:
    """The keys and values of the positions a transformer has seen, for each of its blocks.

    Storage is allocated once for the whole context; `length` says how many positions are filled.

    >>> cache = KVCache(layers=2, heads=4, capacity=8, head_width=16)
    >>> cache.length, cache.keys[0].shape
    (0, (4, 8, 16))
    """

    def __init__(self, layers: int, heads: int, capacity: int, head_width: int):
        self.capacity = capacity
        self.keys = [np.zeros((heads, capacity, head_width), np.float32) for _ in range(layers)]
        self.values = [np.zeros((heads, capacity, head_width), np.float32) for _ in range(layers)]
        self.tokens = np.full(capacity, -1, dtype=np.int64)
        self.length = 0

    def truncate(self, length: int) -> None:
        """Forget every position from `length` on (the rejected part of a draft)."""
        if not 0 <= length <= self.length:
            raise ValueError(f"length must be in 0 … {self.length}, got {length}")
        self.length = length

    def keep(self, start: int, rows) -> None:
        """Keep positions 0 … start − 1, then only the positions `rows` (each ≥ start), in that order.

        After a tree verify pass, this keeps the accepted path and drops its siblings.
        """
        rows = [int(row) for row in rows]
        if not all(start <= row < self.length for row in rows):
            raise ValueError(f"rows must lie in {start} … {self.length - 1}, got {rows}")
        for store in (*self.keys, *self.values):
            store[:, start:start + len(rows)] = store[:, rows]
        self.tokens[start:start + len(rows)] = self.tokens[rows]
        self.length = start + len(rows)

    def copy(self) -> "KVCache":
        other = KVCache.__new__(KVCache)
        other.capacity, other.length = self.capacity, self.length
        other.keys = [k.copy() for k in self.keys]
        other.values = [v.copy() for v in self.values]
        other.tokens = self.tokens.copy()
        return other


class Transformer:
    """A character transformer with the weights of one committed model.

    Parameters
    ----------
    arrays : mapping of str to numpy.ndarray
        The weights, named as the PyTorch module names them, after `prefix`.
    prefix : str
        e.g. ``"target."``.
    config : Config
    vocab : list of str
        The characters, in id order.
    """

    def __init__(self, arrays, prefix: str, config: Config, vocab: list[str]):
        def get(name):
            return np.ascontiguousarray(np.asarray(arrays[prefix + name], dtype=np.float32))

        self.config = config
        self.vocab = list(vocab)
        self._index = {char: i for i, char in enumerate(self.vocab)}
        self.embed = get("embed.weight")
        self.position = get("position.weight")
        self.shift = [get(f"shift.{k}.weight") for k in range(config.shifts)]
        self.blocks = [Block.from_arrays(get, f"blocks.{i}.", config.heads) for i in range(config.layers)]
        self.ln_f = (get("ln_f.weight"), get("ln_f.bias"))
        self._head = np.ascontiguousarray(self.embed.T)

    # -- text <-> ids -------------------------------------------------------------------------
    def encode(self, text) -> list[int]:
        """Character ids of `text`; a character outside the vocabulary becomes the last symbol."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        unknown = len(self.vocab) - 1
        return [self._index.get(char, unknown) for char in text]

    def decode(self, ids) -> str:
        return "".join(self.vocab[int(i)] for i in ids)

    # -- the network ---------------------------------------------------------------------------
    def new_cache(self) -> KVCache:
        """An empty cache for the whole context, and `TREE_ROOM` more positions for a tree's branches."""
        c = self.config
        return KVCache(c.layers, c.heads, c.context + TREE_ROOM, c.head_width)

    def forward(self, ids, cache: KVCache | None = None, layers: int | None = None, positions=None,
                mask=None, previous=None) -> np.ndarray:
        """The residual stream after the first `layers` blocks (all by default), before the final norm.

        Parameters
        ----------
        ids : sequence of int
            New characters. With a cache they come after the cached positions.
        cache : KVCache, optional
            Filled with the new positions' keys and values (for the first `layers` blocks).
        layers : int, optional
            Stop after this many blocks (layer skipping).
        positions : sequence of int, optional
            Position of each new character; by default the ones right after the cache. A token
            tree gives each node its depth.
        mask : array_like of bool, shape (n, n), optional
            Which new positions each new position attends to (besides every cached one); the
            default is causal (lower triangular). A tree passes "is an ancestor or itself".
        previous : array_like of int, shape (n, shifts), optional
            previous[i, k − 1]: the character k places before new position i (−1 before the text).
            By default, read from the cache and the new characters in order; a tree passes each
            node's own ancestors.

        Returns
        -------
        numpy.ndarray of shape (n, d), float32
        """
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        start = 0 if cache is None else cache.length
        if positions is None:
            positions = np.arange(start, start + ids.size)
        positions = np.asarray(positions, dtype=np.int64)
        if ids.size and positions.max() >= self.config.context:
            raise ValueError(f"the text must fit in the model's context of {self.config.context} characters")
        if start + ids.size > (self.config.context if cache is None else cache.capacity):
            raise ValueError(f"{ids.size} new positions do not fit after {start} cached ones")
        if mask is None:
            mask = np.tri(ids.size, dtype=bool)
        x = self.embed[ids] + self.position[positions]
        if self.shift:
            if previous is None:
                before = np.empty(0, np.int64) if cache is None else cache.tokens[:start]
                text = np.concatenate([before, ids])
                index = start + np.arange(ids.size)[:, None] - np.arange(1, len(self.shift) + 1)[None, :]
                previous = np.where(index >= 0, text[np.maximum(index, 0)], -1)
            previous = np.asarray(previous, dtype=np.int64).reshape(ids.size, len(self.shift))
            before_text = self.config.vocab  # the row for "before the text starts"
            for k, table in enumerate(self.shift):
                x = x + table[np.where(previous[:, k] >= 0, previous[:, k], before_text)]
        blocks = self.blocks if layers is None else self.blocks[:layers]
        for layer, block in enumerate(blocks):
            if cache is None:
                x = block(x, None, None, 0, mask)
            else:
                x = block(x, cache.keys[layer], cache.values[layer], start, mask)
        if cache is not None:
            cache.tokens[start:start + ids.size] = ids
            cache.length = start + ids.size
        return x

    def normed(self, hidden: np.ndarray) -> np.ndarray:
        """The final LayerNorm of a residual stream."""
        return layer_norm(hidden, *self.ln_f)

    def logits(self, hidden: np.ndarray) -> np.ndarray:
        """The logits of a residual stream: final norm, then the tied head."""
        return self.normed(hidden) @ self._head

    def parameter_count(self, layers: int | None = None) -> int:
        """Weights used by a pass through the first `layers` blocks and the head."""
        used = self.blocks if layers is None else self.blocks[:layers]
        return (self.embed.size + self.position.size + sum(table.size for table in self.shift)
                + sum(b.parameter_count for b in used) + 2 * self.config.width)


class Block:
    """One pre-norm transformer block: attention then MLP, each added to the residual stream."""

    def __init__(self, ln1, qkv, proj, ln2, fc, out, heads: int):
        self.ln1, self.ln2 = ln1, ln2
        self.qkv_t, self.proj_t = qkv.T.copy(), proj.T.copy()
        self.fc_t, self.out_t = fc.T.copy(), out.T.copy()
        self.heads = heads

    @classmethod
    def from_arrays(cls, get, prefix: str, heads: int) -> "Block":
        return cls((get(prefix + "ln1.weight"), get(prefix + "ln1.bias")), get(prefix + "qkv.weight"),
                   get(prefix + "proj.weight"), (get(prefix + "ln2.weight"), get(prefix + "ln2.bias")),
                   get(prefix + "fc.weight"), get(prefix + "out.weight"), heads)

    @property
    def parameter_count(self) -> int:
        return sum(a.size for a in (*self.ln1, *self.ln2, self.qkv_t, self.proj_t, self.fc_t, self.out_t))

    def __call__(self, x, keys, values, start: int, mask) -> np.ndarray:
        n, width = x.shape
        heads, head_width = self.heads, width // self.heads
        qkv = (layer_norm(x, *self.ln1) @ self.qkv_t).reshape(n, 3, heads, head_width)
        q, k, v = qkv.transpose(1, 2, 0, 3)  # each of shape (heads, n, head_width)
        if keys is None:  # no cache: attend within the new positions only
            all_k, all_v = k, v
        else:
            keys[:, start:start + n] = k
            values[:, start:start + n] = v
            all_k, all_v = keys[:, :start + n], values[:, :start + n]
        scores = (q @ all_k.transpose(0, 2, 1)) * np.float32(1.0 / math.sqrt(head_width))
        if not mask.all():  # when every new position may see every key (one decoding step), nothing is masked
            allowed = mask if keys is None else np.concatenate([np.ones((n, start), bool), mask], axis=1)
            scores = np.where(allowed, scores, np.float32(-np.inf))
        scores -= scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        attended = (weights @ all_v).transpose(1, 0, 2).reshape(n, width)
        x = x + attended @ self.proj_t
        return x + gelu(layer_norm(x, *self.ln2) @ self.fc_t) @ self.out_t


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(x − mean) / √(variance + ε) · weight + bias, over the last axis."""
    # Sums divided by the width: the same numbers as x.mean, without its Python-level overhead, which costs more
    # than the arithmetic on one row of 128.
    width = x.shape[-1]
    centred = x - np.add.reduce(x, axis=-1, keepdims=True) / width
    variance = np.add.reduce(centred * centred, axis=-1, keepdims=True) / width
    return centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * weight + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, in its tanh form: ½x(1 + tanh(√(2/π)(x + 0.044715x³)))."""
    return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(np.float32(_GELU_SCALE) * (x + np.float32(0.044715) * x * x * x)))


def probabilities(logits, temperature=1.0) -> np.ndarray:
    """softmax(logits / T) of each row, in float64; T = 0 gives a one-hot row on the argmax.

    Parameters
    ----------
    logits : array_like of shape (V,) or (n, V)
    temperature : float >= 0

    Examples
    --------
    >>> probabilities([0.0, 1.0, 1.0], 0)
    array([0., 1., 0.])
    >>> probabilities([[0.0, 0.0]], 1.0)
    array([[0.5, 0.5]])
    """
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.floating, np.integer)):
        raise TypeError(f"temperature must be a number >= 0, got {type(temperature).__name__}")
    if not (math.isfinite(temperature) and temperature >= 0):
        raise ValueError(f"temperature must be a finite number >= 0, got {temperature}")
    z = np.asarray(logits, dtype=np.float64)
    if temperature == 0:
        rows = np.zeros_like(z)
        np.put_along_axis(rows, np.argmax(z, axis=-1)[..., None], 1.0, axis=-1)
        return rows
    z = (z - z.max(axis=-1, keepdims=True)) / float(temperature)
    weights = np.exp(z)
    return weights / weights.sum(axis=-1, keepdims=True)
