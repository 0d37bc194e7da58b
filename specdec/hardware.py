"""Why speculative decoding is fast: a cost model of one forward pass, and a sampled timeline.

A forward pass of a transformer over ``t`` new positions for each of ``b`` sequences has to

* read every weight once from memory, plus each sequence's KV cache (the keys and values it keeps
  for the tokens so far): ``bytes = bytes_per_parameter · N + b · context · kv_bytes_per_token``
  (the input embedding table, counted in N for simplicity, is in fact only gathered row by row);
* do about ``2 · N · b · t`` floating-point operations for the weights (one multiply and one add per
  weight, per position scored), plus ``4 · layers · heads · head_dim · context`` per position for
  attention over the context (the scores q·k and the weighted sum of the values).

Its time is modelled as a fixed time per pass plus the larger of the two:
``pass_overhead + max(bytes / bandwidth, FLOPs / peak FLOP/s)``. At small batch, reading the
weights takes far longer than the arithmetic, so scoring γ+1 positions costs the same as scoring
one until ``b·t`` nears the accelerator's FLOP-per-byte ratio (about 295 FLOP/byte on an H100 SXM).
That is why the target's verify pass is nearly free *in this model*, and why it stops being free
when the batch grows. Real kernels usually reach the bend earlier: their arithmetic tends to fall
further below its peak than their memory traffic does (`at_fraction_of_peak` shows what a fraction
does), and they pad the positions of a pass to whole tiles.

The fixed time per pass (`Accelerator.pass_overhead`) stands for what does not scale with the
bytes: launching the kernels of every layer and the host's work between passes. It makes
a small draft slower than its size says, so c falls below the ratio of the models' sizes, the more
so the smaller the draft and the faster the chip's memory.

What the model still simplifies, on purpose:

* No communication between devices. `cluster` treats n devices as one with n times the bandwidth,
  FLOP/s and memory; `memory_check` says whether the weights and the KV caches fit.
* The KV cache is read at one fixed context length; it does not grow during the generation.
* The acceptance rate α is the same at every position, as in Leviathan et al. 2023.
* The draft's catch-up: after a step that accepted all γ tokens, the draft has not yet run on its
  own last token nor on the bonus token; real engines fold both into the draft's first pass of the
  next step, which then scores two positions instead of one. While memory-bound that costs what one
  pass costs, so a step here is γ draft passes and one verify pass, as in notebook 04.

Every accelerator number is the vendor's peak, dense (without structured sparsity), bf16 or fp16
on its matrix units (tensor cores, a TPU's MXUs), except the Apple M1 Max, whose one published figure
is its GPU's FP32 rate; each has its source in `Accelerator.source`.

>>> times = pass_times(ACCELERATORS["H100 SXM"], MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"], gamma=4)
>>> round(times.target_decode * 1e3, 1), round(times.implied_c, 1), round(size_ratio(MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]), 1)
(43.5, 21.2, 56.9)
>>> times.target_verify == times.target_decode  # five positions cost the same as one
True
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace

import numpy as np

from .validation import Constraint, CostRatio, Count, InstanceOf, OrNone, PositiveNumber, Probability, checked
from .core import expected_tokens
from .sampling import sample_steps
from .theory import speedup

#: Bytes per weight and per cached key/value: bf16.
BF16_BYTES = 2
#: Context length (tokens already in each sequence's KV cache) when none is given.
DEFAULT_CONTEXT = 1024
#: Largest batch, number of positions per pass, context and timeline length accepted: far past any
#: setting the lessons use, and small enough that nothing is allocated before the limits are checked.
MAX_BATCH = 1 << 16
MAX_POSITIONS = 1 << 16
MAX_CONTEXT = 1 << 24
MAX_TIMELINE_TOKENS = 1_000
#: The most batch sizes one call evaluates (`pass_times_for_batches`: a curve over every b up to 4,096).
MAX_BATCH_COUNT = 4_096
#: Most devices `cluster` joins.
MAX_DEVICES = 4096
#: Longest fixed time per pass accepted, in seconds.
MAX_PASS_OVERHEAD = 1.0

#: Fixed time per forward pass on a GPU, seconds. Measured: in llama.cpp issue #3649
#: (https://github.com/ggml-org/llama.cpp/issues/3649) the 160M-parameter Llama draft decodes at
#: 1.49 ms per token on an A100 (216 passes in 322.8 ms, sampling not included), while reading its
#: 0.32 GB of weights, if 16-bit, at an A100 80 GB's peak bandwidth takes 0.16 ms (0.21 ms on a 40 GB
#: card; the issue names neither the card nor the precision); the maintainer's own 16-bit run on a V100
#: in the same thread (619 tokens/s, 1.61 ms against 0.36 ms of bytes) gives the same 1.3 ms. Most of it
#: is set by the host and the driver (kernel launches), not by the chip, so the same figure stands in for
#: every accelerator here. Engines that capture the whole decoding step in a CUDA graph cut it
#: several-fold: set it with `with_pass_overhead`.
MEASURED_PASS_OVERHEAD = 1.3e-3
_OVERHEAD_SOURCE = (
    "1.3 ms: llama.cpp issue #3649 (https://github.com/ggml-org/llama.cpp/issues/3649), a 160M draft "
    "at 1.49 ms per token on an A100 against 0.16 ms to read its weights"
)


@dataclass(frozen=True)
class Accelerator:
    """Peak numbers of one accelerator, from its vendor, and a fixed time per forward pass."""

    name: str
    memory_bandwidth: float
    """Bytes per second read from the device's main memory (HBM, GDDR or unified memory)."""
    peak_flops: float
    """Dense bf16/fp16 FLOP per second of the matrix units (without structured sparsity; the M1 Max: FP32)."""
    memory_capacity: float
    """Bytes of device memory as the vendor labels it: NVIDIA's "80 GB" read as 80·10⁹ (the HBM's 80 GiB is 7% more,
    part of it reserved by the driver); TPU v4's 32 GiB as Google gives it."""
    source: str
    """Where the numbers come from."""
    pass_overhead: float = 0.0
    """Seconds every forward pass takes on top of its bytes and FLOPs (kernel launches, host work);
    0 is the pure roofline."""
    overhead_source: str = ""
    """Where `pass_overhead` comes from."""

    @property
    def ridge(self) -> float:
        """FLOP per byte at which compute and memory take the same time: peak FLOP/s ÷ bandwidth."""
        return self.peak_flops / self.memory_bandwidth


