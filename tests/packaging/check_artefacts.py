"""Build deepcite's wheel and sdist, install each the way users do, and use it.

``make artefacts`` runs this after ``make test`` (CI too). For every Python from 3.11 to
the newest on the machine, each artefact goes into a fresh virtual environment with the
pip that venv comes with (never upgraded: a new Python 3.11 venv has pip 23.2.1, which
ignores extras spelled differently from their declaration), and the installed command
is used as a user would use it:

* ``deepcite --version`` and ``-V`` print ``deepcite X.Y.Z``;
* ``deepcite ask ... --collection demo --offline`` answers with ``[n]`` citations and a
  Sources block, with the bundled model, and no traceback or Python warning on stderr;
* ``deepcite collection add`` indexes a folder with an HTML page (trafilatura, jusText and
  lxml_html_clean) and Markdown, ``collection search`` finds the page's text once, and an
  offline answer cites it;
* ``deepcite serve`` answers its pages, its static files, its health check, and lists
  the run just made on its history page;
* ``deepcite mcp`` (stdio) answers ``initialize`` and lists its tools;
* the installed package holds every template, static asset and migration of the source
  tree, and the licence.

Where ``unshare -rn`` works (Linux, user namespaces), those runs happen in a network
namespace with only loopback, so a download at run time fails the check instead of
passing unnoticed. The wheel's size and the installed size of ``[local]`` (what
``pipx install 'deepcite[local]'`` gets) and ``[all]`` are printed at the end.

Which artefact gets which extras: the wheel gets ``[all]`` on every Python, the sdist
``[local,web,mcp]``; on the first Python the wheel also gets plain ``[local]``. pip
caches the llama-cpp-python wheel it compiles, but per Python version; the wheel is
``py3-none`` (ctypes), so after the first Python the check offers that build to the
others (``PIP_FIND_LINKS``) instead of compiling llama.cpp once per Python. On the first
Python, an install after the first that compiles llama.cpp again fails the check: the
build is a one-time cost.

Usage: ``python tests/packaging/check_artefacts.py [--python PATH]... [--dist DIR]
[--keep]``. It needs ``build`` and ``twine`` (the dev extra) in the Python running it,
and the package registry for the installs, as ``make test`` does.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "deepcite"
QUESTION = "How do I parse command line arguments?"
MCP_TOOLS = {"quick_research", "detailed_report", "search", "search_collection",
             "list_collections", "get_report"}
#: Package data that must be installed, relative to the package (globs).
DATA_GLOBS = ("py.typed", "web/templates/*.html", "web/static/*",
              "store/migrations/*.py", "store/migrations/versions/*.py")
INSTALL_TIMEOUT = 3600  # a first llama.cpp compile on a slow machine
RUN_TIMEOUT = 600


class CheckFailed(Exception):
    """One check of one installation failed; the message says what a user would see."""


@dataclass
class Install:
    """One fresh venv holding one artefact with some extras."""

    python: str
    python_version: str
    artefact: Path
    extras: str
    venv: Path
    seconds: float = 0.0
    llama: str = ""  # how pip got llama-cpp-python: built, cached, wheelhouse
    size_mb: float = 0.0
    results: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        kind = "wheel" if self.artefact.suffix == ".whl" else "sdist"
        return f"Python {self.python_version}, {kind}[{self.extras}]"


def log(message: str) -> None:
    print(message, flush=True)


def run(cmd: list[str], *, timeout: float = RUN_TIMEOUT, env: dict[str, str] | None = None,
        cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd, check=False)
    if check and done.returncode != 0:
        raise CheckFailed(f"{' '.join(cmd)} exited {done.returncode}:\n"
                          f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


# --- building ------------------------------------------------------------------------

def build(dist: Path) -> tuple[Path, Path]:
    log(f"Building the sdist and the wheel into {dist}")
    started = time.monotonic()
    run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], timeout=1200)
    wheel, sdist = artefacts_in(dist)
    run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
    log(f"  built and `twine check --strict` passed in {time.monotonic() - started:.0f} s")
    return wheel, sdist


def artefacts_in(dist: Path) -> tuple[Path, Path]:
    wheels = sorted(dist.glob("deepcite-*.whl"))
    sdists = sorted(dist.glob("deepcite-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise CheckFailed(f"expected one wheel and one sdist in {dist}, found "
                          f"{[p.name for p in wheels + sdists]}")
    return wheels[0], sdists[0]


def source_version() -> str:
    text = (PACKAGE / "_version.py").read_text(encoding="utf-8")
    found = re.search(r'__version__ = "([^"]+)"', text)
    if not found:
        raise CheckFailed("no __version__ in src/deepcite/_version.py")
    return found.group(1)


# --- Pythons -------------------------------------------------------------------------

def python_version(python: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    major, minor = (int(part) for part in done.stdout.split())
    return major, minor


def find_pythons(given: list[str]) -> list[tuple[str, tuple[int, int]]]:
    """The Pythons to test: the given ones, else 3.11 and up on PATH (and pyenv's), the
    one running this first (its llama-cpp-python build is in pip's cache after
    ``make test``)."""
    base = getattr(sys, "_base_executable", sys.executable)
    candidates = given or [base, *(f"python3.{minor}" for minor in range(11, 30)),
                           *sorted(glob.glob(os.path.expanduser(
                               os.environ.get("PYENV_ROOT", "~/.pyenv")
                               + "/versions/3.*/bin/python3")))]
    found: dict[tuple[int, int], str] = {}
    for candidate in candidates:
        path = shutil.which(candidate) or candidate
        version = python_version(path)
        if version is None:
            if given:
                raise CheckFailed(f"{candidate} does not run")
            continue
        if version >= (3, 11) and version not in found:
            found[version] = path
    if not found:
        raise CheckFailed("no Python 3.11+ found")
    return [(path, version) for version, path in found.items()]


# --- installing ----------------------------------------------------------------------

def install(target: Install, pip_env: dict[str, str]) -> None:
    log(f"Installing {target.label} into a fresh venv")
    run([target.python, "-m", "venv", str(target.venv)], timeout=300)
    pip = run([str(target.venv / "bin" / "python"), "-m", "pip", "--version"]).stdout.split()
    log(f"  the venv's own pip: {pip[1]} (not upgraded)")
    started = time.monotonic()
    done = run([str(target.venv / "bin" / "python"), "-m", "pip", "install",
                f"{target.artefact}[{target.extras}]"], timeout=INSTALL_TIMEOUT, env=pip_env,
               check=False)
    target.seconds = time.monotonic() - started
    if done.returncode != 0:
        raise CheckFailed(f"pip install exited {done.returncode}:\n{done.stdout[-4000:]}\n"
                          f"{done.stderr[-4000:]}")
    output = done.stdout + done.stderr
    if re.search(r"Building wheel for llama[-_]cpp[-_]python", output):
        target.llama = "compiled"
    elif re.search(r"Using cached llama[-_]cpp[-_]python", output):
        target.llama = "pip's wheel cache"
    elif re.search(r"Processing .*wheelhouse/llama[-_]cpp[-_]python.*\.whl", output):
        target.llama = "the first Python's build"
    else:
        target.llama = "-" if "local" not in target.extras else "?"
    target.size_mb = site_packages_mb(target.venv)
    log(f"  installed in {target.seconds:.0f} s (llama-cpp-python: {target.llama}), "
        f"site-packages {target.size_mb:.0f} MB")


def site_packages_mb(venv: Path) -> float:
    total = 0
    for folder in (venv / "lib").glob("python3.*/site-packages"):
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total / 1e6


def share_llama_build(first: Install, wheelhouse: Path) -> None:
    """Copy the first Python's llama-cpp-python wheel (from pip's cache) to ``wheelhouse``."""
    python = str(first.venv / "bin" / "python")
    version = run([python, "-c", "from importlib.metadata import version; "
                                 "print(version('llama_cpp_python'))"]).stdout.strip()
    run([python, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", str(wheelhouse),
         f"llama-cpp-python=={version}"], timeout=INSTALL_TIMEOUT)
    log(f"  llama-cpp-python {version}'s wheel kept in {wheelhouse} for the other Pythons")


def offer_wheelhouse(wheelhouse: Path, pip_env: dict[str, str]) -> None:
    """Let the next Pythons' pip find the wheels in ``wheelhouse`` (no llama.cpp compile)."""
    links = " ".join(filter(None, [os.environ.get("PIP_FIND_LINKS", ""), str(wheelhouse)]))
    pip_env["PIP_FIND_LINKS"] = links


