"""A small, deterministic search index over one locale's twins: BM25 over weighted fields, Snowball stems.

Pagefind's index is made for a browser (it is read by WebAssembly), so the docs server keeps its own, built
in memory from the twins when it starts. Each document is one twin; its fields weigh differently: the
name (the front matter's title) most, then the labelled lines (a tool's title, translated where a
translation exists) and the names of a tool's parameters, then the description, then the prose.

Words are folded (NFKC, case, Arabic vowel marks), identifiers are also split into their words
(``search_chat``: ``search`` and ``chat``), and each word is indexed under its Snowball stem in the
locale's language and in the language of the server's verbatim text (the twins of ``ru`` quote an
English server in English). A query word also matches the indexed words it is a prefix of, at half
weight, which catches the forms a stemmer leaves apart (``архив`` and ``архиве``).

Scores are BM25F: a word's count in the name, labels, parameters and description is weighted and taken as
it is, its count in the prose is normalised by the prose's length (b 0.75), so a long page does not bury its
own title; the sum saturates (k1 1.2). A document's score is then multiplied by the share of query words it
matches. A query that is exactly a page's name (``search_chat``) ranks that page first. Ties are broken by
kind (tools first) and path, so the same query always ranks the same way.
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

import snowballstemmer

from generator.docs_server.twins import Twin

WEIGHTS = {"name": 8.0, "label": 4.0, "param": 4.0, "description": 3.0, "prose": 1.0}
"""How much one occurrence of a word counts in each field."""
KIND_ORDER = ("tool", "prompt", "resource", "resource-template", "page")
PREFIX_WEIGHT = 0.5
MAX_PREFIX_TERMS = 32
MIN_PREFIX = 3
MAX_QUERY_WORDS = 16
K1, B = 1.2, 0.75
LANGUAGES = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "et": "estonian", "eu": "basque", "fa": "persian", "fi": "finnish", "fr": "french",
    "ga": "irish", "hi": "hindi", "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "nl": "dutch", "no": "norwegian", "nb": "norwegian", "pl": "polish",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "sv": "swedish", "ta": "tamil",
    "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
"""The Snowball stemmer of a language code (its primary subtag); a language without one is not stemmed."""

_WORD = re.compile(r"\w+")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+|[^\W\d_A-Za-z]+")


def _stemmer(language: str) -> Callable[[str], str] | None:
    name = LANGUAGES.get(language.split("-", 1)[0].lower())
    return snowballstemmer.stemmer(name).stemWord if name else None


def fold(text: str) -> str:
    """*text* in the form words are compared in: NFKC, case-folded, without combining marks."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFKC", bare).casefold()


def _token_words(token: str) -> list[str]:
    """One token's words, folded: the token, and an identifier's parts (``search_chat``: search, chat)."""
    found = [fold(token)]
    if not token.isdigit():
        parts = [p for p in _IDENT_PART.findall(token) if len(p) > 1]
        if len(parts) > 1:
            found.extend(fold(p) for p in parts)
    return found


def words(text: str) -> list[str]:
    """The words of *text*, folded; an identifier (``search_chat``, ``fileDefect``) also gives its parts."""
    return [word for token in _WORD.findall(text) for word in _token_words(token)]


class Analyzer:
    """Words to index terms for one locale: each word under its stems in two languages, remembered.

    A site repeats the same words on every page, so each distinct word (and each distinct token of the
    text) is taken apart and stemmed once; indexing a large portal is then mostly dictionary lookups.
    """

    def __init__(self, locale: str, verbatim: str = "en") -> None:
        stemmers = [s for s in (_stemmer(locale), _stemmer(verbatim)) if s is not None]
        self._stemmers = list(dict.fromkeys(stemmers))
        self._seen: dict[str, tuple[str, ...]] = {}
        self._tokens: dict[str, tuple[str, ...]] = {}

    def terms(self, word: str) -> tuple[str, ...]:
        """The terms *word* (folded) is indexed and looked up under: its stems, or itself when it is short."""
        known = self._seen.get(word)
        if known is None:
            stems = {stem(word) for stem in self._stemmers} if len(word) > 2 else set()
            changed = stems - {word}  # a stemmer of another script leaves the word as it is
            known = tuple(sorted(changed)) if changed else (word,)
            self._seen[word] = known
        return known

    def token_terms(self, token: str) -> tuple[str, ...]:
        """The terms of one token of text (a ``\\w+`` run): the terms of each of its words."""
        known = self._tokens.get(token)
        if known is None:
            known = tuple(term for word in _token_words(token) for term in self.terms(word))
            self._tokens[token] = known
        return known

    def counted(self, text: str) -> Counter[str]:
        """How often each term occurs in *text* (its tokens counted first, then each distinct one expanded)."""
        found: Counter[str] = Counter()
        for token, count in Counter(_WORD.findall(text)).items():
            for term in self.token_terms(token):
                found[term] += count
        return found

    def text_terms(self, text: str) -> Iterator[str]:
        """Every term of *text*, in order, repeated as often as it occurs."""
        return chain.from_iterable(map(self.token_terms, _WORD.findall(text)))


