"""Document QA over a fictional encyclopedia (the paper's Figure 5), from a seed.

The corpus is a stream of *clusters* of four passages, generated in order from one seeded
generator, so the corpus of size N is the first N passages of the stream and every smaller
corpus is contained in every larger one. A cluster has:

- the gold passage about an invented landmark ("The Brelmoth Observatory is ... founded in
  1873 by Ada Dorbeck ..."),
- a sibling landmark sharing its name ("The Brelmoth Library ... founded in 1802 ..."),
- a biography of the founder, who founded another landmark in another year,
- the sibling's region, naming the landmark beside another one founded in another year.

Within a cluster the gold year and region appear only in the gold passage; the founder's
name also heads the biography, which never names the gold landmark.

Questions ask the gold landmark's founding year, founder or region; every question is
answered by exactly one passage while three others share its entities. Questions are drawn
from the first ``QUESTION_CLUSTERS`` clusters, present in every corpus of at least
``MIN_SIZE`` passages, so each corpus size is asked the same questions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memgpt_local.eval.base import Case, Embed, FixedContext, Options
from memgpt_local.eval.fiction import Namer

if TYPE_CHECKING:
    from memgpt_local.memory import MemoryStore

NAME = "doc-qa"
VERSION = 1
CLUSTER_SIZE = 4
QUESTION_CLUSTERS = 25
MIN_SIZE = QUESTION_CLUSTERS * CLUSTER_SIZE
DEFAULT_SIZES = (1000, 3000, 10000)
BASELINE_CANDIDATES = 50  # documents retrieved for the baseline before truncation
KINDS = ("year", "founder", "region")
QUESTION_HINT = "(The encyclopedia is in your archival memory.)"

LANDMARKS = (
    ("Observatory", "an astronomical observatory"),
    ("Abbey", "a former abbey"),
    ("Bridge", "a stone bridge"),
    ("Library", "a public library"),
    ("Lighthouse", "a lighthouse"),
    ("Museum", "a museum of local history"),
    ("Academy", "a music academy"),
    ("Mill", "a water mill"),
    ("Theatre", "a theatre"),
    ("Canal", "a shipping canal"),
    ("Botanical Garden", "a botanical garden"),
    ("Market Hall", "a covered market"),
)
PROFESSIONS = (
    "engineer",
    "merchant",
    "astronomer",
    "priest",
    "architect",
    "physician",
    "composer",
    "botanist",
    "shipbuilder",
    "teacher",
)
KNOWN_FOR = (
    "its salt marshes",
    "sheep farming",
    "glass making",
    "its hot springs",
    "apple orchards",
    "its granite quarries",
    "river trade",
    "lace weaving",
)


@dataclass(frozen=True)
class Cluster:
    """One cluster's facts; ``passages(wording)`` words them (gold first)."""

    landmark: str  # "Brelmoth Observatory"
    what: str  # "an astronomical observatory"
    year: int
    founder: str
    profession: str
    region: str
    country: str
    sibling: str
    sibling_what: str
    sibling_region: str  # the founder's birthplace too
    sibling_year: int
    sibling_founder: str
    sibling_profession: str
    other_landmark: str  # the founder's later landmark
    other_year: int
    neighbour: str
    neighbour_year: int
    known_for: str

    def answer(self, kind: str) -> tuple[str, ...]:
        if kind == "year":
            return (str(self.year),)
        if kind == "founder":
            return (self.founder, self.founder.split()[-1])
        return (self.region,)

    def question(self, kind: str, wording: int = 0) -> str:
        return QUESTIONS[wording][kind].format(landmark=self.landmark)

    def passages(self, wording: int = 0) -> tuple[str, ...]:
        return _encyclopedia_passages(self) if wording == 0 else _catalogue_passages(self)


