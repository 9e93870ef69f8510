"""The README starts with the answer, and no link of the README or the user guide leads nowhere.

The guide's own build (`make docs`: Sphinx, every warning an error) checks its links to pages and headings too;
this test needs no Sphinx and also covers the README, which the build does not read as a page.
"""
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = sorted((ROOT / "docs").glob("*.md"))
FIRST_SCREEN = 40
HEADLINE_HEADER = "| setup | PyTorch | TensorFlow | JAX |"


def relative_links(page: Path) -> list[str]:
    """Every link and image target of a Markdown page that names a file (no scheme, not an anchor alone)."""
    targets = []
    for token in MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8")):
        for child in token.children or ():
            target = child.attrGet("href") or child.attrGet("src")
            if target and not urlsplit(target).scheme and not target.startswith("#"):
                targets.append(target)
    return targets


def missing_targets(page: Path) -> list[str]:
    return [target for target in relative_links(page)
            if not (page.parent / urlsplit(target).path).exists()]


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines; move detail into docs/"


def test_readme_first_screen_has_the_commands_and_the_headline_table():
    first_screen = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]
    text = "\n".join(first_screen)
    assert "make matrix" in text and "make test" in text
    assert HEADLINE_HEADER in first_screen


def test_readme_leads_into_the_guide():
    assert "docs/index.md" in relative_links(README)


@pytest.mark.parametrize("page", [README, *GUIDE], ids=lambda page: page.relative_to(ROOT).as_posix())
def test_relative_links_reach_files(page):
    assert missing_targets(page) == []
