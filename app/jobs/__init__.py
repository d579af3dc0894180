"""Simulation jobs: persisted in a database, run by a bounded pool of workers, resumable.

- :mod:`app.jobs.spec` — a job's canonical request and the hashes that identify its runs;
- :mod:`app.jobs.tables` and :mod:`app.jobs.store` — jobs and results through SQLAlchemy;
- :mod:`app.jobs.worker` — one attempt at one job, as run in a worker process or Dask task;
- :mod:`app.jobs.runner` — the packet simulator seen from the jobs;
- :mod:`app.jobs.pool` — the bounded pool (local processes or Dask) and its dispatcher;
- :mod:`app.jobs.lifespan` — its start and stop in the FastAPI application.
"""
