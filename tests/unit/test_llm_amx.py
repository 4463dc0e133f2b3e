"""The bundled model on a CPU that advertises AMX the kernel does not enable.

Some virtual machines pass the CPU's ``amx_tile`` flag through but leave AMX tile data
out of the XSAVE features the kernel supports; llama.cpp then puts the weights in AMX
buffers and the process dies with SIGSEGV in its first batched decode (every ask on
the project's machine did). The model is then loaded without llama.cpp's extra buffer
types. llama.cpp is faked here: what is checked is the parameter it is given and that
nothing changes on other machines.
"""

from __future__ import annotations

import io
import types
from pathlib import Path
from typing import Any

import pytest

from deepcite.llm import local


class Params:
    use_extra_bufts = True


def fake_llama_cpp(made: list[bool], amx_build: bool = True) -> Any:
    """A llama_cpp whose Llama records the extra-buffer flag its parameters had."""
    bindings = types.SimpleNamespace(llama_model_default_params=Params)

    class Llama:
        def __init__(self, **kwargs: Any) -> None:
            made.append(bindings.llama_model_default_params().use_extra_bufts)

        def close(self) -> None:
            pass

    info = b"CPU : AVX2 = 1 | " + (b"AMX_INT8 = 1 | " if amx_build else b"") + b"REPACK = 1 | "
    return types.SimpleNamespace(Llama=Llama, llama=types.SimpleNamespace(llama_cpp=bindings),
                                 llama_print_system_info=lambda: info)


@pytest.mark.parametrize(("amx_build", "usable", "extra"), [
    (True, False, False),   # AMX kernels, AMX not usable: the crash this avoids
    (True, True, True),     # AMX kernels and a kernel that runs them
    (False, False, True),   # a build for AVX2 only never uses AMX: repacking stays
])
def test_extra_buffers_are_off_only_where_amx_would_be_used_and_is_not_usable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, amx_build: bool, usable: bool,
        extra: bool) -> None:
    made: list[bool] = []
    fake = fake_llama_cpp(made, amx_build)
    monkeypatch.setitem(__import__("sys").modules, "llama_cpp", fake)
    monkeypatch.setattr(local, "amx_usable", lambda: usable)
    monkeypatch.setattr(local, "_CACHE", {})
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    local.LlamaCppChatModel(model_path=gguf, n_ctx=512).load()
    assert made == [extra]
    # the default parameters are llama.cpp's own again once the model is loaded
    assert fake.llama.llama_cpp.llama_model_default_params().use_extra_bufts is True


def _cpu(monkeypatch: pytest.MonkeyPatch, flags: str, supported: int) -> None:
    monkeypatch.setattr(local.sys, "platform", "linux")
    monkeypatch.setattr(local.platform, "machine", lambda: "x86_64")
    real_open = open

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == "/proc/cpuinfo":
            return io.StringIO(f"processor\t: 0\nflags\t\t: {flags}\n")
        return real_open(path, *args, **kwargs)

    class Libc:
        def syscall(self, number: int, code: int, out: Any) -> int:
            out._obj.value = supported
            return 0

    monkeypatch.setattr("builtins.open", fake_open)
    monkeypatch.setattr(local.ctypes, "CDLL", lambda *a, **k: Libc())


@pytest.mark.parametrize(("flags", "supported", "usable"), [
    ("fpu avx2 avx512f amx_tile amx_int8", 0x202E7, False),  # tile data not enabled
    ("fpu avx2 avx512f amx_tile amx_int8", 0x602E7, True),   # tile data enabled
    ("fpu avx2 avx512f", 0x202E7, True),                     # no AMX at all
])
def test_amx_is_usable_when_the_kernel_enables_tile_data(
        monkeypatch: pytest.MonkeyPatch, flags: str, supported: int, usable: bool) -> None:
    _cpu(monkeypatch, flags, supported)
    assert local.amx_usable() is usable