# --- using the installed command -----------------------------------------------------

def runtime_env(home: Path) -> dict[str, str]:
    """A user with nothing yet: own home, config and data; no deepcite settings."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DEEPCITE_", "PIP_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".local/state"),
               NO_COLOR="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def isolated_prefix() -> list[str]:
    """The command prefix that runs its command with no network but loopback, if any."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        return []
    probe = subprocess.run(["unshare", "-rn", "sh", "-c", "ip link set lo up"],
                           capture_output=True, timeout=60, check=False)
    if probe.returncode != 0:
        return []
    return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def check_installed(venv: Path, version: str, extras: str) -> list[str]:
    """Every runtime check of one venv (run inside the network namespace)."""
    home = Path(tempfile.mkdtemp(prefix="home-", dir=venv.parent))
    env = runtime_env(home)
    command = str(venv / "bin" / "deepcite")
    results = [check_version(command, version, env, home),
               check_files(venv, env, home),
               check_answer(command, env, home),
               check_collection(command, env, home)]
    chosen = set(extras.split(","))
    if chosen & {"web", "all"}:
        results.append(check_serve(command, env, home))
    else:
        results.append(check_serve_needs_extra(command, env, home))
    if chosen & {"mcp", "all"}:
        results.append(check_mcp(command, env, home))
    return results


