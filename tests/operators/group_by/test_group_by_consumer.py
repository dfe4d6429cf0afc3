"""``group_by`` + ``flat_map`` never hang silently: a consumer that could not subscribe
every open group (``max_concurrency < max_groups``) is refused at assembly with an error
naming both limits; within the limits, more keys than ``max_groups`` fail naming it."""

from __future__ import annotations

import pytest

from reactive_streams.flow import Flow

BOUND = 10.0  # seconds: on the code before this check, the first case hung until here

KEYS = 300  # more keys than flat_map's default max_concurrency (256)


def test_more_open_groups_than_flat_map_takes_is_refused_naming_both_limits() -> None:
    source = Flow.range(0, 3 * KEYS).group_by(lambda x: x % KEYS, max_groups=1000)
    with pytest.raises(ValueError, match=r"max_concurrency=256\).*max_groups=1000") as info:
        source.flat_map(lambda g: g.collect()).to_list(timeout=BOUND)
    assert "hang" in str(info.value)
    assert "max_groups=256" in str(info.value)  # the first resolution, spelled out


def test_concat_map_over_groups_is_refused_unless_one_group_at_a_time() -> None:
    with pytest.raises(ValueError, match=r"concat_map consumes group_by\(max_groups=256\)"):
        Flow.range(0, 10).group_by(lambda x: x % 3).concat_map(lambda g: g.collect())
    one = Flow.range(0, 6).group_by(lambda x: x % 2, max_groups=1)
    assert one.concat_map(lambda g: g.take(1)).to_list(timeout=BOUND) == [0, 1, 2, 3, 4, 5]


def test_the_idiom_flat_map_as_wide_as_the_groups() -> None:
    groups = Flow.range(0, 3 * KEYS).group_by(lambda x: x % KEYS, max_groups=KEYS)
    sums = groups.flat_map(lambda g: g.reduce(lambda a, b: a + b), max_concurrency=KEYS)
    assert sorted(sums.to_list(timeout=BOUND)) == sorted(
        k + (k + KEYS) + (k + 2 * KEYS) for k in range(KEYS)
    )


def test_within_the_limits_a_key_past_max_groups_fails_naming_it() -> None:
    groups = Flow.range(0, 3 * KEYS).group_by(lambda x: x % KEYS, max_groups=8)
    with pytest.raises(ValueError, match="past max_groups=8"):
        groups.flat_map(lambda g: g.collect(), max_concurrency=8).to_list(timeout=BOUND)
