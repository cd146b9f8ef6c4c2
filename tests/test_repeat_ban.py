"""The sampler's ban on a reply looping its own words (``RepeatBan``), on the decoding state
alone: pieces of a JSON step fed one by one, tokens as small integers."""

from memgpt_local.runtime.base import RepeatBan
from memgpt_local.runtime.decoding import FieldWatch, NgramBan


def feed(ban: NgramBan, pieces: list[tuple[int, str]]) -> None:
    for token, piece in pieces:
        ban.accept(token, piece)


def test_the_watch_knows_when_it_is_inside_the_field_value():
    watch = FieldWatch("message")
    flags = []
    step = '{"thought": "a \\"message\\": x", "function": "send_message", "arguments": {"message": "Hi"}}'
    for ch in step:
        watch.feed(ch)
        flags.append(watch.in_field)
    inside = "".join(ch for ch, flag in zip(step, flags) if flag)
    assert inside == '"Hi'  # from its opening quote to the last character before the closing one


def test_a_run_of_n_tokens_the_value_already_holds_cannot_be_completed_again():
    ban = NgramBan(RepeatBan(field="message", n=3))
    feed(ban, [(0, '{"thought": "x x x x", "arguments": {"message": "')])
    assert ban.refused() == []  # the thought repeated itself: not watched
    feed(ban, [(1, "Thank"), (2, " you"), (3, "."), (1, "Thank")])
    assert ban.refused() == []  # "Thank" alone: no run of 2 seen before it yet
    feed(ban, [(2, " you")])
    assert ban.refused() == [3]  # "Thank you" was followed by "." once: not again
    feed(ban, [(4, "!"), (5, '"}')])
    assert ban.refused() == []  # the value closed


def test_the_thought_may_not_loop_when_thought_n_is_set():
    """A `make run` chat (stop 51): a greeting's redraft thought "... so I did not ask for help with
    mock exams again. I did not ask for help with mock exams again, ..." to its length cut."""
    ban = NgramBan(RepeatBan(field="message", n=0, thought_n=3))
    feed(ban, [(0, '{"thought": "'), (1, "I"), (2, " did"), (3, " not"), (4, "."), (1, "I"), (2, " did")])
    assert ban.refused() == [3]  # "I did" was followed by " not": not again
    feed(ban, [(5, " ask"), (9, '", "function": "send_message", "arguments": {"message": "'), (1, "I"), (2, " did")])
    assert ban.refused() == []  # the thought closed; the message's runs are not refused (n = 0)
    plain = NgramBan(RepeatBan(field="message", n=3))
    feed(plain, [(0, '{"thought": "'), (1, "I"), (2, " did"), (3, " not"), (4, "."), (1, "I"), (2, " did")])
    assert plain.refused() == []  # off by default


def test_every_reply_starts_with_a_clean_slate():
    ban = NgramBan(RepeatBan(field="message", n=2))
    feed(ban, [(0, '{"message": "'), (1, "a"), (2, "b"), (9, '"}')])
    feed(ban, [(0, '{"message": "'), (1, "a")])
    assert ban.refused() == []


def test_list_numbers_do_not_hide_a_repeated_item():
    ban = NgramBan(RepeatBan(field="message", n=4))
    feed(ban, [(0, '{"message": "'), (1, "2"), (2, "."), (3, " Baked"), (4, " salmon"), (5, " rice"), (2, ".")])
    feed(ban, [(6, " 1"), (7, "2"), (2, "."), (3, " Baked"), (4, " salmon")])
    assert ban.refused() == [5]  # ". Baked salmon" was followed by " rice", whatever the item's number