QUESTIONS = (
    {
        "year": "In what year was the {landmark} founded?",
        "founder": "Who founded the {landmark}?",
        "region": "In which region is the {landmark}?",
    },
    {
        "year": "When was the {landmark} established?",
        "founder": "Which person set up the {landmark}?",
        "region": "What part of the country is the {landmark} located in?",
    },
)
HINTS = (QUESTION_HINT, "(Look it up in the catalogue you keep in archival storage.)")


def _encyclopedia_passages(c: Cluster) -> tuple[str, ...]:
    founder_first = c.founder.split()[0]
    return (
        f"{c.landmark}. The {c.landmark} is {c.what} in the {c.region} region of {c.country}. "
        f"It was founded in {c.year} by {c.founder}, {_a(c.profession)}, and it is still in use.",
        f"{c.sibling}. The {c.sibling} is {c.sibling_what} in the {c.sibling_region} region of "
        f"{c.country}. It was founded in {c.sibling_year} by {c.sibling_founder}, "
        f"{_a(c.sibling_profession)}. It is named after the {c.landmark}.",
        f"{c.founder}. {c.founder} was {_a(c.profession)} born in {c.sibling_region}. Late in life "
        f"{founder_first} also founded the {c.other_landmark}, in {c.other_year}.",
        f"{c.sibling_region}. {c.sibling_region} is a region of {c.country} known for "
        f"{c.known_for}. Its landmarks include the {c.sibling}, named after the "
        f"{c.landmark}, and the {c.neighbour}, which was founded in {c.neighbour_year}.",
    )


def _catalogue_passages(c: Cluster) -> tuple[str, ...]:
    """The same facts as catalogue records: fields instead of sentences, other words."""
    return (
        f"Catalogue entry: {c.landmark} ({c.what[c.what.index(' ') + 1 :]}). Location: {c.region}, "
        f"{c.country}. Established: {c.year}. Established by: {c.founder} ({c.profession}). "
        "Status: open to visitors.",
        f"Catalogue entry: {c.sibling} ({c.sibling_what[c.sibling_what.index(' ') + 1 :]}). "
        f"Location: {c.sibling_region}, {c.country}. Established: {c.sibling_year}. Established "
        f"by: {c.sibling_founder} ({c.sibling_profession}). Name taken from: {c.landmark}.",
        f"Person: {c.founder}. Occupation: {c.profession}. Birthplace: {c.sibling_region}. "
        f"Later established: {c.other_landmark} ({c.other_year}).",
        f"Area: {c.sibling_region}, {c.country}. Famous for: {c.known_for}. Sights: "
        f"{c.sibling} (name taken from {c.landmark}); {c.neighbour} (established "
        f"{c.neighbour_year}).",
    )


