"""The fixed opening of a prompt read once and kept on disk (llm.prompt_prefix): where
a prompt's opening ends, which file holds it, and that the prompt is read in chunks
that stop exactly there so its state can be saved (the bundled model itself is
exercised in tests/integration/test_prompt_prefix.py)."""

from __future__ import annotations

from pathlib import Path

import deepcite.llm.local as local_module
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