def test_runs_of_a_held_draft_are_refused_in_every_reply_of_the_step():
    pieces = {"Hello": 1, " again": 2, " friend": 3, "!": 4}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(pieces[p], p) for p in ("Hello", " again", " friend", "!") if p.strip() in text]

    ban = NgramBan(RepeatBan(field="message", n=3, prior=("Hello again friend!",)), tokenize)
    feed(ban, [(0, '{"message": "'), (1, "Hello"), (2, " again")])
    assert ban.refused() == [3, 4]  # "Hello again friend" was the held draft: not again (nor "again!")
    feed(ban, [(5, " you"), (9, '"}'), (0, '{"message": "'), (1, "Hello"), (2, " again")])
    assert ban.refused() == [3, 4]  # a new value starts with the held draft's runs still refused


def test_a_word_is_never_cut_short_only_the_next_word_is_refused():
    """A held draft's run may end inside a rare name; refusing the name's last piece misspelt
    it ("Lirkboickury"), so inside a word only the tokens that start a new one are refused."""
    vocab = {" in": 1, " L": 2, "irk": 3, "bury": 4, " now": 5, ".": 6, "y": 7, "You": 8, " live": 9}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[p], p) for p in (" in", " L", "irk", "bury", " now", ".")]

    ban = NgramBan(RepeatBan(field="message", n=3, prior=("in Lirkbury now.",)), tokenize)
    feed(ban, [(0, '{"message": "'), (8, "You"), (9, " live"), (1, " in"), (2, " L")])
    assert ban.refused() == []  # " L" + "irk" would repeat " in L irk", but "irk" goes on with the word
    feed(ban, [(3, "irk")])
    assert ban.refused() == []  # "bury" too
    feed(ban, [(4, "bury")])
    assert ban.refused() == [5]  # the name is whole: the next word may not copy the draft


def test_an_id_said_again_is_copied_exactly():
    """A reply that follows a chain says an id twice, and a redraft says the held draft's ids
    again: refused as a repeat, "87a175dc-2512-418c" was respelt "87a175dc -2512 -418c" (eval
    nested-kv seed 8, stop 49). Runs of words are refused as before."""
    pieces = ["87", "a", "1", "75", "dc", "-", "25", "12", "-", "418", "c", "-", "b", "841"]
    uuid = [(10 + i, piece) for i, piece in enumerate(pieces)]

    def tokenize(text: str) -> list[tuple[int, str]]:
        return uuid

    ban = NgramBan(RepeatBan(field="message", n=4, prior=("87a175dc-2512-418c-b841",)), tokenize)
    feed(ban, [(0, '{"message": "'), (30, "Record"), (31, " "), *uuid[:8]])
    assert ban.refused() == []  # the held draft's id again: its next "-" is not refused
    feed(ban, [*uuid[8:], (21, " points"), (22, " to"), (31, " "), *uuid[:11]])
    assert ban.refused() == []  # nor in the value's own id said a second time
    words = NgramBan(RepeatBan(field="message", n=3), tokenize)
    feed(
        words, [(0, '{"message": "'), (20, "It"), (21, " points"), (22, " to"), (24, "."), (20, "It"), (21, " points")]
    )
    assert words.refused() == [22]  # words still may not loop


def test_a_value_must_close_once_a_later_sentence_opens_with_a_formula():
    formulas = frozenset({("what", "else", "would", "you")})
    ban = NgramBan(RepeatBan(field="message", n=0, formulas=formulas, formula_words=4))
    feed(ban, [(0, '{"message": "'), (1, "What"), (2, " else"), (3, " would"), (4, " you"), (5, " like")])
    assert not ban.must_close()  # the first sentence is the reply's own, whatever it says
    feed(ban, [(6, "?"), (1, " What"), (2, " else"), (3, " would"), (4, " you")])
    assert not ban.must_close()  # "you" may still be "young": only whole words count
    feed(ban, [(5, " like")])
    assert ban.must_close() and ban.refused() == []  # n = 0: no run is refused, the formula still ends it
    feed(ban, [(9, '"}')])
    assert not ban.must_close()  # the value closed
    feed(ban, [(0, '{"message": "'), (1, "What")])
    assert not ban.must_close()  # a new value starts clean


