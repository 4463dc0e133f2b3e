"""The short answer's kind: a count, a date or period, an amount with its unit, a person,
a place - or no short answer at all."""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, candidates, of_kind, pick


@pytest.mark.parametrize(("question", "kind"), [
    ("How many lighthouses stand on the coast?", "count"),
    ("How much did the museum pay for the painting?", "amount"),
    ("How much does a season ticket cost?", "amount"),
    ("When did the ferry service end?", "date"),
    ("In what decade was the canal dug?", "date"),
    ("Who drew the first map of the valley?", "person"),
    ("Where was the glassworks built?", "place"),
    ("What colour is the flag?", "other"),
    ("What portion of the voters stayed home?", "share"),
    ("What percentage of the land is forest?", "share"),
    ("How old was the painter when she died?", "age"),
    ("At what age did the poet leave school?", "age"),
    ("What was the population of the town in 1900?", "count"),
    ("What coastal county has the largest population?", "place"),
    ("When the treaty lapsed, what did the two towns do?", "other"),
    ("After the fire, who rebuilt the hall?", "person"),
])
def test_the_question_says_what_kind_of_answer_it_wants(question: str, kind: str) -> None:
    assert answer_type(question) == kind


def test_a_year_is_no_count_and_the_count_keeps_its_noun() -> None:
    question = "How many lighthouses stand on the coast?"
    sentence = "Built up since 1852, the coast has 23 lighthouses today."
    assert pick("count", sentence, question) == "23 lighthouses"
    assert pick("count", "The first lighthouse was lit in 1852.", question) is None


def test_a_count_prefers_the_noun_asked_about() -> None:
    question = "How many bridges cross the river?"
    sentence = "The 4 towns on its banks are joined by 11 stone bridges."
    assert pick("count", sentence, question) == "11 stone bridges"


def test_a_when_answer_is_the_period_of_the_clause_that_answers() -> None:
    question = "When did the ferry service end?"
    sentence = "The ferry service began in 1811 but ended in the 1950s."
    assert pick("date", sentence, question) == "the 1950s"
    assert pick("date", "The ferry began in 1811, long before the bridge.",
                "When did the ferry begin?") == "1811"


@pytest.mark.parametrize(("question", "sentence", "short"), [
    ("In what decade was the canal dug?", "The canal, planned in 1779, was dug in the 1790s.",
     "the 1790s"),
    ("In what century was the chapel built?", "The chapel dates from the early 14th century.",
     "the early 14th century"),
    ("In what years did the magazine appear?", "It appeared from 1921 to 1937 in Vienna.",
     "1921 to 1937"),
    ("When was the charter granted?", "The charter was granted on 12 June 1215 at Runnymede.",
     "12 June 1215"),
    ("When is the pass closed?", "Snow closes the pass from November to April, and the road "
     "reopens in 1 May.", "November to April"),
])
def test_dates_and_periods_are_kept_whole(question: str, sentence: str, short: str) -> None:
    assert pick("date", sentence, question) == short


@pytest.mark.parametrize(("sentence", "short"), [
    ("The museum paid €1.2 million for the painting in 1998.", "€1.2 million"),
    ("The council pays the curator £48,000 per year.", "£48,000 per year"),
    ("The painting was bought for 300,000 dollars.", "300,000 dollars"),
])
def test_an_amount_keeps_its_currency_and_unit(sentence: str, short: str) -> None:
    assert pick("amount", sentence, "How much did the museum pay for the painting?") == short


def test_people_and_places() -> None:
    assert pick("person", "The first map was drawn by Ingrid Solberg in 1702.",
                "Who drew the first map of the valley?") == "Ingrid Solberg"
    assert pick("place", "The glassworks was built in Port Elnor beside the docks.",
                "Where was the glassworks built?") == "Port Elnor"


def test_no_candidate_of_the_kind_means_no_short_answer() -> None:
    assert pick("count", "The lighthouses are painted white.",
                "How many lighthouses stand on the coast?") is None
    assert pick("amount", "The painting was bought in 1998 by the museum.",
                "How much did the museum pay for the painting?") is None
    assert pick("person", "The map was drawn in 1702.", "Who drew the map?") is None


