"""The wheel carries the schemas: build it, install it into a fresh venv, validate an example
from a folder outside the source tree. The editable install (which runs every other test) must
find the same schemas in the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from humanjudge_schema import schemas

from .conftest import ROOT


def test_editable_install_reads_the_source_schemas() -> None:
    root = schemas.schema_root()
    assert root.is_dir() and (root / "coggym" / "v1" / "trial.schema.json").is_file()


@pytest.mark.skipif(os.environ.get("HUMANJUDGE_SKIP_WHEEL") == "1", reason="HUMANJUDGE_SKIP_WHEEL=1")
def test_wheel_installs_and_validates(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(dist.glob("humanjudge_schema-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    valid = subprocess.run(
        [str(bin_dir / "humanjudge"), "validate", str(ROOT / "examples" / "coggym" / "valid")],
        cwd=work,
        capture_output=True,
        text=True,
        env=clean_env,
        timeout=120,
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    broken = subprocess.run(
        [str(bin_dir / "humanjudge"), "validate", str(ROOT / "examples" / "coggym" / "broken")],
        cwd=work,
        capture_output=True,
        text=True,
        env=clean_env,
        timeout=120,
    )
    assert broken.returncode == 1 and "coggym/mean-value" in broken.stdout
    where = subprocess.run(
        [str(bin_dir / "humanjudge"), "schema", "--path", "coggym/v1/trial"],
        cwd=work,
        capture_output=True,
        text=True,
        env=clean_env,
        timeout=120,
    )
    assert "site-packages" in where.stdout and str(ROOT) not in where.stdout
