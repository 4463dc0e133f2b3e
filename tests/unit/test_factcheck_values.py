"""Values a claim states, compared with a source's: same slot, same value, or the
source's own value named."""

from __future__ import annotations

from deepcite.factcheck.agreement import agrees, same_slot
from deepcite.factcheck.judge import judge
from deepcite.factcheck.names import capitalised_inside, name_groups
from deepcite.factcheck.negation import denied
from deepcite.factcheck.values import extract_values
from tests.fakes import passage


def _one(text: str) -> tuple[str, str, str]:
    [value] = extract_values(text)
    return value.kind, value.key, value.text


def test_values_are_read_with_their_units_as_written() -> None:
    assert _one("Refunds within 30 days of purchase") == ("number", "30", "30 days")
    assert _one("The round raised 18 million euros.") == ("money", "1.8e+07", "18 million euros")
    money, period = extract_values("It costs $49 per month.")
    assert (money.kind, money.key, money.text) == ("money", "49", "$49")
    assert (period.text, period.dimension) == ("per month", "period")
    assert _one("Uptime was 99.5% last year.")[:2] == ("percent", "99.5")
    assert _one("It shipped in March 2017.") == ("date", "2017-03", "March 2017")
    assert _one("It shipped on 5 March 2017.") == ("date", "2017-03-05", "5 March 2017")
    assert _one("founded in 2011 by") == ("year", "2011", "2011")
    assert _one("The stable version is 4.2.1.") == ("version", "4.2.1", "4.2.1")
    assert _one("Remote work up to three days in a row") == ("number", "3", "three days")
    assert _one("The prize is awarded every two years.")[2] == "every two years"
    [yearly] = extract_values("It is awarded every year.")
    [biennial] = extract_values("It is awarded every two years.")
    assert same_slot(yearly, biennial) and not agrees(yearly, biennial)
    assert _one("条目保留300秒。") == ("number", "300", "300秒")
    assert _one("2021年3月5日发布") == ("date", "2021-03-05", "2021年3月5日")


def test_sizes_compare_across_units_and_slots_stay_apart() -> None:
    [weeks] = extract_values("kept for 2 weeks")
    [days] = extract_values("kept for 14 days")
    [other] = extract_values("kept for 30 days")
    [grams] = extract_values("weighs 240 grams")
    assert agrees(weeks, days) and not agrees(weeks, other)
    assert same_slot(weeks, other) and not same_slot(weeks, grams)
    [year] = extract_values("released in 2017")
    [date] = extract_values("released on 5 March 2017")
    assert agrees(year, date)


def test_names_negations_and_their_scope() -> None:
    text = "Osprey Labs was founded by Maria Lindqvist and Jonas Berg in Uppsala."
    assert [text[a:b] for a, b in name_groups(text)] == [
        "Osprey Labs", "Maria Lindqvist", "Jonas Berg", "Uppsala"]
    assert denied("The Glide does not use a camera, so no images are kept.") == [
        "use a camera", "images are kept"]
    assert denied("Refunds take no more than 5 days.") == []


SOURCES = [
    passage("Refunds", "Customers may request a refund within 90 days of purchase. "
                       "Refunds are paid to the original card."),
    passage("Company", "Osprey Labs was founded in 2011 by Maria Lindqvist in Uppsala. "
                       "The Osprey sensor does not record audio. Logging is disabled by "
                       "default."),
]


def test_a_contradiction_names_the_sources_value() -> None:
    judged = judge("Customers may request a refund within 30 days of purchase.", SOURCES)
    assert judged.verdict == "contradicted"
    [conflict] = judged.conflicts
    assert (conflict.draft, conflict.source) == ("30 days", "90 days")
    assert judged.quotes[conflict.quote].text.startswith("Customers may request a refund "
                                                         "within 90 days")


def test_another_name_another_year_the_opposite_and_a_denial_contradict() -> None:
    for claim, source_value in (
            ("Osprey Labs was founded in 2011 by Peter Holm in Uppsala.", "Maria Lindqvist"),
            ("Osprey Labs was founded in 2014 by Maria Lindqvist.", "2011"),
            ("Logging is enabled by default.", "disabled"),
            ("The Osprey sensor records audio.", "does not record audio")):
        judged = judge(claim, SOURCES)
        assert judged.verdict == "contradicted", claim
        assert source_value in " ".join(c.source for c in judged.conflicts), claim