def test_the_models_proposal_counts_only_when_it_is_a_candidate_of_the_kind() -> None:
    question = "How much does a season ticket cost?"
    sentence = "A season ticket costs $95 and was introduced in 2004."
    assert pick("amount", sentence, question, proposed="2004") == "$95"
    assert pick("amount", sentence, question, proposed="95") == "$95"


def test_what_the_question_already_says_is_no_answer() -> None:
    assert candidates("date", "After the 1906 fire the hall reopened in 1911.",
                      "When did the hall reopen after the 1906 fire?") == ["1911"]


def test_how_much_of_a_quantity_keeps_its_unit() -> None:
    question = "How much did the rice harvest of the Maren valley grow in 2004?"
    assert answer_type(question) == "measure"
    sentence = "In 2004 the rice harvest of the Maren valley grew by 18% to 40,000 tonnes."
    assert candidates("measure", sentence, question)[0] in ("18%", "40,000 tonnes")
    assert "2004" not in candidates("measure", sentence, question)


def test_how_much_without_a_unit_falls_back_to_a_count() -> None:
    question = "How much of the fleet was lost in the storm?"
    sentence = "The storm sank 12 ships of the fleet near the cape."
    assert candidates("measure", sentence, question) == ["12 ships"]


def test_a_place_is_no_person() -> None:
    question = "Who led the caravans across the desert?"
    sentence = "Caravans from Central Asia were led by Yusuf Khan across the Gobi Desert."
    found = candidates("person", sentence, question)
    assert found and found[0] == "Yusuf Khan"
    assert "Central Asia" not in found and "Gobi Desert" not in found


@pytest.mark.parametrize(("question", "kind"), [
    ("Which Doctor Who-related song reached number one?", "name"),  # a song, no person
    ("What genre of show is Doctor Who?", "other"),
    ("Who played the Doctor in Doctor Who?", "person"),
    ("In 1990, who won the cup?", "person"),
])
def test_a_question_word_inside_a_name_asks_nothing(question: str, kind: str) -> None:
    assert answer_type(question) == kind


def test_the_questions_own_subject_is_no_answer_even_as_a_possessive() -> None:
    question = "Where on Earth is free oxygen found?"
    assert candidates("place", "Oxygen was rare in Earth's early air.", question) == []


def test_a_year_before_a_singular_noun_is_no_count() -> None:
    question = "How many episodes have been shown?"
    sentence = "The 1988 story was broadcast with all three episodes back to back."
    assert candidates("count", sentence, question) == ["three episodes"]
    assert candidates("count", "The 1988 story was shown in November.", question) == []


def test_money_asked_is_money_not_a_percentage() -> None:
    question = "How much money is being spent on the events?"
    assert candidates("amount", "The committee gives 25 percent of what it raises.",
                      question) == []
    assert candidates("amount", "There are $2 million worth of other events.",
                      question) == ["$2 million"]
    assert candidates("amount", "The events cost 40,000 pounds a year.",
                      question) == ["40,000 pounds a year"]


@pytest.mark.parametrize(("kind", "short", "question", "expected"), [
    ("place", "the Western Cape", "Where are the farms?", True),
    ("person", "Tesla", "Who built the tower?", True),
    ("person", "University", "Who built the tower?", False),
    ("count", "1988", "How many stories were shown?", False),
    ("count", "826 episodes", "How many episodes were shown?", True),
    ("amount", "25 percent", "How much money was raised?", False),
    ("date", "the 1860s", "When did the mill close?", True),
])
def test_a_short_answer_alone_is_checked_for_its_kind(kind: str, short: str, question: str,
                                                      expected: bool) -> None:
    assert of_kind(kind, short, question) is expected


@pytest.mark.parametrize(("question", "kind"), [
    ("What does less schooling lead to when working?", "other"),
    ("What is the last name of the player who caught the pass?", "person"),
    ("When did the man who built the mill die?", "date"),
])
def test_only_the_first_question_word_asks(question: str, kind: str) -> None:
    assert answer_type(question) == kind


def test_a_number_in_a_name_is_no_count() -> None:
    question = "How many astronauts flew on the missions?"
    assert candidates("count", "Schmitt landed on the Moon on Apollo 17.", question) == []
    assert candidates("count", "In all, 32 astronauts flew on Apollo.", question) == [
        "32 astronauts"]


