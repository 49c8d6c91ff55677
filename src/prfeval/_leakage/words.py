"""Words and word 3-grams: the tokenisation of ``prfeval leakage``, one definition.

::

    words(text) = re.findall(r"[^\\W_]+", NFKC(text).lower())

- ``NFKC``: Unicode compatibility normalisation first, so that a ligature ``ﬁ`` is ``fi``,
  a full-width ``Ａ`` is ``A`` and a precomposed ``é`` equals ``e`` + combining acute.
- ``lower``: Python's Unicode lowercase (the full mapping, with the Greek final sigma), after
  the normalisation.
- A **word** is a maximal run of Unicode letters and digits: the characters for which
  ``str.isalnum()`` is true. Everything else separates words: spaces, punctuation, the
  underscore, symbols, and combining marks that NFKC left uncombined. So ``don't`` is two
  words, ``don`` and ``t``, and ``e-mail`` is ``e`` and ``mail``.

The **word 3-grams** of a text are its triples of consecutive words; ``G(text)`` is their set.
A text of ``n >= 3`` words has ``n - 2`` 3-grams, fewer distinct ones if a triple repeats; a
text of fewer than 3 words has none.

:func:`words` is the definition, a text at a time. :func:`tokenise` gives the same words for
many texts at once, working on numpy arrays of code points with no Python loop per word: the
corpus is tokenised so, a block of documents at a time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from prfeval._io.source import arrow_buffer

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["GRAM", "WORD", "Tokens", "gram_starts", "normalised", "tokenise", "words"]

#: Words per gram.
GRAM = 3

#: A word: a maximal run of letters and digits (``str.isalnum``), the underscore excluded.
WORD = re.compile(r"[^\W_]+")

IntArray = npt.NDArray[np.int64]

#: Whether each ASCII character is a word character; index 128 stands for any other.
_ASCII_WORD = np.array([bool(WORD.fullmatch(chr(c))) for c in range(128)] + [False])

#: Between two texts joined for tokenising: no word character, and NFKC and lowercasing
#: leave it alone, so no word spans two texts and each text is tokenised as if alone.
_SEPARATOR = "\n"


def normalised(text: str) -> str:
    """``text`` in NFKC, lowercased: what words are read from."""
    return unicodedata.normalize("NFKC", text).lower()


def words(text: str) -> list[str]:
    """The words of ``text``, in order (the module's definition).

    Examples
    --------
    >>> words("The ﬁrst e-mail, don't REPLY_ALL!")
    ['the', 'first', 'e', 'mail', 'don', 't', 'reply', 'all']
    >>> words("  ... ")
    []
    """
    return WORD.findall(normalised(text))


@dataclass(frozen=True)
class Tokens:
    """The words of many texts, concatenated.

    Attributes
    ----------
    words
        Every text's words in order, text after text (an Arrow large string array).
    counts
        How many words each text has (``int64``, one per text); text ``i``'s words are
        ``words[starts[i] : starts[i] + counts[i]]`` with ``starts`` the running sum.
    """

    words: pa.Array
    counts: IntArray


def _word_characters(code_points: npt.NDArray[np.uint32]) -> npt.NDArray[np.bool_]:
    """Whether each (distinct, non-ASCII) code point is a word character, by :data:`WORD`
    itself, so that the definition is the regular expression's, not a table's."""
    return np.array([WORD.fullmatch(chr(c)) is not None for c in code_points.tolist()], bool)


def _edges(is_word: npt.NDArray[np.bool_]) -> IntArray:
    """Where each run of word characters starts and ends (alternately)."""
    changes = np.empty(is_word.size + 1, dtype=bool)
    if is_word.size:
        changes[0] = is_word[0]
        np.not_equal(is_word[1:], is_word[:-1], out=changes[1:-1])
        changes[-1] = is_word[-1]
    else:
        changes[0] = False
    return np.flatnonzero(changes)


def tokenise(texts: Sequence[str | None]) -> Tokens:
    """The words of each text (``None``: no words), as :func:`words` gives them.

    The texts are normalised one by one (NFKC and lowercase, in C), joined by a line break
    and read as one array of code points (one byte each when all are ASCII). A code point is
    a word character by a lookup table for ASCII, and by :data:`WORD` for each distinct
    other code point. Words are the runs of word characters; their characters, gathered,
    are re-encoded as UTF-8 once and cut into an Arrow string array by the runs' lengths.

    Examples
    --------
    >>> t = tokenise(["Déjà vu, again", None, "x"])
    >>> t.words.to_pylist(), t.counts.tolist()
    (['déjà', 'vu', 'again', 'x'], [3, 0, 1])
    """
    import pyarrow as pa

    norm = ["" if t is None else normalised(t) for t in texts]
    joined = _SEPARATOR.join(norm)
    lengths = np.fromiter(map(len, norm), dtype=np.int64, count=len(norm))
    ascii = joined.isascii()
    chars: npt.NDArray[np.uint8] | npt.NDArray[np.uint32]
    if ascii:
        chars = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        is_word = _ASCII_WORD[chars]
    else:
        # A lone surrogate (JSON's "\ud800") is kept as itself, and is no word character.
        chars = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        is_word = _ASCII_WORD[np.minimum(chars, 128)]
        wide = np.flatnonzero(chars >= 128)
        if wide.size:
            distinct, which = np.unique(chars[wide], return_inverse=True)
            is_word[wide] = _word_characters(distinct)[which]
    edges = _edges(is_word)
    starts, ends = edges[0::2], edges[1::2]
    # Each text begins one separator after the previous one ends.
    text_starts = np.cumsum(lengths + 1) - (lengths + 1)
    first = np.searchsorted(starts, text_starts)
    counts = np.diff(np.append(first, starts.size)).astype(np.int64)
    letters = chars[is_word]
    run_lengths = np.concatenate(([0], np.cumsum(ends - starts)))
    if ascii:
        data = letters.tobytes()
        offsets = run_lengths
    else:
        data = letters.astype("<u4").tobytes().decode("utf-32-le").encode("utf-8")
        width = (1 + (letters >= 0x80) + (letters >= 0x800) + (letters >= 0x10000)).astype(
            np.int64
        )
        offsets = np.concatenate(([0], np.cumsum(width)))[run_lengths]
    array = pa.LargeStringArray.from_buffers(
        int(starts.size),
        arrow_buffer(offsets.astype(np.int64).tobytes()),
        arrow_buffer(data),
    )
    return Tokens(array, counts)


def gram_starts(counts: IntArray) -> IntArray:
    """The positions (in the concatenated words) where a 3-gram starts: every word with two
    more after it in its own text."""
    ends = np.cumsum(counts)
    position = np.arange(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    return position[position + (GRAM - 1) < np.repeat(ends, counts)]
