"""The offline corpus: what is read, in which order, without importing anything, and cached."""

import os
import string
import subprocess
from collections import Counter
import sys
import sysconfig
from pathlib import Path

import pytest

from specdec.text import corpus as corpus_module
from specdec.text.corpus import CORPUS_SIZE, docstrings, stdlib_corpus, stdlib_path, stdlib_source_files


@pytest.fixture(autouse=True)
def temporary_cache(tmp_path, monkeypatch):
    """The corpus read by these tests is kept in a temporary directory, never the user's cache."""
    monkeypatch.setenv("SPECDEC_CACHE_DIR", str(tmp_path))


def test_the_corpus_is_about_a_megabyte_of_text():
    text = stdlib_corpus()
    assert isinstance(text, str)
    assert 500_000 <= len(text) <= CORPUS_SIZE


def test_the_corpus_is_mostly_english_prose():
    text = stdlib_corpus()
    letters = sum(char in string.ascii_letters or char == " " for char in text)
    assert letters / len(text) > 0.8
    words = Counter(text.split())
    for common in ("the", "of", "a", "is", "to", "Return"):
        assert words[common] > 500


def test_the_corpus_is_cached_after_the_first_call():
    assert stdlib_corpus() is stdlib_corpus()


def test_the_corpus_is_the_same_when_read_again():
    assert stdlib_corpus.__wrapped__() == stdlib_corpus()


def test_the_corpus_starts_with_the_first_public_file_in_sorted_order():
    first = next(path for path in stdlib_source_files() if docstrings(path.read_bytes()))
    assert stdlib_corpus().startswith(docstrings(first.read_bytes())[0])


def test_stdlib_path_is_sysconfigs():
    assert stdlib_path() == Path(sysconfig.get_paths()["stdlib"])


def test_reading_the_corpus_imports_no_module():
    probe = (
        "import sys\n"
        "from specdec.text.corpus import stdlib_corpus, stdlib_path\n"
        "stdlib_path()  # sysconfig loads its own platform data on first use\n"
        "before = set(sys.modules)\n"
        "text = stdlib_corpus()\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    # The cache off, so that the sources are read (loading the cache file imports a codec for its
    # zip archive, which is not what this checks).
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "SPECDEC_CACHE_DIR": ""})
    assert result.stdout.strip() == "[]"
    assert result.stderr == ""  # `this` would print its poem, `antigravity` open a browser


def test_source_files_skip_tests_private_modules_and_installed_packages(tmp_path):
    for relative in [
        "abc.py", "_private.py", "__init__.py", "zz.py", "test_thing.py", "notes.txt",
        "pkg/__init__.py", "pkg/mod.py", "pkg/_impl.py",
        "test/test_abc.py", "pkg/tests/helper.py", "site-packages/numpy/core.py",
        "__pycache__/abc.py", "idlelib/editor.py", "_private_pkg/mod.py",
    ]:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('"""Doc."""\n')
    found = [path.relative_to(tmp_path).as_posix() for path in stdlib_source_files(tmp_path)]
    assert found == ["__init__.py", "abc.py", "pkg/__init__.py", "pkg/mod.py", "zz.py"]


def test_source_files_of_the_real_stdlib_are_sorted_and_public():
    files = stdlib_source_files()
    root = stdlib_path()
    assert files == sorted(files, key=lambda path: path.relative_to(root).parts)
    names = {path.relative_to(root).as_posix() for path in files}
    assert "textwrap.py" in names and "json/__init__.py" in names
    assert not any(name.startswith(("test/", "site-packages/", "idlelib/")) for name in names)


def test_docstrings_of_module_class_functions_in_source_order():
    source = '''"""The module."""

x = "not a docstring"


class Shape:
    """A shape.

        Indented detail.
    """

    def area(self):
        """Its area."""
        return 0

    def nothing(self):
        pass


async def fetch():
    """Fetch it."""


def empty():
    """"""
'''
    assert docstrings(source) == ["The module.", "A shape.\n\nIndented detail.", "Its area.", "Fetch it."]
    assert docstrings(source.encode()) == docstrings(source)


def test_docstrings_parse_without_running():
    assert docstrings("raise SystemExit('ran')\ndef f():\n    'doc'\n") == ["doc"]


def test_docstrings_refuse_non_source():
    with pytest.raises(TypeError, match="source"):
        docstrings(42)
    with pytest.raises(SyntaxError):
        docstrings("def (")


def test_a_short_standard_library_gives_everything_it_has(tmp_path, monkeypatch):
    (tmp_path / "one.py").write_text('"""First."""\n')
    (tmp_path / "two.py").write_text('def f():\n    """Second."""\n')
    (tmp_path / "broken.py").write_text("def (\n")
    monkeypatch.setattr(corpus_module, "stdlib_path", lambda: tmp_path)
    assert stdlib_corpus.__wrapped__() == "First.\n\nSecond."


def test_a_long_standard_library_is_cut_at_the_corpus_size(tmp_path, monkeypatch):
    (tmp_path / "big.py").write_text("\n".join(f'def f{i}():\n    """{"word " * 20}"""' for i in range(50)))
    monkeypatch.setattr(corpus_module, "stdlib_path", lambda: tmp_path)
    monkeypatch.setattr(corpus_module, "CORPUS_SIZE", 1000)
    text = stdlib_corpus.__wrapped__()
    assert len(text) == 1000
    assert text.startswith("word " * 20 + "\n\nword")


@pytest.mark.skipif(sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11),
                    reason="the documented exact size is CPython 3.11's")
def test_the_corpus_is_exactly_a_million_characters_on_cpython_3_11():
    assert len(stdlib_corpus()) == 1_000_000


@pytest.mark.parametrize("size, expected", [(6, "aaa\n\nb"), (7, "aaa\n\nbb"), (100, "aaa\n\nbbb\n\ncc")])
def test_the_docstrings_are_joined_by_a_blank_line_and_cut_at_the_corpus_size(tmp_path, monkeypatch, size, expected):
    (tmp_path / "a.py").write_text('"""aaa"""\n')  # read in sorted path order: a, b, c
    (tmp_path / "b.py").write_text('def f():\n    """bbb"""\n')
    (tmp_path / "c.py").write_text('class C:\n    """cc"""\n')
    monkeypatch.setattr(corpus_module, "stdlib_path", lambda: tmp_path)
    monkeypatch.setattr(corpus_module, "CORPUS_SIZE", size)
    assert corpus_module.read_stdlib_corpus() == expected