def check_version(command: str, version: str, env: dict[str, str], home: Path) -> str:
    for flag in ("--version", "-V"):
        done = run([command, flag], env=env, cwd=home)
        if done.stdout != f"deepcite {version}\n":
            raise CheckFailed(f"deepcite {flag} printed {done.stdout!r}, "
                              f"not 'deepcite {version}'")
    return f"--version and -V print 'deepcite {version}'"


def check_files(venv: Path, env: dict[str, str], home: Path) -> str:
    code = ("import deepcite, importlib.metadata as m, pathlib, json; "
            "d = m.distribution('deepcite'); "
            "print(json.dumps({'package': str(pathlib.Path(deepcite.__file__).parent), "
            "'files': [str(f) for f in d.files or []], "
            "'license': d.metadata.get('License-Expression')}))")
    found = json.loads(run([str(venv / "bin" / "python"), "-c", code], env=env,
                           cwd=home).stdout)
    package = Path(found["package"])
    if not package.is_relative_to(venv):
        raise CheckFailed(f"deepcite was imported from {package}, not from the venv")
    missing = []
    count = 0
    for pattern in DATA_GLOBS:
        for source in PACKAGE.glob(pattern):
            count += 1
            installed = package / source.relative_to(PACKAGE)
            if not installed.is_file() or installed.read_bytes() != source.read_bytes():
                missing.append(str(source.relative_to(PACKAGE)))
    if missing:
        raise CheckFailed(f"the installed package lacks (or differs in) {missing}")
    if not any(re.search(r"\.dist-info/licenses/LICENSE$", f) for f in found["files"]):
        raise CheckFailed("the installed distribution has no LICENSE")
    if found["license"] != "Apache-2.0":
        raise CheckFailed(f"License-Expression is {found['license']!r}")
    return (f"{count} templates, static files and migrations installed as in the source; "
            "LICENSE, Apache-2.0")


def check_answer(command: str, env: dict[str, str], home: Path) -> str:
    started = time.monotonic()
    done = run([command, "ask", QUESTION, "--collection", "demo", "--offline", "--quiet"],
               env=env, cwd=home)
    seconds = time.monotonic() - started
    check_quiet_stderr("deepcite ask", done.stderr)
    answer, _, sources = done.stdout.partition("## Sources")
    if not sources:
        raise CheckFailed(f"the answer has no Sources block:\n{done.stdout}\n{done.stderr}")
    if not re.search(r"\[\d+\]", answer):
        raise CheckFailed(f"the answer cites nothing:\n{done.stdout}")
    if "argparse" not in sources or "Collection: demo" not in sources:
        raise CheckFailed(f"the Sources block does not list the demo's argparse page:\n"
                          f"{sources}")
    return f"offline answer from the demo with [n] and Sources in {seconds:.0f} s"


def check_quiet_stderr(what: str, stderr: str) -> None:
    """No traceback and no Python warning reaches the user's terminal."""
    if "Traceback" in stderr or re.search(r"\b\w*Warning: ", stderr):
        raise CheckFailed(f"{what} printed to stderr:\n{stderr[-3000:]}")


DEPLOY_HTML = """<!doctype html><html><head><title>Deploy notes</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Deploy notes</h1>
<p>The staging server is rebuilt every Friday at noon by the release captain, who also
rotates the signing keys.</p><p>Production deploys need two approvals.</p></article>
<footer>Copyright the team</footer></body></html>
"""


