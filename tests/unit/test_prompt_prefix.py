"""The fixed opening of a prompt read once and kept on disk (llm.prompt_prefix): where
a prompt's opening ends, which file holds it, and that the prompt is read in chunks
that stop exactly there so its state can be saved (the bundled model itself is
exercised in tests/integration/test_prompt_prefix.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import deepcite.llm.local as local_module
from deepcite.llm.local import ChatMessage, LlamaCppChatModel
from deepcite.llm.prompt_prefix import MIN_PREFIX_TOKENS, PrefixStates, fixed_opening
from tests.unit.test_llm import StreamingLlama


def test_the_fixed_opening_is_what_the_prompt_shares_with_its_empty_user_turn() -> None:
    opening = list(range(40)) + [900, 901]  # the empty user turn ends differently
    prompt = list(range(40)) + [500, 501, 502]
    assert fixed_opening(prompt, opening) == 40
    # too short to be worth a file; never the prompt's last token
    short = list(range(MIN_PREFIX_TOKENS - 1))
    assert fixed_opening([*short, 7], [*short, 8]) == 0
    assert fixed_opening(list(range(30)), list(range(30))) == 29


def test_a_state_belongs_to_one_model_file_and_one_token_list(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    states = PrefixStates.for_model(tmp_path / "s", model, n_ctx=2048, flash_attn=True)
    same = PrefixStates.for_model(tmp_path / "s", model, n_ctx=2048, flash_attn=True)
    assert states.path_for([1, 2, 3]) == same.path_for([1, 2, 3])
    assert states.path_for([1, 2, 3]) != states.path_for([1, 2, 4])
    other_ctx = PrefixStates.for_model(tmp_path / "s", model, n_ctx=4096, flash_attn=True)
    no_flash = PrefixStates.for_model(tmp_path / "s", model, n_ctx=2048, flash_attn=False)
    model.write_bytes(b"other weights")  # a model file replaced in place
    replaced = PrefixStates.for_model(tmp_path / "s", model, n_ctx=2048, flash_attn=True)
    keys = {s.path_for([1, 2, 3]) for s in (states, other_ctx, no_flash, replaced)}
    assert len(keys) == 4


def test_a_missing_or_foreign_state_file_is_a_miss(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"weights")
    states = PrefixStates.for_model(tmp_path / "s", model, n_ctx=2048, flash_attn=True)
    llama = StreamingLlama()
    assert not states.restore(llama, [1, 2, 3])
    path = states.path_for([1, 2, 3])
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a state at all")
    assert not states.restore(llama, [1, 2, 3])
    path.write_bytes(b'deepcite-prefix-state 1\n{"tokens": [9, 9, 9]}\nDATA')
    assert not states.restore(llama, [1, 2, 3])  # another opening's tokens
    assert llama.n_tokens == 0


def test_the_prompt_is_read_in_chunks_that_stop_at_the_opening() -> None:
    llama = StreamingLlama()
    reached: list[int] = []
    tokens = list(range(200))
    assert local_module._prefill(llama, tokens, lambda: False,
                                 (70, lambda: reached.append(llama.n_tokens)))
    assert reached == [70]  # called once, holding exactly the opening
    assert llama.evaluated == [64, 6, 64, 64, 1]  # the last token is left to the sampler
    # an opening already held is not read again, nor saved again
    again = StreamingLlama()
    again.eval(tokens[:70])
    local_module._prefill(again, tokens, lambda: False, (70, lambda: reached.append(-1)))
    assert reached == [70] and again.evaluated == [70, 64, 64, 1]


def test_a_model_finds_its_states_once_and_reads_a_damaged_file_as_a_miss(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The states' key (a stat and a hash of the model file) is made on a model's first
    call, not on each: every later call uses the same one. The state file itself is
    read on every call that needs it, so a file damaged between calls is a miss - the
    prompt is read again and the reply is the same."""
    path = tmp_path / "model.gguf"
    path.write_bytes(b"weights")
    fake = StreamingLlama()
    monkeypatch.setitem(local_module._CACHE, (str(path.resolve()), 2048, 2),
                        local_module._Loaded(fake))
    made: list[PrefixStates] = []
    original_for_model = PrefixStates.for_model.__func__  # type: ignore[attr-defined]

    def counting_for_model(cls: type[PrefixStates], *args: Any, **kwargs: Any) -> PrefixStates:
        made.append(original_for_model(cls, *args, **kwargs))
        return made[-1]

    restored: list[tuple[PrefixStates, bool]] = []
    original_restore = PrefixStates.restore

    def spying_restore(self: PrefixStates, llama: Any, tokens: Any) -> bool:
        restored.append((self, original_restore(self, llama, tokens)))
        return restored[-1][1]

    saved: list[Path] = []
    monkeypatch.setattr(PrefixStates, "for_model", classmethod(counting_for_model))
    monkeypatch.setattr(PrefixStates, "restore", spying_restore)
    # the fake model has no llama.cpp state to save: the path it would go to is enough
    monkeypatch.setattr(PrefixStates, "save",
                        lambda self, llama, tokens: saved.append(self.path_for(tokens)))
    model = LlamaCppChatModel(model_path=path, n_ctx=2048, n_threads=2,
                              prefix_dir=tmp_path / "states", max_tokens=5)
    system = " ".join(f"rule{n}" for n in range(MIN_PREFIX_TOKENS + 4))
    messages = [ChatMessage("system", system), ChatMessage("human", "How long is it kept?")]
    def stop_after_five() -> bool:
        return fake.yielded >= 5


    first = model.invoke(messages, should_stop=stop_after_five).content
    assert saved and restored and restored[-1][1] is False  # nothing kept yet: a miss
    saved[0].parent.mkdir(parents=True, exist_ok=True)
    saved[0].write_bytes(b"deepcite-prefix-state 1\n{\"tokens\": [1, 2")  # cut short
    fake.n_tokens = 0  # as after another model's call: the opening is not held
    fake.yielded = 0
    second = model.invoke(messages, should_stop=stop_after_five).content

    assert len(made) == 1  # one key for the model, not one per call
    assert [ok for _, ok in restored] == [False, False]  # the damaged file was a miss
    assert {id(states) for states, _ in restored} == {id(made[0])}
    assert second == first and fake.n_tokens > MIN_PREFIX_TOKENS  # the prompt read again
