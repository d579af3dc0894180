"""The use cases of bufsize, one module each, between the edges and the domain.

The edges (the API's routers, the web form, the ``bufsize`` command line and the background
jobs) read their inputs in their own form (JSON bodies, form fields, options, job rows), turn
them into the domain's typed inputs, and call one function here; each gets typed results back
and writes them out in its own form. No edge calls another edge: a router never imports the
command line, the web form never goes through HTTP, a job never imports a router.

- :mod:`app.services.recommend`: every rule for a link, and one recommended size.
- :mod:`app.services.verify`: a recommendation checked by simulation (planned or run).
- :mod:`app.services.simulate`: packet-simulation runs, their limits and their jobs.
- :mod:`app.services.trace`: BSCL's parameters estimated from a packet trace, and its size.
- :mod:`app.services.device`: a buffer size as a device's configuration.
- :mod:`app.services.names`: each input's name in each edge's words (one table), and
  :class:`~app.services.names.FieldError`, the error a service raises for a bad input.
"""