def check_collection(command: str, env: dict[str, str], home: Path) -> str:
    notes = home / "notes"
    notes.mkdir()
    (notes / "deploy.html").write_text(DEPLOY_HTML, encoding="utf-8")
    (notes / "cache.md").write_text("# Cache decision\n\nWe keep the cache in Redis with a "
                                    "one hour expiry.\n", encoding="utf-8")
    added = run([command, "collection", "add", str(notes), "--name", "notes"], env=env,
                cwd=home)
    check_quiet_stderr("deepcite collection add", added.stderr)
    if "2 added" not in added.stdout or "0 failed" not in added.stdout:
        raise CheckFailed(f"collection add: {added.stdout}")
    found = run([command, "collection", "search", "notes", "When is staging rebuilt?"],
                env=env, cwd=home)
    if found.stdout.count("rebuilt every Friday") != 1 or "deploy.html" not in found.stdout:
        raise CheckFailed(f"collection search shows the page's text not exactly once:\n"
                          f"{found.stdout}")
    done = run([command, "ask", "When is the staging server rebuilt?", "-c", "notes",
                "--offline", "--quiet"], env=env, cwd=home)
    answer, _, sources = done.stdout.partition("## Sources")
    if "Friday" not in answer or not re.search(r"\[\d+\]", answer) \
            or "deploy.html" not in sources:
        raise CheckFailed(f"the answer from the indexed HTML page:\n{done.stdout}")
    return "collection add (HTML, Markdown), search and an offline answer citing the page"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.headers.get("content-type", ""), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read()


def check_serve(command: str, env: dict[str, str], home: Path) -> str:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([command, "serve", "--port", str(port)], env=env, cwd=home,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _, body = get(f"{base}/api/v1/health")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    output = server.stdout.read() if server.stdout else ""
                    raise CheckFailed(f"deepcite serve did not answer:\n{output}") from None
                time.sleep(0.5)
        health = json.loads(body)
        if status != 200 or health.get("status") != "ok":
            raise CheckFailed(f"/api/v1/health answered {status} {body!r}")
        checked = ["/api/v1/health"]
        for page in ("/", "/history", "/collections"):
            status, kind, body = get(base + page)
            if status != 200 or "text/html" not in kind or b"</html>" not in body:
                raise CheckFailed(f"{page} answered {status} {kind}: {body[:300]!r}")
            checked.append(page)
        status, _, body = get(f"{base}/history")
        if QUESTION.encode() not in body:
            raise CheckFailed("/history does not list the run `deepcite ask` just stored")
        for asset in sorted((PACKAGE / "web" / "static").iterdir()):
            status, kind, body = get(f"{base}/static/{asset.name}")
            if status != 200 or body != asset.read_bytes():
                raise CheckFailed(f"/static/{asset.name} answered {status} {kind}")
            checked.append(f"/static/{asset.name}")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            code = server.wait()
    if code != 0:
        raise CheckFailed(f"deepcite serve exited {code} on SIGTERM")
    return f"serve answered {', '.join(checked)}; exit 0 on SIGTERM"


def check_serve_needs_extra(command: str, env: dict[str, str], home: Path) -> str:
    done = run([command, "serve", "--port", str(free_port())], env=env, cwd=home,
               check=False, timeout=120)
    if done.returncode == 0 or "deepcite[web]" not in done.stderr:
        raise CheckFailed(f"serve without the web extra: exit {done.returncode}, "
                          f"{done.stderr!r}")
    return "serve without [web] says: pip install 'deepcite[web]'"


def check_mcp(command: str, env: dict[str, str], home: Path) -> str:
    server = subprocess.Popen([command, "mcp"], env=env, cwd=home, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdin and server.stdout

    def ask(message: dict[str, object]) -> dict[str, object]:
        assert server.stdin and server.stdout
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        while True:
            line = server.stdout.readline()
            if not line:
                stderr = server.stderr.read() if server.stderr else ""
                raise CheckFailed(f"deepcite mcp closed its stdout:\n{stderr[-3000:]}")
            reply: dict[str, object] = json.loads(line)
            if reply.get("id") == message["id"]:
                return reply

    try:
        hello = ask({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "check_artefacts", "version": "1"}}})
        if "result" not in hello:
            raise CheckFailed(f"initialize answered {hello}")
        server.stdin.write(json.dumps({"jsonrpc": "2.0",
                                       "method": "notifications/initialized"}) + "\n")
        listed = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        result = listed.get("result")
        tools = {tool["name"] for tool in result["tools"]} if isinstance(result, dict) else set()
        if not MCP_TOOLS.issubset(tools):
            raise CheckFailed(f"deepcite mcp lists {sorted(tools)}, lacking "
                              f"{sorted(MCP_TOOLS - tools)}")
        called = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "list_collections", "arguments": {}}})
        if "demo" not in json.dumps(called.get("result")):
            raise CheckFailed(f"list_collections answered {called}")
    finally:
        server.stdin.close()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return f"mcp (stdio) lists {len(tools)} tools; list_collections shows demo"


