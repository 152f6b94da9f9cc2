#!/usr/bin/env python3
"""Builds the client's wheel and sdist with the standard library alone: dist/valuator-<version>-py3-none-any.whl
(PEP 427) and dist/valuator-<version>.tar.gz (PEP 625: the source, pyproject.toml and PKG-INFO).

    python3 build_wheel.py [--out DIR]

A pure-Python wheel is a zip of the package and a .dist-info folder (METADATA, WHEEL, RECORD, top_level.txt, the
licence), so it is written here with zipfile rather than by pip and setuptools: the build then needs nothing but a
Python 3.11 or later (for tomllib, to read pyproject.toml; the package itself runs on 3.9), works offline, and
`make build` on a machine without pip still packs the client into the server. Every entry has the same fixed time
and the entries are sorted, so that the same source gives the same bytes (the server serves it with its hash).
The sdist is as steady: sorted members, one fixed time, no owner names, a gzip header without a time. Prints the
sdist's path, then the wheel's on the last line.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# 1980-01-01, the earliest time a zip entry can hold: a fixed time keeps the build reproducible.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def metadata(project: dict, version: str) -> str:
    """The core metadata (version 2.1) of pyproject.toml's [project] table, with the README as its description."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}"]
    for author in project.get("authors", []):
        lines.append(f"Author: {author['name']}")
    lines.append(f"License: {project['license']['text']}")
    if project.get("keywords"):
        lines.append("Keywords: " + ",".join(project["keywords"]))
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    lines.append("Description-Content-Type: text/markdown")
    readme = (HERE / project["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE / "dist"), help="the folder the wheel is written to (default dist/)")
    args = ap.parse_args()
    try:
        import tomllib
    except ImportError:
        print("building the wheel needs Python 3.11 or later (tomllib)", file=sys.stderr)
        return 1
    project = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    scope: dict = {}
    exec((HERE / "src" / "valuator" / "_version.py").read_text(encoding="utf-8"), scope)
    version = scope["__version__"]
    name = project["name"]
    info = f"{name}-{version}.dist-info"

    files: dict[str, bytes] = {}
    for path in sorted((HERE / "src" / "valuator").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files["valuator/" + path.relative_to(HERE / "src" / "valuator").as_posix()] = path.read_bytes()
    files[f"{info}/METADATA"] = metadata(project, version).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: valuator build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/top_level.txt"] = b"valuator\n"
    files[f"{info}/LICENSE"] = (HERE / "LICENSE").read_bytes()
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            entry = zipfile.ZipInfo(n, date_time=ZIP_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, d)

    # The sdist: what a build from source needs (pyproject.toml's setuptools backend reads src/).
    base = f"{name}-{version}"
    src: dict[str, bytes] = {f"{base}/PKG-INFO": files[f"{info}/METADATA"]}
    for rel in ("pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE"):
        src[f"{base}/{rel}"] = (HERE / rel).read_bytes()
    for n, d in files.items():
        if n.startswith("valuator/"):
            src[f"{base}/src/{n}"] = d
    sdist = out / f"{base}.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for n in sorted(src):
            member = tarfile.TarInfo(n)
            member.size, member.mode, member.mtime = len(src[n]), 0o644, 315532800
            tar.addfile(member, io.BytesIO(src[n]))
    with open(sdist, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write(raw.getvalue())
    print(sdist)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
