"""Five ways to draft for the neural target, the kinds production engines run, and the target's side of a step.

Every drafter proposes a tree of tokens (a chain is a tree with one child per node), each node with
the law it was drawn from; `specdec.neural.verify.verify_token_tree` verifies it in one target pass.

1. `ModelDrafter` on `load_draft()`: a **separate small model** (Leviathan et al. 2023,
   https://arxiv.org/abs/2211.17192), trained on the data, or distilled from the target
   (`load_draft(distilled=True)`; DistillSpec, Zhou et al. 2023, https://arxiv.org/abs/2310.08461).
   γ passes of the small model per step, each sampled at the target's temperature, the form of Leviathan et
   al. and Chen et al.; engines often draft greedily instead and verify with a one-hot q (vLLM by default).
2. `layer_skip_drafter`: **self-speculation**: the target's own first L blocks, then its final norm
   and head (early exit, as in LayerSkip, Elhoushi et al. 2024, https://arxiv.org/abs/2404.16710;
   Draft & Verify, Zhang et al. 2023, https://arxiv.org/abs/2309.08168, skips selected intermediate
   layers instead), optionally through a small trained exit.
3. `MedusaDrafter`: **Medusa heads** (Cai et al. 2024, https://arxiv.org/abs/2401.10774) on the
   target's last hidden state; head j guesses the token j + 1 positions after that state. The top
   `width` guesses of heads 1 … depth form a full tree; they are chosen, not sampled, so each node
   carries a one-hot row. The heads cannot see the token just emitted: that is what costs them.
4. `EagleDrafter`: **EAGLE-style feature drafting** (Li et al. 2024, https://arxiv.org/abs/2401.15077):
   one transformer block reads the target's feature at t and the embedding of the token at t + 1,
   predicts the feature at t + 1, and reads it out with the target's own norm and head; drafted
   features are fed back to draft further (γ passes of one block).
5. `PromptLookupDrafter`: **prompt lookup / n-gram drafting** (Saxena 2023,
   https://github.com/apoorvumang/prompt-lookup-decoding; vLLM's ``ngram`` method): no model. The
   latest earlier occurrence of the text's last n characters (n from `max_ngram` down to
   `min_ngram`) is found (both cited take the earliest), and what followed it is copied, up to γ
   characters. The draft is deterministic: one-hot rows.

`TargetState` holds the target's KV cache and its hidden states ("features") for the text so far,
scores a proposal in one pass (a tree attends along its branches only) and keeps the accepted path.

What is simplified: characters instead of subword tokens; a 4-layer target of about 0.86M weights; the
drafters are trained briefly on one CPU (see ``weights/record.json``); trees are full trees of a
chosen width and depth rather than the tuned sparse trees (Medusa) or dynamic trees (EAGLE-2, Li et al.
2024, https://arxiv.org/abs/2406.16858); the EAGLE block predicts the target's residual stream before its
final norm and reads it out through that norm and the head, where EAGLE-1 and EAGLE-2 predict the feature
the head reads (after the norm) and apply the head alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..variants.token_tree import full_tree_parents
from .loading import training_record, weight_arrays
from .transformer import Block, KVCache, Transformer, probabilities
from .verify import one_hot_rows


@dataclass(frozen=True)
class Proposal:
    """A drafted tree: node i (1 … N) has parent parents[i − 1], token tokens[i − 1], law rows[i − 1]."""

    parents: list[int]
    tokens: list[int]
    rows: np.ndarray
    draft_passes: int
    """Forward passes the drafter ran (0 for prompt lookup, and for Medusa's heads, which run inside
    the target's own pass)."""

    @property
    def size(self) -> int:
        return len(self.tokens)


def chain(tokens, rows, draft_passes, vocab: int) -> Proposal:
    """A proposal with one child per node."""
    return Proposal(list(range(len(tokens))), [int(t) for t in tokens],
                    np.asarray(rows, dtype=np.float64).reshape(len(tokens), vocab), draft_passes)


class TargetState:
    """The target during one generation: its cache, features and the text so far (as ids).

    The cache holds every emitted character but the last one, the "pending" character, which is the
    first position of the next verify pass.
    """

    def __init__(self, model: Transformer, temperature: float):
        self.model = model
        self.temperature = temperature
        self.cache = model.new_cache()
        self.features = np.zeros((model.config.context, model.config.width), np.float32)
        self.history: list[int] = []

    def start(self, prompt_ids) -> None:
        self.history = [int(i) for i in prompt_ids]
        if not self.history:
            raise ValueError("the prompt must hold at least one character")
        self.cache.truncate(0)
        if len(self.history) > 1:
            self.features[: len(self.history) - 1] = self.model.forward(self.history[:-1], self.cache)

    @property
    def room(self) -> int:
        """How many draft positions still fit in the context."""
        return self.model.config.context - len(self.history)

    def score(self, proposal: Proposal) -> tuple[np.ndarray, np.ndarray]:
        """Target rows (N + 1, V) and features (N + 1, d) for the root (pending) and every node."""
        start = self.cache.length
        depth = np.zeros(proposal.size + 1, dtype=np.int64)
        mask = np.eye(proposal.size + 1, dtype=bool)
        node_tokens = [self.history[-1], *proposal.tokens]
        shifts = self.model.config.shifts
        previous = np.full((proposal.size + 1, shifts), -1, dtype=np.int64)
        previous[0] = _before(self.history[:-1], shifts)
        for node, parent in enumerate(proposal.parents, start=1):
            depth[node] = depth[parent] + 1
            mask[node] = mask[parent]
            mask[node, node] = True
            if shifts:  # the characters before a node: its parent's token, then what came before the parent
                previous[node] = [node_tokens[parent], *previous[parent][: shifts - 1]]
        hidden = self.model.forward(node_tokens, self.cache, positions=start + depth, mask=mask, previous=previous)
        return probabilities(self.model.logits(hidden), self.temperature), hidden

    def commit(self, path, emitted, hidden) -> None:
        """Keep the pending character and the accepted nodes; the step's last token becomes pending."""
        start = self.cache.length - len(hidden)
        rows = [0, *path]
        self.cache.keep(start, [start + r for r in rows])
        self.features[start:start + len(rows)] = hidden[rows]
        self.history.extend(int(t) for t in emitted)


def _before(history, shifts: int) -> list[int]:
    """The last `shifts` ids of `history`, latest first, −1 past its start."""
    return [history[-k] if k <= len(history) else -1 for k in range(1, shifts + 1)]


def _common_prefix(a, b) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def _draw(row: np.ndarray, rng) -> int:
    return int(rng.choice(row.size, p=row))


class ModelDrafter:
    """Draft γ tokens with a small transformer, or with the target's first `layers` blocks.

    Parameters
    ----------
    model : Transformer
        The draft model, or the target itself for layer skipping.
    gamma : int >= 1
    layers : int, optional
        Run only this many blocks of `model` (layer skipping), then its final norm and head.
    exit_adapter : tuple (weight, bias), optional
        A trained exit between those blocks and the final norm: h + W·h + b.
    deterministic : bool
        Draft the most likely token instead of sampling one; its law is then the one-hot row.
    """

    def __init__(self, model: Transformer, gamma: int, layers: int | None = None, exit_adapter=None, name=None,
                 deterministic: bool = False):
        if isinstance(gamma, bool) or not isinstance(gamma, (int, np.integer)) or not 0 <= gamma <= 16:
            raise ValueError(f"gamma must be an int in 0 … 16, got {gamma!r}")
        self.model, self.gamma, self.layers = model, int(gamma), layers
        self.deterministic = bool(deterministic)
        self.exit_adapter = exit_adapter
        self.name = name or "draft model" + (" (most likely token)" if deterministic else "")
        c = model.config
        self.cache = KVCache(layers or c.layers, c.heads, c.context, c.head_width)
        self.cached: list[int] = []

    def start(self, target: TargetState) -> None:
        self.cache.truncate(0)
        self.cached = []

    def _rows(self, hidden, temperature) -> np.ndarray:
        if self.exit_adapter is not None:
            weight, bias = self.exit_adapter
            hidden = hidden + hidden @ weight.T + bias
        return probabilities(self.model.logits(hidden), temperature)

    def law(self, row: np.ndarray, token: int) -> np.ndarray:
        """The law the drafted token was drawn from: the row itself, or its one-hot if deterministic."""
        if self.deterministic:
            return one_hot_rows([token], row.size)[0]
        return row

    def propose(self, target: TargetState, gamma: int, rng) -> Proposal:
        history = target.history
        keep = min(_common_prefix(self.cached, history), len(history) - 1)
        self.cache.truncate(keep)
        hidden = self.model.forward(history[keep:], self.cache, layers=self.layers)[-1:]
        self.cached = list(history)
        tokens, rows = [], []
        for i in range(gamma):
            row = self._rows(hidden, target.temperature)[0]
            tokens.append(int(np.argmax(row)) if self.deterministic else _draw(row, rng))
            rows.append(self.law(row, tokens[-1]))
            if i < gamma - 1:
                hidden = self.model.forward(tokens[-1:], self.cache, layers=self.layers)
                self.cached.append(tokens[-1])
        return chain(tokens, rows, gamma, len(self.model.vocab))


def layer_skip_drafter(target: Transformer, gamma: int, layers: int = 2, trained_exit: bool = False) -> ModelDrafter:
    """Self-speculation: the target's first `layers` blocks, its final norm and head.

    >>> from specdec.neural import load_target
    >>> layer_skip_drafter(load_target(), gamma=3, layers=2).name
    'layer skip (2 of 4 layers)'
    """
    if not 1 <= layers < target.config.layers:
        raise ValueError(f"layers must be in 1 … {target.config.layers - 1}, got {layers}")
    adapter = None
    if trained_exit:
        arrays = weight_arrays()
        adapter = tuple(np.asarray(arrays[f"exit_{layers}.adapter.{name}"], np.float32) for name in ("weight", "bias"))
    name = f"layer skip ({layers} of {target.config.layers} layers{', trained exit' if trained_exit else ''})"
    return ModelDrafter(target, gamma, layers=layers, exit_adapter=adapter, name=name)


class MedusaDrafter:
    """A full tree of the top `width` guesses of Medusa heads 1 … `depth`."""

    def __init__(self, target: Transformer, width: int = 2, depth: int = 3):
        arrays = weight_arrays()
        count = training_record()["models"]["medusa"]["config"]["count"]
        if not 1 <= depth <= count:
            raise ValueError(f"depth must be in 1 … {count} (one head per level), got {depth}")
        if not 1 <= width <= 4:
            raise ValueError(f"width must be in 1 … 4, got {width}")
        self.target, self.width, self.depth = target, int(width), int(depth)
        self.name = f"Medusa heads (tree {width} wide, {depth} deep)"
        get = lambda name: np.asarray(arrays["medusa." + name], np.float32)
        self.heads = [(get(f"layers.{j}.weight").T.copy(), get(f"layers.{j}.bias"), get(f"outputs.{j}").T.copy())
                      for j in range(count)]
        self.parents = full_tree_parents(self.depth, self.width)

    def start(self, target: TargetState) -> None:
        pass

    def head_rows(self, feature: np.ndarray, temperature: float) -> np.ndarray:
        """Each head's row at one feature: (count, V)."""
        normed = self.target.normed(feature[None])
        logits = [(normed + _silu(normed @ w + b)) @ out for w, b, out in self.heads]
        return probabilities(np.concatenate(logits), temperature)

    def propose(self, target: TargetState, gamma: int, rng) -> Proposal:
        if len(target.history) < 2:
            return chain([], [], 0, len(self.target.vocab))
        depth = min(self.depth, gamma)
        parents = full_tree_parents(depth, self.width) if depth else []
        logits_rows = self.head_rows(target.features[len(target.history) - 2], 1.0)
        best = np.argsort(-logits_rows, axis=1, kind="stable")[:, : self.width]
        level = np.zeros(len(parents) + 1, dtype=np.int64)
        tokens = []
        sibling = {}
        for node, parent in enumerate(parents, start=1):
            level[node] = level[parent] + 1
            index = sibling.get(parent, 0)
            sibling[parent] = index + 1
            tokens.append(int(best[level[node] - 1, index]))
        return Proposal(parents, tokens, one_hot_rows(tokens, len(self.target.vocab)), 0)


def _silu(x):
    return x / (np.float32(1.0) + np.exp(-x))


class EagleDrafter:
    """One block that drafts at the feature level, reading out with the target's own norm and head."""

    def __init__(self, target: Transformer, gamma: int):
        arrays = weight_arrays()
        get = lambda name: np.ascontiguousarray(np.asarray(arrays["eagle." + name], np.float32))
        self.target, self.gamma = target, int(gamma)
        self.name = "EAGLE-style feature drafter"
        self.fuse_t, self.fuse_b = get("fuse.weight").T.copy(), get("fuse.bias")
        self.block = Block.from_arrays(get, "block.", target.config.heads)
        c = target.config
        self.cache = KVCache(1, c.heads, c.context, c.head_width)

    def start(self, target: TargetState) -> None:
        self.cache.truncate(0)

    def _step(self, features, next_ids) -> np.ndarray:
        fused = np.concatenate([features, self.target.embed[np.asarray(next_ids)]], axis=1) @ self.fuse_t + self.fuse_b
        start = self.cache.length
        mask = np.tri(len(fused), dtype=bool)
        out = self.block(fused.astype(np.float32), self.cache.keys[0], self.cache.values[0], start, mask)
        self.cache.length = start + len(fused)
        return out

    def propose(self, target: TargetState, gamma: int, rng) -> Proposal:
        history, n = target.history, len(target.history)
        if n < 2:
            return chain([], [], 0, len(self.target.vocab))
        # Entry j reads (true feature at j, token j + 1); entries 0 … n − 2 are known exactly.
        done = min(self.cache.length, n - 2)
        self.cache.truncate(done)
        feature = self._step(target.features[done:n - 1], history[done + 1:n])[-1:]
        tokens, rows = [], []
        for i in range(gamma):
            row = probabilities(self.target.logits(feature), target.temperature)[0]
            tokens.append(_draw(row, rng))
            rows.append(row)
            if i < gamma - 1:
                feature = self._step(feature, tokens[-1:])
        self.cache.truncate(n - 1)
        return chain(tokens, rows, gamma, len(self.target.vocab))


class PromptLookupDrafter:
    """Copy what followed the latest earlier occurrence of the text's last n characters (Saxena's code and
    vLLM's ``ngram`` method copy from the earliest)."""

    def __init__(self, vocab_size: int, gamma: int, max_ngram: int = 3, min_ngram: int = 1):
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError(f"need 1 <= min_ngram <= max_ngram, got {min_ngram} and {max_ngram}")
        self.vocab_size, self.gamma = int(vocab_size), int(gamma)
        self.max_ngram, self.min_ngram = int(max_ngram), int(min_ngram)
        self.name = "prompt lookup"

    def start(self, target: TargetState) -> None:
        pass

    def lookup(self, history, gamma: int) -> list[int]:
        """The drafted continuation (possibly empty) of the id sequence `history`."""
        n = len(history)
        for size in range(min(self.max_ngram, n - 1), self.min_ngram - 1, -1):
            suffix = history[n - size:]
            for start in range(n - size - 1, -1, -1):  # latest occurrence that starts before the suffix
                if history[start:start + size] == suffix:
                    return list(history[start + size:start + size + gamma])
        return []

    def propose(self, target: TargetState, gamma: int, rng) -> Proposal:
        tokens = self.lookup(target.history, gamma)
        return chain(tokens, one_hot_rows(tokens, self.vocab_size), 0, self.vocab_size)
