"""The rule registry links the spec, the implementation's twins, the kit and the docs.

One registry (``reactive_streams.rules``) names, for every rule, the TLA+ operators
that check it, their Python twins and the kit checks. These tests fail as soon as
one side is renamed or dropped without the others.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from reactive_streams.rules import BY_ID, RULES, render_markdown, snake_case
from reactive_streams.trace import invariants

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "spec" / "ReactiveStreams.tla"
HOME = ROOT / "impl" / "reactive_streams" / "trace" / "invariants"
# Spec names without a rule code (the rule is in the registry row that lists them).
UNCODED = {"TypeOK", "SerialCallsInv"}
_DEFINED = re.compile(r"^(\w+(?:Inv|Prop))\s*==", re.MULTILINE)


def spec_definitions() -> dict[str, set[str]]:
    """Every ``...Inv``/``...Prop`` each spec module defines (MC modules define none)."""
    return {
        path.stem: set(_DEFINED.findall(path.read_text(encoding="utf-8")))
        for path in sorted((ROOT / "spec").glob("*.tla"))
    }


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
            assert name.startswith(rule.code.capitalize()) or name in UNCODED, (
                f"rule {rule.id}: {name} does not carry the rule code {rule.code}"
            )


def test_every_rule_tagged_invariant_in_the_spec_is_in_the_registry() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    defined = set(re.findall(r"^(Spec\d{3}_\w+(?:Inv|Prop))\s*==", spec, re.MULTILINE))
    registered = {name for rule in RULES for name in rule.tla}
    assert defined <= registered, (
        f"spec operators missing from the registry: {defined - registered}"
    )


def test_every_registered_name_reaches_its_twin_function_of_the_same_name() -> None:
    for rule in RULES:
        for name, twin in zip(rule.tla, rule.twins, strict=True):
            assert twin.__name__ == snake_case(name), (rule.id, name, twin)
            assert inspect.getmodule(twin) is invariants, f"{twin.__name__} lives outside the home"


def test_every_spec_invariant_and_property_has_a_twin_or_a_reason() -> None:
    defined = spec_definitions()
    missing = []
    for module, names in defined.items():
        twins = invariants.SPEC_TWINS.get(module, {})
        reasons = invariants.NO_TWIN.get(module, {})
        restated = invariants.SPEC_TWINS["ReactiveStreams"] if module.startswith("Trace") else {}
        for name in sorted(names):
            if name not in twins and name not in restated and not reasons.get(name):
                missing.append(f"{module}.{name}")
            assert not (name in twins and name in reasons), f"{module}.{name}: twin and reason"
    assert missing == [], f"spec operators with neither a Python twin nor a reason: {missing}"


def test_every_twin_is_named_after_a_spec_definition_of_its_module() -> None:
    defined = spec_definitions()
    for module, twins in invariants.SPEC_TWINS.items():
        for name, twin in twins.items():
            assert name in defined[module], f"{twin.__name__}: no {name} in spec/{module}.tla"
            assert twin.__name__ == snake_case(name), (module, name, twin.__name__)
            assert twin.__module__.startswith(invariants.__name__), twin.__module__
    for module, reasons in invariants.NO_TWIN.items():
        assert set(reasons) <= defined[module], (module, set(reasons) - defined[module])


def _twin_names() -> set[str]:
    names = {snake_case(n) for names in spec_definitions().values() for n in names}
    return names | {t.__name__ for ts in invariants.SPEC_TWINS.values() for t in ts.values()}


_TWIN_LIKE = re.compile(r"spec\d{3}_\w+_(?:inv|prop)")


def twin_bodies_outside_the_home(root: Path = ROOT) -> list[str]:
    """``def`` statements named like a twin (a spec name in snake_case, or
    ``specXYY_..._inv``/``_prop``) anywhere in impl/, stateful/, tests/ but the home."""
    names = _twin_names()
    found = []
    for folder in ("impl", "stateful", "tests"):
        for path in sorted((root / folder).rglob("*.py")):
            if HOME in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                    node.name in names or _TWIN_LIKE.fullmatch(node.name)
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    return found


def test_no_twin_body_outside_its_home() -> None:
    assert twin_bodies_outside_the_home() == [], (
        "a twin of a spec invariant/property defined outside reactive_streams.trace.invariants"
    )


def test_the_home_check_sees_a_twin_defined_elsewhere(tmp_path: Path) -> None:
    (tmp_path / "stateful").mkdir()
    (tmp_path / "stateful" / "x.py").write_text(
        "def spec207_serial_calls_inv(s):\n    return True\n"
        "class M:\n    def buffer_bounded_inv(self):\n        pass\n"
    )
    found = twin_bodies_outside_the_home(tmp_path)
    assert [f.split()[1] for f in found] == ["spec207_serial_calls_inv", "buffer_bounded_inv"]


def test_every_kit_check_name_carries_a_registered_rule() -> None:
    from reactive_streams.tck import all_check_names

    for name in all_check_names():
        match = re.match(r"(?:required|optional|stochastic|untested|extra)_spec(\d)(\d\d)_", name)
        assert match, f"kit check {name} does not follow <status>_specXYY_<what>"
        rule_id = f"{match.group(1)}.{int(match.group(2))}"
        assert rule_id in BY_ID, f"kit check {name} cites unknown rule {rule_id}"


def test_every_modelled_rule_has_a_unit_test_or_a_kit_check() -> None:
    from reactive_streams.rules import kit_checks_by_rule

    kit = kit_checks_by_rule()
    test_names = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("tests", "stateful")
        for path in (ROOT / folder).rglob("test_*.py")
    )
    for rule in RULES:
        if not rule.tla:
            continue
        has_test = re.search(rf"def test_{rule.code}_", test_names) is not None
        has_check = any(not name.startswith("untested_") for name in kit[rule.id])
        assert has_test or has_check, f"rule {rule.id} is modelled but neither tested nor checked"
