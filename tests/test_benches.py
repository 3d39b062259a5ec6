"""The bench catalogue: suites expand to their benches."""

from rtscope.model.catalogue import Suite, expand_suites

SUITES = [Suite("quick", "", ("ctxsw.sem", "lat.wakeup")), Suite("more", "", ("lat.wakeup", "clock.read"))]


def test_suites_expand_in_order_and_bring_each_bench_once():
    assert expand_suites(("quick", "ctxsw.sem", "more"), SUITES) == ("ctxsw.sem", "lat.wakeup", "clock.read")


def test_a_bench_named_twice_by_itself_stays_twice_to_be_refused():
    assert expand_suites(("clock.read", "clock.read"), SUITES) == ("clock.read", "clock.read")
