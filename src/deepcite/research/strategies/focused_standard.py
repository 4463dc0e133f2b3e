"""The long-form focused iteration: the focused search loop, then a full cited answer.

The reference offers focused iteration twice: a short answer for fact questions and a
"standard" variant for questions that need a detailed one. The search is the same in
both (short, saturating iterations aimed by the best passages so far), so this class
inherits the loop and changes only the end: the standard handler writes its own full
answer - the shape source-based ends with - instead of one or two sentences, and no
evidence block follows it, because a long answer carries its citations in every
paragraph. Forced and precision keep their own shape under either variant.

It costs more context than the short one (the reference asks for a model with more
than 16k tokens): the answer prompt is filled to the model's prompt budget like every
other long answer, so a small model gets fewer passages, not a broken prompt.
"""

from __future__ import annotations

from typing import ClassVar

from deepcite.citations.handlers import AnswerStyle
from deepcite.research.strategies.focused_iteration import FocusedIterationStrategy


class FocusedIterationStandardStrategy(FocusedIterationStrategy):
    """Focused iteration's searches, then the standard handler's full cited answer."""

    name = "focused-iteration-standard"
    description = ("Focused iteration's short, saturating searches, then a full cited "
                   "answer (needs a larger context).")

    answer_style: ClassVar[AnswerStyle | None] = None
    evidence: ClassVar[bool] = False
