"""Short, stable OpenAPI operation ids for client generators: ``rules-bdp``, ``simulations-get``.

An operation's id is its path under ``/v1`` with the slashes made dashes and the path parameters
left out (``/v1/rules/sqrt-n`` is ``rules-sqrt-n``). The operations on a collection of resources
(:data:`COLLECTIONS`) add the verb: ``simulations-create`` (POST), ``simulations-get`` (GET of
one), ``simulations-cancel`` (DELETE). Ids change only when a path does.
"""

from __future__ import annotations

from fastapi.routing import APIRoute

#: Path segments that name a collection whose operations are told apart by a verb.
COLLECTIONS = frozenset({"simulations", "traces", "verifications"})
#: The verb of each method on a collection (``one`` with a path parameter, ``all`` without).
VERBS = {
    ("POST", "all"): "create",
    ("GET", "all"): "list",
    ("GET", "one"): "get",
    ("DELETE", "one"): "cancel",
}
#: The version prefix left out of the ids.
VERSION_SEGMENT = "v1"


def operation_id(route: APIRoute) -> str:
    """The operation id of ``route`` (FastAPI's ``generate_unique_id_function``)."""
    parts = [part for part in route.path_format.split("/") if part and part != VERSION_SEGMENT]
    names = [part for part in parts if not part.startswith("{")]
    base = "-".join(names)
    if not names or names[-1] not in COLLECTIONS:
        return base
    (method,) = route.methods or {"GET"}
    which = "one" if parts[-1].startswith("{") else "all"
    return f"{base}-{VERBS[method, which]}"
