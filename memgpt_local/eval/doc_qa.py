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
    landmark: str  # "Brelmoth Observatory"
    year: int
    founder: str
    region: str
    passages: tuple[str, ...]  # gold first

    def answer(self, kind: str) -> tuple[str, ...]:
        if kind == "year":
            return (str(self.year),)
        if kind == "founder":
            return (self.founder, self.founder.split()[-1])
        return (self.region,)

    def question(self, kind: str) -> str:
        if kind == "year":
            return f"In what year was the {self.landmark} founded?"
        if kind == "founder":
            return f"Who founded the {self.landmark}?"
        return f"In which region is the {self.landmark}?"


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
        gold = (
            f"{landmark}. The {landmark} is {what} in the {region} region of {country}. "
            f"It was founded in {year} by {founder}, {_a(profession)}, and it is still in use."
        )
        sibling_text = (
            f"{sibling}. The {sibling} is {sibling_what} in the {other_region} region of "
            f"{country}. It was founded in {sibling_year} by {' '.join(n.person())}, "
            f"{_a(sibling_profession)}. It is named after the {landmark}."
        )
        bio = (
            f"{founder}. {founder} was {_a(profession)} born in {other_region}. Late in life "
            f"{founder.split()[0]} also founded the {other_landmark}, in {other_year}."
        )
        region_text = (
            f"{other_region}. {other_region} is a region of {country} known for "
            f"{r.choice(KNOWN_FOR)}. Its landmarks include the {sibling}, named after the "
            f"{landmark}, and the {neighbour}, which was founded in {neighbour_year}."
        )
        return Cluster(
            landmark=landmark,
            year=year,
            founder=founder,
            region=region,
            passages=(gold, sibling_text, bio, region_text),
        )

    def cluster(self, i: int) -> Cluster:
        while len(self.clusters) <= i:
            self.clusters.append(self._make_cluster())
        return self.clusters[i]

    def passages(self, size: int) -> list[str]:
        clusters = -(-size // CLUSTER_SIZE)
        texts = [t for i in range(clusters) for t in self.cluster(i).passages]
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
            for size in sizes:
                out.append(
                    Case(
                        task=NAME,
                        split=options.split,
                        point=size,
                        index=index,
                        seed=options.seed,
                        question=f"{cluster.question(kind)} {QUESTION_HINT}",
                        answers=cluster.answer(kind),
                        gold_text=cluster.answer(kind)[0],
                        corpus=f"{NAME}-v{VERSION}-s{options.seed}-n{size}",
                        gold_marker=cluster.passages[0][:60],
                        payload={
                            "size": size,
                            "cluster": cluster_index,
                            "kind": kind,
                            "gold_passage": cluster.passages[0],
                        },
                    )
                )
        return out

    def build_memory(self, store: MemoryStore, agent_id: int, case: Case, embed: Embed) -> None:
        texts = self.encyclopedia(case.seed).passages(case.payload["size"])
        store.archival.insert_many(agent_id, [{"text": t} for t in texts], vectors=embed(texts))

    def fixed_context(self, case: Case, store: MemoryStore, agent_id: int) -> FixedContext:
        question = case.question.replace(QUESTION_HINT, "").strip()
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
