"""The regulator in a box as the superior of JT/T 1078-2016 §8.1: an enterprise platform reports its codes of the
day (0x1701) and forwards a vehicle; a cross-region platform asks for that vehicle's codes (0x1702, table 40)
and gets them on its sub link (0x9702, table 41); a vehicle nobody forwarded in the last 5 minutes gets empty
codes."""

from __future__ import annotations

from datetime import timedelta

from exchange.regulator import Account, Regulator
from exchange.regulator.video import AUTHORIZE_WINDOW_S
from exchange.superior.links import now
from protocols.jt809 import messages as m
from tests.unit.exchange.inferior import Inferior, position, run, until
from tests.unit.exchange.test_regulator_links import FAST

PLATE, COLOUR = "京A12345", 2
ENTERPRISE, CROSS_REGION = 1001, 1002


def _ask(cross: Inferior, plate: str) -> None:
    cross.send(m.Authorize.MSG_ID, m.Authorize(plate, COLOUR, m.AuthorizeRequest.DATA_TYPE, m.AuthorizeRequest()))


def test_a_cross_region_request_gets_the_codes_of_the_vehicles_enterprise_platform_on_its_sub_link() -> None:
    async def scenario() -> None:
        reg = Regulator([Account(ENTERPRISE, "secret", 7001, "2011"), Account(CROSS_REGION, "other", 7002, "2011")],
                        timing=FAST)
        await reg.start()
        enterprise = Inferior(ENTERPRISE, "secret", 7001)
        cross = Inferior(CROSS_REGION, "other", 7002)
        try:
            for inferior in (enterprise, cross):
                await inferior.connect(reg.port)
            await until(lambda: all(lk["sub"]["state"] == "up" for lk in reg.status()["links"])
                        and len(reg.status()["links"]) == 2)
            enterprise.send(m.Authorize.MSG_ID, m.Authorize("", 0, m.AuthorizeReport.DATA_TYPE,
                                                            m.AuthorizeReport("7001", "H" * 64, "C" * 64)))
            enterprise.send(m.VehicleDynamic.MSG_ID, m.VehicleDynamic.position(PLATE, COLOUR, position(0)))
            await until(lambda: (PLATE, COLOUR) in reg.vehicle_sources and ENTERPRISE in reg.authorize_codes)

            _ask(cross, PLATE)
            answer = await cross.expect_sub(m.AuthorizeDown)
            assert (answer.plate, answer.plate_colour, answer.data_type) == (PLATE, COLOUR, 0x9702)
            assert answer.data == m.AuthorizeRequestAnswer("H" * 64, "C" * 64)

            _ask(cross, "京B99999")  # never forwarded
            assert (await cross.expect_sub(m.AuthorizeDown)).data == m.AuthorizeRequestAnswer("", "")

            # forwarded, but longer ago than the standard's 5 minutes
            reg.vehicle_sources[(PLATE, COLOUR)] = (ENTERPRISE, now() - timedelta(seconds=AUTHORIZE_WINDOW_S + 1))
            _ask(cross, PLATE)
            assert (await cross.expect_sub(m.AuthorizeDown)).data == m.AuthorizeRequestAnswer("", "")
            assert reg.status()["counts"]["authorize_requests"] == 3
        finally:
            await enterprise.close()
            await cross.close()
            await reg.stop()
    run(scenario)
