"""Grounded answers to how-to, why and what-is questions, from documentation as extracted.

Text extracted from HTML documentation keeps headings as bare lines ("Module
Contents¶"), admonition labels run into their text ("Note The ..."), breadcrumb trails
and interpreter sessions: none of it is a sentence to quote. And a how-to question is
answered by an instruction, a why question by a reason, a what-is question by a
definition - not by the topic's introduction, however many words it shares.
"""

from __future__ import annotations

import pytest

from deepcite.citations.candidates import candidate_sentences, heading_line
from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.intent import Intent, action, gives, question_intent
from deepcite.citations.verify import verify
from deepcite.types import Source


def source(number: int, title: str, text: str) -> Source:
    url = f"file:///docs/{number}.html"
    return Source(number=number, title=title, url=url, canonical_url=url, snippet=text,
                  engine="local")


EXTRACTED_PAGE = (
    "Docs > Library > tarfile\n"
    "tarfile — Read and write tar archive files¶\n"
    "Source code: Lib/tarfile.py\n"
    "The tarfile module makes it possible to read and write tar archives, including\n"
    "those using gzip, bz2 and lzma compression.\n"
    "Module Contents¶\n"
    "tarfile.open(name=None, mode='r', fileobj=None)\n"
    "Return a TarFile object for the pathname name.\n"
    "Note The mode must be given as a string such as 'r:gz' for a compressed archive.\n"
    "See also\n"
    "- Module zipfile for reading and writing zip archives.\n"
    ">>> import tarfile\n"
    ">>> tar = tarfile.open('sample.tar.gz')\n"
    "Use the extractall() method to extract every member of an archive to a folder.\n"
)


def test_headings_labels_trails_and_code_of_extracted_html_are_never_quoted() -> None:
    quoted = [s.text for s in candidate_sentences([source(1, "tarfile", EXTRACTED_PAGE)])]
    joined = " ".join(quoted)
    for junk in ("¶", "Docs > Library", "Module Contents", "See also", ">>>",
                 "Source code:", "tarfile.open(name=None"):
        assert junk not in joined, junk
    assert quoted[0].startswith("The tarfile module makes it possible")
    assert "The mode must be given as a string such as 'r:gz' for a compressed archive." \
        in quoted  # the admonition's label is not part of its sentence
    assert "Module zipfile for reading and writing zip archives." in quoted  # a list item


@pytest.mark.parametrize("line, previous, following, expected", [
    ("Module Contents¶", "", "", True),
    ("Home > Guide > Install", "", "Install the tool.", True),
    ("Reading files", "The end of a section.", "Files are read lazily.", True),
    ("csv.writer(csvfile, dialect='excel')", "", "Return a writer.", True),
    # a wrapped line of prose is never a heading
    ("read and write tabular data in CSV", "The module implements classes to", "format.",
     False),
    ("the format is similar enough that", "Still, while the delimiters vary,",
     "it is possible.", False),
    ("It returns a list.", "", "More text.", False),
])
def test_heading_lines_are_told_from_wrapped_prose(line: str, previous: str, following: str,
                                                   expected: bool) -> None:
    assert heading_line(line, previous, following) is expected


def test_a_passage_cut_mid_sentence_does_not_quote_its_opening_fragment() -> None:
    cut = source(1, "Naming", "has not yet been bound to a value, an error is raised. "
                 "Names are resolved in the nearest enclosing scope.")
    quoted = [s.text for s in candidate_sentences([cut])]
    assert quoted == ["Names are resolved in the nearest enclosing scope."]


