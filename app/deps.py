"""The typed dependencies of the routes, in one place: ``JobPoolDep``, ``SettingsDep``.

Each alias is ``Annotated[T, Depends(provider)]``; a route names the alias and gets a ``T``, and
``app.dependency_overrides[provider]`` replaces it (the tests give a temporary database so).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from app.jobs.lifespan import get_job_pool, get_warmup
from app.jobs.pool import JobPool
from app.jobs.warmup import SimulatorWarmup
from app.settings import Settings, get_settings

#: The running simulation job pool (503 when it is not running).
JobPoolDep = Annotated[JobPool, Depends(get_job_pool)]
#: The service's settings.
SettingsDep = Annotated[Settings, Depends(get_settings)]
#: The start-up compile of the simulator (what a waiting check says meanwhile).
WarmupDep = Annotated[SimulatorWarmup, Depends(get_warmup)]