def test_stated_part_and_nothing_stated() -> None:
    assert judge("Osprey Labs was founded in 2011 by Maria Lindqvist in Uppsala.",
                 SOURCES).verdict == "supported"
    partly = judge("Customers may request a refund within 90 days of purchase, and the "
                   "shop pays for return shipping labels.", SOURCES)
    assert partly.verdict == "partly_supported"
    assert judge("The office cafeteria serves vegan lunches on Fridays.",
                 SOURCES).verdict == "not_found"
    quote = judge("Refunds are paid to the original card.", SOURCES).quotes[0]
    text = SOURCES[quote.passage].snippet
    assert text[quote.start:quote.end] == quote.text


CLUB = [passage("Club", "The rowing club was founded in 1894 on the river. It has 412 "
                        "members, of whom 130 are juniors. There are no snakes on the "
                        "island. The men's team has never won the regatta.")]


def test_a_pronoun_takes_its_subject_from_the_passage() -> None:
    judged = judge("The rowing club has 412 members.", CLUB)
    assert judged.verdict == "supported"
    assert judged.quotes[0].text.startswith("It has 412 members")


def test_a_number_without_a_unit_is_compared_by_the_word_after_it() -> None:
    [conflict] = judge("About 150 of them are juniors.", CLUB).conflicts
    assert (conflict.draft, conflict.source) == ("150", "130")


def test_a_short_denial_in_the_claims_own_words_contradicts_it() -> None:
    judged = judge("The island has a large population of venomous snakes.", CLUB)
    assert judged.verdict == "contradicted"
    assert "no snakes" in judged.conflicts[0].source
    won = judge("The men's team won the regatta in 2021.", CLUB)
    assert won.verdict == "contradicted" and "never won" in won.conflicts[-1].source


RESULTS = [passage("Q3", "Fernhill Foods reported revenue of 48.2 million euros for the third "
                         "quarter. The operating margin fell to 6.1%. Sales of the oat range "
                         "grew by 30%, while frozen meals declined by 4%. The dividend is "
                         "payable on 2 November 2023."),
           passage("People", "Amara Osei has been chief executive since January 2020.")]


def test_directions_abbreviations_and_verb_forms() -> None:
    margin = judge("The operating margin increased to 6.1%.", RESULTS)
    assert [(c.draft, c.source) for c in margin.conflicts] == [("increased", "fell")]
    frozen = judge("Frozen meal sales grew by 4%.", RESULTS)
    assert [(c.draft, c.source) for c in frozen.conflicts] == [("grew", "declined")]
    assert judge("Oat range sales grew by 30%.", RESULTS).verdict == "supported"
    assert judge("Revenue for Q3 was 48.2 million euros.", RESULTS).verdict == "supported"
    assert judge("Amara Osei has been CEO since January 2020.", RESULTS).verdict == "supported"
    paid = judge("The dividend will be paid on 2 December 2023.", RESULTS)
    assert [(c.draft, c.source) for c in paid.conflicts] == [("2 December 2023",
                                                               "2 November 2023")]


BIO = [passage("Bio", "Edda Lindqvist was a Swedish chemist known for her work on cellulose "
                      "fibres. She studied at Uppsala University, where she received her "
                      "doctorate in 1919. She married the physicist Nils Berg in 1926."),
       passage("Prize", "The Lindqvist Prize, awarded every two years by the Swedish "
                        "Chemical Society, has been given since 1972.")]


def test_another_role_another_university_another_frequency() -> None:
    role = judge("Edda Lindqvist, a Swedish physicist, worked on cellulose fibres.", BIO)
    assert [(c.draft, c.source) for c in role.conflicts] == [("physicist", "chemist")]
    school = judge("She studied at Lund University.", BIO)
    assert [(c.draft, c.source) for c in school.conflicts] == [("Lund University",
                                                                "Uppsala University")]
    prize = judge("The Lindqvist Prize is awarded every year.", BIO)
    assert [(c.draft, c.source) for c in prize.conflicts] == [("every year",
                                                               "every two years")]
    assert judge("She received her doctorate at Uppsala University in 1919.",
                 BIO).verdict == "supported"