@pytest.mark.parametrize("question, intent", [
    ("How do I read a CSV file?", Intent.HOWTO),
    ("How can I extract a tar archive?", Intent.HOWTO),
    ("How to install the package offline?", Intent.HOWTO),
    ("What is the best way to copy a folder?", Intent.HOWTO),
    ("Why does the server refuse connections?", Intent.REASON),
    ("None of my threads seem to run: why?", Intent.REASON),
    ("What is the reason for the lock?", Intent.REASON),
    ("What is a context manager?", Intent.DEFINITION),
    ("What does idempotent mean?", Intent.DEFINITION),
    ("What is the default port?", Intent.OTHER),  # a fact, not a definition
    ("When was the tower completed?", Intent.OTHER),
    ("如何安装这个软件?", Intent.HOWTO),
    ("为什么连接会超时?", Intent.REASON),
    ("なぜ接続が切れるのですか?", Intent.REASON),
    ("什么是上下文管理器?", Intent.DEFINITION),
])
def test_the_intent_of_a_question(question: str, intent: Intent) -> None:
    assert question_intent(question) is intent


def test_sentences_that_give_what_the_intent_asks_for() -> None:
    assert gives(Intent.HOWTO, "Use the extractall() method to extract every member.")
    assert gives(Intent.HOWTO, "You can pass --offline to skip the download.")
    assert not gives(Intent.HOWTO, "Archives were popular in the nineties.")
    assert gives(Intent.REASON, "The lock is needed because two writers would clash.")
    assert not gives(Intent.REASON, "The lock is held by one writer.")
    assert gives(Intent.DEFINITION, "A context manager is an object that sets up a context.")
    assert not gives(Intent.OTHER, "Use the extractall() method.")


TARFILE_DOCS = [
    source(1, "tarfile", "The tarfile module makes it possible to read and write tar "
           "archive files, including compressed ones. Tar archive files were first used "
           "to write backups to tape drives."),
    source(2, "tarfile objects", "To extract every member of a tar archive file into a "
           "folder, call the extractall() method of the opened archive. Archive members "
           "are stored with their modification time."),
]


def test_a_how_to_question_is_answered_by_the_instruction_not_the_topic_introduction(
) -> None:
    ranked = rank_sentences("How do I extract a tar archive file?", TARFILE_DOCS)
    assert ranked[0].text.startswith("To extract every member")


def test_a_why_question_is_answered_by_the_reason() -> None:
    docs = [source(1, "Locks", "The cache lock is held by one writer at a time. The cache "
                   "lock exists because two writers updating the cache at once would "
                   "corrupt its index.")]
    answer = grounded_answer("Why does the cache have a lock?", docs)
    assert answer is not None
    assert answer.text.startswith("The cache lock exists because")
    assert verify(answer.text, docs).unsupported == 0


PYDOC_ENTRY = """\
FUNCTIONS
    reader(...)
        csv_reader = reader(iterable [, dialect='excel']
                                [optional keyword args])
            for row in csv_reader:
                process(row)

        The "iterable" argument can be any object that returns a line
        of input for each iteration, such as a file object or a list.

    writer(...)
        Return a writer object for the given file object.
"""

MARKDOWN_PAGE = """\
# Archives

To unpack an archive into a folder, open it and call its extract method:

```python
with Archive("backup.arc") as archive:
    archive.extract("restore/")
```

Archives opened for reading are never modified.
"""


def test_a_code_example_goes_with_the_sentence_it_illustrates() -> None:
    docs = candidate_sentences([source(1, "csv", PYDOC_ENTRY)])
    described = next(s for s in docs if s.text.startswith('The "iterable" argument'))
    assert described.example.splitlines() == [
        "csv_reader = reader(iterable [, dialect='excel']",
        "                        [optional keyword args])",
        "    for row in csv_reader:",
        "        process(row)"]
    assert described.heading == ["reader"]  # the signature it is under
    assert not any("csv_reader" in s.text for s in docs)  # code is never prose

    page = candidate_sentences([source(2, "archives", MARKDOWN_PAGE)])
    assert page[0].text.startswith("To unpack an archive")
    assert page[0].example.startswith('with Archive("backup.arc") as archive:')
    assert not page[1].example