class Encyclopedia:
    """The seeded passage stream; clusters are generated on demand and kept."""

    def __init__(self, seed: int):
        self.rng = random.Random(f"{NAME}/v{VERSION}/{seed}")
        self.namer = Namer(self.rng)
        self.countries = [self.namer.name() for _ in range(6)]
        self.clusters: list[Cluster] = []

    def _landmark(self, root: str, exclude: str = "") -> tuple[str, str]:
        kind, what = self.rng.choice([x for x in LANDMARKS if x[0] != exclude])
        return f"{root} {kind}", what

    def _make_cluster(self) -> Cluster:
        r, n = self.rng, self.namer
        root = n.name()
        landmark, what = self._landmark(root)
        kind = landmark[len(root) + 1 :]
        sibling, sibling_what = self._landmark(root, exclude=kind)
        founder = " ".join(n.person())
        region, other_region = n.name(), n.name()
        country = r.choice(self.countries)
        year, sibling_year, other_year, neighbour_year = r.sample(range(1580, 1950), 4)
        other_landmark, _ = self._landmark(n.name())
        neighbour, _ = self._landmark(n.name())
        profession, sibling_profession = r.choice(PROFESSIONS), r.choice(PROFESSIONS)
        sibling_founder = " ".join(n.person())  # drawn in this order since version 1
        known_for = r.choice(KNOWN_FOR)
        return Cluster(
            landmark=landmark,
            what=what,
            year=year,
            founder=founder,
            profession=profession,
            region=region,
            country=country,
            sibling=sibling,
            sibling_what=sibling_what,
            sibling_region=other_region,
            sibling_year=sibling_year,
            sibling_founder=sibling_founder,
            sibling_profession=sibling_profession,
            other_landmark=other_landmark,
            other_year=other_year,
            neighbour=neighbour,
            neighbour_year=neighbour_year,
            known_for=known_for,
        )

    def cluster(self, i: int) -> Cluster:
        while len(self.clusters) <= i:
            self.clusters.append(self._make_cluster())
        return self.clusters[i]

    def passages(self, size: int, wording: int = 0) -> list[str]:
        clusters = -(-size // CLUSTER_SIZE)
        texts = [t for i in range(clusters) for t in self.cluster(i).passages(wording)]
        return texts[:size]


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def question_plan(seed: int) -> list[tuple[int, str]]:
    """(cluster, kind) for question index i at position i (cycling after all are used)."""
    combos = [(c, k) for c in range(QUESTION_CLUSTERS) for k in KINDS]
    random.Random(f"{NAME}/v{VERSION}/questions/{seed}").shuffle(combos)
    return combos


class DocQATask:
    name = NAME
    point_name = "documents"
    baselines = ("fixed-context",)
    baseline_store = True  # the baseline retrieves from the built corpus

    def __init__(self) -> None:
        self._books: dict[int, Encyclopedia] = {}

    def default_points(self, long: bool) -> tuple[int, ...]:
        return DEFAULT_SIZES

    def encyclopedia(self, seed: int) -> Encyclopedia:
        if seed not in self._books:
            self._books[seed] = Encyclopedia(seed)
        return self._books[seed]

    def cases(self, options: Options) -> list[Case]:
        sizes = options.points if options.points is not None else DEFAULT_SIZES
        small = [s for s in sizes if s < MIN_SIZE]
        if small:
            raise ValueError(f"doc-qa corpora need at least {MIN_SIZE} passages, got {small}")
        book, plan = self.encyclopedia(options.seed), question_plan(options.seed)
        out = []
        for index in range(options.n):
            cluster_index, kind = plan[index % len(plan)]
            cluster = book.cluster(cluster_index)
            wording = options.wording
            gold = cluster.passages(wording)[0]
            for size in sizes:
                out.append(
                    Case(
                        task=NAME,
                        split=options.split,
                        point=size,
                        index=index,
                        seed=options.seed,
                        question=f"{cluster.question(kind, wording)} {HINTS[wording]}",
                        answers=cluster.answer(kind),
                        gold_text=cluster.answer(kind)[0],
                        corpus=f"{NAME}-v{VERSION}-s{options.seed}-n{size}" + (f"-w{wording}" if wording else ""),
                        gold_marker=gold[:60],
                        payload={
                            "wording": wording,
                            "size": size,
                            "cluster": cluster_index,
                            "kind": kind,
                            "gold_passage": gold,
                        },
                    )
                )
        return out

    def build_memory(self, store: MemoryStore, agent_id: int, case: Case, embed: Embed) -> None:
        texts = self.encyclopedia(case.seed).passages(case.payload["size"], case.payload["wording"])
        store.archival.insert_many(agent_id, [{"text": t} for t in texts], vectors=embed(texts))

    def fixed_context(self, case: Case, store: MemoryStore, agent_id: int) -> FixedContext:
        question = case.question.replace(HINTS[case.payload["wording"]], "").strip()
        page = store.archival.search(agent_id, question, page_size=BASELINE_CANDIDATES)
        items = tuple(hit.text for hit in page.items)
        gold = frozenset(i for i, text in enumerate(items) if text == case.payload["gold_passage"])
        return FixedContext(
            instructions="Answer the question using the documents below. Answer briefly.",
            items=items,
            keep="first",
            gold=gold,
            heading="Documents, most relevant first:",
        )