#: Vendors quote bf16 tensor throughput "with sparsity" (2:4 structured sparsity); the dense figure,
#: used here, is half of it. Checked against the datasheets on the date of writing.
ACCELERATORS = {
    "H100 SXM": Accelerator(
        "H100 SXM", 3.35e12, 989e12, 80e9,
        "https://www.nvidia.com/en-us/data-center/h100/ — 3.35 TB/s; BF16 Tensor Core 1,979 TFLOPS "
        "with sparsity, so 989 TFLOPS dense; 80 GB",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE,
    ),
    "H200 SXM": Accelerator(
        "H200 SXM", 4.8e12, 989e12, 141e9,
        "https://www.nvidia.com/en-us/data-center/h200/ — 4.8 TB/s; BF16 Tensor Core 1,979 TFLOPS "
        "with sparsity, so 989 TFLOPS dense; 141 GB",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE,
    ),
    "A100 80GB SXM": Accelerator(
        "A100 80GB SXM", 2.039e12, 312e12, 80e9,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf — 2,039 GB/s; BF16 Tensor Core 312 TFLOPS "
        "(624 with sparsity); 80 GB",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE,
    ),
    "L4": Accelerator(
        "L4", 300e9, 121e12, 24e9,
        "https://www.nvidia.com/en-us/data-center/l4/ — 300 GB/s; BF16 Tensor Core 242 TFLOPS with "
        "sparsity, so 121 TFLOPS dense; 24 GB",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE,
    ),
    "TPU v4": Accelerator(
        "TPU v4", 1.2e12, 275e12, 32 * 2**30,
        "https://cloud.google.com/tpu/docs/v4 — 275 TFLOPS bf16 per chip; HBM2 32 GiB, 1200 GBps",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE + " (no TPU measurement; the GPU figure stands in)",
    ),
    "Apple M1 Max (laptop)": Accelerator(
        "Apple M1 Max (laptop)", 400e9, 10.4e12, 64e9,
        "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-"
        "apple-has-ever-built/ — 400 GB/s unified memory, up to 64 GB; 10.4 TFLOPS is Apple's figure "
        "for the 32-core GPU at the October 2021 launch, quoted without a precision (it is the "
        "GPU's FP32 rate); used here as the peak for bf16 too",
        MEASURED_PASS_OVERHEAD, _OVERHEAD_SOURCE + " (no Apple measurement; the GPU figure stands in)",
    ),
}


@dataclass(frozen=True)
class Model:
    """A decoder-only language model, reduced to what a forward pass has to read and compute."""

    name: str
    parameters: float
    """Number of weights of the published checkpoint, embeddings included."""
    layers: int
    kv_heads: int
    """Key/value heads per layer (fewer than the query heads with grouped-query attention)."""
    head_dim: int
    source: str
    attention_heads: int = 0
    """Query heads per layer (0: as many as `kv_heads`)."""
    vocabulary: str = ""
    """The tokenizer's vocabulary. The standard verify rule compares p(x) and q(x) for the same token x, so a draft
    needs its target's vocabulary (schemes that translate between tokenizers exist; they are not modelled here)."""

    @property
    def kv_bytes_per_token(self) -> float:
        """Bytes of KV cache per token of context: keys and values, every layer, bf16."""
        return 2 * self.layers * self.kv_heads * self.head_dim * BF16_BYTES

    @property
    def attention_flops_per_token(self) -> float:
        """FLOPs of attention per position scored, per token of context: q·k and the sum of values."""
        return 4 * self.layers * (self.attention_heads or self.kv_heads) * self.head_dim


LLAMA_2_VOCABULARY = "Llama 2 (SentencePiece, 32,000 tokens)"
LLAMA_3_VOCABULARY = "Llama 3 (tiktoken-based, 128,256 tokens)"

#: Shapes from each model's published configuration; sizes are the checkpoints' parameter counts.
MODELS = {
    "Llama 3.1 70B": Model(
        "Llama 3.1 70B", 70.6e9, 80, 8, 128,
        "https://huggingface.co/meta-llama/Llama-3.1-70B (70.6B parameters; config: 80 layers, "
        "64 query and 8 key/value heads of 128, vocabulary 128,256)",
        64, LLAMA_3_VOCABULARY,
    ),
    "Llama 3.1 8B": Model(
        "Llama 3.1 8B", 8.03e9, 32, 8, 128,
        "https://huggingface.co/meta-llama/Llama-3.1-8B (8.03B parameters; config: 32 layers, "
        "32 query and 8 key/value heads of 128, vocabulary 128,256)",
        32, LLAMA_3_VOCABULARY,
    ),
    "Llama 3.2 1B": Model(
        "Llama 3.2 1B", 1.24e9, 16, 8, 64,
        "https://huggingface.co/meta-llama/Llama-3.2-1B (1.24B parameters; config: 16 layers, "
        "32 query and 8 key/value heads of 64, vocabulary 128,256)",
        32, LLAMA_3_VOCABULARY,
    ),
    "Llama 2 70B": Model(
        "Llama 2 70B", 69.0e9, 80, 8, 128,
        "https://huggingface.co/meta-llama/Llama-2-70b-hf (69.0B parameters; config: 80 layers, "
        "64 query and 8 key/value heads of 128, vocabulary 32,000)",
        64, LLAMA_2_VOCABULARY,
    ),
    "Llama 2 7B": Model(
        "Llama 2 7B", 6.74e9, 32, 32, 128,
        "https://huggingface.co/meta-llama/Llama-2-7b-hf (6.74B parameters; config: 32 layers, "
        "32 heads of 128, vocabulary 32,000)",
        32, LLAMA_2_VOCABULARY,
    ),
    "Llama 160M": Model(
        "Llama 160M", 162e6, 12, 12, 64,
        "https://huggingface.co/JackFram/llama-160m (162M parameters; the small draft of SpecInfer, "
        "trained with the LLaMA tokenizer; config: 12 layers, 12 heads of 64, vocabulary 32,000)",
        12, LLAMA_2_VOCABULARY,
    ),
}

