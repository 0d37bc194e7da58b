"""Arrays kept on disk between sessions, so that the corpus and its fitted models are made once per machine.

Reading the corpus and fitting n-gram models on it take a few seconds; a learner who reruns a
notebook should not wait for them again. `save_arrays` writes named numpy arrays to one ``.npz``
file in the user's cache directory, together with a *key*: a string naming everything the arrays
were computed from (a hash of the corpus, a hash of the code that computed them, the Python
version). `load_arrays` returns them only if the file is readable, holds exactly the expected
arrays and carries the same key; anything else (a missing, truncated, corrupt or stale file) gives
None, and the caller computes the arrays again and saves them over the old file.

Where: the directory named by the environment variable ``SPECDEC_CACHE_DIR`` if it is set (set it
to an empty string to switch the cache off), else ``$XDG_CACHE_HOME/specdec``, else
``~/.cache/specdec``.

What is simplified: there is no size limit and no clean-up; the files of one corpus take about
25 MB. Writing is atomic (a temporary file renamed into place), so two kernels writing the same
file at once leave one complete file, never a mixture. Files are read with ``allow_pickle=False``:
a cache file can hold arrays only, never code.

>>> import tempfile, os, numpy as np
>>> os.environ["SPECDEC_CACHE_DIR"] = tempfile.mkdtemp()
>>> save_arrays("example", "key-1", {"counts": np.arange(3)})
>>> load_arrays("example", "key-1", ["counts"])["counts"].tolist()
[0, 1, 2]
>>> load_arrays("example", "key-2", ["counts"]) is None  # stale: computed from something else
True
>>> del os.environ["SPECDEC_CACHE_DIR"]
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

#: The environment variable that chooses the cache directory ("" switches the cache off).
ENVIRONMENT_VARIABLE = "SPECDEC_CACHE_DIR"

_KEY_ENTRY = "__key__"


def cache_directory() -> Path | None:
    """The directory cache files go to, or None when the cache is switched off.

    >>> import os
    >>> os.environ["SPECDEC_CACHE_DIR"] = ""
    >>> cache_directory() is None
    True
    >>> del os.environ["SPECDEC_CACHE_DIR"]
    >>> cache_directory().name
    'specdec'
    """
    chosen = os.environ.get(ENVIRONMENT_VARIABLE)
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "specdec"


def fingerprint(*parts) -> str:
    """A short hex digest naming `parts` (strings or bytes), for cache keys and file names.

    >>> fingerprint("abc", b"d") == fingerprint("abc", b"d") != fingerprint("abcd")
    True
    """
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else bytes(part)
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()[:32]


def source_fingerprint(module) -> str:
    """A digest of a module's source file: a cache made by other code is stale.

    >>> len(source_fingerprint(sys.modules[__name__]))
    32
    """
    return fingerprint(Path(module.__file__).read_bytes(), sys.version)


def load_arrays(name: str, key: str, names) -> dict[str, np.ndarray] | None:
    """The arrays saved under `name` with this `key`, or None if there is no such sound file.

    Parameters
    ----------
    name : str
        The file's name in the cache directory, without ``.npz``.
    key : str
        What the arrays must have been computed from; a file with another key is stale.
    names : iterable of str
        The arrays the file must hold, no more and no fewer.
    """
    directory = cache_directory()
    if directory is None:
        return None
    path = directory / f"{name}.npz"
    try:
        with np.load(path, allow_pickle=False) as stored:
            if sorted(stored.files) != sorted([*names, _KEY_ENTRY]) or str(stored[_KEY_ENTRY]) != key:
                return None
            return {entry: stored[entry] for entry in names}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None  # missing, unreadable or corrupt: the caller computes the arrays again


def save_arrays(name: str, key: str, arrays: dict[str, np.ndarray]) -> None:
    """Write `arrays` under `name` with `key`; if the directory cannot be written, skip quietly.

    A cache is an optimisation: a read-only home directory must not stop a notebook.
    """
    directory = cache_directory()
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".npz", dir=directory)
        try:
            with os.fdopen(handle, "wb") as file:
                np.savez(file, **arrays, **{_KEY_ENTRY: np.array(key)})
            os.replace(temporary, directory / f"{name}.npz")
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return
