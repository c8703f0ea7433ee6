"""Virtual GB terminals: electric buses and vans over GB/T 32960 (2016 ``##`` and 2025 ``$$``) and heavy
diesel trucks over GB 17691 / HJ 1239, driven by the demo fleet's one driving model."""
