"""Train the neural target and every drafter of specdec.neural, and write the committed weights.

Run from the repository root, with PyTorch installed (any recent CPU build):

    nice python -m training.train_all --seed 0

It writes ``specdec/neural/weights/models.npz`` (float16 weights of every model, the vocabulary and
a short held-out slice with its loss, for the tests) and ``specdec/neural/weights/record.json``
(the command, seed, steps, wall times and final losses). What it trains, in order, on the training
blocks of `specdec.neural.split`:

1. the target, a 4-layer character transformer of width 128, its early steps helped by notebook 07's
   5-gram as a teacher (soft targets whose weight falls from 1 to 0 over the first half of the run;
   how it is trained is `TARGET_TRAINING`);
2. a 2-layer draft model on the data, and the same draft distilled from the target (DistillSpec:
   the loss is the KL divergence from the target's next-character distribution);
3. Medusa heads on the frozen target (each head predicts the character j + 1 ahead, hard labels);
4. an EAGLE-style drafter on the frozen target (feature regression + KL to the target's next row);
5. small early exits after layers 1, 2 and 3 of the frozen target (KL to the target's rows).

Every drafter is trained against the target *after* its weights are rounded to float16, which are
the weights the numpy code runs. ``--scale 0.05`` runs a quick smoke test with 5 % of the steps.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from specdec.neural.split import split_text, vocabulary
from specdec.text import NGramModel, stdlib_corpus

from .torch_models import (CharTransformer, EagleDrafter, EarlyExit, MedusaHeads, export,
                           round_to_float16)

TARGET = dict(width=128, layers=4, heads=4, context=128, shifts=3)
#: How the target is trained (everything that is not its shape): peak learning rate, AdamW's weight
#: decay on its matrices (not on norms and biases), dropout on each block's branches and the inputs
#: (training only), the n-gram teacher's weight, which falls linearly from 1 over the first
#: `teacher_fraction` of the steps and then stays at `teacher_floor`, and whether its matrix
#: products run in bfloat16 (autocast; weights and optimizer state stay float32). `weight_decay`
#: None: AdamW's 0.01 on every parameter. These values made the committed weights; the trials
#: that led to them are in the README.
TARGET_TRAINING = dict(lr=4e-3, weight_decay=0.1, dropout=0.0, teacher_fraction=0.5, teacher_floor=0.0,
                       bfloat16=True)
DRAFT = dict(width=64, layers=2, heads=2, context=128, shifts=3)
MEDUSA_HEADS = 3
EXIT_LAYERS = (1, 2, 3)
#: Steps of each training run at --scale 1.
STEPS = dict(target=2000, draft=250, draft_distilled=200, medusa=200, eagle=150, exits=60)
BATCH = 32
#: Held-out characters on which the drafts and exits are scored (the target and n-grams: all of them).
SCORED = 32_768
#: Held-out windows whose loss the tests reproduce from the committed weights.
CHECK_WINDOWS = 4

OUT = Path(__file__).resolve().parents[1] / "specdec" / "neural" / "weights"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train_all", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the steps (1 = the committed run)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--float32", action="store_true",
                        help="the target's matrix products in float32, not bfloat16 (for CPUs without "
                             "bfloat16 units, where bfloat16 may be slower; the committed run: bfloat16)")
    args = parser.parse_args(argv)
    if args.float32:
        TARGET_TRAINING["bfloat16"] = False
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.time()

    corpus = stdlib_corpus()
    train_text, held_text = split_text(corpus)
    vocab = vocabulary(corpus)
    index = {char: i for i, char in enumerate(vocab)}
    train_ids = torch.tensor([index[c] for c in train_text], dtype=torch.long)
    held_ids = torch.tensor([index[c] for c in held_text], dtype=torch.long)
    generator = torch.Generator().manual_seed(args.seed)
    steps = {name: max(1, round(count * args.scale)) for name, count in STEPS.items()}
    arguments = list(argv if argv is not None else sys.argv[1:])
    if "--out" in arguments:  # where the files go changes nothing in them
        del arguments[arguments.index("--out"):arguments.index("--out") + 2]
    record = dict(command="python -m training.train_all " + " ".join(arguments),
                  seed=args.seed, threads=args.threads, scale=args.scale, batch=BATCH, steps=steps,
                  torch=torch.__version__, python=platform.python_version(),
                  corpus_sha256=hashlib.sha256(corpus.encode("utf-8", "surrogatepass")).hexdigest(),
                  train_characters=len(train_text), held_out_characters=len(held_text),
                  held_out_characters_scored_for_drafts=SCORED, models={})

    last_starts = []

    def batches(context):
        while True:
            starts = torch.randint(0, len(train_ids) - context - 1, (BATCH,), generator=generator)
            last_starts[:] = starts.tolist()
            window = torch.stack([train_ids[s:s + context + 1] for s in starts.tolist()])
            yield window[:, :-1], window[:, 1:]

    # The n-gram teacher: notebook 07's 5-gram, fitted on the training text. Its rows speed up the
    # target's early training (a soft target per position instead of one observed character). Its
    # rows depend only on the last four characters, so each distinct four-character context is
    # smoothed once, into a table with one row index per training position.
    teacher = NGramModel(order=5).fit(train_text)
    teacher_ids = torch.tensor([index.get(c, len(vocab) - 1) for c in teacher.vocab])
    contexts, row_of_position = {}, np.empty(len(train_text), dtype=np.int64)
    for t in range(len(train_text)):
        row_of_position[t] = contexts.setdefault(train_text[max(0, t - 3):t + 1], len(contexts))
    teacher_table = torch.zeros(len(contexts), len(vocab))
    teacher_table.index_add_(1, teacher_ids, torch.tensor(np.array([teacher.next_distribution(c) for c in contexts]),
                                                          dtype=torch.float32))
    row_of_position = torch.from_numpy(row_of_position)

    def teacher_rows(context):
        positions = torch.tensor(last_starts)[:, None] + torch.arange(context)
        return teacher_table[row_of_position[positions]].reshape(-1, len(vocab))

    progress = [0.0]

    def fit(name, parameters, loss_of, context, lr, weight_decay=None):
        # weight_decay None: 0.01 on every parameter; a number: that on matrices, none on norms and biases.
        groups = (parameters if weight_decay is None else
                  [dict(params=[p for p in parameters if p.dim() >= 2], weight_decay=weight_decay),
                   dict(params=[p for p in parameters if p.dim() < 2], weight_decay=0.0)])
        optimizer = torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.99), weight_decay=0.01)
        total, warmup = steps[name], max(1, steps[name] // 20)
        schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup) * (
            0.1 + 0.45 * (1 + math.cos(math.pi * min(1.0, s / total)))))
        data, losses, clock = batches(context), [], time.time()
        for step in range(total):
            progress[0] = step / total
            x, y = next(data)
            loss = loss_of(x, y)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, 1.0)
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
            if step % 100 == 0 or step == total - 1:
                print(f"{name:>16} step {step:5d}/{total}  loss {loss.item():.4f}  "
                      f"{time.time() - clock:6.0f} s", flush=True)
        tail = losses[-max(1, min(50, total // 10)):]
        return dict(steps=total, wall_seconds=round(time.time() - clock, 1), final_train_loss=float(np.mean(tail)))

    def held_out_loss(logits_of, context, limit=None):
        """Mean cross-entropy (nats per character) over non-overlapping held-out windows."""
        ids = held_ids if limit is None else held_ids[:limit]
        count = (len(ids) - 1) // context
        windows = ids[: count * context + 1]
        x = windows[:-1].view(count, context)
        y = windows[1:].view(count, context)
        total, n = 0.0, 0
        with torch.no_grad():
            for start in range(0, count, 32):
                logits = logits_of(x[start:start + 32])
                total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[start:start + 32].reshape(-1),
                                         reduction="sum").item()
                n += y[start:start + 32].numel()
        return total / n

    def summary(entry, loss):
        entry.update(held_out_loss=loss, held_out_bits_per_character=loss / math.log(2))
        return entry

    arrays = {}
    # 1. The target.
    target = CharTransformer(len(vocab), **TARGET, dropout=TARGET_TRAINING["dropout"])
    def target_loss(x, y):
        # bfloat16 autocast: the matrix products run on the CPU's bfloat16 units (weights and
        # optimizer state stay float32); the losses are taken in float32.
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=TARGET_TRAINING["bfloat16"]):
            logits = target(x)
        logits = logits.float().reshape(-1, len(vocab))
        loss = F.cross_entropy(logits, y.reshape(-1))
        weight = max(TARGET_TRAINING["teacher_floor"], 1.0 - progress[0] / TARGET_TRAINING["teacher_fraction"])
        if weight > 0:
            soft = teacher_rows(x.shape[1])
            loss = loss - weight * (soft * F.log_softmax(logits, -1)).sum(-1).mean()
        return loss

    entry = fit("target", list(target.parameters()), target_loss, TARGET["context"], TARGET_TRAINING["lr"],
                TARGET_TRAINING["weight_decay"])
    entry["training"] = dict(TARGET_TRAINING)
    entry["ngram_teacher"] = (f"5-gram rows, weight max({TARGET_TRAINING['teacher_floor']:g}, "
                              f"1 - step / ({TARGET_TRAINING['teacher_fraction']:g} steps)) added to the cross-entropy")
    round_to_float16(target)
    target.eval()
    for parameter in target.parameters():
        parameter.requires_grad_(False)
    record["models"]["target"] = summary(dict(config=target.config, **entry),
                                         held_out_loss(target, TARGET["context"]))
    arrays.update(export(target, "target."))

    def target_rows(x):
        with torch.no_grad():
            return F.log_softmax(target(x), dim=-1)

    # 2. Draft models: on the data, and distilled from the target.
    for name in ("draft", "draft_distilled"):
        draft = CharTransformer(len(vocab), **DRAFT)
        if name == "draft":
            loss_of = lambda x, y, m=draft: F.cross_entropy(m(x).reshape(-1, len(vocab)), y.reshape(-1))
        else:
            loss_of = lambda x, y, m=draft: F.kl_div(F.log_softmax(m(x), -1).reshape(-1, len(vocab)),
                                                     target_rows(x).reshape(-1, len(vocab)),
                                                     log_target=True, reduction="batchmean")
        entry = fit(name, list(draft.parameters()), loss_of, DRAFT["context"], 3e-3)
        round_to_float16(draft)
        draft.eval()
        record["models"][name] = summary(dict(config=draft.config, **entry),
                                        held_out_loss(draft, DRAFT["context"], SCORED))
        arrays.update(export(draft, name + "."))

    # 3. Medusa heads: head j (1-based) at position t predicts the character at t + j + 1 = y[t + j].
    medusa = MedusaHeads(target, MEDUSA_HEADS)

    def medusa_loss(x, y):
        with torch.no_grad():
            normed = target.ln_f(target.hidden(x))
        loss = 0.0
        for j, logits in enumerate(medusa(normed), start=1):
            loss = loss + F.cross_entropy(logits[:, :-j].reshape(-1, len(vocab)), y[:, j:].reshape(-1))
        return loss / MEDUSA_HEADS

    entry = fit("medusa", list(medusa.parameters()), medusa_loss, TARGET["context"], 2e-3)
    round_to_float16(medusa)
    with torch.no_grad():  # held-out accuracy of each head's top choice
        x = held_ids[: 64 * (TARGET['context'] + 1)].view(64, -1)
        logits = medusa(target.ln_f(target.hidden(x[:, :-1])))
        entry["held_out_top1"] = [float((logits[j - 1][:, :-j].argmax(-1) == x[:, 1 + j:]).float().mean())
                                  for j in range(1, MEDUSA_HEADS + 1)]
    record["models"]["medusa"] = dict(config=medusa.config, **entry)
    arrays.update(export(medusa, "medusa."))

    # 4. EAGLE: from (feature at t, embedding of token t+1) predict the feature at t+1; its row is
    #    the target's norm and head on that feature, trained towards the target's row there.
    eagle = EagleDrafter(target)

    def eagle_loss(x, y):
        with torch.no_grad():
            features = target.hidden(x)
            rows = F.log_softmax(target.head(features[:, 1:]), -1)
            noisy = features[:, :-1] + 0.05 * features.std() * torch.randn(features[:, :-1].shape, generator=generator)
        predicted = eagle(noisy, target.embed(x[:, 1:]))
        regression = F.smooth_l1_loss(predicted, features[:, 1:])
        drafted = F.log_softmax(target.head(predicted), -1)
        kl = F.kl_div(drafted.reshape(-1, len(vocab)), rows.reshape(-1, len(vocab)), log_target=True,
                      reduction="batchmean")
        return kl + regression

    entry = fit("eagle", list(eagle.parameters()), eagle_loss, TARGET["context"], 2e-3)
    round_to_float16(eagle)
    record["models"]["eagle"] = dict(config=eagle.config, **entry)
    arrays.update(export(eagle, "eagle."))

    # 5. Early exits after layers 1, 2, 3, trained towards the target's rows.
    exits = torch.nn.ModuleList(EarlyExit(TARGET["width"]) for _ in EXIT_LAYERS)

    def exit_loss(x, y):
        with torch.no_grad():
            h = target.inputs(x)
            partial = []
            for block in target.blocks:
                h = block(h)
                partial.append(h)
            rows = F.log_softmax(target.head(h), -1).reshape(-1, len(vocab))
        loss = 0.0
        for layer, exit_ in zip(EXIT_LAYERS, exits):
            drafted = F.log_softmax(target.head(exit_(partial[layer - 1])), -1).reshape(-1, len(vocab))
            loss = loss + F.kl_div(drafted, rows, log_target=True, reduction="batchmean")
        return loss / len(EXIT_LAYERS)

    entry = fit("exits", list(exits.parameters()), exit_loss, TARGET["context"], 2e-3)
    round_to_float16(exits)
    for layer, exit_ in zip(EXIT_LAYERS, exits):
        for trained in (False, True):
            key = f"exit_{layer}" + ("_trained" if trained else "")
            logits_of = (lambda x, l=layer, e=exit_, t=trained:
                         target.head(e(target.hidden(x, l)) if t else target.hidden(x, l)))
            record["models"][key] = summary(dict(layers=layer, trained_exit=trained), held_out_loss(logits_of, TARGET["context"], SCORED))
        arrays.update(export(exit_, f"exit_{layer}."))
    record["models"]["exits_training"] = entry

    # The n-gram models of notebook 07, fitted on the same training text, on the same windows.
    for order in (3, 5):
        model = NGramModel(order=order).fit(train_text)
        bits = _ngram_bits(model, held_text, TARGET["context"])
        record[f"ngram_order_{order}_held_out_bits_per_character"] = bits

    # A short held-out slice whose loss the tests reproduce from the committed weights.
    check = held_ids[: CHECK_WINDOWS * (TARGET["context"] + 1)].view(CHECK_WINDOWS, -1)
    with torch.no_grad():
        logits = target(check[:, :-1])
        record["check_loss"] = F.cross_entropy(logits.reshape(-1, len(vocab)), check[:, 1:].reshape(-1)).item()
    arrays["check_ids"] = check.numpy().astype(np.int16)
    arrays["vocab"] = np.array([ord(c) for c in vocab], dtype=np.int32)
    record["total_wall_seconds"] = round(time.time() - started, 1)

    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out / "models.npz", **arrays)
    record["weights_bytes"] = os.path.getsize(args.out / "models.npz")
    (args.out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps({k: v for k, v in record.items() if k != "models"}, indent=2))
    for name, entry in record["models"].items():
        print(name, {k: v for k, v in entry.items() if k != "config"})
    return 0


def _ngram_bits(model, held_text: str, context: int) -> float:
    """Held-out bits per character of an n-gram model, its context cut at each window's start."""
    vocab_index = {char: i for i, char in enumerate(model.vocab)}
    unknown = len(model.vocab) - 1
    total, n = 0.0, 0
    count = (len(held_text) - 1) // context
    for window in range(count):
        start = window * context
        for offset in range(context):
            history = held_text[start:start + offset + 1]
            p = model.next_distribution(history[-(model.order - 1):] if model.order > 1 else "")
            char = held_text[start + offset + 1]
            total -= math.log2(p[vocab_index.get(char, unknown)])
            n += 1
    return total / n


if __name__ == "__main__":
    sys.exit(main())