@dataclass(frozen=True)
class Document:
    """One indexed twin: the fields the index weighs, and the lines an excerpt is taken from."""

    path: str
    kind: str
    title: str
    description: str
    canonical: str
    fields: tuple[tuple[str, str], ...]
    """(field name, text) pairs; the field names are the keys of :data:`WEIGHTS`."""


def document(twin: Twin, params: Sequence[str] = ()) -> Document:
    """The document of *twin*; *params* are the parameter names of the tool it documents."""
    fields = [("name", twin.title), ("description", twin.description)]
    fields += [("label", label) for label in twin.labels]
    fields += [("param", name) for name in params]
    fields += [("prose", line) for line in twin.prose]
    return Document(twin.path, twin.kind, twin.title, twin.description, twin.front.get("canonical", ""), tuple(fields))


@dataclass(frozen=True)
class Hit:
    """A ranked document and the score that ranked it."""

    document: Document
    score: float
    matched: tuple[str, ...]
    """The query words it matched, folded."""


class SearchIndex:
    """The index of one locale's documents."""

    def __init__(self, documents: Iterable[Document], analyzer: Analyzer) -> None:
        self.analyzer = analyzer
        self.documents: list[Document] = []
        counted: list[tuple[dict[str, float], Counter[str], int]] = []
        for doc in documents:
            head: dict[str, float] = {}
            for name, text in doc.fields:
                if name != "prose":
                    weight = WEIGHTS[name]
                    for term in analyzer.text_terms(text):
                        head[term] = head.get(term, 0.0) + weight
            prose = analyzer.counted("\n".join(text for name, text in doc.fields if name == "prose"))
            self.documents.append(doc)
            counted.append((head, prose, prose.total()))
        average = sum(length for _, _, length in counted) / len(counted) if counted else 1.0
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for number, (head, prose, length) in enumerate(counted):
            norm = 1 - B + B * length / (average or 1.0)
            for term in head.keys() | prose.keys():
                tf = head.get(term, 0.0) + WEIGHTS["prose"] * prose.get(term, 0) / norm
                self._postings.setdefault(term, []).append((number, tf))
        self._vocabulary = sorted(self._postings)

    def __len__(self) -> int:
        return len(self.documents)

    def search(self, query: str, limit: int) -> tuple[list[Hit], int]:
        """The best *limit* hits for *query*, and how many documents matched at all."""
        query_words = list(dict.fromkeys(words(query)))[:MAX_QUERY_WORDS]
        if not query_words or not self.documents:
            return [], 0
        per_word = [self._word_scores(word) for word in query_words]
        totals: dict[int, float] = {}
        matched: dict[int, list[str]] = {}
        for word, scores in zip(query_words, per_word, strict=True):
            for number, score in scores.items():
                totals[number] = totals.get(number, 0.0) + score
                matched.setdefault(number, []).append(word)
        named = fold(" ".join(query.split()))
        ranked = sorted(
            ((round(score * len(matched[n]) / len(query_words), 6), n) for n, score in totals.items()),
            key=lambda item: self._order(item, named),
        )
        hits = [Hit(self.documents[n], score, tuple(matched[n])) for score, n in ranked[:limit]]
        return hits, len(ranked)

    def _order(self, item: tuple[float, int], named: str) -> tuple[bool, float, int, str]:
        """A query that is exactly a document's name ranks that document first; then score, kind, path."""
        doc = self.documents[item[1]]
        return fold(doc.title) != named, -item[0], KIND_ORDER.index(doc.kind), doc.path

    def _word_scores(self, word: str) -> dict[int, float]:
        """Each document's score for one query word: its best term, exact stems at full weight, prefixes at half."""
        best: dict[int, float] = {}
        alternatives = self._alternatives(word)
        # A longer word the query word begins is the same word to the reader: it counts no rarer than the
        # word itself, so a rare compound (chat_message_ids) never outranks the word (chat) it contains.
        exact = [self._idf(term) for term, weight in alternatives if weight == 1.0 and term in self._postings]
        ceiling = max(exact) if exact else math.inf
        for term, weight in alternatives:
            postings = self._postings.get(term, ())
            if not postings:
                continue
            idf = min(self._idf(term), ceiling)
            for number, tf in postings:
                score = weight * idf * tf * (K1 + 1) / (tf + K1)
                if score > best.get(number, 0.0):
                    best[number] = score
        return best

    def _idf(self, term: str) -> float:
        found = len(self._postings[term])
        return math.log(1 + (len(self.documents) - found + 0.5) / (found + 0.5))

    def _alternatives(self, word: str) -> list[tuple[str, float]]:
        """The indexed terms *word* stands for: its own terms, then the terms they are a prefix of."""
        exact = self.analyzer.terms(word)
        found = {term: 1.0 for term in exact}
        for stem in exact:
            if len(stem) < MIN_PREFIX:
                continue
            start = bisect.bisect_left(self._vocabulary, stem)
            for term in self._vocabulary[start : start + MAX_PREFIX_TERMS]:
                if not term.startswith(stem):
                    break
                found.setdefault(term, PREFIX_WEIGHT)
        return sorted(found.items())