def test_a_refused_word_takes_its_twin_without_a_space_with_it():
    """After " the", " Dr" refused, the model wrote "Dr": "theDrorbroels"."""
    vocab = {" by": 1, " the": 2, " Dr": 3, "Dr": 4, "or": 5}

    def tokenize(text: str) -> list[tuple[int, str]]:
        if text == "Dr":
            return [(4, "Dr")]
        return [(1, " by"), (2, " the"), (3, " Dr"), (5, "or")]

    ban = NgramBan(RepeatBan(field="message", n=3, prior=("by the Dror",)), tokenize)
    feed(ban, [(0, '{"message": "'), (1, " by"), (2, " the")])
    assert sorted(ban.refused()) == [3, 4]
    assert vocab[" Dr"] == 3


def test_the_forced_start_of_a_value_is_never_refused():
    """The grammar writes a greeting's "Hello Lena!": a held draft's run inside it would leave
    the sampler no token to pick, so nothing is refused until the start is written."""
    vocab = {"Hello": 1, " Lena": 2, "!": 3, " How": 4, " are": 5}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[p], p) for p in ("Hello", " Lena", "!", " How", " are")]

    ban = NgramBan(RepeatBan(field="message", n=2, prior=("Hello Lena! How are",), fixed_start="Hello Lena!"), tokenize)
    feed(ban, [(0, '{"message": "'), (1, "Hello")])
    assert ban.refused() == []  # " Lena" follows "Hello" in the held draft, but the grammar writes it
    feed(ban, [(2, " Lena")])
    assert ban.refused() == []
    feed(ban, [(3, "!")])
    assert ban.refused() == [4]  # the start is written: the model's own words may not copy the draft


def test_after_a_short_first_sentence_a_formula_is_turned_away_not_stopped_at():
    """ "I see." and a formula: the stop left the bare "I see." as the reply (eval chat seed 6),
    so after a first sentence under six words the word that would complete the formula's
    opening is refused instead; after a longer one the stop ends the reply as before."""
    vocab = {" about": 7, " About": 8, " me": 9, " Me": 9}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)]

    formulas = frozenset({("thanks", "for", "telling", "about"), ("thanks", "for", "telling", "me")})
    ban = NgramBan(RepeatBan(field="message", n=0, formulas=formulas, formula_words=4), tokenize)
    feed(ban, [(0, '{"message": "'), (1, "I"), (2, " see"), (3, "."), (4, " Thanks"), (5, " for")])
    assert ban.refused() == []  # two words of the formula: nothing to refuse yet
    feed(ban, [(6, " telling")])
    assert sorted(ban.refused()) == [7, 8, 9]  # " about" / " About" / " me" would complete an opening
    assert ban.turned == 1 and not ban.must_close()
    feed(ban, [(10, " you"), (3, "."), (99, '"}')])
    assert ban.turned == 1 and not ban.turned_this_value  # counted once a value

    long_first = NgramBan(RepeatBan(field="message", n=0, formulas=formulas, formula_words=4), tokenize)
    said = [(1, "You"), (2, " like"), (2, " gnocchi"), (2, " with"), (2, " sage"), (2, " butter"), (3, ".")]
    feed(long_first, [(0, '{"message": "'), *said])
    feed(long_first, [(4, " Thanks"), (5, " for"), (6, " telling")])
    assert long_first.refused() == []  # a real answer came first: the formula stop ends it
    feed(long_first, [(9, " me"), (7, " about")])
    assert long_first.must_close()