#: Target/draft pairs that share a vocabulary, as the verify rule needs.
PAIRS = (
    ("Llama 3.1 70B", "Llama 3.1 8B"),
    ("Llama 3.1 70B", "Llama 3.2 1B"),
    ("Llama 3.1 8B", "Llama 3.2 1B"),
    ("Llama 2 70B", "Llama 2 7B"),
    ("Llama 2 7B", "Llama 160M"),
)
#: The pair the lessons and the explorer open on.
DEFAULT_PAIR = ("Llama 3.1 70B", "Llama 3.2 1B")


@dataclass(frozen=True)
class _Shape:
    """What the formulas need of a model (a bare number of parameters has no KV cache)."""

    parameters: float
    kv_bytes: float
    attention_flops: float
    vocabulary: str


# --- What each argument must be: one declaration per public function (specdec.validation.checked) ---------


class AcceleratorSpec(Constraint):
    """An `Accelerator` with finite positive peaks and a fixed time per pass in [0, 1] s."""

    def __call__(self, value, name, arguments):
        return _accelerator(value)


class ModelSpec(Constraint):
    """A `Model`, or a number of parameters > 0; the function receives the model's numbers (`_Shape`)."""

    def __call__(self, value, name, arguments):
        return _shape(value, name)


class ModelPair(Constraint):
    """`target` and `draft` together: the draft no larger than the target, over the same vocabulary."""

    def __init__(self, target: str = "target", draft: str = "draft"):
        self.target, self.draft = target, draft

    def update(self, arguments):
        arguments[self.target], arguments[self.draft] = _pair(arguments[self.target], arguments[self.draft])


class DraftContext(Constraint):
    """None (the draft keeps the whole context) or a count, capped at the `context` declared before it."""

    def __call__(self, value, name, arguments):
        return _draft_context(value, arguments["context"])


class BatchSizes(Constraint):
    """A sequence of 1 … `MAX_BATCH_COUNT` batch sizes, each in 1 … `MAX_BATCH`, as a list of ints."""

    def __call__(self, value, name, arguments):
        return _batches(value)


class PassOverhead(Constraint):
    """A fixed time per pass in seconds, in [0, MAX_PASS_OVERHEAD], as a float."""

    def __call__(self, value, name, arguments):
        return _overhead(value, name)


class PeakFraction(Constraint):
    """A fraction of a peak, in (0, 1], as a float."""

    def __call__(self, value, name, arguments):
        return _fraction(value, name)


BATCH = Count(1, MAX_BATCH)
CONTEXT = Count(0, MAX_CONTEXT)
GAMMA = Count(0, MAX_POSITIONS - 1)


@checked(model=ModelSpec(), accelerator=AcceleratorSpec(), batch=BATCH, positions=Count(1, MAX_POSITIONS), context=CONTEXT)
def forward_pass_time(model, accelerator, batch=1, positions=1, context=DEFAULT_CONTEXT) -> float:
    """Seconds one forward pass takes: the fixed time per pass, plus the larger of memory and compute time.

    Parameters
    ----------
    model : Model, or a number of parameters > 0
        A bare number means a model whose KV cache and attention are left out.
    accelerator : Accelerator
    batch : int >= 1
        Sequences decoded together; they share one read of the weights.
    positions : int >= 1
        New positions scored per sequence: 1 for plain decoding, γ+1 for a verify pass.
    context : int >= 0
        Tokens already in each sequence's KV cache.

    Returns
    -------
    float
        pass_overhead + max((2·N + b·L·kv_bytes) / bandwidth, (2·N + L·attention_flops)·b·t / FLOP/s).

    Examples
    --------
    >>> h100 = with_pass_overhead(ACCELERATORS["H100 SXM"], 0)  # the pure roofline
    >>> one = forward_pass_time(70e9, h100, positions=1)
    >>> round(one * 1e3, 2), forward_pass_time(70e9, h100, positions=8) == one
    (41.79, True)
    >>> round(forward_pass_time(70e9, h100, positions=1000) / one, 2)  # past the ridge: compute-bound
    3.39
    """
    return _pass_time(model, accelerator, batch, positions, context)


def _memory_seconds(shape, accelerator, batch, context) -> float:
    """Time to read the weights once and every sequence's KV cache."""
    return (BF16_BYTES * shape.parameters + batch * context * shape.kv_bytes) / accelerator.memory_bandwidth


def _compute_seconds_per_position(shape, accelerator, batch, context) -> float:
    """Arithmetic time of one new position in each of `batch` sequences."""
    return (2.0 * shape.parameters + context * shape.attention_flops) * batch / accelerator.peak_flops


def _pass_time(shape, accelerator, batch, positions, context) -> float:
    roofline_time = max(_memory_seconds(shape, accelerator, batch, context),
                        _compute_seconds_per_position(shape, accelerator, batch, context) * positions)
    return accelerator.pass_overhead + roofline_time


@checked(model=ModelSpec(), accelerator=AcceleratorSpec(), batch=BATCH, max_positions=Count(1, MAX_POSITIONS),
         context=CONTEXT)
