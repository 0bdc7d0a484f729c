"""The documentation: the MkDocs site builds with no broken link or page left out of its navigation,
the README stays short and every file it links to exists, and every environment variable the code
reads is documented in docs/."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

# Names of environment variables, as they appear in the code's string literals.
ENV_NAME = re.compile(
    r"\b(?:DEPUTY_[A-Z0-9_]+|TELEGRAM_[A-Z_]+|OPENAI_[A-Z_]+|WHATSAPP_[A-Z_]+|REDIS_[A-Z_]+)\b"
)
# Top-level folders that are not Deputy's own packages.
NOT_PACKAGES = {"tests", "bench", "docs", "site", "build", "data"}
# A Markdown link's target: [text](target) or [text]: target.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)


def package_dirs() -> list[Path]:
    """`deputy/`, plus any older top-level package folder that still exists beside it."""
    found = [
        path for path in sorted(ROOT.iterdir())
        if path.is_dir() and not path.name.startswith(".") and path.name not in NOT_PACKAGES
        and (path / "__init__.py").is_file()
    ]
    assert ROOT / "deputy" in found, f"no deputy/ package under {ROOT}"
    return found


def _docstrings(tree: ast.AST) -> list[ast.Constant]:
    """Docstrings describe the code (they may name its constants, such as WHATSAPP_ID_OFFSET): not read."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.append(first.value)
    return found


def env_names_in_code() -> dict[str, set[str]]:
    """Every variable name in a string literal of the packages' Python sources, with where it is."""
    names: dict[str, set[str]] = {}
    for folder in package_dirs():
        for source in sorted(folder.rglob("*.py")):
            if ".venv" in source.parts or "__pycache__" in source.parts:
                continue
            tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
            docstrings = {id(node) for node in _docstrings(tree)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                    for name in ENV_NAME.findall(node.value):
                        if not name.endswith("_"):  # a prefix such as "DEPUTY_WHATSAPP_*" in a message
                            names.setdefault(name, set()).add(str(source.relative_to(ROOT)))
    return names


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a broken link or anchor, or a page missing from the nav, fails it."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=100,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, (
        "mkdocs build --strict failed (is mkdocs-material installed? it is in the `test` extra):\n"
        + result.stdout + result.stderr
    )
    assert (tmp_path / "site" / "index.html").is_file()


def test_the_readme_is_short_and_its_links_point_at_files() -> None:
    text = README.read_text(encoding="utf-8")
    lines = text.count("\n") + 1
    assert lines < 300, f"README.md has {lines} lines: move the detail into a page under docs/"
    targets = [a or b for a, b in LINK.findall(text)]
    relative = [
        target for target in targets
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("#")
    ]
    assert any(target.startswith("docs/") for target in relative), "README.md links to no page in docs/"
    missing = [target for target in relative if not (ROOT / target.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_every_environment_variable_in_the_code_is_documented() -> None:
    names = env_names_in_code()
    # The scan itself must find the variables every process reads, whatever the layout.
    assert {"REDIS_URL", "TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "DEPUTY_SECRET"} <= set(names)
    documented = "\n".join(page.read_text(encoding="utf-8") for page in sorted(DOCS.rglob("*.md")))
    undocumented = {
        name: sorted(where) for name, where in sorted(names.items())
        if not re.search(rf"(?<![A-Z0-9_]){re.escape(name)}(?![A-Z0-9_])", documented)
    }
    assert not undocumented, (
        "environment variables read by the code but not documented in docs/ "
        f"(add them to docs/running/configuration.md): {undocumented}"
    )