APP = [passage("App", "Tidewell is a note-taking app. The free plan stores up to 500 notes. "
                      "The premium plan costs 4 euros a month or 36 euros a year. Tidewell "
                      "does not show advertisements. Attachments larger than 25 MB are "
                      "rejected. The app has about 1.2 million monthly users.")]


def test_bounds_periods_and_a_subject_the_claim_calls_otherwise() -> None:
    assert judge("The app has over a million monthly users.", APP).verdict == "supported"
    limit = judge("The free plan stores up to 1,000 notes.", APP)
    assert [(c.draft, c.source) for c in limit.conflicts] == [("1,000 notes", "500 notes")]
    annual = judge("An annual premium plan costs 48 euros.", APP)
    assert [(c.draft, c.source) for c in annual.conflicts] == [("48 euros", "36 euros")]
    assert judge("Attachments of up to 25 MB are accepted.", APP).verdict == "supported"
    ads = judge("The app shows advertisements to free users.", APP)
    assert ads.verdict == "contradicted" and "does not show" in ads.conflicts[0].source


def test_how_long_against_how_often() -> None:
    [week] = extract_values("The festival lasts a week.")
    [days] = extract_values("It runs for five days.")
    assert (week.dimension, days.dimension) == ("time", "time") and not agrees(week, days)
    _, period = extract_values("It costs 4 euros a month.")
    assert period.dimension == "period"
    assert [v.text for v in extract_values("A day ticket costs 35 pounds.")] == ["35 pounds"]


def test_the_name_nearest_in_place_and_a_value_written_as_code() -> None:
    licence = judge("The package is released under the Apache license.", [passage(
        "Install", "The package is maintained by Ines Carvalho and released under the MIT "
                   "license.")])
    assert [(c.draft, c.source) for c in licence.conflicts] == [("Apache", "MIT")]
    [seconds] = extract_values("a default timeout of 60 seconds")
    [code] = extract_values("quillfetch.get(url, timeout=30)")
    assert same_slot(seconds, code) and not agrees(seconds, code)


def test_electric_units_and_a_unit_two_numbers_share() -> None:
    twelve, twenty_four = extract_values("It runs on 12 or 24 volt power.")
    [volts] = extract_values("It can be powered from 12 V supplies.")
    assert twelve.dimension == "voltage" and agrees(volts, twelve)
    assert not agrees(volts, twenty_four)
    [speed] = extract_values("downloads of up to 220 Mbit/s")
    assert (speed.dimension, speed.bound) == ("rate", "max")


def test_two_values_in_one_sentence_say_it_in_other_words() -> None:
    school = [passage("School", "The school day runs from 8:45 to 15:15. Breakfast club "
                                "starts at 7:30 and costs 3 pounds a session.")]
    assert judge("School starts at 8:45 and finishes at 15:15.", school).verdict == "supported"
    [conflict] = judge("Breakfast club opens at 7:00.", school).conflicts
    assert (conflict.draft, conflict.source) == ("7:00", "7:30")


FERRY = [passage("Ferry", "The crossing takes 55 minutes. Bookings are required for vehicles "
                          "but not for foot passengers. In 2023 the company carried 412,000 "
                          "passengers, 8% more than in 2022.")]


def test_an_hour_two_denials_and_a_direction_by_its_value() -> None:
    assert judge("The crossing takes about an hour.", FERRY).verdict == "supported"
    assert judge("Foot passengers do not need to book.", FERRY).verdict != "contradicted"
    fewer = judge("In 2023 it carried 412,000 passengers, 8% fewer than the year before.",
                  FERRY)
    assert [(c.draft, c.source) for c in fewer.conflicts] == [("fewer", "more")]


def test_a_number_word_that_leaves_out_its_noun() -> None:
    *_, winter = extract_values("There are six sailings a day in summer and three in winter.")
    assert (winter.text, winter.unit, winter.amount) == ("three", "sailing", 3.0)
    assert extract_values("It is one of the best, and two of them agree.") == []