def roofline(model, accelerator, batch=1, max_positions=64, context=DEFAULT_CONTEXT):
    """Pass time against positions scored per sequence, t = 1 … `max_positions`.

    Returns
    -------
    positions : numpy.ndarray of int, shape (max_positions,)
    seconds : numpy.ndarray of float, shape (max_positions,)
        `forward_pass_time` at each t: flat while memory-bound, then rising in proportion to t.

    Examples
    --------
    >>> positions, seconds = roofline(70e9, ACCELERATORS["H100 SXM"], max_positions=400)
    >>> bool(seconds[7] == seconds[0]), int(positions[np.argmax(seconds > seconds[0])])  # first t that costs more
    (True, 296)
    """
    positions = np.arange(1, max_positions + 1)
    memory = _memory_seconds(model, accelerator, batch, context)
    compute = _compute_seconds_per_position(model, accelerator, batch, context) * positions
    return positions, accelerator.pass_overhead + np.maximum(memory, compute)


@checked(model=ModelSpec(), accelerator=AcceleratorSpec(), batch=BATCH, context=CONTEXT)
def compute_bound_from(model, accelerator, batch=1, context=DEFAULT_CONTEXT) -> float:
    """Positions per sequence from which a pass is compute-bound: where its arithmetic takes as long as its reading.

    Below 1, a pass over one position per sequence is compute-bound already (a large batch).

    Examples
    --------
    >>> round(compute_bound_from(70e9, ACCELERATORS["H100 SXM"], context=0), 1)  # the chip's FLOPs per byte
    295.2
    >>> compute_bound_from(MODELS["Llama 3.1 70B"], ACCELERATORS["H100 SXM"], batch=1024) < 1
    True
    """
    return (_memory_seconds(model, accelerator, batch, context)
            / _compute_seconds_per_position(model, accelerator, batch, context))


@dataclass(frozen=True)
class MemoryCheck:
    """Whether two models' weights and their KV caches fit in an accelerator's memory (bytes)."""

    weights: float
    """bf16 weights of the target and the draft."""
    kv_cache: float
    """KV caches of both models, every sequence of the batch."""
    capacity: float

    @property
    def needed(self) -> float:
        return self.weights + self.kv_cache

    @property
    def fits(self) -> bool:
        return self.needed <= self.capacity


@checked(ModelPair(), accelerator=AcceleratorSpec(), batch=BATCH, context=CONTEXT, draft_context=DraftContext())
def memory_check(accelerator, target, draft, batch=1, context=DEFAULT_CONTEXT, draft_context=None) -> MemoryCheck:
    """Memory the weights and the KV caches of a batch need, against the accelerator's.

    Activations and the engine's own buffers are left out, so a setting that fits here is at best
    just possible.

    Examples
    --------
    >>> check = memory_check(cluster(ACCELERATORS["H100 SXM"], 2), MODELS["Llama 3.1 70B"],
    ...                      MODELS["Llama 3.2 1B"], batch=1024, context=1024)
    >>> round(check.kv_cache / 1e9), round(check.capacity / 1e9), check.fits
    (378, 160, False)
    """
    return _memory(accelerator, target, draft, batch, context, draft_context)


def _memory(accelerator, target_shape, draft_shape, batch, context, draft_context) -> MemoryCheck:
    weights = BF16_BYTES * (target_shape.parameters + draft_shape.parameters)
    kv_cache = batch * (context * target_shape.kv_bytes + draft_context * draft_shape.kv_bytes)
    return MemoryCheck(weights, kv_cache, accelerator.memory_capacity)


@checked(ModelPair(), accelerator=AcceleratorSpec(), batches=OrNone(BatchSizes()), context=CONTEXT,
         draft_context=DraftContext())
def batches_that_fit(accelerator, target, draft, batches=None, context=DEFAULT_CONTEXT, draft_context=None):
    """For each batch size, whether `memory_check` finds that it fits (a bool array).

    Examples
    --------
    >>> batches_that_fit(cluster(ACCELERATORS["H100 SXM"], 2), MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"],
    ...                  [1, 16, 32, 64]).tolist()
    [True, True, True, False]
    """
    return np.array([_memory(accelerator, target, draft, b, context, draft_context).fits
                     for b in (BATCH_SIZES if batches is None else batches)])


@dataclass(frozen=True)
class PassTimes:
    """What one setting costs, in seconds, and what follows from it."""

    target_decode: float
    """One target pass scoring one position per sequence (a plain decoding step)."""
    target_verify: float
    """One target pass scoring γ+1 positions per sequence (the verify pass)."""
    draft_pass: float
    """One draft pass scoring one position per sequence."""
    gamma: int
    batch: int
    memory: MemoryCheck | None = None
    """Whether the weights and KV caches of this setting fit in the accelerator's memory."""

    @property
    def implied_c(self) -> float:
        """c = target pass time ÷ draft pass time, both at one position (Leviathan et al.'s c is 1/c)."""
        return self.target_decode / self.draft_pass

    @property
    def step_time(self) -> float:
        """γ draft passes, then one verify pass."""
        return self.gamma * self.draft_pass + self.target_verify

    @property
    def verify_overhead(self) -> float:
        """Verify pass time ÷ plain pass time: 1 while verifying is free."""
        return self.target_verify / self.target_decode

    def plain_tokens_per_second(self) -> float:
        """Tokens per second of plain decoding, over the whole batch."""
        return self.batch / self.target_decode

    def speculative_tokens_per_second(self, alpha) -> float:
        """Expected tokens per second of speculative decoding, over the whole batch."""
        return self.batch * expected_tokens(alpha, self.gamma) / self.step_time

    def speedup(self, alpha) -> float:
        """Expected speedup over plain decoding: E[N] · target_decode / step_time.

        While the verify pass is free (target_verify = target_decode) this is exactly
        ``specdec.speedup(alpha, gamma, implied_c)``.
        """
        return expected_tokens(alpha, self.gamma) * self.target_decode / self.step_time


