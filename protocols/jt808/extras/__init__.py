"""0x0200 additional-information items: the registry and the items bundled with fleetwatch.

Importing this package registers the standard items (0x01-0x31) and the JT/T 1078 video alarm
extension (0x14-0x18) and the Jiangsu 2017 active-safety items (0x64-0x67; the Guangdong 2019 layout
replaces them through ``protocols.jt808.variants``). A vendor module registers its own items with ``register_item``.
"""

from protocols.jt808.extras import (  # noqa: F401  (imported to register their items)
    ext_jt1078_video_alarms,
    scalars,
    x05_tyre_pressure,
    x06_carriage_temperature,
    x2b_analog,
    x11_overspeed_alarm,
    x12_area_alarm,
    x13_road_section_time,
    x64_adas_alarm,
    x65_dsm_alarm,
    x66_tpms_alarm,
    x67_bsd_alarm,
)
from protocols.jt808.extras.registry import (
    ItemSpec,
    UnknownItem,
    decode_items,
    encode_items,
    item_spec,
    register_item,
)

__all__ = ["ItemSpec", "UnknownItem", "decode_items", "encode_items", "item_spec", "register_item"]
