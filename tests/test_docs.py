"""The documentation's runnable examples run: every ```python block preceded by ``<!-- tested -->`` in docs/*.md and
README.md (there also checked against its comment); docs/index.md lists every page once and the README links it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
README = DOCS.parent / "README.md"
BLOCK = re.compile(r"<!-- tested -->\s*```python\n(.*?)```", re.DOTALL)
EXAMPLES = [(page.name, i, code) for page in sorted(DOCS.glob("*.md")) for i, code in enumerate(BLOCK.findall(
    page.read_text(encoding="utf-8")))]
LINK = re.compile(r"\]\(([^)#]+\.md)\)")


def test_the_architecture_page_has_a_tested_example():
    assert any(name == "architecture.md" for name, _, _ in EXAMPLES)


@pytest.mark.parametrize("page, index, code", EXAMPLES, ids=[f"{n}:{i}" for n, i, _ in EXAMPLES])
def test_doc_example_runs(page, index, code):
    exec(compile(code, f"{page} example {index}", "exec"), {})  # noqa: S102 - the docs' own examples


def test_the_readme_example_is_tested_and_gives_what_its_comment_says():
    """The README's Python block runs, and prints what its comment promises: status ok, (101, 7) saved states of
    the heavy top in S3R3 (quaternion + position) at every 0.01 over [0, 1]."""
    (code,) = BLOCK.findall(README.read_text(encoding="utf-8"))
    ns: dict = {}
    exec(compile(code, "README.md example", "exec"), ns)  # noqa: S102 - the README's own example
    sol = ns["sol"]
    assert str(sol.status) == "ok" and sol.stats["n_steps"] > 0
    assert sol.q.shape == (101, 7)
    assert abs(sol.t[-1] - 1.0) < 1e-12


def test_the_index_lists_every_page_once_and_the_readme_links_it():
    listed = LINK.findall((DOCS / "index.md").read_text(encoding="utf-8"))
    pages = sorted(p.name for p in DOCS.glob("*.md") if p.name != "index.md")
    assert sorted(listed) == pages  # each page once, none missing, no dead link
    readme = set(LINK.findall(README.read_text(encoding="utf-8")))
    assert {"docs/index.md", "docs/implicit.md", "docs/case-keys.md"} <= readme
    assert all((DOCS.parent / link).is_file() for link in readme)