def test_a_first_sentence_is_turned_away_from_an_earlier_replys_opening():
    """Seven small-talk replies of one session opened "I'm glad/sorry to hear that ...": while
    the first sentence is one word short of an earlier reply's opening, the word that would
    complete it is refused; once the sentence has gone its own way, or ended, nothing is."""
    vocab = {" to": 7, " To": 8, " hear": 9, " Hear": 10}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)]

    openings = frozenset({("i", "m", "glad", "to"), ("i", "m", "sorry", "to")})
    ban = NgramBan(RepeatBan(field="message", n=0, openings=openings, formula_words=4), tokenize)
    feed(ban, [(0, '{"message": "'), (1, "I"), (2, "'m")])
    assert ban.refused() == []  # two words: nothing to refuse yet
    feed(ban, [(3, " glad")])
    # " to" / " To" would open like the earlier reply; a comma stays free: refused, the honest
    # "I'm sorry, but I don't know your blood group." became "I'm sorry if I didn't help."
    assert sorted(ban.refused()) == [7, 8]
    assert ban.opened == 1
    feed(ban, [(4, " you"), (5, " enjoyed"), (6, " it"), (11, "!"), (1, " I"), (2, "'m"), (3, " glad")])
    assert ban.refused() == []  # a later sentence: the formula rules govern it, not this one
    feed(ban, [(99, '"}')])
    assert ban.opened == 1 and not ban.opened_this_value  # counted once a value

    ended = NgramBan(RepeatBan(field="message", n=0, openings=openings, formula_words=4), tokenize)
    feed(ended, [(0, '{"message": "'), (1, "I"), (2, "'m"), (3, " glad"), (22, "!")])
    assert ended.refused() == []  # "I'm glad!" is a whole sentence: the next may open as it likes

    off = NgramBan(RepeatBan(field="message", n=0, formula_words=4), tokenize)
    feed(off, [(0, '{"message": "'), (1, "I"), (2, "'m"), (3, " glad")])
    assert off.refused() == []


def test_after_a_fixed_greeting_the_models_own_first_sentence_is_turned_from_an_opening():
    """A `make run` chat (stop 53): after the forced "Hello Priya!", "I'm here to help you today."
    opened every greeting; the sentence after the fixed start is the one turned away."""
    vocab = {" to": 7, " To": 8}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)]

    openings = frozenset({("i", "m", "here", "to")})
    greeting = [(0, '{"message": "'), (1, "Hello"), (2, " Priya"), (3, "!"), (4, " I"), (5, "'m"), (6, " here")]
    fixed = RepeatBan(field="message", n=0, openings=openings, formula_words=4, fixed_start="Hello Priya!")
    ban = NgramBan(fixed, tokenize)
    feed(ban, greeting)
    assert sorted(ban.refused()) == [7, 8] and ban.opened == 1
    loose = NgramBan(RepeatBan(field="message", n=0, openings=openings, formula_words=4), tokenize)
    feed(loose, greeting)
    assert loose.refused() == []  # with no fixed start, a second sentence is the formula rules'


def test_no_sentence_may_begin_with_a_banned_opener():
    """After a draft held for speaking as the user, no sentence of the redraft may begin with
    "I" or "My": the tokens that spell the whole word are refused at a sentence's start only
    (" Im", the start of "Imagine", stays free)."""
    vocab = {"I": 1, " I": 2, "My": 3, " My": 4, " Im": 5}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)] if text in vocab else [(9, text[:1]), (10, text[1:])]

    ban = NgramBan(RepeatBan(field="message", n=0, banned_openers=("I", "My")), tokenize)
    feed(ban, [(0, '{"message": "')])
    assert sorted(ban.refused()) == [1, 2, 3, 4]  # the value's first word
    feed(ban, [(6, "You"), (7, " did")])
    assert ban.refused() == []  # inside a sentence "I" is free
    feed(ban, [(8, " well"), (11, "!")])
    assert sorted(ban.refused()) == [1, 2, 3, 4]  # the next sentence's first word
    feed(ban, [(99, '"}')])
    fixed = NgramBan(RepeatBan(field="message", n=0, banned_openers=("I",), fixed_start="Hello Ana!"), tokenize)
    feed(fixed, [(0, '{"message": "'), (12, "Hello"), (13, " Ana")])
    assert fixed.refused() == []  # the grammar writes the forced start
    feed(fixed, [(11, "!")])
    assert sorted(fixed.refused()) == [1, 2]
    off = NgramBan(RepeatBan(field="message", n=0), tokenize)
    feed(off, [(0, '{"message": "')])
    assert off.refused() == []


