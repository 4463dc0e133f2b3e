"""Report assembly: turning a ResearchResult into Markdown or JSON for people and tools."""

from deepcite.report.markdown import to_json_dict, to_markdown

__all__ = ["to_json_dict", "to_markdown"]
