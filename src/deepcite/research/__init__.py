"""Research: the Researcher coordinator, strategies, query generation, parallel search."""

from deepcite.research.cancel_token import CancelToken
from deepcite.research.researcher import Researcher
from deepcite.research.strategies import STRATEGIES, create_strategy

__all__ = ["STRATEGIES", "CancelToken", "Researcher", "create_strategy"]