def test_a_value_must_close_once_it_holds_its_sentences():
    """An answer begun from a core line went on "Sheldeens is a Swedish rock band that formed in
    1988 ..." for 300 tokens (eval chat seed 16): with ``max_sentences`` the value ends there."""
    ban = NgramBan(RepeatBan(field="message", n=0, max_sentences=1, fixed_start="Your band"))
    feed(ban, [(0, '{"message": "'), (1, "Your"), (2, " band"), (3, " is"), (4, " the"), (5, " Sheld"), (6, "eens")])
    assert not ban.must_close()
    feed(ban, [(7, ".")])
    assert ban.must_close()  # one sentence written: the quote comes next
    feed(ban, [(8, '"}')])
    assert not ban.must_close()  # the value closed, the next starts clean
    two = NgramBan(RepeatBan(field="message", n=0, max_sentences=2))
    feed(two, [(0, '{"message": "'), (1, "I"), (2, " don't"), (3, " know"), (4, " e"), (5, ".g"), (6, ".")])
    assert not two.must_close()  # "e.g." ends no sentence
    feed(two, [(7, " it"), (8, " at"), (9, " 10"), (10, "."), (11, "30"), (12, " sadly"), (13, ".")])
    assert not two.must_close()  # one sentence: "10." was no end either
    feed(two, [(14, " Sorry"), (15, "!")])
    assert two.must_close()


def test_a_value_must_close_once_it_holds_its_questions():
    """Told "I'm a vet in Utrecht and I cycle to work every day", a first reply asked "How do you
    like cycling? Do you have any favorite routes? I'd love to hear about it." (a `make run` chat,
    stop 63): with ``max_questions`` the value ends after its first question."""
    from memgpt_local.runtime.decoding import questions_ended

    ban = NgramBan(RepeatBan(field="message", n=0, max_questions=1))
    feed(ban, [(0, '{"message": "'), (1, "Nice"), (2, "!"), (3, " What"), (4, "'s"), (5, " a"), (6, "?b")])
    assert not ban.must_close()  # "a?b" asks nothing
    feed(ban, [(7, " How"), (8, " is"), (9, " cycling")])
    assert not ban.must_close()
    feed(ban, [(10, "?")])
    assert ban.must_close()
    assert questions_ended('How is Finn? Is he well?" she asked') == 2 and questions_ended("Why??") == 1
    two = NgramBan(RepeatBan(field="message", n=0, max_questions=2))
    feed(two, [(0, '{"message": "'), (1, "How"), (2, " are"), (3, " you"), (10, "?")])
    assert not two.must_close()
    # the forced start's question is not the model's: a first login's "Hello! What's your name?" was
    # cut "Hello! What's your name? I'm here" (stop 64)
    asked = NgramBan(RepeatBan(field="message", n=0, max_questions=1, fixed_start="Hi! Name?"))
    feed(asked, [(0, '{"message": "'), (1, "Hi"), (2, "!"), (3, " Name"), (10, "?")])
    assert not asked.must_close()
    feed(asked, [(4, " How"), (5, " are"), (6, " you"), (10, "?")])
    assert asked.must_close()
    from memgpt_local.agent.loop import first_questions
    from memgpt_local.schemas import FunctionCall

    greeting = FunctionCall(function="send_message", arguments={"message": "Hi! Name? How are you? Well?"})
    assert first_questions(greeting, 1, "Hi! Name?").arguments["message"] == "Hi! Name? How are you?"
    assert first_questions(greeting, 1).arguments["message"] == "Hi! Name?"