@checked(ModelPair(), accelerator=AcceleratorSpec(), gamma=GAMMA, batch=BATCH, context=CONTEXT, draft_context=DraftContext())
def pass_times(accelerator, target, draft, gamma, batch=1, context=DEFAULT_CONTEXT, draft_context=None) -> PassTimes:
    """Time of the three kinds of pass for a target/draft pair on one accelerator.

    Parameters
    ----------
    accelerator : Accelerator
    target, draft : Model, or a number of parameters > 0
        The draft may not be larger than the target, and two `Model`s must share a vocabulary.
    gamma : int >= 0
        Draft length: the verify pass scores γ+1 positions.
    batch : int >= 1
    context : int >= 0
    draft_context : int >= 0, optional
        Tokens of KV cache the draft keeps (default: all of `context`). A draft with a fixed window,
        as in MagicDec (Chen et al. 2024), reads the same bytes however long the context grows.

    Examples
    --------
    >>> h100 = ACCELERATORS["H100 SXM"]
    >>> times = pass_times(h100, MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"], 4)
    >>> round(times.implied_c, 2), round(times.speedup(0.8), 2), round(speedup(0.8, 4, times.implied_c), 2)
    (7.1, 2.15, 2.15)
    >>> big = pass_times(h100, MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"], 4, batch=256)
    >>> round(big.verify_overhead, 2), round(big.speedup(0.8), 2), big.memory.fits  # not free, and too big
    (2.71, 0.92, False)
    """
    return _pass_times(accelerator, target, draft, gamma, batch, context, draft_context)


@checked(ModelPair(), accelerator=AcceleratorSpec(), gamma=GAMMA, batches=BatchSizes(), context=CONTEXT,
         draft_context=DraftContext())
def pass_times_for_batches(accelerator, target, draft, gamma, batches, context=DEFAULT_CONTEXT,
                           draft_context=None) -> list[PassTimes]:
    """`pass_times` at each of `batches`, the arguments checked once: a curve over a thousand batch sizes.

    >>> rows = pass_times_for_batches(ACCELERATORS["H100 SXM"], MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"], 4,
    ...                               [1, 256])
    >>> rows[1] == pass_times(ACCELERATORS["H100 SXM"], MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"], 4, batch=256)
    True
    """
    return [_pass_times(accelerator, target, draft, gamma, batch, context, draft_context) for batch in batches]


def _pass_times(accelerator, target_shape, draft_shape, gamma, batch, context, draft_context) -> PassTimes:
    return PassTimes(
        target_decode=_pass_time(target_shape, accelerator, batch, 1, context),
        target_verify=_pass_time(target_shape, accelerator, batch, gamma + 1, context),
        draft_pass=_pass_time(draft_shape, accelerator, batch, 1, draft_context),
        gamma=gamma,
        batch=batch,
        memory=_memory(accelerator, target_shape, draft_shape, batch, context, draft_context),
    )


@checked(ModelPair())
def size_ratio(target, draft) -> float:
    """Target parameters ÷ draft parameters: c of a pure roofline at batch 1 without KV cache.

    >>> round(size_ratio(MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"]), 2)
    8.79
    """
    return target.parameters / draft.parameters


#: Batch sizes of `speedup_against_batch` when none are given: powers of two, 1 … 1024.
BATCH_SIZES = tuple(2 ** k for k in range(11))


@checked(ModelPair(), accelerator=AcceleratorSpec(), gamma=GAMMA, alpha=Probability(), batches=BatchSizes(),
         context=CONTEXT, draft_context=DraftContext())
def speedup_against_batch(accelerator, target, draft, gamma, alpha, batches=BATCH_SIZES,
                          context=DEFAULT_CONTEXT, draft_context=None):
    """Expected speedup at each batch size, by the cost model and by notebook 04's formula.

    `batches_that_fit` says which of these settings fit in memory.

    Returns
    -------
    model : numpy.ndarray, shape (len(batches),)
        `PassTimes.speedup` at each batch: the verify pass costs what the model says.
    formula : numpy.ndarray, shape (len(batches),)
        speedup(α, γ, c) with that batch's implied c: the verify pass counted as free.

    Examples
    --------
    >>> h100 = ACCELERATORS["H100 SXM"]
    >>> model, formula = speedup_against_batch(h100, 70e9, 7e9, 4, 0.8, [1, 64, 1024])
    >>> np.round(model, 2).tolist(), np.round(formula, 2).tolist()
    ([2.23, 2.11, 0.62], [2.23, 2.23, 2.35])
    """
    runs = [_pass_times(accelerator, target, draft, gamma, b, context, draft_context) for b in batches]
    model = np.array([times.speedup(alpha) for times in runs])
    formula = np.array([speedup(alpha, gamma, times.implied_c) for times in runs])
    return model, formula


@checked(model=ModelSpec(), accelerator=AcceleratorSpec())
def devices_needed(model, accelerator) -> int:
    """How many of `accelerator` the weights need in bf16 (KV cache not counted; see `memory_check`).

    >>> devices_needed(MODELS["Llama 3.1 70B"], ACCELERATORS["H100 SXM"])
    2
    """
    return max(1, math.ceil(BF16_BYTES * model.parameters / accelerator.memory_capacity))


@checked(accelerator=AcceleratorSpec(), devices=Count(1, MAX_DEVICES))
def cluster(accelerator, devices) -> Accelerator:
    """`devices` of one accelerator as one: bandwidth, FLOP/s and memory add up; the fixed time does not.

    This is tensor parallelism without its communication, so it is the best case.

    >>> pair = cluster(ACCELERATORS["H100 SXM"], 2)
    >>> pair.name, pair.memory_capacity == 2 * ACCELERATORS["H100 SXM"].memory_capacity
    ('2 × H100 SXM', True)
    """
    return replace(
        accelerator,
        name=f"{devices} × {accelerator.name}",
        memory_bandwidth=devices * accelerator.memory_bandwidth,
        peak_flops=devices * accelerator.peak_flops,
        memory_capacity=devices * accelerator.memory_capacity,
        source=f"{devices} devices of: {accelerator.source}",
    )


