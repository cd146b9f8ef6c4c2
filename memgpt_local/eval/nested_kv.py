"""Nested key-value retrieval (the paper's Figure 7), from a seed.

A *set* is 140 pairs of UUID-shaped strings, stored in archival memory as
``Key-value pair: key = K, value = V`` (wording 1: ``Record K points to V.``, with the
question asked in other words). A question at nesting level L starts at the head of
a chain of L + 1 pairs and needs L + 1 lookups: the value of each pair of the chain is the key
of the next one, and the last value (the answer) is not a key anywhere. The start key is
never the value of another pair, so, as in the paper, the first lookup finds one pair.

Chains are sampled without replacement from the set's pairs (disjoint, so none can cycle) in
*groups* of one chain per level (1 + 2 + 3 + 4 + 5 = 15 pairs); a set holds 9 groups (135
pairs) and 5 plain pairs. Case ``index`` i uses group ``i % 9`` of set ``i // 9`` at every
level, so one built set (embedded once, one prompt prefix for the baseline) serves 9 cases
per level.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memgpt_local.eval.base import Case, Embed, FixedContext, Options
from memgpt_local.eval.fiction import fake_uuid

if TYPE_CHECKING:
    from memgpt_local.memory import MemoryStore

NAME = "nested-kv"
VERSION = 2  # bump when generated data change: cached sets are keyed by it
PAIRS = 140
CHAIN_LENGTH = 5
GROUP_PAIRS = sum(range(1, 6))  # one chain of each length 1..5
LEVELS = tuple(range(CHAIN_LENGTH))

QUESTIONS = (
    "Your archival memory holds a list of key-value pairs. What is the value for the key {key}? "
    "A value can itself be a key of another pair: if it is, look that key up as well, and keep "
    "going until you reach a value that is not a key. Reply with that final value.",
    "Find the record for ID {key} in your archive and see which ID it points to. When that ID "
    "has a record of its own, follow it too, and go on along the chain until an ID has no "
    "record. Which ID is at the end of the chain?",
)
BASELINE_INSTRUCTIONS = (
    "You answer questions about the list of key-value pairs below. A value can itself be a key "
    "of another pair. Answer with the value only.",
    "Each record below points from one ID to another, and an ID it points to can have a record "
    "of its own. Answer with the last ID only.",
)
HEADINGS = ("Key-value pairs:", "Records:")


def pair_text(key: str, value: str, wording: int = 0) -> str:
    if wording:
        return f"Record {key} points to {value}."
    return f"Key-value pair: key = {key}, value = {value}"


@dataclass(frozen=True)
class KVSet:
    pairs: tuple[tuple[str, str], ...]
    groups: tuple[tuple[tuple[int, ...], ...], ...]  # groups[g][L]: pair indices of the level-L chain

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.pairs)

    def texts(self, wording: int = 0) -> list[str]:
        return [pair_text(k, v, wording) for k, v in self.pairs]


def groups_per_set(pairs: int = PAIRS) -> int:
    return pairs // GROUP_PAIRS


def make_set(seed: int, set_index: int, *, pairs: int = PAIRS) -> KVSet:
    groups = groups_per_set(pairs)
    if groups < 1:
        raise ValueError(f"{pairs} pairs cannot hold one chain of each length 1-{CHAIN_LENGTH}")
    rng = random.Random(f"{NAME}/v{VERSION}/{seed}/{set_index}")
    strings: list[str] = []
    seen: set[str] = set()
    while len(strings) < 2 * pairs:
        s = fake_uuid(rng)
        if s not in seen:
            seen.add(s)
            strings.append(s)
    keys, values = strings[:pairs], strings[pairs:]
    members = iter(rng.sample(range(pairs), groups * GROUP_PAIRS))
    group_list = []
    for _ in range(groups):
        chains = tuple(tuple(next(members) for _ in range(length)) for length in range(1, CHAIN_LENGTH + 1))
        for chain in chains:
            for here, after in zip(chain, chain[1:]):
                values[here] = keys[after]
        group_list.append(chains)
    return KVSet(pairs=tuple(zip(keys, values)), groups=tuple(group_list))


def follow(mapping: dict[str, str], key: str, limit: int = PAIRS + 1) -> list[str]:
    """The values met looking up ``key`` until a value is not a key (raises on a cycle)."""
    seen = {key}
    path = [mapping[key]]
    while path[-1] in mapping:
        if path[-1] in seen or len(path) > limit:
            raise ValueError(f"cycle through {path[-1]}")
        seen.add(path[-1])
        path.append(mapping[path[-1]])
    return path


class NestedKVTask:
    name = NAME
    point_name = "level"
    baselines = ("fixed-context",)
    baseline_store = False

    def __init__(self, *, pairs: int = PAIRS):
        self.pairs = pairs
        self.groups_per_set = groups_per_set(pairs)
        self._sets: dict[tuple[int, int], KVSet] = {}

    def default_points(self, long: bool) -> tuple[int, ...]:
        return LEVELS

    def kv_set(self, seed: int, set_index: int) -> KVSet:
        key = (seed, set_index)
        if key not in self._sets:
            self._sets[key] = make_set(seed, set_index, pairs=self.pairs)
        return self._sets[key]

    def cases(self, options: Options) -> list[Case]:
        levels = options.points if options.points is not None else LEVELS
        bad = [lv for lv in levels if not 0 <= lv < CHAIN_LENGTH]
        if bad:
            raise ValueError(f"nesting levels must be 0-{CHAIN_LENGTH - 1}, got {bad}")
        out = []
        for index in range(options.n):
            set_index, group = divmod(index, self.groups_per_set)
            kv = self.kv_set(options.seed, set_index)
            for level in levels:
                chain = kv.groups[group][level]
                key = kv.pairs[chain[0]][0]
                answer = kv.pairs[chain[-1]][1]
                out.append(
                    Case(
                        task=NAME,
                        split=options.split,
                        point=level,
                        index=index,
                        seed=options.seed,
                        question=QUESTIONS[options.wording].format(key=key),
                        answers=(answer,),
                        gold_text=answer,
                        corpus=f"{NAME}-v{VERSION}-p{self.pairs}-s{options.seed}-set{set_index}"
                        + (f"-w{options.wording}" if options.wording else ""),
                        payload={
                            "wording": options.wording,
                            "set": set_index,
                            "group": group,
                            "start_key": key,
                            "hops": [kv.pairs[i][1] for i in chain],
                        },
                    )
                )
        return out

    def _set_of(self, case: Case) -> KVSet:
        return self.kv_set(case.seed, case.payload["set"])

    def build_memory(self, store: MemoryStore, agent_id: int, case: Case, embed: Embed) -> None:
        texts = self._set_of(case).texts(case.payload["wording"])
        store.archival.insert_many(agent_id, [{"text": t} for t in texts], vectors=embed(texts))

    def fixed_context(self, case: Case, store: MemoryStore | None = None, agent_id: int | None = None) -> FixedContext:
        kv, wording = self._set_of(case), case.payload["wording"]
        hops = set(case.payload["hops"])
        gold = frozenset(i for i, (_, v) in enumerate(kv.pairs) if v in hops)
        return FixedContext(
            instructions=BASELINE_INSTRUCTIONS[wording],
            items=tuple(kv.texts(wording)),
            keep="first",
            gold=gold,
            heading=HEADINGS[wording],
        )