def test_a_value_must_close_when_its_list_begins_one_item_too_many():
    """Advice for a rainy Saturday ran to "18. Have an outdoor movie night with you friend", items
    said over and over with a word changed (a `make run` chat, stop 45): with ``max_items`` the
    value closes as the next item begins, and the loop cuts that item's number off."""
    from memgpt_local.agent.loop import first_items
    from memgpt_local.schemas import FunctionCall

    ban = NgramBan(RepeatBan(field="message", n=0, max_items=2))
    feed(ban, [(0, '{"message": "'), (1, "Ideas"), (2, ":"), (3, " 1"), (4, "."), (5, " Games"), (6, " 2"), (4, ".")])
    feed(ban, [(7, " Films"), (8, " at"), (9, " 10"), (4, "."), (13, " Then"), (12, " 3"), (4, ".")])
    assert not ban.must_close()  # two items begun: "10." is none, and "3." has no word yet
    feed(ban, [(14, " Bed")])
    assert ban.must_close()  # the third item has begun
    call = FunctionCall(function="send_message", arguments={"message": "Ideas: 1. Games 2. Films at 10. Then 3. Bed"})
    assert first_items(call, 2).arguments["message"] == "Ideas: 1. Games 2. Films at 10. Then"
    assert first_items(call, 0) == call and first_items(call, 3) == call


def test_a_list_item_may_not_open_with_an_earlier_items_words():
    """ "1. Use a rabbit-proof outlet cover 2. Use a rabbit-proof outlet guard ..." went on to
    item 8 with a word changed (a `make run` chat, stop 45): an item's third word may not make
    its opening an earlier item's."""
    vocab = {" rabbit": 10, " Rabbit": 11, " cable": 12}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)] if text in vocab else [(99, text)]

    ban = NgramBan(RepeatBan(field="message", n=0, max_items=7), tokenize)
    feed(ban, [(0, '{"message": "'), (1, "Ideas"), (2, ":"), (3, " 1"), (4, "."), (5, " Use"), (6, " a")])
    assert ban.refused() == []  # the first item opens as it likes
    feed(ban, [(10, " rabbit"), (7, "-proof"), (8, " cover"), (9, " 2"), (4, "."), (5, " Use"), (6, " a")])
    assert sorted(ban.refused()) == [10, 11]  # "Use a rabbit" again: refused
    feed(ban, [(12, " cable"), (13, " tidy")])
    assert ban.refused() == []
    plain = NgramBan(RepeatBan(field="message", n=0, max_sentences=3), tokenize)
    feed(plain, [(0, '{"message": "'), (3, " 1"), (4, "."), (5, " Use"), (6, " a"), (10, " rabbit"), (9, " 2")])
    feed(plain, [(4, "."), (5, " Use"), (6, " a")])
    assert plain.refused() == []  # no list limit set: items go as they come


def test_sentences_ended_counts_only_at_the_end_of_a_sentence():
    from memgpt_local.runtime.decoding import sentences_ended

    assert sentences_ended("Your band is the Sheldeens.") == 1
    assert sentences_ended("Your band is the Sheldeens. They") == 0
    assert sentences_ended("I don't know. Have you told me?") == 2
    assert sentences_ended("It starts at 10.") == 0 and sentences_ended("See e.g.") == 0
    assert sentences_ended("Your band is the Sheldeens. ") == 0  # a space: the next is begun


def test_a_banned_word_is_refused_anywhere_as_a_whole_word():
    """After a draft held for speaking as the user, the redraft may not say "my" anywhere: a
    redraft went "... resulted in my dad's car being driven into a pond." (a `make run` chat).
    Without its space the word is refused only where a word may start ("ene" + "my" is "enemy")."""
    vocab = {"my": 1, " my": 2, "My": 3, " My": 4, " myst": 5}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)] if text in vocab else [(9, text[:1]), (10, text[1:])]

    ban = NgramBan(RepeatBan(field="message", n=0, banned_words=("my", "My")), tokenize)
    feed(ban, [(0, '{"message": "')])
    assert sorted(ban.refused()) == [1, 2, 3, 4]
    feed(ban, [(6, "Your"), (7, " dad")])
    assert sorted(ban.refused()) == [2, 4]  # inside a sentence too; "my" right after "dad" would end a word
    feed(ban, [(8, " ene")])
    assert sorted(ban.refused()) == [2, 4]
    feed(ban, [(99, '"}')])
    assert ban.refused() == []  # outside the value
    off = NgramBan(RepeatBan(field="message", n=0), tokenize)
    feed(off, [(0, '{"message": "'), (6, "Your")])
    assert off.refused() == []
    vocab[","] = 20
    denial = NgramBan(RepeatBan(field="message", n=0, banned_words=(",", "but"), fixed_start="I don't know"), tokenize)
    feed(denial, [(0, '{"message": "'), (12, "I don't know"), (13, " your"), (14, " age")])
    assert 20 in denial.refused()  # a mark right after a word: a forced denial may not go on ", but ..."


