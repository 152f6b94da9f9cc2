"""The package itself: its version is the API's, it is typed (PEP 561), its source reads as Python 3.9, and the
wheel built offline from pyproject.toml holds what it should."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import valuator

SDK = Path(__file__).resolve().parents[1]
REPO = SDK.parents[1]
SOURCES = sorted((SDK / "src" / "valuator").glob("*.py"))


def api_version() -> str:
    """info.version of api/openapi.yaml (the document's first `version:` line, under `info:`)."""
    m = re.search(r"^info:\n(?:[ ].*\n)*?  version: *[\"']?([^\"'\s]+)", (REPO / "api" / "openapi.yaml").read_text(),
                  re.M)
    assert m, "no info.version in api/openapi.yaml"
    return m.group(1)


def test_version_is_the_apis() -> None:
    assert valuator.__version__ == valuator.API_VERSION == api_version()
    assert f"## {valuator.__version__}" in (SDK / "CHANGELOG.md").read_text()


def test_typed() -> None:
    assert (SDK / "src" / "valuator" / "py.typed").is_file()
    for src in SOURCES:
        for node in ast.walk(ast.parse(src.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                untyped = [a.arg for a in args if a.annotation is None and a.arg not in ("self", "cls")]
                assert not untyped and node.returns is not None, f"{src.name}: {node.name} lacks type hints"


def test_python_39_syntax() -> None:
    for src in SOURCES:
        text = src.read_text()
        ast.parse(text, feature_version=(3, 9))
        # `X | Y` in an annotation is fine only as a string: every module defers its annotations.
        assert "from __future__ import annotations" in text or src.name == "_version.py" or src.name == "__init__.py"


def test_public_api() -> None:
    assert set(valuator.__all__) <= set(dir(valuator))
    for name in ("valuate", "market", "compare_markets", "find_person", "upload_batch", "wait_batch",
                 "batch_status", "download_batch", "request"):
        assert callable(getattr(valuator.Client, name))
    assert issubclass(valuator.ValuatorError, Exception)


def test_wheel(tmp_path: Path) -> None:
    if sys.version_info < (3, 11):
        pytest.skip("building the wheel needs Python 3.11 or later (tomllib)")
    out = subprocess.run([sys.executable, str(SDK / "build_wheel.py"), "--out", str(tmp_path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    wheel = Path(out.stdout.strip().splitlines()[-1])
    assert wheel.parent == tmp_path and wheel.name == f"valuator-{valuator.__version__}-py3-none-any.whl"
    info = f"valuator-{valuator.__version__}.dist-info"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert names == {"valuator/__init__.py", "valuator/_client.py", "valuator/_errors.py", "valuator/_types.py",
                         "valuator/_version.py", "valuator/py.typed", f"{info}/METADATA", f"{info}/WHEEL",
                         f"{info}/RECORD", f"{info}/top_level.txt", f"{info}/LICENSE"}, names
        meta = z.read(f"{info}/METADATA").decode()
        assert f"\nVersion: {valuator.__version__}\n" in meta and "\nRequires-Python: >=3.9\n" in meta, meta
        assert "Requires-Dist" not in meta and "Typing :: Typed" in meta and "\nLicense: MIT\n" in meta, meta
        assert z.read(f"{info}/LICENSE").decode().startswith("MIT License")
        assert "Root-Is-Purelib: true" in z.read(f"{info}/WHEEL").decode()
    # The same source gives the same bytes (the wheel can be served with a fixed hash).
    again = subprocess.run([sys.executable, str(SDK / "build_wheel.py"), "--out", str(tmp_path / "again")],
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (tmp_path / "again" / wheel.name).read_bytes() == wheel.read_bytes()
    # And the sdist beside it: the source and its PKG-INFO, as steady.
    sdist = tmp_path / f"valuator-{valuator.__version__}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    base = f"valuator-{valuator.__version__}"
    assert {f"{base}/PKG-INFO", f"{base}/pyproject.toml", f"{base}/LICENSE", f"{base}/src/valuator/_client.py"} <= names
    assert (tmp_path / "again" / sdist.name).read_bytes() == sdist.read_bytes()
