"""The rule registry links the spec, the implementation's twins, the kit and the docs.

One registry (``reactive_streams.rules``) names, for every rule, the TLA+ operators
that check it, their Python twins and the kit checks. These tests fail as soon as
one side is renamed or dropped without the others.
"""

from __future__ import annotations

import re
from pathlib import Path

from reactive_streams.rules import BY_ID, RULES, render_markdown, snake_case

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec" / "ReactiveStreams.tla"
TWINS = ROOT / "stateful" / "invariants.py"


def test_registry_has_the_43_rules_of_sections_1_to_4() -> None:
    counts = {section: 0 for section in "1234"}
    for rule in RULES:
        counts[rule.id.split(".")[0]] += 1
    assert counts == {"1": 11, "2": 13, "3": 17, "4": 2}
    assert len(BY_ID) == 43


def test_rule_codes_follow_the_tck_encoding() -> None:
    assert BY_ID["1.1"].code == "spec101"
    assert BY_ID["3.17"].code == "spec317"
    assert snake_case("Spec101_DeliveredLeqRequestedInv") == "spec101_delivered_leq_requested_inv"


def test_docs_rules_md_is_rendered_from_the_registry() -> None:
    rendered = render_markdown()
    on_disk = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert on_disk == rendered, "docs/rules.md is stale: run `make docs`"


def test_every_tla_name_in_the_registry_is_defined_in_the_spec() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    for rule in RULES:
        for name in rule.tla:
            assert re.search(rf"^{re.escape(name)}\s*==", spec, re.MULTILINE), (
                f"rule {rule.id}: {name} is not defined in spec/ReactiveStreams.tla"
            )
            assert name.startswith(rule.code.capitalize()) or name == "TypeOK", (
                f"rule {rule.id}: {name} does not carry the rule code {rule.code}"
            )


def test_every_rule_tagged_invariant_in_the_spec_is_in_the_registry() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    defined = set(re.findall(r"^(Spec\d{3}_\w+(?:Inv|Prop))\s*==", spec, re.MULTILINE))
    registered = {name for rule in RULES for name in rule.tla}
    assert defined <= registered, f"spec operators missing from the registry: {defined - registered}"


def test_every_tla_invariant_has_a_python_twin_with_the_same_name() -> None:
    twins = TWINS.read_text(encoding="utf-8")
    for rule in RULES:
        for name in rule.stateful:
            assert re.search(rf"^def {re.escape(name)}\(", twins, re.MULTILINE), (
                f"rule {rule.id}: no twin {name} in stateful/invariants.py"
            )


def test_every_kit_check_in_the_registry_exists() -> None:
    names = {name for rule in RULES for name in rule.kit}
    if not names:
        return
    from reactive_streams.tck import all_check_names

    missing = names - set(all_check_names())
    assert not missing, f"kit checks named in the registry but not defined: {missing}"


def test_every_kit_check_name_carries_a_registered_rule() -> None:
    try:
        from reactive_streams.tck import all_check_names
    except ImportError:  # the kit is optional in a minimal install
        return
    for name in all_check_names():
        match = re.match(r"(?:required|optional|stochastic|untested|extra)_spec(\d)(\d\d)_", name)
        assert match, f"kit check {name} does not follow <status>_specXYY_<what>"
        rule_id = f"{match.group(1)}.{int(match.group(2))}"
        assert rule_id in BY_ID, f"kit check {name} cites unknown rule {rule_id}"
