"""The plan cache (:mod:`rocarray._core.plans`): least recently used first out, sizes, clearing,
unhashable keys, concurrent use."""

import threading

import pytest

from rocarray._core import plans


def test_lookup_builds_once_and_counts():
    cache = plans.PlanCache(4)
    built = []
    assert cache.lookup(("op", 1), lambda: built.append(1) or "p1") == "p1"
    assert cache.lookup(("op", 1), lambda: built.append(2) or "other") == "p1"
    assert built == [1] and (cache.hits, cache.misses) == (1, 1)


def test_values_that_are_false_are_plans_too():
    cache = plans.PlanCache(4)
    assert cache.lookup("k", lambda: False) is False
    assert cache.lookup("k", lambda: pytest.fail("built twice")) is False
    assert cache.get("missing", "default") == "default"


def test_least_recently_used_goes_first():
    cache = plans.PlanCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
    assert cache.get_curr_size() == 2


def test_resizing_and_disabling():
    cache = plans.PlanCache(8)
    for i in range(8):
        cache.put(i, i)
    cache.set_size(3)
    assert cache.get_size() == 3 and cache.get_curr_size() == 3 and cache.get(7) == 7
    cache.set_size(0)
    assert cache.lookup("x", lambda: "built") == "built" and cache.get_curr_size() == 0
    with pytest.raises(ValueError):
        cache.set_size(-1)


def test_an_unhashable_key_builds_without_storing():
    cache = plans.PlanCache(4)
    assert cache.lookup(("op", [1, 2]), lambda: "p") == "p"
    assert cache.get_curr_size() == 0
    with pytest.raises(TypeError):
        cache.get(("op", [1]))


def test_clear_drops_every_plan_and_tells_the_listeners(capsys):
    cache = plans.PlanCache(4)
    told = []
    cache.on_clear(lambda: told.append(1))
    cache.put("a", 1)
    cache.clear()
    assert cache.get_curr_size() == 0 and told == [1]
    cache.show_info()
    assert "0 / 4 plans" in capsys.readouterr().out


def test_concurrent_lookups_keep_the_bound():
    cache = plans.PlanCache(16)

    def work(offset):
        for i in range(500):
            cache.lookup(("op", (i + offset) % 40), lambda: object())

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.get_curr_size() <= 16