def test_a_how_to_answer_shows_the_example_verbatim_after_its_cited_sentence() -> None:
    answer = grounded_answer("How do I unpack an archive into a folder?",
                             [source(1, "archives", MARKDOWN_PAGE)])
    assert answer is not None
    prose, code, *_rest = answer.text.split("\n\n")
    assert prose.startswith("To unpack an archive into a folder") and "[1]" in prose
    assert code == ('```\nwith Archive("backup.arc") as archive:\n'
                    '    archive.extract("restore/")\n```')
    assert verify(answer.text, [source(1, "archives", MARKDOWN_PAGE)]).unsupported == 0
    # another kind of question shows no example
    other = grounded_answer("Are archives opened for reading modified?",
                            [source(1, "archives", MARKDOWN_PAGE)])
    assert other is not None and "```" not in other.text


def test_the_heading_a_sentence_is_under_counts_as_what_it_is_about() -> None:
    page = source(1, "files", "Reading configuration files\n"
                  "Each line holds one key and its value, separated by an equals sign.\n\n"
                  "Writing logs\nEach line holds a timestamp and a message.\n")
    ranked = rank_sentences("How is a configuration file read?", [page])
    assert ranked and ranked[0].text.startswith("Each line holds one key")


def test_a_sentence_far_in_meaning_is_not_relevant_for_a_few_shared_words() -> None:
    from deepcite.citations.question_match import relevant, weigh

    question = "How do I parse a tax return with the taxform module?"
    sentence = "The urlparse module keeps some parsing quirks for backward compatibility."
    from deepcite.citations.question_match import terms_of
    terms = terms_of(sentence) + ["pars"]
    weights = weigh(question, [terms, terms_of("Tax law varies by country.")])
    assert relevant(weights, terms, None) == relevant(weights, terms, 0.9)
    assert not relevant(weights, terms, 0.1)


SETUP_GUIDE = (
    "# Stations\n\n"
    "## Registering a station\n\n"
    "To register a new station, run `gauge station add NAME`. Gauge then contacts the "
    "station, reads its serial number and stores it in the configuration file.\n\n"
    "## Scheduling\n\n"
    "Gauge keeps no daemon running, and a scheduler has to start each run.\n\n"
    "## Buffering\n\n"
    "Stations buffer readings for up to ten minutes before they answer. "
    "This is done to save battery power, since the radio modem draws most current.\n"
)


def test_an_instruction_is_quoted_with_the_sentence_that_carries_it_on() -> None:
    answer = grounded_answer("How do I register a new station?",
                             [source(1, "Stations", SETUP_GUIDE)])
    assert answer is not None
    assert "gauge station add NAME" in answer.text
    assert "reads its serial number" in answer.text  # the rest of the same paragraph
    assert "daemon" not in answer.text  # the next section makes another point


def test_a_why_answer_quotes_the_reason_that_follows_the_behaviour() -> None:
    answer = grounded_answer("Why do stations buffer readings?",
                             [source(1, "Stations", SETUP_GUIDE)])
    assert answer is not None
    assert "save battery power" in answer.text


LEDGER_MODULE = """\
NAME
    ledger - Ledger file reading and writing.

DESCRIPTION
    This module provides classes that assist in the reading and writing
    of ledger files used by bookkeeping tools.  Although many ledger files
    look simple, parsing lines of a ledger file with something like
    line.split(";") is bound to fail.

FUNCTIONS
    read_ledger(...)
        book = read_ledger(stream [, currency='EUR'])
            for entry in book:
                post(entry)

        The "stream" argument can be any object that yields one line per
        iteration, such as an open file object.
"""


@pytest.mark.parametrize("question", ["How do I read a ledger file?",
                                      "read a ledger file"])
def test_a_how_to_answer_leads_with_the_api_that_does_it_and_shows_its_example(
        question: str) -> None:
    docs = [source(1, "ledger", LEDGER_MODULE)]
    answer = grounded_answer(question, docs)
    assert answer is not None
    lead, code, *_rest = answer.text.split("\n\n")
    # not the module's introduction, not the warning about line.split
    assert lead.startswith('The "stream" argument can be any object'), lead
    assert code.startswith("```\nbook = read_ledger(stream")
    assert verify(answer.text, docs).unsupported == 0


