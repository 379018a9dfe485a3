# SPDX-License-Identifier: Apache-2.0
"""Every source file the repository tracks names its license (Apache-2.0, see LICENSE) in an
SPDX line at its top (after a shebang), as the bundled NOTICE and the packages' metadata do."""

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPDX = "SPDX-License-Identifier: Apache-2.0"
SOURCES = {".scala", ".sbt", ".java", ".js", ".py", ".sh"}


def is_source(path):
    if path.suffix in SOURCES or path.name == "Makefile":
        return "node_modules" not in path.parts
    # Scripts without a suffix (build/sbt, .ci/run): those that start with a shebang.
    return path.suffix == "" and path.is_file() and path.read_bytes().startswith(b"#!")


def tracked_sources():
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return [REPO / n for n in names.split() if (REPO / n).is_file() and is_source(REPO / n)]


def test_every_source_file_has_an_spdx_line_at_its_top():
    sources = tracked_sources()
    assert len(sources) > 100, "the repository's sources were not found"
    missing = [str(p.relative_to(REPO)) for p in sources if SPDX not in "".join(p.read_text().splitlines(True)[:2])]
    assert not missing, f"add '// {SPDX}' (or '# ...') as the first line (after a shebang) of: {missing}"
