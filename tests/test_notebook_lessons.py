"""The notebooks read as lessons: learner vocabulary, recaps, predict-first, glossary marks, links.

The rules apply to every numbered notebook, whatever its number:

- No internal words ("SPEC", "contract", "nbval") in the markdown of any notebook or solution.
- Every lesson (a numbered notebook other than 00 and the exercises): a Recap heading, then a "Next" link
  to the notebook numbered after it, and a Quiz heading; before each
  explorer (a cell whose output goes through a widget, tagged nbval-ignore-output) a Predict prompt
  with its answer hidden in <details>; every glossary term, where it first appears as prose, inside an
  <abbr> whose title is its glossary definition.
- Leviathan et al. and Chen et al. are linked where first named.
- 00 has the glossary and the further reading, and its map lists every numbered notebook.
- A link that names a numbered notebook by its number ("Next, [03 · …]", the maps of 00 and the README)
  gives the notebook's own title.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from tests.glossary import GLOSSARY
from tests.notebook_markdown import NOTEBOOKS, abbr_title_at, first_use, markdown_cells

NUMBERED = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
START = NOTEBOOKS / "00_start_here.ipynb"
LEARNER = NUMBERED + sorted((NOTEBOOKS / "solutions").glob("*.ipynb"))
LESSONS = [path for path in NUMBERED if path != START and "exercises" not in path.name]
INTERNAL_WORDS = re.compile(r"\bSPEC\b|\bcontract\b|\bnbval\b", re.I)
TAGS = re.compile(r"</?[A-Za-z][^<>]*>")
LINKS = {"Leviathan": "https://arxiv.org/abs/2211.17192", "Chen et al": "https://arxiv.org/abs/2302.01318"}


def _ids(paths):
    return [path.name for path in paths]


def test_the_lesson_notebooks_are_there():
    assert START in NUMBERED and len(LESSONS) >= 8 and len(LEARNER) >= 10
    assert any("exercises" in path.name for path in NUMBERED)


@pytest.mark.parametrize("path", LEARNER, ids=_ids(LEARNER))
def test_no_internal_words_in_learner_text(path):
    for text in markdown_cells(path):
        assert not INTERNAL_WORDS.search(text), INTERNAL_WORDS.search(text).group(0) + " in: " + text[:200]


@pytest.mark.parametrize("path", LESSONS, ids=_ids(LESSONS))
def test_a_recap_heading(path):
    assert any(re.search(r"^#+ .*\bRecap\b", text, re.M) for text in markdown_cells(path))


@pytest.mark.parametrize("path", LESSONS, ids=_ids(LESSONS))
def test_a_lesson_ends_with_a_link_to_the_next_notebook_and_a_quiz(path):
    following = NUMBERED[NUMBERED.index(path) + 1].name
    texts = markdown_cells(path)
    recap = next(index for index, text in enumerate(texts) if re.search(r"^#+ .*\bRecap\b", text, re.M))
    assert any(re.search(rf"^Next, \[[^\]]+\]\({re.escape(following)}\)", text, re.M) for text in texts[recap:]), \
        f"no 'Next, [...]({following})' after the Recap"
    assert any(re.search(r"^## Quiz$", text, re.M) for text in texts[recap:])


@pytest.mark.parametrize("path", LESSONS, ids=_ids(LESSONS))
def test_predict_first_before_each_explorer(path):
    cells = nbformat.read(path, as_version=4).cells
    since_last_explorer = []
    explorers = 0
    for cell in cells:
        if cell.cell_type == "markdown":
            since_last_explorer.append(cell.source)
        elif "nbval-ignore-output" in cell.metadata.get("tags", []):
            explorers += 1
            text = "\n".join(since_last_explorer)
            predict = re.search(r"\*\*Predict\b", text)
            assert predict, f"no Predict prompt before explorer cell: {cell.source[:80]}"
            assert "<details>" in text[predict.start():] and "</details>" in text[predict.start():], \
                f"the Predict answer before {cell.source[:60]!r} is not hidden in <details>"
            since_last_explorer = []
    assert explorers >= 1


@pytest.mark.parametrize("path", LESSONS, ids=_ids(LESSONS))
def test_glossary_terms_are_defined_where_first_used(path):
    cells = markdown_cells(path)
    for term, definition in GLOSSARY.items():
        use = first_use(cells, term)
        if use is None:
            continue
        index, match = use
        title = abbr_title_at(cells[index], match.start())
        assert title == definition, f"first use of {term!r} is not marked with its definition: " \
                                    f"{cells[index][max(0, match.start() - 60):match.end() + 20]!r}"


def test_at_least_fifteen_terms_are_marked_across_the_lessons():
    marked = {term for path in LESSONS for term in GLOSSARY if first_use(markdown_cells(path), term)}
    assert len(GLOSSARY) >= 15 and len(marked) >= 15, sorted(set(GLOSSARY) - marked)


@pytest.mark.parametrize("path", LEARNER, ids=_ids(LEARNER))
def test_papers_are_linked_where_first_named(path):
    for text in markdown_cells(path):
        prose = TAGS.sub("", text)  # a name inside a hover title is not a citation
        for name, link in LINKS.items():
            if name in prose:
                assert link in text, f"{name} named without its link {link} in: {text[:120]!r}"
                break


def test_start_here_has_the_glossary_and_further_reading():
    cells = markdown_cells(START)
    glossary = next(cell for cell in cells if re.search(r"^## Glossary", cell, re.M))
    for term in GLOSSARY:
        assert f"**{term}**" in glossary, term
    reading = next(cell for cell in cells if re.search(r"^## Further reading", cell, re.M))
    assert all(link in reading for link in LINKS.values())


def test_start_here_maps_every_numbered_notebook():
    table = next(cell for cell in markdown_cells(START) if cell.startswith("## The series"))
    for path in NUMBERED:
        number = path.name[:2]
        assert f"| [{number} " in table and f"]({path.name})" in table, path.name
    # and links no notebook that is not there
    for linked in re.findall(r"\]\((\d\d_[^)]+\.ipynb)\)", table):
        assert (NOTEBOOKS / linked).exists(), linked


def _title(path):
    return re.search(r"^# (\d\d) · (.+)$", markdown_cells(path)[0], re.M).groups()


def test_links_that_number_a_notebook_give_its_title():
    titles = {path.name: _title(path) for path in NUMBERED}
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    texts = [readme] + [text for path in LEARNER for text in markdown_cells(path)]
    links = [(TAGS.sub("", shown), name) for text in texts
             for shown, name in re.findall(r"\[(\d\d\b[^\]]*)\]\((?:\.\./|notebooks/)?(\d\d_[^)#]+\.ipynb)\)", text)]
    wrong = [f"[{shown}]({name})" for shown, name in links if shown != titles[name][0]  # "[05]" alone is fine
             and re.sub(r"\s*·\s*|\s+", " ", shown).lower() != " ".join(titles[name]).lower()]
    assert len(links) >= 3 * len(NUMBERED) - 2 and wrong == []