@pytest.mark.parametrize(("sentence", "question", "expected"), [
    ("Manning and Newton set the record for the largest age difference at 13 years and "
     "48 days.", "How many interceptions did Newton have?", None),
    ("The siege lasted 40 days before 300 defenders surrendered.",
     "How many defenders surrendered?", "300 defenders"),
    ("The strike ran for 3 weeks.", "How many workers went on strike?", None),
    ("The king reigned for 45 years.", "How many years did the king reign?", "45 years"),
    ("The club played 4 seasons in the league.", "How many seasons did it play?",
     "4 seasons"),
    ("The team made its second appearance in three years.",
     "What was the number of times the team played in the final?", None),
    ("The team has played in the final eight times.",
     "What was the number of times the team played in the final?", "eight times"),
])
def test_a_span_of_time_or_a_measure_counts_only_itself(
        sentence: str, question: str, expected: str | None) -> None:
    assert pick("count", sentence, question) == expected


@pytest.mark.parametrize("sentence", [
    "The French and Indian War was the North American theater of the Seven Years' War.",
    "The team went on to win the Super Bowl Trophy twice.",
    "Her film was shown at the Cannes Film Festival and the Venice Biennale Summit.",
    "He lectured at the National Electric Light Association and the Royal Society.",
])
def test_an_event_award_or_body_is_no_person(sentence: str) -> None:
    assert pick("person", sentence, "Who fought in the war?") is None


@pytest.mark.parametrize(("sentence", "question", "expected"), [
    # a bare number where the sentence never speaks of what is counted: an age, a score
    ("Manning was 39 and Newton was 26.", "How many interceptions did Newton throw?", None),
    # a number of something else, where the sentence speaks of what is counted
    ("The Panthers backfield featured Stewart, who scored six touchdowns in 13 games.",
     "How many Panthers went to the Pro Bowl?", None),
    # ... but where it does not, the other noun may be what the question calls it
    ("The city has 2 million inhabitants.", "How many people live in the city?",
     "2 million inhabitants"),
    ("Of its lighthouses, 23 still stand.", "How many lighthouses stand on the coast?",
     "23"),
])
def test_a_count_answers_only_where_it_can_count_what_is_asked(
        sentence: str, question: str, expected: str | None) -> None:
    assert pick("count", sentence, question) == expected


def test_a_short_answer_alone_is_judged_without_its_sentence() -> None:
    # what the bench and the model's proposal check: "26" alone may count anything
    assert of_kind("count", "26", "How many interceptions did Newton throw?")
    assert not of_kind("count", "13 years", "How many interceptions did Newton throw?")


@pytest.mark.parametrize(("question", "kind"), [
    ("What treaty ended the Wars of Religion?", "name"),
    ("In which stadium was the final played?", "name"),
    ("What company did Tesla work for in 1881?", "name"),
    ("What type of rock forms the ridge?", "other"),
    ("What did the loss mean to France?", "other"),
])
def test_a_thing_known_by_its_name_asks_for_a_name(question: str, kind: str) -> None:
    assert answer_type(question) == kind


def test_a_name_answer_is_a_proper_name_the_question_does_not_hold() -> None:
    question = "What treaty ended the Wars of Religion?"
    assert pick("name", "The wars ended with the issuing of the Edict of Nantes in 1598.",
                question) == "Edict of Nantes"
    # The question's own subject, a date or a sentence's capitalised first word is none.
    assert pick("name", "Known as the Wars of Religion, they lasted from 1562 to 1598.",
                question) is None
    assert pick("name", "On May 3, the talks failed.", question) is None
    assert pick("name", "The games were played at Levi's Stadium in May.",
                "In what venue did the games take place?") == "Levi's Stadium"
    assert of_kind("name", "Edict of Nantes", question)
    assert not of_kind("name", "1598", question)


def test_a_name_that_says_what_it_names_comes_first_and_one_word_names_count() -> None:
    question = "What treaty ended the war?"
    sentence = ("The war (whose North American theater was named after the king) ended in "
                "1748 with the signing of the Treaty of Aix-la-Chapelle.")
    assert pick("name", sentence, question) == "Treaty of Aix-la-Chapelle"
    assert of_kind("name", "Apollo", "What program carried out the missions?")
    assert of_kind("name", "ABC", "Which network aired the show?")
    assert not of_kind("name", "The", "Which network aired the show?")