def test_a_warning_about_what_fails_is_not_an_instruction() -> None:
    warning = ('Parsing lines of a ledger file with something like line.split(";") is '
               "bound to fail.")
    assert not gives(Intent.HOWTO, warning)
    assert gives(Intent.HOWTO, "Call read_ledger() with an open file object.")
    ranked = rank_sentences("How do I read a ledger file?",
                            [source(1, "ledger", LEDGER_MODULE)])
    texts = [s.text for s in ranked]
    described = texts.index('The "stream" argument can be any object that yields one '
                            "line per iteration, such as an open file object.")
    assert all(described < i for i, t in enumerate(texts)
               if t.startswith(("This module", "Although")))


@pytest.mark.parametrize("question, intent, verb", [
    ("How do I read a CSV file?", Intent.HOWTO, "read"),
    ("read a csv file", Intent.HOWTO, "read"),
    ("What is the best way to parse a date?", Intent.HOWTO, "parse"),
    ("How can I quickly write rows to a file?", Intent.HOWTO, "write"),
    ("Read the manual?", Intent.OTHER, ""),  # a question, not a request
    ("Why should I not split lines myself?", Intent.REASON, ""),
])
def test_a_how_to_question_names_the_action_it_asks_for(question: str, intent: Intent,
                                                        verb: str) -> None:
    assert question_intent(question) is intent
    assert action(question) == verb


CUT_CHUNK = """\
= read_ledger(stream [, currency='EUR']
                            [optional keyword args])
            for entry in book:
                post(entry)

        The "stream" argument can be any object that yields one line per
        iteration, such as an open file object.
"""


def test_a_chunk_cut_inside_an_example_keeps_the_example_with_its_sentence() -> None:
    url = "file:///docs/ledger.txt"
    chunk = Source(number=1, title="ledger", url=url, canonical_url=url, snippet=CUT_CHUNK,
                   engine="local", metadata={"start": 840})
    sentences = candidate_sentences([chunk])
    assert [s.text for s in sentences] == [
        'The "stream" argument can be any object that yields one line per iteration, '
        "such as an open file object."]  # the cut code is not prose
    assert sentences[0].example.startswith("= read_ledger(stream")
    answer = grounded_answer("How do I read a ledger file?", [chunk])
    assert answer is not None and "```\n= read_ledger(stream" in answer.text


FOLDER_MODULE = """\
NAME
    shelf - Folder listing helpers.

DESCRIPTION
    This module provides functions for working with folders of records.

FUNCTIONS
    list_records(folder=None)
        Return a list containing the names of the records in the folder.

    sweep(folder)
        Delete stale records from the folder.
"""


def test_a_how_to_answer_names_the_function_its_sentence_describes() -> None:
    docs = [source(1, "shelf", FOLDER_MODULE)]
    answer = grounded_answer("How can I list the records in a folder?", docs)
    assert answer is not None
    lead, code, *_rest = answer.text.split("\n\n")
    assert lead.startswith("Return a list containing the names of the records"), lead
    assert code == "```\nlist_records(folder=None)\n```"  # which function does it
    assert verify(answer.text, docs).unsupported == 0


def test_prose_with_code_spans_under_a_signature_is_quoted_not_shown_as_code() -> None:
    entry = ("    raw_parse(self, s, idx=0)\n"
             "        Parse a record from ``s`` (a ``str`` beginning with\n"
             "        a record) and return the record and where it ended.\n")
    sentences = candidate_sentences([source(1, "records", entry)])
    assert [s.text for s in sentences] == [
        "Parse a record from ``s`` (a ``str`` beginning with a record) and return the "
        "record and where it ended."]
    assert not sentences[0].example
    assert sentences[0].signature == "raw_parse(self, s, idx=0)"