# --- driving -------------------------------------------------------------------------

def check_in_namespace(target: Install, version: str, prefix: list[str]) -> None:
    """Run the runtime checks of ``target`` in a child (in the namespace, if any)."""
    cmd = [*prefix, sys.executable, __file__, "--runtime-checks", str(target.venv),
           "--version-expected", version, "--extras", target.extras]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise CheckFailed(f"{target.label}:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}")
    target.results = json.loads(done.stdout.strip().splitlines()[-1])
    for line in target.results:
        log(f"  ok: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Build deepcite's wheel and sdist, install each as users do, use it.")
    parser.add_argument("--python", action="append", default=[],
                        help="a Python to test (repeatable; default: 3.11+ found here)")
    parser.add_argument("--dist", type=Path, help="check the artefacts already in DIR")
    parser.add_argument("--keep", action="store_true", help="keep the venvs")
    parser.add_argument("--runtime-checks", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--version-expected", help=argparse.SUPPRESS)
    parser.add_argument("--extras", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.runtime_checks:
        results = check_installed(args.runtime_checks, args.version_expected, args.extras)
        print(json.dumps(results))
        return 0

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="deepcite-artefacts-"))
    try:
        version = source_version()
        wheel, sdist = artefacts_in(args.dist) if args.dist else build(work / "dist")
        if args.dist:
            run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
        pythons = find_pythons(args.python)
        log("Pythons: " + ", ".join(f"{major}.{minor} ({path})"
                                    for path, (major, minor) in pythons))
        prefix = isolated_prefix()
        log("Runtime checks run with no network but loopback (unshare -rn)" if prefix else
            "NOTE: unshare -rn is unavailable here: runtime checks are not network-isolated")
        pip_env = dict(os.environ)
        wheelhouse = work / "wheelhouse"
        installs: list[Install] = []
        for index, (python, (major, minor)) in enumerate(pythons):
            plan = [(wheel, "all"), (sdist, "local,web,mcp")]
            if index == 0:
                plan.append((wheel, "local"))
            for artefact, extras in plan:
                target = Install(python=python, python_version=f"{major}.{minor}",
                                 artefact=artefact, extras=extras,
                                 venv=work / f"py{major}{minor}-{artefact.suffix[1:]}-"
                                            f"{extras.replace(',', '-')}" / "venv")
                target.venv.parent.mkdir(parents=True)
                install(target, pip_env)
                if index == 0 and installs and target.llama == "compiled":
                    raise CheckFailed("pip compiled llama-cpp-python again for the same "
                                      "Python: its wheel cache did not keep the first build")
                check_in_namespace(target, version, prefix)
                installs.append(target)
                if index == 0 and len(installs) == 1 and len(pythons) > 1:
                    share_llama_build(target, wheelhouse)
                if not args.keep:
                    shutil.rmtree(target.venv.parent)
            if index == 0 and len(pythons) > 1:
                # after the first Python's installs, so that they show pip's cache at work
                offer_wheelhouse(wheelhouse, pip_env)
        log("")
        log(f"All checks passed in {(time.monotonic() - started) / 60:.1f} min.")
        log(f"  wheel {wheel.name}: {wheel.stat().st_size / 1e6:.2f} MB; "
            f"sdist {sdist.name}: {sdist.stat().st_size / 1e6:.2f} MB")
        for target in installs:
            log(f"  {target.label}: site-packages {target.size_mb:.0f} MB, pip install "
                f"{target.seconds:.0f} s, llama-cpp-python from {target.llama}")
        if args.keep:
            log(f"  venvs kept under {work}")
        return 0
    except CheckFailed as exc:
        log(f"FAILED: {exc}")
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
