"""Scenario files: load-time validation names the file, the step and the key; templates; checks."""

from __future__ import annotations

import pytest

from simnode.scenario import ScenarioLoadError, load_scenario, load_scenario_text
from simnode.scenario.accounts import derive_key
from simnode.scenario.errors import ExpectationFailed
from simnode.scenario.expect import run_checks
from simnode.scenario.schema import amount_for_chain, v_amount, v_percent, v_time
from simnode.scenario.templates import TemplateError, get_path, substitute


def load(text: str, **kw):
    return load_scenario_text(text, "test.toml", **kw)


def err(text: str, **kw) -> ScenarioLoadError:
    with pytest.raises(ScenarioLoadError) as info:
        load(text, **kw)
    return info.value


def test_a_valid_file_loads_with_numbered_steps():
    sc = load("""
name = "ok"
[network]
seed = 3
start_time = "2026-01-01T00:00:00Z"
[vars]
n = 4
[accounts.alice]
fund = { C = "1 AVAX", x = "2 AVAX" }
[accounts.user]
count = 3
[[steps]]
kind = "advance_time"
by = "14d"
[[steps]]
kind = "repeat"
count = "{n}"
steps = [ { kind = "mine" }, { kind = "transfer", chain = "C", from = "user{i}", to = "alice", amount = "3 gwei" } ]
""")
    assert sc.name == "ok" and sc.seed == 3
    assert sc.network["start_time"] == 1_767_225_600_000
    assert [a.name for a in sc.accounts] == ["alice", "user0", "user1", "user2"]
    assert sc.accounts[0].fund == {"C": "1 AVAX", "X": "2 AVAX"}
    assert [s.number for s in sc.steps] == ["1", "2"]
    assert [c.number for c in sc.steps[1].children] == ["2.1", "2.2"]
    assert sc.count_steps() == 1 + 4 * 2


@pytest.mark.parametrize(("text", "where", "key", "words"), [
    ('[[steps]]\nkind = "teleport"', "step 1", "kind", "unknown step kind 'teleport'"),
    ('[[steps]]\nby = "1d"', "step 1", "kind", "missing"),
    ('[[steps]]\nkind = "advance_time"\nby = "1d"\nspeed = 2', "step 1 (advance_time)", "speed", "unknown key"),
    ('[[steps]]\nkind = "advance_time"', "step 1 (advance_time)", "by", "missing"),
    ('[[steps]]\nkind = "advance_time"\nby = "fortnight"', "step 1 (advance_time)", "by", "invalid duration"),
    ('[[steps]]\nkind = "mine"\n[[steps]]\nkind = "transfer"\nchain = "Q"\nfrom = "a"\nto = "b"\namount = "1 AVAX"',
     "step 2 (transfer)", "chain", "expected one of X, P, C"),
    ('[[steps]]\nkind = "transfer"\nchain = "X"\nfrom = "a"\nto = "b"\namount = "1.5 parsecs"',
     "step 1 (transfer)", "amount", "unknown unit"),
    ('[[steps]]\nkind = "transfer"\nchain = "P"\nfrom = "a"\nto = "b"\namount = "1 wei"',
     "step 1 (transfer)", "amount", "not a whole number of nAVAX"),
    ('[[steps]]\nkind = "transfer"\nchain = "X"\nfrom = "a"\nto = "b"\namount = "1 AVAX"\ngas = 30000',
     "step 1 (transfer)", "gas", "only C-Chain"),
    ('[[steps]]\nkind = "repeat"\ncount = 2\nsteps = [ { kind = "mine", blocks = 0 } ]', "step 1.1 (mine)", "blocks",
     "at least 1"),
    ('[[steps]]\nkind = "repeat"\ncount = 2\nsteps = [ { kind = "mine" }, { kind = "nap" } ]', "step 1.2", "kind",
     "unknown step kind"),
    ('[[steps]]\nkind = "expect"\nvalue = 1', "step 1 (expect)", None, "needs a check"),
    ('[[steps]]\nkind = "expect"\nmethod = "eth_chainId"\nequals = 1', "step 1 (expect)", "endpoint", "required"),
    ('[[steps]]\nkind = "expect"\nvalue = 1\nchecks = [ { path = "a", bigger = 2 } ]', "step 1 (expect)", "checks",
     "unknown key(s) in a check: bigger"),
    ('[[steps]]\nkind = "deploy"\nfrom = "a"', "step 1 (deploy)", None, "exactly one of 'bytecode'"),
    ('[[steps]]\nkind = "set_time"\nto = "next tuesday"', "step 1 (set_time)", "to", "invalid time"),
    ('[network]\nclock = "sundial"', "[network]", "clock", "expected one of virtual, wall"),
    ('[network]\nseeed = 1', "[network]", "seeed", "unknown key"),
    ('[accounts.alice]\nfund = { Z = "1 AVAX" }', "[accounts.alice]", "fund.Z", "expected one of"),
    ('[accounts.alice]\nkey = "0x1234"', "[accounts.alice]", "key", "invalid key"),
    ('[accounts.alice]\nbalance = 3', "[accounts.alice]", "balance", "unknown key"),
    ('[accounts.ewoq]', "[accounts.ewoq]", None, "defined twice"),
    ('[stepz]', "top level", "stepz", "unknown table or key"),
])
def test_load_errors_name_file_step_and_key(text, where, key, words):
    e = err(text)
    assert e.file == "test.toml"
    assert e.where == where
    assert e.key == key
    assert words in e.message
    assert str(e).startswith(f"test.toml: {where}")


