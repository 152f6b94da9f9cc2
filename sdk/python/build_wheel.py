#!/usr/bin/env python3
"""Builds the client's wheel offline: dist/valuator-<version>-py3-none-any.whl (PEP 427).

    /usr/bin/python3 build_wheel.py [--out DIR]

It runs `pip wheel --no-deps --no-build-isolation --no-index` with the setuptools backend of pyproject.toml, so it
needs no package index, only Debian's python3-pip, python3-setuptools and python3-wheel. The build runs on a copy
of pyproject.toml, README.md, LICENSE and src/ in a temporary folder, so that setuptools' build/ and *.egg-info stay out of
the tree, and with SOURCE_DATE_EPOCH (the last commit's time, unless set) so that the same source gives the same
bytes. Prints the wheel's path on its last line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def source_date_epoch() -> str:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return os.environ["SOURCE_DATE_EPOCH"]
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct", "--", "."], cwd=HERE, capture_output=True,
                             text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    return "315532800"  # 1980-01-01, the earliest time a zip file can hold


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE / "dist"), help="the folder the wheel is written to (default dist/)")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="valuator-wheel-") as tmp:
        src = Path(tmp) / "src-tree"
        src.mkdir()
        for name in ("pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE"):
            shutil.copy2(HERE / name, src / name)
        shutil.copytree(HERE / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        built = Path(tmp) / "wheel"
        env = dict(os.environ, SOURCE_DATE_EPOCH=source_date_epoch(), PIP_NO_INPUT="1",
                   PIP_DISABLE_PIP_VERSION_CHECK="1")
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--quiet", "--wheel-dir", str(built), str(src)], env=env)
        if r.returncode != 0:
            print("pip wheel failed (it needs python3-pip, python3-setuptools and python3-wheel)", file=sys.stderr)
            return r.returncode
        wheels = list(built.glob("*.whl"))
        if len(wheels) != 1:
            print(f"expected one wheel, got {wheels}", file=sys.stderr)
            return 1
        dest = out / wheels[0].name
        shutil.copyfile(wheels[0], dest)
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