@checked(accelerator=AcceleratorSpec(), seconds=PassOverhead())
def with_pass_overhead(accelerator, seconds) -> Accelerator:
    """The accelerator with another fixed time per forward pass (0 for the pure roofline).

    >>> with_pass_overhead(ACCELERATORS["H100 SXM"], 0.4e-3).pass_overhead
    0.0004
    """
    return replace(accelerator, pass_overhead=seconds, overhead_source="set by hand")


@checked(accelerator=AcceleratorSpec(), bandwidth_fraction=PeakFraction(), flops_fraction=PeakFraction())
def at_fraction_of_peak(accelerator, bandwidth_fraction, flops_fraction) -> Accelerator:
    """The accelerator running at fractions of its peak bandwidth and FLOP/s, as real kernels do.

    The ridge moves by flops_fraction ÷ bandwidth_fraction: a pass turns compute-bound at fewer
    positions when the arithmetic falls further below its peak than the memory does.

    >>> real = at_fraction_of_peak(ACCELERATORS["H100 SXM"], 0.8, 0.5)
    >>> round(real.ridge, 1), round(ACCELERATORS["H100 SXM"].ridge, 1)
    (184.5, 295.2)
    """
    return replace(
        accelerator,
        name=f"{accelerator.name} at {bandwidth_fraction:.0%} / {flops_fraction:.0%} of peak",
        memory_bandwidth=bandwidth_fraction * accelerator.memory_bandwidth,
        peak_flops=flops_fraction * accelerator.peak_flops,
    )


@dataclass(frozen=True)
class PublishedRun:
    """A speedup a paper measured, with the settings it reports."""

    name: str
    target_parameters: float
    draft_parameters: float
    gamma: int
    """Draft length the paper used (Leviathan et al.'s γ, Chen et al.'s K)."""
    measured_speedup: float
    accelerator: Accelerator
    """The hardware the paper ran on, as this model sees it."""
    source: str
    alpha: float | None = None
    """Acceptance rate as reported, or None when the paper does not report it."""
    target_time: float | None = None
    """Measured seconds per token of the target decoding alone, when reported."""
    draft_time: float | None = None
    """Measured seconds per token of the draft, when reported."""

    @property
    def measured_c(self) -> float | None:
        """Target time ÷ draft time as measured, when the paper reports both."""
        if self.target_time is None or self.draft_time is None:
            return None
        return self.target_time / self.draft_time


_LEVIATHAN = "https://arxiv.org/abs/2211.17192 (Table 2: T5-XXL 11B, T5-small 77M, WMT En→De, γ = 7, one TPU v4, batch 1)"
_CHEN = ("https://arxiv.org/abs/2302.01318 (Section 6 and Table 1: Chinchilla 70B, a 4B draft, K = 4, batch 1, "
         "16 TPU v4; Section 6 gives the draft's 1.8 ms per token, Table 1 Chinchilla's 14.1 ms per token and the "
         "speedups: XSum 1.92× nucleus, 2.01× greedy; HumanEval 2.46× nucleus)")

@dataclass(frozen=True)
class PaperComparison:
    """One published run against the model, at the paper's γ."""

    run: PublishedRun
    alpha: float
    """The reported α, or the α at which speedup(α, γ, measured c) equals the measured speedup."""
    alpha_reported: bool
    flat_c: float
    """c of the pure roofline at batch 1: the ratio of the sizes."""
    model_c: float
    """c of the cost model with the accelerator's fixed time per pass."""
    flat_speedup: float
    model_speedup: float
    measured_target_time_ratio: float | None
    """Measured target time per token ÷ the model's, when the paper reports it."""
    measured_draft_time_ratio: float | None


@checked(run=InstanceOf(PublishedRun, "a PublishedRun (one of specdec.hardware.PUBLISHED_RUNS)"))
def compare_with_paper(run) -> PaperComparison:
    """The model's c and speedup for a `PublishedRun`, at its γ, batch 1, without KV cache.

    Examples
    --------
    >>> t5 = compare_with_paper(PUBLISHED_RUNS[0])
    >>> round(t5.flat_c), round(t5.flat_speedup, 2), round(t5.model_c, 1), round(t5.model_speedup, 2)
    (143, 3.43, 13.7, 2.38)
    """
    flat = pass_times(with_pass_overhead(run.accelerator, 0), run.target_parameters, run.draft_parameters,
                      run.gamma, context=0)
    model = pass_times(run.accelerator, run.target_parameters, run.draft_parameters, run.gamma, context=0)
    if run.alpha is None:
        alpha = alpha_for_speedup(run.measured_speedup, run.gamma, run.measured_c)
    else:
        alpha = run.alpha
    return PaperComparison(
        run=run, alpha=alpha, alpha_reported=run.alpha is not None,
        flat_c=flat.implied_c, model_c=model.implied_c,
        flat_speedup=flat.speedup(alpha), model_speedup=model.speedup(alpha),
        measured_target_time_ratio=None if run.target_time is None else run.target_time / model.target_decode,
        measured_draft_time_ratio=None if run.draft_time is None else run.draft_time / model.draft_pass,
    )


@checked(target_speedup=PositiveNumber("a speedup"), gamma=Count(1, MAX_POSITIONS - 1), c=CostRatio())
def alpha_for_speedup(target_speedup, gamma, c) -> float:
    """The acceptance rate α at which speedup(α, γ, c) equals `target_speedup` (found by bisection).

    speedup(α, γ, c) rises with α from 1/(1 + γ/c) to (γ+1)/(1 + γ/c); outside that a ValueError.

    >>> alpha = alpha_for_speedup(2.0, 4, 10)
    >>> round(alpha, 4), round(speedup(alpha, 4, 10), 10)
    (0.7051, 2.0)
    """
    low, high = speedup(0.0, gamma, c), speedup(1.0, gamma, c)
    if not low <= target_speedup <= high:
        raise ValueError(
            f"target_speedup must be between {low:.4g} (α = 0) and {high:.4g} (α = 1) at γ = {gamma} "
            f"and c = {c:g}, got {target_speedup!r}"
        )
    below, above = 0.0, 1.0
    for _ in range(60):
        middle = (below + above) / 2
        if speedup(middle, gamma, c) < target_speedup:
            below = middle
        else:
            above = middle
    return (below + above) / 2


