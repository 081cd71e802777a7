"""Where sleep's consolidations run: the engine seam (:mod:`.select`: the protocol, the local thread pool,
the choice by name), the optional Flyte engine (:mod:`.flyte_engine`, its scheduled task
:mod:`.flyte_schedule`, the SDK's import :mod:`.flyte_sdk`) and the engine's doctor checks (:mod:`.doctor`)."""
