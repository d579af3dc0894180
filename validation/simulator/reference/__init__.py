"""The simulator's test oracle: a short pure-Python twin of the compiled core.

``simulator.py`` (with ``bbr.py`` for BBR v1) runs the same scenarios event for event as
``validation/simulator/core``; the tests compare the two
(``tests/validation/test_sim_core_vs_reference.py``) and use the twin's readable state to check
mechanisms (RTO restart, DCTCP's echo, CoDel's count). It lives in the package so that the
studies (``studies/``) import it as they import the simulator; the service never imports it.
"""
