from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.tokens import Tokenizer
from graphglean.text.chunking import chunk_on_delimiter, combine_pieces, token_chunks

from .conftest import shared_path

TOK = Tokenizer("gpt-4")


@settings(max_examples=150, deadline=None)
@given(text=st.text(min_size=0, max_size=600), size=st.integers(2, 40), overlap=st.integers(0, 39))
def test_token_chunks_cover_and_slice_back(text, size, overlap):
    overlap = min(overlap, size - 1)
    chunks = token_chunks("d", text, TOK, size, overlap)
    if not TOK.encode(text):
        assert chunks == []
        return
    covered = [False] * len(text)
    for c in chunks:
        assert text[c.start:c.end] == c.text
        for i in range(c.start, c.end):
            covered[i] = True
    assert all(covered)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_chunk_sizes_overlap_and_stable_ids():
    text = "word " * 5000
    chunks = token_chunks("doc", text, TOK, 1200, 100)
    assert all(c.tokens == 1200 for c in chunks[:-1])
    assert chunks[1].start < chunks[0].end  # neighbours overlap
    again = token_chunks("doc", text, TOK, 1200, 100)
    assert [c.id for c in chunks] == [c.id for c in again]
    assert len({c.id for c in chunks[:-1]}) >= 1 and chunks[0].id.startswith("chunk-")


def test_delimiter_chunker_matches_recipe_vectors():
    text = shared_path("corpora", "artificial_intelligence_wikipedia.txt").read_text()
    tok = Tokenizer.cl100k()
    assert tok.count(text) == 14630
    max_chunks = len(chunk_on_delimiter(text, 500, tok, ".").chunks)
    assert max_chunks == 31
    counts = {}
    for detail in (0, 0.1, 0.25, 0.5, 1):
        n = int(1 + detail * (max_chunks - 1))
        size = max(500, 14630 // n)
        counts[detail] = chunk_on_delimiter(text, size, tok, ".")
    assert {d: len(c.chunks) for d, c in counts.items()} == {0: 1, 0.1: 5, 0.25: 9, 0.5: 17, 1: 31}
    assert [tok.count(c) for c in counts[0.25].chunks] == [1817, 1807, 1823, 1810, 1806, 1827, 1814, 1829, 103]


def test_delimiter_chunker_marks_and_counts_overflow():
    tok = Tokenizer.cl100k()
    text = "short. " + "x" * 400 + ". end"
    result = chunk_on_delimiter(text, 20, tok, ".")
    assert result.dropped == 1
    assert "..." in "".join(result.chunks)


def reference_combine(pieces, max_tokens, tok, delimiter, header=None, ellipsis=False):
    """The recipe's greedy join, counting the whole candidate at every step (quadratic, plainly right)."""
    out, indices, dropped = [], [], 0
    candidate, cand_idx = ([] if header is None else [header]), []
    for i, piece in enumerate(pieces):
        with_header = [piece] if header is None else [header, piece]
        if tok.count(delimiter.join(with_header)) > max_tokens:
            if ellipsis and tok.count(delimiter.join([*candidate, "..."])) <= max_tokens:
                candidate.append("...")
                dropped += 1
            continue
        if tok.count(delimiter.join([*candidate, piece])) > max_tokens:
            out.append(delimiter.join(candidate))
            indices.append(cand_idx)
            candidate, cand_idx = with_header, [i]
        else:
            candidate.append(piece)
            cand_idx.append(i)
    if len(candidate) > (0 if header is None else 1):
        out.append(delimiter.join(candidate))
        indices.append(cand_idx)
    return out, indices, dropped


# fragments where tiktoken's pieces depend on what follows: whitespace runs, newlines, digit runs,
# contractions, CamelCase, CJK, emoji, punctuation runs
FRAGMENTS = st.sampled_from(["a", "Word", "word", " ", "  ", "\n", "\n\n", " \n ", "\t", "1", "23", "456", "'s",
                             "'ll", "'", "CamelCase", "ÉTÉ", "知识图谱", "🙂", "...", "!?", ".", ",", "-", "é",
                             "\r\n"])
TEXTS = st.lists(FRAGMENTS, max_size=80).map("".join)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(TEXTS, max_size=25), max_tokens=st.integers(1, 60),
       delimiter=st.sampled_from([".", "\n\n", " ", ""]), header=st.sampled_from([None, "Header:", " \n"]),
       ellipsis=st.booleans())
def test_combine_pieces_gives_the_recipe_chunks_exactly(pieces, max_tokens, delimiter, header, ellipsis):
    got = combine_pieces(pieces, max_tokens, TOK, delimiter, header, ellipsis)
    assert (got.chunks, got.indices, got.dropped) == reference_combine(pieces, max_tokens, TOK, delimiter, header,
                                                                       ellipsis)


class CountingTokenizer(Tokenizer):
    encoded = 0

    def encode(self, text):
        self.encoded += len(text)
        return super().encode(text)


def test_delimiter_chunking_tokenizes_each_character_a_bounded_number_of_times():
    text = " ".join(f"Sentence {i} says something about boats and Scrooge's ledger." for i in range(3000))
    for max_tokens in (100, 10**6):  # many chunks; one chunk holding the whole text
        tok = CountingTokenizer(encoding="cl100k_base")
        chunk_on_delimiter(text, max_tokens, tok, ".")
        assert tok.encoded <= 3 * len(text), tok.encoded / len(text)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(TEXTS, max_size=30))
def test_running_count_is_the_exact_count_of_the_text_so_far(parts):
    from graphglean.text.chunking import _RunningCount

    running, text = _RunningCount(TOK), ""
    for part in parts:
        assert running.count_with(part) == TOK.count(text + part)
        running.append(part)
        text += part
    assert running.count_with("") == TOK.count(text)
