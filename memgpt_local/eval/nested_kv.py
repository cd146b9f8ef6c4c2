"""Nested key-value retrieval (the paper's Figure 7), from a seed.

A *set* is 140 pairs of UUID-shaped strings, stored in archival memory as
``Key-value pair: key = K, value = V``. Inside each set, 100 of the pairs form 20 disjoint
chains of 5, sampled without replacement: the value of a chain's pair is the key of the
next one, and the last value is not a key anywhere (so no chain can cycle). The other 40
pairs are plain. A question at nesting level L starts at the key of the pair L steps before
the end of a chain and needs L + 1 lookups; its answer is the chain's last value.

Case ``index`` i uses set ``i // 20`` and chain ``i % 20`` at every level, so the levels of
one index walk the same chain from deeper and deeper starting points, and one built set
(embedded once) serves 20 questions per level.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memgpt_local.eval.base import Case, Embed, FixedContext, Options
from memgpt_local.eval.fiction import fake_uuid

NAME = "nested-kv"
VERSION = 1  # bump when generated data change: cached sets are keyed by it
PAIRS = 140
CHAIN_LENGTH = 5
CHAINS_PER_SET = 20
LEVELS = tuple(range(CHAIN_LENGTH))

QUESTION = (
    "Your archival memory holds a list of key-value pairs. What is the value for the key {key}? "
    "A value can itself be a key of another pair: if it is, look that key up as well, and keep "
    "going until you reach a value that is not a key. Reply with that final value."
)
BASELINE_INSTRUCTIONS = (
    "You answer questions about the list of key-value pairs below. A value can itself be a key "
    "of another pair. Answer with the value only."
)


def pair_text(key: str, value: str) -> str:
    return f"Key-value pair: key = {key}, value = {value}"


@dataclass(frozen=True)
class KVSet:
    pairs: tuple[tuple[str, str], ...]
    chains: tuple[tuple[int, ...], ...]  # pair indices, first to last lookup

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.pairs)

    def texts(self) -> list[str]:
        return [pair_text(k, v) for k, v in self.pairs]


def make_set(seed: int, set_index: int, *, pairs: int = PAIRS, chains: int = CHAINS_PER_SET,
             chain_length: int = CHAIN_LENGTH) -> KVSet:
    if chains * chain_length > pairs:
        raise ValueError(f"{chains} chains of {chain_length} do not fit in {pairs} pairs")
    rng = random.Random(f"{NAME}/v{VERSION}/{seed}/{set_index}")
    strings: list[str] = []
    seen: set[str] = set()
    while len(strings) < 2 * pairs:
        s = fake_uuid(rng)
        if s not in seen:
            seen.add(s)
            strings.append(s)
    keys, values = strings[:pairs], strings[pairs:]
    members = rng.sample(range(pairs), chains * chain_length)
    chain_list = [tuple(members[c * chain_length:(c + 1) * chain_length]) for c in range(chains)]
    for chain in chain_list:
        for here, after in zip(chain, chain[1:]):
            values[here] = keys[after]
    return KVSet(pairs=tuple(zip(keys, values)), chains=tuple(chain_list))


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

    def __init__(self, *, pairs: int = PAIRS, chains_per_set: int = CHAINS_PER_SET):
        self.pairs = pairs
        self.chains_per_set = chains_per_set
        self._sets: dict[tuple[int, int], KVSet] = {}

    def default_points(self, long: bool) -> tuple[int, ...]:
        return LEVELS

    def kv_set(self, seed: int, set_index: int) -> KVSet:
        key = (seed, set_index)
        if key not in self._sets:
            self._sets[key] = make_set(seed, set_index, pairs=self.pairs, chains=self.chains_per_set)
        return self._sets[key]

    def cases(self, options: Options) -> list[Case]:
        levels = options.points if options.points is not None else LEVELS
        bad = [lv for lv in levels if not 0 <= lv < CHAIN_LENGTH]
        if bad:
            raise ValueError(f"nesting levels must be 0-{CHAIN_LENGTH - 1}, got {bad}")
        out = []
        for index in range(options.n):
            set_index, chain_index = divmod(index, self.chains_per_set)
            kv = self.kv_set(options.seed, set_index)
            chain = kv.chains[chain_index]
            for level in levels:
                start = chain[CHAIN_LENGTH - 1 - level]
                key = kv.pairs[start][0]
                answer = kv.pairs[chain[-1]][1]
                out.append(Case(
                    task=NAME, split=options.split, point=level, index=index, seed=options.seed,
                    question=QUESTION.format(key=key), answers=(answer,), gold_text=answer,
                    corpus=f"{NAME}-v{VERSION}-p{self.pairs}-s{options.seed}-set{set_index}",
                    payload={"set": set_index, "chain": chain_index, "start_key": key,
                             "hops": [kv.pairs[i][1] for i in chain[CHAIN_LENGTH - 1 - level:]]},
                ))
        return out

    def _set_of(self, case: Case) -> KVSet:
        return self.kv_set(case.seed, case.payload["set"])

    def build_memory(self, store, agent_id: int, case: Case, embed: Embed) -> None:
        texts = self._set_of(case).texts()
        store.archival.insert_many(agent_id, [{"text": t} for t in texts], vectors=embed(texts))

    def fixed_context(self, case: Case, store=None, agent_id: int | None = None) -> FixedContext:
        kv = self._set_of(case)
        hops = set(case.payload["hops"])
        gold = frozenset(i for i, (_, v) in enumerate(kv.pairs) if v in hops)
        return FixedContext(instructions=BASELINE_INSTRUCTIONS, items=tuple(kv.texts()), keep="first",
                            gold=gold, heading="Key-value pairs:")