def test_a_word_after_a_number_ending_a_sentence_opens_the_next() -> None:
    text = "It was restored from 2015 to 2018. Entry is free on Sundays."
    assert "entry" not in capitalised_inside([text])
    museum = [passage("Museum", "Admission is free on the first Sunday of every month. "
                                "Standard admission costs 14 euros.")]
    assert judge("Entry is free on the first Sunday of each month.",
                 museum).verdict == "supported"
    [conflict] = judge("Regular tickets cost 12 euros.", museum).conflicts
    assert (conflict.draft, conflict.source) == ("12 euros", "14 euros")


def test_an_opposite_under_a_negation_agrees() -> None:
    garden = [passage("Garden", "Chemical pesticides are banned in the garden.")]
    assert judge("Chemical pesticides are not allowed in the garden.",
                 garden).verdict == "supported"
    assert judge("Chemical pesticides are allowed in the garden.",
                 garden).verdict == "contradicted"


def test_a_bound_word_before_an_article_is_no_limit_on_the_adjective_after_it() -> None:
    # "under a twelve-year contract" says on what terms, not "less than twelve years".
    deal = judge("The power is sold to Brightwell Power on an eight-year deal.", [passage(
        "Farm", "The electricity is sold to Brightwell Power under a twelve-year contract.")])
    assert deal.verdict == "contradicted"
    assert [c.source for c in deal.conflicts] == ["twelve-year"]
    [period] = extract_values("Results were averaged over a 10-year period.")
    assert period.bound == ""
    limit = extract_values("Children under 12 ride free.")[0]
    assert limit.bound == "max"


def test_a_contradiction_names_the_value_the_claims_words_single_out() -> None:
    fares = [passage("Prices", "Admission costs £7 for adults and £4.50 for students; "
                               "under-16s are admitted free.")]
    adults = judge("Adults pay £9 to get in.", fares)
    assert adults.verdict == "contradicted"
    assert [c.source for c in adults.conflicts] == ["£7"]
    students = judge("Tickets for students cost £5.", fares)
    assert [c.source for c in students.conflicts] == ["£4.50"]
    board = [passage("Hut", "The hut opens in June. Half board costs 62 euros for adults; "
                            "members of the Alpine Club pay 48 euros.")]
    members = judge("Alpine Club members get half board for 52 euros.", board)
    assert [c.source for c in members.conflicts] == ["48 euros"]
    assert [c.source for c in judge("Adults pay 65 euros for half board.", board).conflicts] \
        == ["62 euros"]
    paid = [passage("Prices", "Adults pay £7 and students pay £4.50.")]
    assert [c.source for c in judge("Students pay £6.", paid).conflicts] == ["£4.50"]


def test_age_groups_and_people_under_an_age_are_ages() -> None:
    [group] = [v for v in extract_values("Under-16s are admitted free.") if v.unit != "free"]
    [children] = [v for v in extract_values("Children under 16 get in free.")
                  if v.unit != "free"]
    assert (group.dimension, group.bound, children.dimension, children.bound) == (
        "time", "max", "time", "max")
    assert agrees(children, group)
    [older] = [v for v in extract_values("Children under 12 get in free.") if v.unit != "free"]
    assert same_slot(older, group) and not agrees(older, group)
    [decade] = extract_values("The press was restored in the 1990s.")
    assert decade.kind == "year" and decade.dimension == ""  # no longer 1990 seconds


def test_a_required_value_is_a_rule_not_one_the_sources_bound_allows() -> None:
    booking = [passage("Visits", "The museum is open from Wednesday to Sunday. Groups of 10 "
                                 "or more must book at least two weeks ahead."),
               passage("History", "The museum opened in a former mill in 1988.")]
    month = judge("Groups of 10 or more need to book a month ahead.", booking)
    assert month.verdict == "contradicted"
    assert [c.source for c in month.conflicts] == ["two weeks"]
    joining = [passage("Join", "Anyone aged 16 or over may join the club.")]
    assert judge("You must be 18 to join the club.", joining).verdict == "contradicted"
    assert judge("Anyone aged 16 or over may join the club.", joining).verdict == "supported"