@checked(alpha=Probability(), gamma=GAMMA)
def rows_with_acceptance(alpha, gamma) -> tuple[np.ndarray, np.ndarray]:
    """Target rows (γ+1, 4) and draft rows (γ, 4) whose acceptance rate is exactly α at every position.

    p = (½, ½, 0, 0) and q = α·p + (1 − α)·(0, 0, ½, ½): then Σ min(p, q) = α. A draft token 0 or 1 is
    always accepted and a token 2 or 3 always rejected, so a step's fate is decided by which tokens
    the draft draws; the rule is the real one, only the rows are made up.

    >>> target, draft = rows_with_acceptance(0.75, 2)
    >>> target.shape, draft.shape, float(np.minimum(target[0], draft[0]).sum())
    ((3, 4), (2, 4), 0.75)
    """
    target_row = np.array([0.5, 0.5, 0.0, 0.0])
    other_row = np.array([0.0, 0.0, 0.5, 0.5])
    draft_row = alpha * target_row + (1.0 - alpha) * other_row
    return np.tile(target_row, (gamma + 1, 1)), np.tile(draft_row, (gamma, 1))


@dataclass(frozen=True)
class Pass:
    """One forward pass on a lane of the timeline."""

    model: str
    """"target" or "draft"."""
    start: float
    duration: float
    origins: tuple[str, ...] = ()
    """Target passes: the origin of each token the pass emits ("accepted", "resampled", "bonus",
    or "target" in plain decoding). Draft passes emit nothing of their own."""


@dataclass(frozen=True)
class Timeline:
    """A short generation, plain and speculative, on the same clock (seconds)."""

    plain: tuple[Pass, ...]
    speculative: tuple[Pass, ...]
    times: PassTimes
    alpha: float
    step_counts: tuple[int, ...]
    """Tokens emitted by each speculative step, as sampled."""

    @property
    def tokens(self) -> int:
        """Tokens in the plain lane (the speculative lane has at least as many)."""
        return len(self.plain)

    @property
    def speculative_tokens(self) -> int:
        return sum(self.step_counts)

    @property
    def plain_time_per_token(self) -> float:
        return self.times.target_decode

    @property
    def speculative_time_per_token(self) -> float:
        return len(self.step_counts) * self.times.step_time / self.speculative_tokens

    @property
    def sampled_speedup(self) -> float:
        """Plain time per token ÷ speculative time per token, for the steps this seed drew."""
        return self.plain_time_per_token / self.speculative_time_per_token

    @property
    def expected_speedup(self) -> float:
        """The mean of the sampled speedup's long-run value: `PassTimes.speedup` at α."""
        return self.times.speedup(self.alpha)

    @property
    def formula_speedup(self) -> float:
        """speedup(α, γ, implied c): the model of notebook 04, which counts the verify pass as free."""
        return speedup(self.alpha, self.times.gamma, self.times.implied_c)


@checked(ModelPair(), accelerator=AcceleratorSpec(), gamma=GAMMA, alpha=Probability(), batch=BATCH, seed=Count(),
         tokens=Count(1, MAX_TIMELINE_TOKENS), context=CONTEXT, draft_context=DraftContext())
def sample_timeline(accelerator, target, draft, gamma, alpha, batch=1, seed=0, tokens=32,
                    context=DEFAULT_CONTEXT, draft_context=None) -> Timeline:
    """Sample a generation of `tokens` tokens, plain and speculative, and lay its passes on a clock.

    Plain decoding takes one target pass per token. Speculative decoding repeats a step: γ draft
    passes, then one verify pass, until at least `tokens` tokens are out. How many tokens each step
    emits is drawn by `specdec.sample_steps` (the real verify rule) on rows whose acceptance rate
    is α (`rows_with_acceptance`), from ``numpy.random.default_rng(seed)``.

    With a batch, every sequence runs in the same passes; the lanes follow one of them.

    Parameters
    ----------
    accelerator : Accelerator
    target, draft : Model, or a number of parameters > 0
    gamma : int >= 0
    alpha : float in [0, 1]
    batch : int >= 1
    seed : int >= 0
    tokens : int in 1 … 1000
    context : int >= 0
    draft_context : int >= 0, optional
        As in `pass_times`.

    Examples
    --------
    >>> line = sample_timeline(ACCELERATORS["H100 SXM"], MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"],
    ...                        gamma=4, alpha=0.8, seed=0, tokens=24)
    >>> line.tokens, line.speculative_tokens >= 24, [p.model for p in line.speculative[:5]]
    (24, True, ['draft', 'draft', 'draft', 'draft', 'target'])
    >>> round(line.expected_speedup, 2) == round(line.formula_speedup, 2)  # batch 1, memory-bound
    True
    """
    times = _pass_times(accelerator, target, draft, gamma, batch, context, draft_context)
    plain = tuple(Pass("target", i * times.target_decode, times.target_decode, ("target",))
                  for i in range(tokens))

    target_rows, draft_rows = rows_with_acceptance(alpha, gamma)
    # At most `tokens` steps are needed, since each step emits at least one token.
    _, counts = sample_steps(target_rows, draft_rows, tokens, np.random.default_rng(seed))
    emitted = np.cumsum(counts)
    steps = int(np.searchsorted(emitted, tokens)) + 1
    step_counts = tuple(int(k) for k in counts[:steps])

    speculative = []
    clock = 0.0
    for count in step_counts:
        for _ in range(gamma):
            speculative.append(Pass("draft", clock, times.draft_pass))
            clock += times.draft_pass
        speculative.append(Pass("target", clock, times.target_verify, step_origins(count, gamma)))
        clock += times.target_verify
    return Timeline(plain, tuple(speculative), times, alpha, step_counts)