def test_an_owner_named_before_a_possessive_is_no_person_asked_for() -> None:
    # "Who was the queen's eldest son?": the son is the answer, not the one whose son he is
    sentence = "Prince Arthur, Queen Maud Tudor's eldest son, died young."
    assert candidates("person", sentence, "Who was Maud's eldest son?") == ["Prince Arthur"]
    assert candidates("person", "Queen Maud Tudor's eldest son died young.",
                      "Who was Maud's eldest son?") == []


def test_the_questions_own_name_reworded_is_no_answer() -> None:
    question = "What network aired the French version of the final?"
    sentence = "Canal Sport announced that it would be the French-language broadcaster."
    assert candidates("name", sentence, question) == ["Canal Sport"]
    assert candidates("place", "The final was played in French Guiana.",
                      "Where in French Guiana was the final played?") == []


def test_a_share_is_a_percentage_or_a_fraction_never_a_head_count() -> None:
    sentence = ("There were 41,200 households, of which 31.5% were single people, while "
                "about two-thirds were families.")
    question = "What portion of the households were single people?"
    assert candidates("share", sentence, question) == ["31.5%", "two-thirds"]
    assert pick("share", "There were 41,200 households.", question) is None
    assert of_kind("share", "31.5%", question) and not of_kind("share", "41,200", question)


def test_an_age_is_the_number_of_years_lived() -> None:
    question = "How old was the painter when she died?"
    sentence = "She died in Lyon on 3 May 1911, at the age of 72, after a short illness."
    assert candidates("age", sentence, question) == ["72"]
    assert candidates("age", "The 72-year-old painter left Lyon.", question) == ["72"]
    assert candidates("age", "She died in Lyon on 3 May 1911.", question) == []
    assert of_kind("age", "72", question) and not of_kind("age", "3 May 1911", question)


def test_a_day_of_the_week_is_no_name() -> None:
    question = "What venue hosted the opening night?"
    sentence = "The opening night moved to Monday evening at the Corn Exchange."
    assert candidates("name", sentence, question) == ["Corn Exchange"]
    assert not of_kind("name", "Monday", question)


def test_another_period_of_the_kind_asked_about_is_no_time_for_it() -> None:
    sentence = "The Samanid era came between the Tahirid era and the Ghaznavid era."
    assert candidates("date", sentence, "When was the Ghaznavid era?") == []
    assert candidates("date", "The mosque was built in the Samanid era.",
                      "When was the mosque built?") == ["the Samanid era"]


def test_a_year_shaped_quantity_is_no_date_and_money_is_no_count() -> None:
    assert candidates("date", "The lake holds some 1200 tonnes of silt.",
                      "When did the lake silt up?") == []
    assert candidates("date", "In 1820 the mill closed and 1500 men lost work.",
                      "When did the mill close?") == ["1820"]
    sentence = "The museum plans a new £12 million gallery, and has 38 galleries now."
    assert candidates("count", sentence, "How many galleries does the museum have?") == [
        "38 galleries"]


def test_a_population_is_a_number_of_people() -> None:
    question = "What is the population of Tarsk?"
    assert candidates("count", "Tarsk has a population of 1,204,310, and is the seat of "
                      "the region.", question) == ["1,204,310"]
    assert candidates("count", "The 4 districts of Tarsk hold over 2.5 million people.",
                      question) == ["2.5 million people"]
    assert candidates("count", "Tarsk has 12 museums and 3 theatres.", question) == []


def test_a_who_question_about_a_score_asks_for_a_person() -> None:
    assert answer_type("Who kicked the goal that made the score 10-7?") == "person"
    assert answer_type("What was the final score of the cup final?") == "score"


def test_names_with_diacritics_and_bodies() -> None:
    question = "Who gave the khan the title?"
    assert candidates("person", "The title was given by his son Ögedei Khan in 1229.",
                      question) == ["Ögedei Khan"]
    assert candidates("person", "The bill goes to the Parliamentary Bureau for a vote.",
                      "Who does the clerk send the bill to?") == []


def test_a_number_after_an_opening_in_is_no_name() -> None:
    question = "Which two religions did the painter respect?"
    assert answer_type(question) == "name"
    assert candidates("name", "In 1861, the painter studied in Zagreb.", question) == [
        "Zagreb"]
    assert candidates("name", "He respected both Buddhism and Islam.", question) == [
        "Buddhism", "Islam"]
