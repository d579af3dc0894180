"""The validation harness: dataset rows -> simulator scenarios -> paper, model and simulation.

- :mod:`plan`: :class:`Check` (a row's scenarios and measure) and the suites' run lengths;
- :mod:`testbed`, :mod:`chapter3`, :mod:`slides`, :mod:`bscl`, :mod:`auge_roberts`: one module
  per family of datasets, turning rows into checks (:mod:`registry` maps names to them);
- :mod:`runner`: runs a suite's checks on a sweep pool (:mod:`validation.sweeps`);
- :mod:`verdict`: :class:`Comparison` and the rule agrees / disagrees / not reproducible here;
- :mod:`report`: report.json and report.html with a Plotly figure per dataset.
"""
