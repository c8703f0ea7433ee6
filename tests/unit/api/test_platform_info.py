"""The version log's pure parts: release notes from CHANGELOG.md and the commit from a .git."""

from __future__ import annotations

from pathlib import Path

from api.platform_info import CHANGELOG, git_commit, parse_changelog

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_changelog_sections_and_items_in_file_order() -> None:
    text = "# Changelog\n\nintro\n\n## Second (2026-11-24)\n- b1\n- b2\n\n## First\n* a1\nnot an item\n"
    assert parse_changelog(text) == [
        {"title": "Second", "date": "2026-11-24", "items": ["b1", "b2"]},
        {"title": "First", "date": None, "items": ["a1"]},
    ]


def test_the_repositorys_changelog_has_dated_sections_with_items() -> None:
    releases = parse_changelog(CHANGELOG.read_text(encoding="utf-8"))
    assert releases and all(r["date"] and r["items"] for r in releases)


def test_commit_from_a_loose_ref_packed_refs_a_detached_head_or_none(tmp_path: Path) -> None:
    git = tmp_path / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    assert git_commit(tmp_path) is None  # the branch has no commit yet
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{SHA} refs/heads/main\n")
    assert git_commit(tmp_path) == SHA
    other = SHA[::-1]
    (git / "refs" / "heads" / "main").write_text(other + "\n")
    assert git_commit(tmp_path) == other  # a loose ref wins over the packed one
    (git / "HEAD").write_text(SHA + "\n")
    assert git_commit(tmp_path) == SHA
    assert git_commit(tmp_path / "nowhere") is None


def test_commit_of_a_worktree_through_its_gitdir_file(tmp_path: Path) -> None:
    common = tmp_path / "repo.git"
    worktree_git = common / "worktrees" / "wt"
    worktree_git.mkdir(parents=True)
    (worktree_git / "HEAD").write_text("ref: refs/heads/feature\n")
    (worktree_git / "commondir").write_text("../..\n")
    (common / "refs" / "heads").mkdir(parents=True)
    (common / "refs" / "heads" / "feature").write_text(SHA + "\n")
    checkout = tmp_path / "wt"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert git_commit(checkout) == SHA
