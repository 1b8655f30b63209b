"""What a model says again: loops in any script, where they start, and the tail a continuation repeats."""

import pytest

from graphglean.core.repetition import is_loop, loop_start, overlap


@pytest.mark.parametrize("text", [
    "Scrooge was a miser. " * 40,  # one sentence
    "Intro line.\n" + "The passage names a traveller who walked through the town.\n" * 30,  # one prose line
    '("entity"<|>Ada<|>person<|>A traveller, again and again.)##\n' * 50,  # one record
    "他在伦敦的街道上慢慢地走着。" * 30,  # a Chinese sentence, shorter in characters than an English one
    "First point of the summary. Second point, a new one. Third point, quite different. " * 12,  # a paragraph
])
def test_a_loop_is_found_in_any_script_and_shape(text):
    assert is_loop(text)
    assert 0 < loop_start(text) < len(text) // 3


@pytest.mark.parametrize("text", [
    " ".join(f"Point {i} of the summary says something new about the sea." for i in range(60)),
    "A short answer. A short answer. A short answer.",  # below what is a loop: short segments repeat anywhere
    "The passage describes the harbour in detail.\n" * 2 + "Then it turns to the ferry company and its routes. " * 1
    + " ".join(f"Record {i} is about someone else entirely." for i in range(40)),  # a repeat or two, then on
])
def test_an_answer_that_repeats_a_line_or_two_and_goes_on_is_no_loop(text):
    assert not is_loop(text)


def test_what_a_continuation_repeats_of_the_answer_end():
    assert overlap("the harbour board met on Tuesday", "met on Tuesday and chose") == len("met on Tuesday")
    assert overlap("the harbour board met on Tuesday", "Tuesday") == 0  # 7 characters: as likely new text
    assert overlap("abc", "") == 0 and loop_start("no loop here at all, none.") == len("no loop here at all, none.")
