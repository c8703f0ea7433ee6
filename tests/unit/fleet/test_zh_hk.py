"""zh-HK is generated from zh-CN (``fleet zh-hk``): the committed files are the generator's output,
the conversion writes Hong Kong's terms, and the server applies the generated table."""

from __future__ import annotations

from click.testing import CliRunner

from api.errors import localise
from fleet.alarm_catalog import ALARMS, describe
from fleet.settings import REPO_ROOT
from fleet.zh_hk import to_hk
from fleet.zh_hk_build import PHRASES, converter, server_runs, stale, zh_hk_command


def test_committed_zh_hk_files_equal_the_generators_output() -> None:
    assert [str(path.relative_to(REPO_ROOT)) for path in stale()] == [], "run `fleet zh-hk` and commit"


def test_check_command_passes_on_the_committed_files() -> None:
    result = CliRunner().invoke(zh_hk_command, ["--check"])
    assert (result.exit_code, result.output.strip()) == (0, "zh-HK up to date")


def test_conversion_writes_hong_kong_terms_not_mainland_characters() -> None:
    convert = converter()
    assert convert("账户密码登录") == "帳戶密碼登入"
    assert convert("实时监控") == "即時監控"
    assert convert("车队") == "車隊"
    assert convert("请先点击“读取参数”") == "請先點擊「讀取參數」"
    assert convert("{{plate}} 超速报警") == "{{plate}} 超速報警"


def test_every_phrase_is_applied_as_reviewed() -> None:
    convert = converter()
    assert {term: convert(term) for term in PHRASES} == PHRASES


def test_server_table_holds_every_chinese_run_of_the_server_code() -> None:
    runs = server_runs(REPO_ROOT)
    assert "记录不存在" in runs and "前向碰撞报警" in runs and "实时监控" in runs


def test_server_texts_convert_whole_runs_and_runs_joined_with_values() -> None:
    assert to_hk("记录不存在") == "記錄不存在"
    assert to_hk("报警 12 不存在") == "報警 12 不存在"
    assert to_hk("plain English") == "plain English"


def test_error_messages_follow_zh_hk() -> None:
    assert localise("会话已失效，请重新登录 (session invalid)", "zh-HK") == "會話已失效，請重新登入"
    assert localise("会话已失效，请重新登录 (session invalid)", "zh-CN") == "会话已失效，请重新登录"


def test_alarm_names_in_zh_hk_are_the_generated_conversion() -> None:
    assert describe("a0", None, "zh-HK") == "緊急報警"
    assert describe("adas_1", 1, "zh-HK") == "一級 前向碰撞報警"
    assert describe("v0", None, "zh-HK") == "視像信號丟失報警"
    assert all(found.hk == to_hk(found.zh) for found in ALARMS.values())
