# SPDX-License-Identifier: Apache-2.0
"""The documentation holds together: every error condition has a troubleshooting entry, every
relative link and anchor resolves, and the site's nav lists every page. Runs without Spark
(`make docs` runs it next to `mkdocs build --strict`)."""

import json
import re
import textwrap
import unicodedata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONDITIONS = ROOT / "connector/src/main/resources/error/kinesis-error-conditions.json"
# Results of make bench that the docs cite live here; they are data, not pages of the nav.
BENCHMARKS = DOCS / "benchmarks"


def markdown_files():
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        ROOT / "CHANGELOG.md",
        ROOT / "python/README.md",
        *sorted(DOCS.glob("*.md")),
    ]


def without_code(text):
    """The text with fenced blocks and inline code removed: links in code are not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def headings(text):
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", without_code(text), re.M)]


def mkdocs_slug(heading):
    """Python-Markdown's toc slugify, which the site's anchors use."""
    value = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def github_slug(heading):
    """GitHub's anchors, which the repository's rendering of the same files uses."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(path):
    """Anchors that work both on the site and on GitHub."""
    found = headings(path.read_text())
    return {mkdocs_slug(h) for h in found} & {github_slug(h) for h in found}


def links(path):
    text = without_code(path.read_text())
    return re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)


def relative_links():
    for path in markdown_files():
        for target in links(path):
            if not re.match(r"^[a-z]+:", target):
                yield path, target


@pytest.mark.parametrize("path,target", list(relative_links()), ids=lambda v: v.name if isinstance(v, Path) else v)
def test_relative_link_resolves(path, target):
    file_part, _, anchor = target.partition("#")
    resolved = (path.parent / file_part).resolve() if file_part else path
    where = f"{path.relative_to(ROOT)} links to {target}"
    assert resolved.exists(), f"{where}: no file {resolved.relative_to(ROOT)}"
    if path.parent == DOCS and file_part:
        assert DOCS in resolved.parents, f"{where}: the site holds only docs/, link within it"
    if anchor:
        assert resolved.suffix == ".md", f"{where}: an anchor into a file that is not Markdown"
        assert anchor in anchors(resolved), (
            f"{where}: no heading with that anchor in {resolved.relative_to(ROOT)}; "
            f"anchors: {sorted(anchors(resolved))}"
        )


def test_every_error_condition_has_a_troubleshooting_entry():
    conditions = json.loads(CONDITIONS.read_text())
    entries = set(headings((DOCS / "troubleshooting.md").read_text()))
    missing = sorted(set(conditions) - entries)
    assert not missing, f"docs/troubleshooting.md has no '### <CONDITION>' entry for {missing}"
    unknown = sorted(e for e in entries if e.startswith("KINESIS_") and e not in conditions)
    assert not unknown, f"docs/troubleshooting.md has entries for conditions that do not exist: {unknown}"


def nav_pages(nav):
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            yield from nav_pages(value)
        elif not re.match(r"^[a-z]+:", value):
            yield value


def test_the_nav_lists_every_page_and_only_pages_that_exist():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = list(nav_pages(config["nav"]))
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(set(listed)) == sorted(listed), f"a page is listed twice in mkdocs.yml: {listed}"
    assert sorted(listed) == pages, (
        f"mkdocs.yml's nav and docs/*.md differ: not listed {sorted(set(pages) - set(listed))}, "
        f"listed but missing {sorted(set(listed) - set(pages))}"
    )


def test_every_kept_benchmark_result_is_cited():
    cited = {
        (path.parent / target.partition("#")[0]).resolve()
        for path in [*DOCS.glob("*.md"), *BENCHMARKS.glob("*.md")]
        for target in links(path)
    }
    uncited = sorted(p.name for p in BENCHMARKS.iterdir() if p.resolve() not in cited)
    assert not uncited, f"docs/benchmarks/ keeps results no page cites (remove them): {uncited}"


def test_the_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= 300, f"README.md has {lines} lines; the manual belongs in docs/"


def test_the_real_time_sink_scala_example_is_the_one_a_suite_runs():
    """docs/real-time.md's Scala example of "The sink" is run by RealTimePipelineSuite (the
    Spark 4.2 line's tests), between its marker lines; the two must be the same text."""
    page = (DOCS / "real-time.md").read_text()
    shown = re.search(r"```scala\n(.*?)```", page[page.index("## The sink\n") :], re.S)
    assert shown, 'docs/real-time.md\'s "The sink" has no Scala example'
    suite = (ROOT / "connector/src/test/spark-4.2/io/github/sparkkinesis/sink/RealTimePipelineSuite.scala").read_text()
    ran = re.search(
        r"// ---- docs/real-time\.md, \"The sink\": the Scala example ----\n(.*?)\n\s*// ---- end", suite, re.S
    )
    assert ran, "RealTimePipelineSuite has no marked copy of the example"
    assert textwrap.dedent(ran.group(1)).strip() == shown.group(1).strip(), "the page and RealTimePipelineSuite differ"


def test_performance_is_a_reference_not_a_diary():
    lines = (DOCS / "performance.md").read_text().count("\n")
    assert lines <= 200, (
        f"docs/performance.md has {lines} lines: keep the figures, what they measure, how to repeat them and sizing"
    )
