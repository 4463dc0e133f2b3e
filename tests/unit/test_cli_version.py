"""`deepcite --version` and `-V`: the installed distribution's version, then exit 0."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest
from typer.testing import CliRunner

from deepcite import __version__
from deepcite.cli import app

runner = CliRunner()


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_flag_prints_the_installed_version(flag: str) -> None:
    result = runner.invoke(app, [flag])

    assert result.exit_code == 0, result.output
    assert result.output == f"deepcite {metadata.version('deepcite')}\n"


def test_installed_version_is_the_source_version() -> None:
    # pyproject.toml reads the version from deepcite/_version.py: one number everywhere
    # (--version, /health, the User-Agent, bench records).
    assert metadata.version("deepcite") == __version__


def test_version_wins_over_a_command() -> None:
    # Eager: printed before any command runs (no research starts here).
    result = runner.invoke(app, ["-V", "ask", "anything"])

    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"deepcite {__version__}"


def test_python_m_deepcite_version() -> None:
    done = subprocess.run([sys.executable, "-m", "deepcite", "--version"],
                          capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    assert done.stdout == f"deepcite {__version__}\n"