def test_a_long_banned_word_is_refused_glued_to_the_word_before_it():
    """A `make run` chat (stop 52): banned " favorite", " subject" and " school", a greeting went
    out as "What's yourfavoritesubject inschool?"."""
    vocab = {"favorite": 1, " favorite": 2, "my": 3, " my": 4}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)] if text in vocab else [(9, text[:1]), (10, text[1:])]

    ban = NgramBan(RepeatBan(field="message", n=0, banned_words=("favorite", "my")), tokenize)
    feed(ban, [(0, '{"message": "'), (6, "What's"), (7, " your")])
    assert sorted(ban.refused()) == [1, 2, 4]  # "favorite" after a letter; "my" only where a word starts
    feed(ban, [(8, " ")])
    assert sorted(ban.refused()) == [1, 2, 3, 4]


def test_a_later_list_item_counts_though_its_number_lost_its_period():
    """Refused a third item that opened like the second, a list of bass lines went on "3, 'I'm in
    Love' ... 5 'I'm in Love' ..." to ten items (a `make run` chat, stop 46): once a list is under
    way, a next number before a capital or a quote begins an item."""
    from memgpt_local.runtime.decoding import list_items

    text = "Try: 1. 'Fool' by X 2. 'Love' by Y 3, 'Love' by Z 4. 'Sun' 5 'Love' again"
    assert [text[i] for i in list_items(text)] == ["1", "2", "3", "4", "5"]
    assert list_items("I have 2 Cats and 3 Dogs") == []  # no list begun
    assert len(list_items("1. Games 2. Films at 10 pm 3 months later")) == 2  # a small letter follows
    assert len(list_items("1. Games 3, Films")) == 1  # not the next number


def test_a_value_may_not_end_after_a_list_number_a_colon_or_an_opening_quote():
    """Its runs refused by a held draft, a redraft ended "... you should learn: 1. '" (a `make
    run` chat, stop 46): there the tokens that end the string are refused."""
    closers = [90, 91]  # '"' and '"}'
    ban = NgramBan(RepeatBan(field="message", n=0, max_items=7), lambda text: [(99, text)], None, lambda: closers)
    feed(ban, [(0, '{"message": "'), (1, "Try"), (2, " these"), (3, ":")])
    assert set(closers) <= set(ban.refused())  # "Try these:" is not a reply
    feed(ban, [(4, " 1"), (5, ".")])
    assert set(closers) <= set(ban.refused())
    feed(ban, [(6, " '")])
    assert set(closers) <= set(ban.refused())
    feed(ban, [(7, "Sup"), (8, "erstition"), (9, "'.")])
    assert not set(closers) & set(ban.refused())  # a reply may end here
    feed(ban, [(10, " See you at 10")])
    assert not set(closers) & set(ban.refused())  # "at 10" is no list number


