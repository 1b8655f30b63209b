from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.chunking import chunk_on_delimiter, token_chunks
from graphglean.tokens import Tokenizer

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
