"""The terminal fence reconciler's pure diff: what fence + fence_binding want on each terminal against the
fence_sync rows, as pending sets and deletes (streams.fence_sync.plan)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from streams.fence_sync import Change, Desired, Held, plan

V1 = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
V2 = V1 + timedelta(minutes=5)


def _want(fence: int, device: int, version: datetime = V1, shape: str = "polygon") -> Desired:
    return Desired(fence, device, 7, version, shape)


def _held(fence: int, device: int, wanted: str = "set", state: str = "acknowledged", version: datetime = V1,
          shape: str | None = "polygon") -> Held:
    return Held(fence, device, 7, wanted, state, version, shape)


def test_a_new_binding_becomes_a_pending_set() -> None:
    assert plan([_want(1, 10)], []) == [Change(1, 10, 7, "set", V1, "polygon")]


def test_a_fence_already_on_the_terminal_in_its_version_sends_nothing() -> None:
    for state in ("pending", "sent", "acknowledged", "failed"):
        assert plan([_want(1, 10)], [_held(1, 10, state=state)]) == []


def test_an_edited_fence_is_sent_again() -> None:
    assert plan([_want(1, 10, V2)], [_held(1, 10, version=V1)]) == [Change(1, 10, 7, "set", V2, "polygon")]


def test_an_unbound_fence_becomes_a_pending_delete_of_the_shape_the_terminal_holds() -> None:
    assert plan([], [_held(1, 10, shape="circle")]) == [Change(1, 10, 7, "delete", V1, "circle")]


def test_a_delete_already_planned_is_not_planned_again() -> None:
    assert plan([], [_held(1, 10, wanted="delete", state="sent")]) == []


def test_a_fence_bound_again_before_its_delete_was_acknowledged_is_set_again() -> None:
    assert plan([_want(1, 10)], [_held(1, 10, wanted="delete", state="failed")]) == [
        Change(1, 10, 7, "set", V1, "polygon")]


def test_only_the_differences_of_many_bindings_are_planned() -> None:
    desired = [_want(1, 10), _want(1, 11), _want(2, 10, V2)]
    held = [_held(1, 10), _held(2, 10, version=V1), _held(3, 12)]
    assert plan(desired, held) == [Change(1, 11, 7, "set", V1, "polygon"), Change(2, 10, 7, "set", V2, "polygon"),
                                   Change(3, 12, 7, "delete", V1, "polygon")]