def test_a_team_of_five_counts_people_and_a_range_end_is_named_by_its_own_words() -> None:
    team = [passage("About", "It was first released in 2021 and is now maintained by a "
                             "team of five.")]
    seven = judge("It is maintained by a team of seven people.", team)
    assert seven.verdict == "contradicted"
    assert [c.source for c in seven.conflicts] == ["five"]
    career = [passage("Life", "She was born in Graz. She taught at the Vienna University of "
                              "Music from 1992 until her retirement in 2016.")]
    retired = judge("She taught at the Vienna University of Music until she retired in 2014.",
                    career)
    assert [c.source for c in retired.conflicts] == ["2016"]


FESTIVAL = [passage("Festival", "The Harlow Bay Kite Festival is held every August. It takes "
                                "place over two days on the second weekend of August. Entry "
                                "to the beach is free, but parking costs £8 per car. A shuttle "
                                "bus runs from the station every 20 minutes.")]


def test_a_free_entry_beside_a_parking_fee_does_not_make_parking_free() -> None:
    parking = judge("Parking is free.", FESTIVAL)
    assert parking.verdict == "contradicted"
    assert [c.source for c in parking.conflicts] == ["£8"]
    assert judge("Entry to the beach is free.", FESTIVAL).verdict == "supported"


def test_calendar_places_halves_of_hours_and_over_as_during() -> None:
    first = judge("It is held on the first weekend of August.", FESTIVAL)
    assert [c.source for c in first.conflicts] == ["second weekend"]
    assert judge("It takes place on the second weekend of August.", FESTIVAL).verdict \
        == "supported"
    bus = judge("A shuttle bus runs from the station every half hour.", FESTIVAL)
    assert [c.source for c in bus.conflicts] == ["every 20 minutes"]
    # "over two days" says during what time: three days are not within it
    [days] = [v for v in extract_values("It takes place over two days.")]
    assert days.bound == ""
    [years] = extract_values("The club has existed for over 20 years.")
    assert years.bound == "min"


def test_a_stated_value_stays_stated_beside_another_of_its_slot() -> None:
    mill = [passage("Mill", "The mill was founded in 1911. It grinds about 800 tonnes of "
                            "flour a year on a 12-tonne stone mill.")]
    assert judge("Each year it grinds roughly 800 tonnes of flour.", mill).verdict \
        == "supported"
    shop = [passage("Shop", "Orders over 40 euros are sent free within Ireland; below that, "
                            "delivery is 4.50 euros. The shop opened in 2015.")]
    assert judge("Delivery is free on orders above 40 euros.", shop).verdict != "contradicted"
    # a duration after a price is no price: "four weeks" are not 4 euros
    [price, weeks] = extract_values("A room costs 520 euros for four weeks.")
    assert (price.kind, weeks.kind, weeks.dimension) == ("money", "number", "time")


def test_british_and_american_spellings_are_one_word() -> None:
    licence = [passage("About", "quillsync copies notebooks between devices. quillsync is "
                                "licensed under the Apache License 2.0.")]
    mit = judge("quillsync is released under the MIT licence.", licence)
    assert mit.verdict == "contradicted"
    assert [c.source for c in mit.conflicts] == ["Apache License"]


TOOL = [passage("Overview", "tidepool compares files by their size and a checksum. By "
                            "default it runs 8 transfers at once; the --jobs option "
                            "changes this, up to 64. The current release is 3.2.")]


def test_a_bound_is_not_stated_by_a_smaller_number_of_another_thing() -> None:
    [claimed] = [v for v in extract_values("and up to 128 with --jobs") if v.key == "128"]
    [release] = [v for v in extract_values("The current release is 3.2.") if v.key == "3.2"]
    assert not agrees(claimed, release)
    # two bare bounds of one sentence are one slot: the source's maximum is named
    judged = judge("tidepool runs 8 transfers in parallel by default, and up to 128 "
                   "with --jobs.", TOOL)
    assert judged.verdict == "contradicted"
    assert [(c.draft, c.source) for c in judged.conflicts] == [("128", "64")]