def test_a_list_item_may_not_open_with_the_whole_of_a_shorter_earlier_item():
    """ "1. Balloon Pop 2. Colorful Balloons 3. Balloon Balloon 4. Balloon Balloon ..." (a `make
    run` chat, stop 46): a two-word item never reached the three words the rule compares."""
    vocab = {" Balloon": 10, " balloon": 11, " Pop": 12, " Slime": 13}

    def tokenize(text: str) -> list[tuple[int, str]]:
        return [(vocab[text], text)] if text in vocab else [(99, text)]

    ban = NgramBan(RepeatBan(field="message", n=0, max_items=10), tokenize)
    feed(ban, [(0, '{"message": "'), (3, " 1"), (4, "."), (10, " Balloon"), (10, " Balloon"), (5, " 2"), (4, ".")])
    feed(ban, [(10, " Balloon")])
    assert sorted(ban.refused()) == [10, 11]  # "Balloon Balloon" again: refused at its second word
    feed(ban, [(12, " Pop"), (5, " 3"), (4, ".")])
    assert ban.refused() == []  # "Balloon" alone opened no item: a new item may begin with it
    one = NgramBan(RepeatBan(field="message", n=0, max_items=10), tokenize)
    feed(one, [(0, '{"message": "'), (3, " 1"), (4, "."), (13, " Slime"), (5, " 2"), (4, ".")])
    assert 13 in one.refused()  # a one-word item: its word may not open the next (" Slime" is one token)
    feed(one, [(12, " Pop")])
    assert one.refused() == []


def test_a_list_ends_before_an_item_that_nearly_repeats_an_earlier_one():
    """ "1. Balloon Pop 2. Colorful Balloons 3. Balloon Balloon 4. Balloon Ballon 5..." (a `make
    run` chat, stop 46): the reply closes as the item after the repeat begins, and the loop and
    the stream cut it before the repeat."""
    from memgpt_local.agent.loop import without_repeated_items
    from memgpt_local.agent.partial import within_items
    from memgpt_local.runtime.decoding import repeated_item
    from memgpt_local.schemas import FunctionCall

    text = "Demos: 1. Balloon Pop 2. Colorful Balloons 3. Balloon Balloon 4. Balloon Ballon 5. Slime"
    assert repeated_item(text) == text.index("4.")
    assert repeated_item("1. Visit the Science Museum 2. Visit the Natural History Museum") is None
    assert repeated_item("1. Go to the cinema 2. Go to the theatre 3. Bake") is None
    skipped = "1. Balloon Pop 2. Colorful Balloons 3. Balloon Balloon 4. Balloon Ballon 5... 10. Balloon Balloon 11."
    assert repeated_item(skipped) == skipped.index("4.")  # its opening repeats item 3, whatever follows
    assert repeated_item("1. Balloon Balloon 2. Balloon") is None  # too few words yet to say
    assert repeated_item("1. Elephant toothpaste 2. Elephant toothpaste demo") is not None
    call = FunctionCall(function="send_message", arguments={"message": text})
    kept = without_repeated_items(call).arguments["message"]
    assert kept == "Demos: 1. Balloon Pop 2. Colorful Balloons 3. Balloon Balloon"
    assert kept.startswith(within_items(text, 10))  # the stream shows no more than is kept
    ban = NgramBan(RepeatBan(field="message", n=0, max_items=10))
    feed(ban, [(0, '{"message": "'), (1, "1. Balloon Balloon 2. Balloon"), (2, " Ball")])
    assert not ban.must_close()  # "Ball" may become another word
    feed(ban, [(3, "on"), (4, " 5")])
    assert ban.must_close()  # item 2 repeated item 1: the list ends


def test_a_refused_copy_may_not_slip_past_on_a_glued_mark():
    """A `make run` greeting (stop 55): barred from " train" after "I hope you get a chance to",
    it went on "to.train more.": the bare marks are refused with the word."""
    spelled = {".": [(7, ".")], ",": [(8, ",")], "!": [(9, "!")], "?": [(10, "?")], ";": [], ":": [(11, ":")]}
    ban = NgramBan(RepeatBan(field="message", n=3), tokenize=lambda text: spelled.get(text, []))
    feed(ban, [(0, '{"message": "'), (1, " chance"), (2, " to"), (3, " train"), (7, "."), (1, " chance"), (2, " to")])
    assert sorted(ban.refused()) == [3, 7, 8, 9, 10, 11]
    feed(ban, [(4, " run")])
    assert ban.refused() == []  # nothing refused: a mark may follow
