"""Which inline-code spans of a notebook's prose are mathematics that belongs in TeX.

The notebooks' markdown writes symbols and formulas in TeX (``$N_b$``, ``$\\hat p$``,
``$C \\cdot T$``) so that MathJax typesets them as a reader of a derivation expects; inline code
(backticks) is kept for what really is code: a file, a module, a function or argument name.
``math_spans`` finds the spans that break this. The rule, applied to each backticked span after
Unicode NFD normalisation (so ``p̂`` is ``p`` plus a combining circumflex):

1. **Code, never flagged**: a file or path (``004_cb0749363e88d206.txt``,
   ``validation/simulator/optical_fifo.py``); a seed number (three digits, ``001``, as the seed
   files are named); a dotted path in one of the project's packages (``models.bscl``); or Python
   (it parses) whose every name is an identifier of the notebook's code cells or of the
   ``models`` package (``bscl_buffer``, ``packet_bytes``, ``capacity_bps/8``) and is not
   symbol-shaped (rule 2). A span that matches none of rules 1-4 (``D3[0]``, a figure's label)
   is not flagged either.
2. **A symbol**: one Latin or Greek letter, with optional accents (hat, tilde, bar), an
   optional subscript (``_b``, ``_max``, ``_{...}``, ``_(...)``) and an optional superscript
   (``^B``, ``^flt``): ``N_b``, ``p̂``, ``Ñ_b``, ``W_max``, ``ρ^B``, ``T``. Such a name is a
   symbol even where a code cell happens to use it for the SymPy variable (``B``, ``T``): prose
   that writes it means the quantity.
3. **A formula**: any Greek letter, combining accent or mathematical operator
   (``· √ = ≤ ≥ < > ≈ ≡ ± × − ^ ⌈ ⌉ | + * /`` and the like, or a range's ``..``): ``C·T``,
   ``√N``, ``B = C·RTT``, ``S -> 1``, ``0..B``; or symbols under a function written by name
   (``log``, ``ln``, ``exp``, ``min``, ...): ``log N``, ``O(log N)``.
4. **A number**: ``0.70``, ``1e-9``, ``[0, 1]``, ``1, 2, ...``.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import jupytext

REPO_ROOT = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO_ROOT / "models"

SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)*)`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_LETTER = r"[A-Za-z\u0370-\u03ff]"
_ACCENTS = r"[\u0300-\u036f]*"
_SCRIPT = r"(?:\w+|\{[^}]*\}|\([^)]*\))"
SYMBOL = re.compile(rf"^{_LETTER}{_ACCENTS}(?:_{_SCRIPT})?(?:\^{_SCRIPT})?[²³′']*$")
GREEK = re.compile(r"[\u0370-\u03ff]")
ACCENT = re.compile(r"[\u0300-\u036f]")
OPERATORS = frozenset("·√=≤≥<>≈≡≠±×÷−∑∏∞⌈⌉⌊⌋∂∫²³^|+*/")
NUMBER = re.compile(r"^(?:[\d\s.,\[\]()%…-]*\d[\d\s.,\[\]()%…-]*|\d+(?:\.\d+)?e[-+]?\d+)$")
#: Functions written by name in formulas (``log N``, ``O(log N)``, ``max{B_ρ, B_p}``).
MATH_FUNCTIONS = frozenset({"log", "ln", "exp", "erf", "min", "max", "Pr", "sqrt", "lim", "sup"})
WORD = re.compile(r"[A-Za-z\u0370-\u03ff][A-Za-z0-9_\u0300-\u036f]*")
PATH = re.compile(r"^[\w.-]+(?:/[\w.-]+)*\.(?:txt|py|html|json|csv|md|toml|ya?ml)$")
SEED_NUMBER = re.compile(r"^\d{3}$")
PACKAGE_PATH = re.compile(r"^(?:models|app|validation|notebooks|tests)(?:\.\w+)*$")


def _names(tree: ast.AST) -> set[str]:
    """Every identifier a piece of Python defines, reads, imports or passes as a keyword."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.update(part for part in (node.name, node.asname) if part)
    return names


@cache
def models_identifiers() -> frozenset[str]:
    """Identifiers of the ``models`` package: functions, arguments, result fields."""
    names: set[str] = set()
    for path in MODELS_DIR.rglob("*.py"):
        names |= _names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def markdown_and_code(path: Path) -> tuple[list[str], list[str]]:
    """The sources of a percent-format notebook's markdown cells and of its code cells."""
    notebook = jupytext.read(path)
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    return markdown, code


def code_identifiers(code_cells: Iterable[str]) -> frozenset[str]:
    """Identifiers of a notebook's code cells (IPython magics are skipped)."""
    names: set[str] = set()
    for source in code_cells:
        lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
        names |= _names(ast.parse("\n".join(lines)))
    return frozenset(names)


def is_symbol(span: str) -> bool:
    """One letter with optional accents, subscript and superscript (rule 2)."""
    return SYMBOL.match(unicodedata.normalize("NFD", span.strip())) is not None


def is_code(span: str, identifiers: frozenset[str]) -> bool:
    """A file, seed number, package path or known Python (rule 1)."""
    text = span.strip()
    if PATH.match(text) or SEED_NUMBER.match(text) or PACKAGE_PATH.match(text):
        return True
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    names = _names(tree)
    return bool(names) and all(n in identifiers and not is_symbol(n) for n in names)


def is_mathematical(span: str, identifiers: frozenset[str] = frozenset()) -> bool:
    """Whether an inline-code span is mathematics by the module's rule (see its docstring)."""
    text = unicodedata.normalize("NFD", " ".join(span.split()))
    if not text or is_code(text, identifiers | models_identifiers()):
        return False
    return bool(
        SYMBOL.match(text)
        or GREEK.search(text)
        or ACCENT.search(text)
        or any(ch in OPERATORS for ch in text)
        or ".." in text
        or NUMBER.match(text)
        or _is_function_of_symbols(text)
    )


def _is_function_of_symbols(text: str) -> bool:
    """Symbols and named functions only, at least one of each: ``log N``, ``O(log N)``."""
    words = WORD.findall(text)
    functions = [w for w in words if w in MATH_FUNCTIONS]
    others = [w for w in words if w not in MATH_FUNCTIONS]
    return bool(functions) and all(SYMBOL.match(w) for w in others) and bool(others)


def math_spans(markdown_cells: Iterable[str], identifiers: frozenset[str]) -> list[str]:
    """The inline-code spans of the markdown cells that are mathematics, in order."""
    return [
        span
        for source in markdown_cells
        for span in SPAN.findall(FENCE.sub("", source))
        if is_mathematical(span, identifiers)
    ]
