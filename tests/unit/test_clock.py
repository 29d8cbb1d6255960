import pytest

from simnode.clock import ClockError, VirtualClock, WallClock


def test_virtual_clock_fires_events_in_time_order_at_their_time():
    clock = VirtualClock(1_000_000)
    seen = []
    clock.scheduler.schedule(1_005_000, lambda t: seen.append(("b", t, clock.now_ms())))
    clock.scheduler.schedule(1_002_000, lambda t: seen.append(("a", t, clock.now_ms())))
    clock.scheduler.schedule(1_002_000, lambda t: seen.append(("a2", t, clock.now_ms())))
    late = clock.scheduler.schedule(1_900_000, lambda t: seen.append(("late", t)))
    clock.advance(10)
    assert seen == [("a", 1_002_000, 1_002_000), ("a2", 1_002_000, 1_002_000), ("b", 1_005_000, 1_005_000)]
    assert clock.now_ms() == 1_010_000
    late.cancel()
    clock.advance(1000)
    assert len(seen) == 3


def test_event_scheduled_by_an_event_fires_in_the_same_advance():
    clock = VirtualClock(0)
    seen = []

    def tick(t):
        seen.append(t)
        if t < 5000:
            clock.scheduler.schedule(t + 1000, tick)

    clock.scheduler.schedule(1000, tick)
    clock.advance(60)
    assert seen == [1000, 2000, 3000, 4000, 5000]


def test_time_never_goes_back():
    clock = VirtualClock(5000)
    with pytest.raises(ClockError):
        clock.advance(-1)
    with pytest.raises(ClockError):
        clock.set_ms(4000)


def test_wall_clock_time_travel_moves_offset():
    clock = WallClock()
    before = clock.now_ms()
    clock.advance(3600)
    assert clock.now_ms() - before >= 3_600_000
