"""An English corpus that every Python installation carries: its standard library's docstrings.

The notebooks must run offline, on Binder as on a laptop, so nothing is downloaded. The standard
library's source files are always installed, and their docstrings are well over a megabyte of
technical English written by many hands. `stdlib_corpus` reads them with `ast`, so no module is
imported (and none of their import-time side effects happen), and keeps about a megabyte.

What is simplified: which docstrings are kept is a fixed, plain rule, not a curated selection:

* files come from ``sysconfig.get_paths()["stdlib"]``, walked in sorted path order, so the order
  is the same on every machine with the same Python;
* tests, private modules (a name starting with ``_``), ``site-packages`` and the GUI and
  retired-tooling packages (idlelib, tkinter, turtledemo, lib2to3, distutils, ensurepip) are
  skipped, because they are code samples, widget option lists or duplicates rather than prose;
* the docstrings of each module, class and function are taken in source order, separated by a
  blank line, until `CORPUS_SIZE` characters are reached; the last one is cut there.

The docstrings differ between Python versions, so anything computed from this corpus (α, a
generated text) differs slightly too; the notebooks check such numbers against ranges.

>>> text = stdlib_corpus()
>>> 500_000 <= len(text) <= CORPUS_SIZE
True
>>> stdlib_corpus() is text  # read once, then cached
True
"""

from __future__ import annotations

import ast
import functools
import os
import sys
import sysconfig
import warnings
from pathlib import Path

import numpy as np

from . import disk_cache

#: How many characters `stdlib_corpus` returns: about one megabyte of English.
CORPUS_SIZE = 1_000_000

#: Directory names never walked into: tests, installed third-party packages, caches, and packages
#: whose docstrings are mostly GUI options or code rather than prose.
SKIPPED_DIRECTORIES = frozenset({
    "__pycache__", "site-packages", "dist-packages", "test", "tests", "idle_test",
    "idlelib", "tkinter", "turtledemo", "lib2to3", "distutils", "ensurepip",
})

_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def stdlib_path() -> Path:
    """Where the installed Python's standard library lives: ``sysconfig.get_paths()["stdlib"]``.

    >>> (stdlib_path() / "ast.py").is_file()
    True
    """
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_source_files(root=None) -> list[Path]:
    """The standard library's public ``.py`` files under `root`, in sorted path order.

    Parameters
    ----------
    root : path-like, optional
        An existing directory to look in; the installed standard library by default.

    Examples
    --------
    >>> files = stdlib_source_files()
    >>> files == sorted(files), any(path.name == "textwrap.py" for path in files)
    (True, True)
    """
    if root is None:
        root = stdlib_path()
    elif isinstance(root, (str, os.PathLike)):
        root = Path(root)
    else:
        raise TypeError(f"root must be a path (str or os.PathLike) or None, got {type(root).__name__}")
    if not root.is_dir():
        raise ValueError(f"root must be an existing directory, got {str(root)!r}")
    found = []
    for directory, subdirectories, filenames in os.walk(root):
        subdirectories[:] = [name for name in subdirectories if _walked(name)]
        found.extend(Path(directory, name) for name in filenames if name.endswith(".py") and _public(name))
    return sorted(found, key=lambda path: path.relative_to(root).parts)


def docstrings(source) -> list[str]:
    """The docstrings of a module's source, its classes and functions, in source order.

    Parameters
    ----------
    source : str or bytes
        Python source code. It is parsed, never run.

    Returns
    -------
    list of str
        Each docstring with its indentation cleaned (as ``inspect.cleandoc`` does); empty ones
        are left out.

    Examples
    --------
    >>> docstrings("'A module.'\\ndef f():\\n    'Does f.'\\nclass C:\\n    pass")
    ['A module.', 'Does f.']
    """
    if not isinstance(source, (str, bytes)):
        raise TypeError(f"source must be Python source as str or bytes, got {type(source).__name__}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # old escape sequences in some files
        tree = ast.parse(source)
    found = [node for node in ast.walk(tree) if isinstance(node, _DOCUMENTED)]
    found.sort(key=lambda node: getattr(node, "lineno", 0))
    texts = (ast.get_docstring(node, clean=True) for node in found)
    return [text for text in texts if text]


@functools.cache
def stdlib_corpus() -> str:
    """About a megabyte of English: the installed standard library's docstrings.

    Returns
    -------
    str
        At most `CORPUS_SIZE` characters: exactly that many on CPython 3.11, whose public
        docstrings hold about 1.25 MB; the same on every call and every machine with the same
        Python version. The files are read on the first call of the first session only (about
        2 s); the text is then kept on disk (`specdec.text.disk_cache`, keyed by the Python
        version, the standard library's path and this module's code) and in memory.

    Examples
    --------
    >>> text = stdlib_corpus()
    >>> text[:100] == stdlib_corpus()[:100]
    True
    """
    key = disk_cache.fingerprint(sys.version, str(stdlib_path()), str(CORPUS_SIZE),
                                 disk_cache.source_fingerprint(sys.modules[__name__]))
    name = f"corpus-{key[:16]}"
    stored = disk_cache.load_arrays(name, key, ["utf8"])
    if stored is not None and stored["utf8"].dtype == np.uint8 and stored["utf8"].ndim == 1:
        try:
            return stored["utf8"].tobytes().decode("utf-8")
        except UnicodeDecodeError:
            pass  # a corrupt file: read the corpus again
    text = read_stdlib_corpus()
    disk_cache.save_arrays(name, key, {"utf8": np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)})
    return text


def read_stdlib_corpus() -> str:
    """The text of `stdlib_corpus`, read from the standard library's files again on every call.

    `stdlib_corpus` calls it once and keeps the result, on disk and in memory.

    Examples
    --------
    >>> read_stdlib_corpus()[:100] == stdlib_corpus()[:100]
    True
    """
    parts: list[str] = []
    size = 0
    for path in stdlib_source_files():
        try:
            found = docstrings(path.read_bytes())
        except (SyntaxError, ValueError, OSError):
            continue  # a file this Python cannot parse (e.g. a template) simply contributes nothing
        for text in found:
            parts.append(text)
            size += len(text) + 2
            if size >= CORPUS_SIZE:
                return "\n\n".join(parts)[:CORPUS_SIZE]
    return "\n\n".join(parts)


def _walked(name: str) -> bool:
    return name not in SKIPPED_DIRECTORIES and not name.startswith((".", "_"))


def _public(filename: str) -> bool:
    if filename == "__init__.py":
        return True  # a package's own docstring is public prose
    return not filename.startswith(("_", "test_"))