def test_invalid_toml_and_missing_file(tmp_path):
    assert "invalid TOML" in str(err("[[steps]\nkind="))
    with pytest.raises(ScenarioLoadError, match="cannot read"):
        load_scenario(tmp_path / "nope.toml")


def test_var_overrides_must_be_declared():
    sc = load('[vars]\nn = 5\n', vars={"n": "7"})
    assert sc.vars["n"] == 7
    e = err('[vars]\nn = 5\n', vars={"m": 1})
    assert e.key == "m" and "does not declare" in e.message


def test_templates_are_checked_once_resolved_not_at_load():
    sc = load('[[steps]]\nkind = "mine"\nblocks = "{n}"')  # no error at load: a template
    assert sc.steps[0].raw["blocks"] == "{n}"


def test_substitution():
    saved = {"t": {"a": [1, {"b": "x"}]}, "alice.C": "0xA"}

    def lookup(ref: str):
        if ref in saved:
            return saved[ref]
        return get_path(saved, ref)

    assert substitute("user{i % 50}", {"i": 53}, lookup) == "user3"
    assert substitute("{(i + 7) * 2 - 1}", {"i": 1}, lookup) == "15"
    assert substitute("${t.a[1].b}-{i}", {"i": 2}, lookup) == "x-2"
    assert substitute("${t.a}", {}, lookup) == [1, {"b": "x"}]  # whole-field refs keep their type
    assert substitute("{{literal}}", {}, lookup) == "{literal}"
    assert substitute(["{i}", {"k": "{i+1}"}], {"i": 1}, lookup) == ["1", {"k": "2"}]
    with pytest.raises(TemplateError, match="unknown name 'j'"):
        substitute("{j}", {"i": 1}, lookup)
    with pytest.raises(TemplateError, match="only integers"):
        substitute("{__import__('os')}", {}, lookup)


def test_amounts_durations_times():
    assert amount_for_chain(v_amount("1.5 AVAX"), "C") == 15 * 10**17
    assert amount_for_chain(v_amount("1.5 AVAX"), "X") == 1_500_000_000
    assert amount_for_chain(v_amount("3 gwei"), "C") == 3 * 10**9
    assert amount_for_chain(v_amount("3 gwei"), "P") == 3
    assert amount_for_chain(v_amount(200), "P") == 200
    assert v_percent("2%") == 20_000 and v_percent("2.5 %") == 25_000
    assert v_time(1_700_000_000) == 1_700_000_000_000
    assert v_time("2026-01-01T00:00:00Z") == 1_767_225_600_000


def test_derived_keys_are_deterministic_and_distinct():
    assert derive_key(1, "alice") == derive_key(1, "alice")
    assert derive_key(1, "alice") != derive_key(2, "alice") != derive_key(1, "bob")


def test_checks_report_the_difference():
    doc = {"result": {"balances": [{"asset": "AVAX", "balance": "5000"}], "hex": "0x10", "s": "hello"}}
    run_checks(doc, {"path": "result.balances[0].balance", "equals": 5000, "min": "4 nAVAX", "max": 5000})
    run_checks(doc, {"path": "result.hex", "equals": 16})
    run_checks(doc, {"checks": [{"path": "result.s", "contains": "ell"}, {"path": "result.balances", "length": 1},
                                {"path": "result.balances", "contains": {"asset": "AVAX"}},
                                {"path": "result.nothing", "exists": False}]})
    with pytest.raises(ExpectationFailed, match=r"result.balances\[0\].balance: expected >= 6000, got 5000 \(off by -1000\)"):
        run_checks(doc, {"path": "result.balances[0].balance", "min": 6000})
    with pytest.raises(ExpectationFailed, match=r"result.balances\[1\] does not exist \(list has 1 items\)"):
        run_checks(doc, {"path": "result.balances[1].balance", "equals": 1})
    with pytest.raises(ExpectationFailed, match='expected "bye", got "hello"'):
        run_checks(doc, {"path": "result.s", "equals": "bye"})
    # on the C-Chain an amount with a unit is in wei
    run_checks({"result": hex(2 * 10**18)}, {"path": "result", "equals": "2 AVAX"}, wei=True)


def test_every_example_scenario_loads():
    from pathlib import Path

    files = sorted((Path(__file__).parents[2] / "scenarios").glob("*.toml"))
    assert len(files) >= 5
    for f in files:
        assert load_scenario(f).steps


def test_a_chain_missing_from_the_build_fails_the_step_clearly():
    from simnode.scenario import StepFailed
    from simnode.scenario.runner import Runner
    from simnode.scenario.transport import ErrorReply, Transport

    class PendingX(Transport):
        def call(self, endpoint, method, params=None):
            if endpoint == "X":
                raise ErrorReply({"code": -32000, "message": f'rpc: can\'t find service "{method.split(".")[0]}.GetHeight"'})
            raise AssertionError("only the X-Chain is probed")

    sc = load('[[steps]]\nkind = "create_asset"\nfrom = "ewoq"\nname = "G"\nsymbol = "G"\nsupply = 5')
    runner = Runner(sc, PendingX())
    with pytest.raises(StepFailed, match=r"step 1 \(create_asset\) failed: X-Chain not available in this build"):
        runner.run_step(sc.steps[0], {})