@checked(gamma=Count(), count=Count(1, lambda arguments: arguments["gamma"] + 1))
def step_origins(count, gamma) -> tuple[str, ...]:
    """Origins of the tokens of a step that emitted `count` of at most γ+1 tokens.

    >>> step_origins(3, 4), step_origins(5, 4)
    (('accepted', 'accepted', 'resampled'), ('accepted', 'accepted', 'accepted', 'accepted', 'bonus'))
    """
    last = "bonus" if count == gamma + 1 else "resampled"
    return ("accepted",) * (count - 1) + (last,)


def _accelerator(value) -> Accelerator:
    if not isinstance(value, Accelerator):
        known = ", ".join(ACCELERATORS)
        raise TypeError(
            f"accelerator must be an Accelerator (one of specdec.hardware.ACCELERATORS: {known}), "
            f"got {type(value).__name__}"
        )
    positive(value.memory_bandwidth, "accelerator.memory_bandwidth")
    positive(value.peak_flops, "accelerator.peak_flops")
    positive(value.memory_capacity, "accelerator.memory_capacity")
    _overhead(value.pass_overhead, "accelerator.pass_overhead")
    return value


def _overhead(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds in [0, {MAX_PASS_OVERHEAD:g}], got {value!r} "
                        f"of type {type(value).__name__}")
    value = float(value)
    if not 0.0 <= value <= MAX_PASS_OVERHEAD:  # False for NaN too
        raise ValueError(f"{name} must be a number of seconds in [0, {MAX_PASS_OVERHEAD:g}] (a fixed time per "
                         f"forward pass), got {value!r}")
    return value


def _fraction(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1], got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must be in (0, 1] (a fraction of the peak), got {value!r}")
    return value


def _shape(value, name: str = "model") -> _Shape:
    """The numbers of a Model, or of a bare parameter count (no KV cache, no attention)."""
    if isinstance(value, Model):
        parameters = positive(value.parameters, f"{name}.parameters")
        for part in ("layers", "kv_heads", "head_dim"):
            Count(1)(getattr(value, part), f"{name}.{part}")
        Count(0)(value.attention_heads, f"{name}.attention_heads")
        return _Shape(parameters, float(value.kv_bytes_per_token), float(value.attention_flops_per_token),
                      value.vocabulary)
    return _Shape(positive(value, f"{name} (its number of parameters)"), 0.0, 0.0, "")


def _pair(target, draft) -> tuple[_Shape, _Shape]:
    """Both models' numbers, refusing a draft larger than its target or with another vocabulary."""
    target_shape, draft_shape = _shape(target, "target"), _shape(draft, "draft")
    if draft_shape.parameters > target_shape.parameters:
        raise ValueError(
            f"draft must not be larger than its target: the draft has {draft_shape.parameters:,.0f} "
            f"parameters and the target {target_shape.parameters:,.0f}; a draft is only worth running "
            f"if its passes cost less than the target's"
        )
    if target_shape.vocabulary and draft_shape.vocabulary and target_shape.vocabulary != draft_shape.vocabulary:
        raise ValueError(
            f"draft must share the target's vocabulary: {_name(draft)} uses {draft_shape.vocabulary} and "
            f"{_name(target)} uses {target_shape.vocabulary}; the verify rule compares p(x) and q(x) for "
            f"the same token x, so both models must score the same tokens (pairs that do: "
            f"specdec.hardware.PAIRS)"
        )
    return target_shape, draft_shape


def _name(model) -> str:
    return model.name if isinstance(model, Model) else repr(model)


def _draft_context(value, context: int) -> int:
    if value is None:
        return context
    return min(Count(0, MAX_CONTEXT)(value, "draft_context"), context)


def _batches(batches) -> list[int]:
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__len__") or not 1 <= len(batches) <= MAX_BATCH_COUNT:
        raise TypeError(f"batches must be a sequence of 1 … {MAX_BATCH_COUNT:,} batch sizes, got {batches!r}")
    return [BATCH(b, "each of batches") for b in batches]


def positive(value, name: str) -> float:
    """`value` as a finite float > 0, or a ValueError/TypeError naming `name`.

    >>> positive(3.35e12, "bandwidth")
    3350000000000.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number > 0, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0 (a size, a bandwidth or a rate), got {value!r}")
    return value


#: The published runs notebook 05 compares the model with, at the papers' own settings.
PUBLISHED_RUNS = (
    PublishedRun("T5-XXL / T5-small, greedy", 11e9, 77e6, 7, 3.4, ACCELERATORS["TPU v4"], _LEVIATHAN, alpha=0.75),
    PublishedRun("T5-XXL / T5-small, T = 1", 11e9, 77e6, 7, 2.6, ACCELERATORS["TPU v4"], _LEVIATHAN, alpha=0.62),
    PublishedRun("Chinchilla 70B / 4B, XSum, nucleus", 70e9, 4e9, 4, 1.92, cluster(ACCELERATORS["TPU v4"], 16),
                 _CHEN, target_time=14.1e-3, draft_time=1.8e-3),
    PublishedRun("Chinchilla 70B / 4B, XSum, greedy", 70e9, 4e9, 4, 2.01, cluster(ACCELERATORS["TPU v4"], 16),
                 _CHEN, target_time=14.1e-3, draft_time=1.8e-3),
    PublishedRun("Chinchilla 70B / 4B, HumanEval, nucleus", 70e9, 4e9, 4, 2.46, cluster(ACCELERATORS["TPU v4"], 16),
                 _CHEN, target_time=14.1e-3, draft_time=1.8e-3),
)
